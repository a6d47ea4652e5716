// Package imagetest makes container images for tests: bundle and catalog
// images built from directories, hand-written layers (hostile ones too),
// multi-platform indexes, OCI layouts and archives, and an in-process
// registry that counts requests and injects failures. It is test support for
// image/ and the packages and CLI tests above it; production code never
// imports it.
package imagetest

import (
	"archive/tar"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"sigs.k8s.io/yaml"
)

// Labels read by fbc (mirrors of image.Label*, kept here so the package
// stands alone).
const (
	labelBundlePackage   = "operators.operatorframework.io.bundle.package.v1"
	labelBundleManifests = "operators.operatorframework.io.bundle.manifests.v1"
	labelBundleMetadata  = "operators.operatorframework.io.bundle.metadata.v1"
	labelCatalogConfigs  = "operators.operatorframework.io.index.configs.v1"
)

// Entry is one tar entry of a hand-written layer. Type is a tar type flag
// (tar.TypeReg when zero); Size, when set, overrides len(Body) in the header
// with Body repeated or cut to fit (for oversized entries without a big
// Body).
type Entry struct {
	Name     string
	Type     byte
	Body     []byte
	Linkname string
	Mode     int64
	Size     int64
}

// epoch is the modification time of every entry: layers are reproducible.
var epoch = time.Unix(0, 0).UTC()

// Layer builds a gzip-compressed layer holding entries in the given order.
// Names are written verbatim, so hostile names ("../x", "/etc/x") are
// possible.
func Layer(entries ...Entry) (v1.Layer, error) {
	opener := func() (io.ReadCloser, error) {
		pr, pw := io.Pipe()
		go func() { pw.CloseWithError(writeTar(pw, entries)) }()
		return pr, nil
	}
	return tarball.LayerFromOpener(opener)
}

func writeTar(w io.Writer, entries []Entry) error {
	tw := tar.NewWriter(w)
	for _, e := range entries {
		h := &tar.Header{Name: e.Name, Typeflag: e.Type, Linkname: e.Linkname, Mode: e.Mode, ModTime: epoch, Format: tar.FormatPAX}
		if h.Typeflag == 0 {
			h.Typeflag = tar.TypeReg
		}
		if h.Mode == 0 {
			h.Mode = 0o644
			if h.Typeflag == tar.TypeDir {
				h.Mode = 0o755
			}
		}
		if h.Typeflag == tar.TypeReg {
			h.Size = int64(len(e.Body))
			if e.Size > 0 {
				h.Size = e.Size
			}
		}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if h.Typeflag == tar.TypeReg && h.Size > 0 {
			if err := writeRepeated(tw, e.Body, h.Size); err != nil {
				return err
			}
		}
	}
	return tw.Close()
}

// writeRepeated writes n bytes of body, repeated (zeros if body is empty).
func writeRepeated(w io.Writer, body []byte, n int64) error {
	if len(body) == 0 {
		body = make([]byte, 32<<10)
	}
	for n > 0 {
		chunk := body
		if int64(len(chunk)) > n {
			chunk = chunk[:n]
		}
		if _, err := w.Write(chunk); err != nil {
			return err
		}
		n -= int64(len(chunk))
	}
	return nil
}

// DirEntries lists the tree under dir as layer entries placed under root
// ("" for the image root): sorted, directories first in each walk, regular
// files and symbolic links kept as they are.
func DirEntries(dir, root string) ([]Entry, error) {
	var out []Entry
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		name := path.Join(root, filepath.ToSlash(rel))
		if name == "." || name == "" {
			return nil
		}
		switch {
		case d.IsDir():
			out = append(out, Entry{Name: name + "/", Type: tar.TypeDir})
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			out = append(out, Entry{Name: name, Type: tar.TypeSymlink, Linkname: target, Mode: 0o777})
		case d.Type().IsRegular():
			body, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out = append(out, Entry{Name: name, Body: body})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Parents of root itself, so the tree is complete.
	var parents []Entry
	for d := root; d != "" && d != "." && d != "/"; d = path.Dir(d) {
		parents = append([]Entry{{Name: d + "/", Type: tar.TypeDir}}, parents...)
	}
	return append(parents, out...), nil
}

// Config describes the image config of a test image.
type Config struct {
	Labels   map[string]string
	Platform string // os/arch[/variant]; default linux/amd64
	// Entrypoint and Cmd are what a container of the image runs.
	Entrypoint, Cmd []string
}

// Image builds an image from layers (base first) and a config.
func Image(cfg Config, layers ...v1.Layer) (v1.Image, error) {
	img, err := mutate.AppendLayers(empty.Image, layers...)
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	plat := cfg.Platform
	if plat == "" {
		plat = "linux/amd64"
	}
	p, err := v1.ParsePlatform(plat)
	if err != nil {
		return nil, err
	}
	cf.OS, cf.Architecture, cf.Variant = p.OS, p.Architecture, p.Variant
	cf.Created = v1.Time{Time: epoch}
	cf.Config.Labels = cfg.Labels
	cf.Config.Entrypoint, cf.Config.Cmd = cfg.Entrypoint, cfg.Cmd
	return mutate.ConfigFile(img, cf)
}

// BundleImage builds a bundle image from a bundle directory the way a
// bundle Dockerfile would: manifests/ and metadata/ copied to the image
// root, and metadata/annotations.yaml's annotations as labels.
func BundleImage(dir, platform string) (v1.Image, error) {
	labels, err := bundleLabels(dir)
	if err != nil {
		return nil, err
	}
	var entries []Entry
	for _, sub := range []string{"manifests", "metadata"} {
		if _, err := os.Stat(filepath.Join(dir, sub)); err != nil {
			return nil, fmt.Errorf("bundle %s: %w", dir, err)
		}
		es, err := DirEntries(filepath.Join(dir, sub), sub)
		if err != nil {
			return nil, err
		}
		entries = append(entries, es...)
	}
	l, err := Layer(entries...)
	if err != nil {
		return nil, err
	}
	return Image(Config{Labels: labels, Platform: platform}, l)
}

func bundleLabels(dir string) (map[string]string, error) {
	data, err := os.ReadFile(filepath.Join(dir, "metadata", "annotations.yaml"))
	if err != nil {
		return nil, fmt.Errorf("bundle %s: %w", dir, err)
	}
	var doc struct {
		Annotations map[string]string `json:"annotations"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("bundle %s: metadata/annotations.yaml: %w", dir, err)
	}
	if doc.Annotations[labelBundlePackage] == "" {
		return nil, fmt.Errorf("bundle %s: metadata/annotations.yaml has no %s", dir, labelBundlePackage)
	}
	labels := map[string]string{}
	for k, v := range doc.Annotations {
		labels[k] = v
	}
	if labels[labelBundleManifests] == "" {
		labels[labelBundleManifests] = "manifests/"
	}
	if labels[labelBundleMetadata] == "" {
		labels[labelBundleMetadata] = "metadata/"
	}
	return labels, nil
}

// CatalogImage builds a catalog image: the FBC directory dir at /configs and
// the configs label.
func CatalogImage(dir, platform string) (v1.Image, error) {
	entries, err := DirEntries(dir, "configs")
	if err != nil {
		return nil, err
	}
	l, err := Layer(entries...)
	if err != nil {
		return nil, err
	}
	return Image(Config{Labels: map[string]string{labelCatalogConfigs: "/configs"}, Platform: platform}, l)
}

// Index builds a multi-platform image index from images, taking each
// entry's platform from the image's config.
func Index(images ...v1.Image) (v1.ImageIndex, error) {
	var adds []mutate.IndexAddendum
	for _, img := range images {
		cf, err := img.ConfigFile()
		if err != nil {
			return nil, err
		}
		adds = append(adds, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{
			Platform: &v1.Platform{OS: cf.OS, Architecture: cf.Architecture, Variant: cf.Variant},
		}})
	}
	return mutate.AppendManifests(empty.Index, adds...), nil
}

// ParseEntries reads a layer written as text, one entry a line, for CLI
// tests (see the push-image harness command):
//
//	file NAME [CONTENT...]     a regular file (CONTENT joined by spaces, may be empty)
//	file NAME @PATH            a regular file with the content of PATH (relative to base)
//	big NAME SIZE              a regular file of SIZE bytes (K, M, G suffixes)
//	dir NAME
//	symlink NAME TARGET
//	hardlink NAME TARGET
//	fifo NAME
//	whiteout NAME              the .wh. entry deleting NAME
//	opaque DIR                 the .wh..wh..opq marker of DIR
//
// Blank lines and lines starting with # are ignored.
func ParseEntries(text, base string) ([]Entry, error) {
	var out []Entry
	for i, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		bad := func(msg string) error { return fmt.Errorf("line %d: %q: %s", i+1, line, msg) }
		if len(f) < 2 {
			return nil, bad("want KIND NAME ...")
		}
		kind, name, args := f[0], f[1], f[2:]
		switch kind {
		case "file":
			e := Entry{Name: name, Body: []byte(strings.Join(args, " "))}
			if len(args) == 1 && strings.HasPrefix(args[0], "@") {
				body, err := os.ReadFile(filepath.Join(base, args[0][1:]))
				if err != nil {
					return nil, bad(err.Error())
				}
				e.Body = body
			}
			out = append(out, e)
		case "big":
			if len(args) != 1 {
				return nil, bad("want big NAME SIZE")
			}
			n, err := parseSize(args[0])
			if err != nil {
				return nil, bad(err.Error())
			}
			out = append(out, Entry{Name: name, Size: n})
		case "dir":
			out = append(out, Entry{Name: name, Type: tar.TypeDir})
		case "symlink", "hardlink":
			if len(args) != 1 {
				return nil, bad("want " + kind + " NAME TARGET")
			}
			t := byte(tar.TypeSymlink)
			if kind == "hardlink" {
				t = tar.TypeLink
			}
			out = append(out, Entry{Name: name, Type: t, Linkname: args[0]})
		case "fifo":
			out = append(out, Entry{Name: name, Type: tar.TypeFifo})
		case "whiteout":
			out = append(out, Entry{Name: path.Join(path.Dir(name), ".wh."+path.Base(name))})
		case "opaque":
			out = append(out, Entry{Name: path.Join(name, ".wh..wh..opq")})
		default:
			return nil, bad("unknown entry kind " + kind)
		}
	}
	return out, nil
}

func parseSize(s string) (int64, error) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, strings.TrimSuffix(s, "K")
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, strings.TrimSuffix(s, "G")
	}
	var n int64
	if _, err := fmt.Sscanf(s, "%d", &n); err != nil || n < 0 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return n * mult, nil
}
