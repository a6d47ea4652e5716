package image

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/fbc-project/fbc/internal/atomicfile"
)

// ConfigsLabel is the label that tells OLM where a catalog image keeps its
// file-based catalog.
const ConfigsLabel = LabelCatalogConfigs

// ConfigsDir is where catalog images keep the catalog.
const ConfigsDir = "/configs"

// DefaultBaseImage is opm's default base and builder image.
const DefaultBaseImage = "quay.io/operator-framework/opm:latest"

// Scratch names the empty base image of binary-less catalog images.
const Scratch = "scratch"

// DockerfileOptions are the inputs of a catalog Dockerfile.
type DockerfileOptions struct {
	// BaseImage is the image the catalog is served from; "scratch" makes a
	// binary-less image. Empty means DefaultBaseImage.
	BaseImage string
	// BuilderImage runs `opm serve --cache-only` to pre-build the serve
	// cache; it needs /bin/opm, so it cannot be scratch. Empty means
	// DefaultBaseImage.
	BuilderImage string
	// Labels are extra image labels, written in sorted key order.
	Labels map[string]string
}

func (o DockerfileOptions) withDefaults() DockerfileOptions {
	if o.BaseImage == "" {
		o.BaseImage = DefaultBaseImage
	}
	if o.BuilderImage == "" {
		o.BuilderImage = DefaultBaseImage
	}
	return o
}

// Dockerfile returns the Dockerfile opm generates for a catalog directory
// named catalogDir (a single path element, relative to the build context).
// For names and labels opm handles, the text is byte for byte opm's; where
// opm writes a broken Dockerfile (quotes in label values, spaces in the
// directory name) fbc quotes correctly, and it refuses what a Dockerfile
// cannot express.
func Dockerfile(catalogDir string, opts DockerfileOptions) ([]byte, error) {
	opts = opts.withDefaults()
	if opts.BuilderImage == Scratch {
		return nil, fmt.Errorf("invalid builder image %q: the builder stage runs /bin/opm", Scratch)
	}
	for _, img := range []string{opts.BaseImage, opts.BuilderImage} {
		if strings.ContainsFunc(img, unicode.IsSpace) {
			return nil, fmt.Errorf("invalid image reference %q: it contains white space", img)
		}
	}
	src, err := addSource(catalogDir)
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(opts.Labels))
	for k := range opts.Labels {
		if err := CheckLabel(k, opts.Labels[k]); err != nil {
			return nil, err
		}
		if err := dockerfileLabelOK(k, opts.Labels[k]); err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)

	var b strings.Builder
	b.WriteString("# The builder image is expected to contain\n")
	b.WriteString("# /bin/opm (with serve subcommand)\n")
	fmt.Fprintf(&b, "FROM %s as builder\n\n", opts.BuilderImage)
	b.WriteString("# Copy FBC root into image at /configs and pre-populate serve cache\n")
	fmt.Fprintf(&b, "ADD %s\n", src)
	b.WriteString(`RUN ["/bin/opm", "serve", "/configs", "--cache-dir=/tmp/cache", "--cache-only"]` + "\n\n")
	fmt.Fprintf(&b, "FROM %s\n", opts.BaseImage)
	if opts.BaseImage != Scratch {
		b.WriteString("# The base image is expected to contain\n")
		b.WriteString("# /bin/opm (with serve subcommand) and /bin/grpc_health_probe\n\n")
		b.WriteString("# Configure the entrypoint and command\n")
		b.WriteString(`ENTRYPOINT ["/bin/opm"]` + "\n")
		b.WriteString(`CMD ["serve", "/configs", "--cache-dir=/tmp/cache"]` + "\n")
	} else {
		b.WriteString("# OLMv0 CatalogSources that use binary-less images must set:\n")
		b.WriteString("# spec:\n")
		b.WriteString("#   grpcPodConfig:\n")
		b.WriteString("#     extractContent:\n")
		b.WriteString("#       catalogDir: /configs\n")
		b.WriteString("#       cacheDir: /tmp/cache\n")
	}
	b.WriteString("\nCOPY --from=builder /configs /configs\n")
	b.WriteString("COPY --from=builder /tmp/cache /tmp/cache\n\n")
	b.WriteString("# Set FBC-specific label for the location of the FBC root directory\n")
	b.WriteString("# in the image\n")
	fmt.Fprintf(&b, "LABEL %s=%s\n", ConfigsLabel, ConfigsDir)
	if len(keys) > 0 {
		b.WriteString("\n# Set other custom labels\n")
		for _, k := range keys {
			fmt.Fprintf(&b, "LABEL %s=%s\n", dockerfileQuote(k), dockerfileQuote(opts.Labels[k]))
		}
	}
	return []byte(b.String()), nil
}

// CheckLabel rejects labels fbc will not put on a catalog image: an empty key,
// and the configs label, which fbc sets itself (a second value would move
// the catalog out of OLM's sight).
func CheckLabel(key, value string) error {
	if key == "" {
		return fmt.Errorf("invalid label %q: the key is empty", key+"="+value)
	}
	if key == ConfigsLabel {
		return fmt.Errorf("label %s is set by fbc to %s and cannot be overridden", ConfigsLabel, ConfigsDir)
	}
	return nil
}

// dockerfileLabelOK refuses what a LABEL instruction cannot carry: a line
// break ends the instruction, and there is no escape for it inside quotes.
func dockerfileLabelOK(key, value string) error {
	for _, s := range []string{key, value} {
		if strings.ContainsFunc(s, isLineBreakOrControl) {
			return fmt.Errorf("label %q: a Dockerfile LABEL cannot hold line breaks or control characters", key)
		}
	}
	return nil
}

func isLineBreakOrControl(r rune) bool {
	return r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029' || (unicode.IsControl(r) && r != '\t')
}

// dockerfileQuote writes s as a double-quoted Dockerfile word. Inside double
// quotes BuildKit's shell lexer treats a backslash before '"', '$' or '\' as
// an escape and expands '$'; every other character stands for itself. opm
// writes values unescaped, which breaks on '"' and expands '$'.
func dockerfileQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		if r == '"' || r == '$' || r == '\\' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

// addSource is the ADD arguments for the catalog directory: the bare name as opm
// writes it, or the JSON form when the name contains white space. Names that
// neither form can carry literally are refused.
func addSource(name string) (string, error) {
	switch {
	case name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/`):
		return "", fmt.Errorf("invalid catalog directory name %q: it must be a single path element", name)
	case strings.HasPrefix(name, "--"):
		return "", fmt.Errorf("catalog directory name %q starts with \"--\", which ADD reads as a flag: rename the directory", name)
	case strings.ContainsAny(name, "$\\\"'") || strings.ContainsFunc(name, unicode.IsControl):
		return "", fmt.Errorf("catalog directory name %q contains a character a Dockerfile would interpret ($, \\, quotes or a control character): rename the directory", name)
	case strings.ContainsFunc(name, unicode.IsSpace) || strings.HasPrefix(name, "["):
		// No '"', '\\' or control characters remain, so this is valid JSON.
		return `["` + name + `", "/configs"]`, nil
	}
	return name + " /configs", nil
}

// WriteDockerfile writes the Dockerfile for the catalog directory dir next to
// it, as <parent>/<name>.Dockerfile (the build context is the parent, as with
// opm), and returns its path. An existing file is refused unless force; the
// file appears whole or not at all.
func WriteDockerfile(dir string, opts DockerfileOptions, force bool) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("catalog directory: %w", err)
	}
	if !st.IsDir() {
		return "", fmt.Errorf("%s is not a directory", dir)
	}
	parent, name := filepath.Split(abs)
	if name == "" {
		return "", fmt.Errorf("%s has no parent directory to hold the Dockerfile and serve as build context", dir)
	}
	text, err := Dockerfile(name, opts)
	if err != nil {
		return "", err
	}
	out := filepath.Join(parent, name+".Dockerfile")
	// Report the path the way the user named the directory: relative to the
	// working directory when the directory was named relatively.
	shown := out
	if !filepath.IsAbs(dir) {
		if wd, err := os.Getwd(); err == nil {
			if rel, err := filepath.Rel(wd, out); err == nil {
				shown = rel
			}
		}
	}
	write := atomicfile.WriteNew
	if force {
		write = atomicfile.WriteFile
	}
	if err := write(out, text, 0o644); err != nil {
		var exists *atomicfile.ExistsError
		if errors.As(err, &exists) {
			exists.Path = shown
			return "", exists
		}
		return "", fmt.Errorf("writing %s: %w", shown, err)
	}
	return shown, nil
}
