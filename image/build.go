package image

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The entrypoint and command of a catalog image built on an opm base image.
// The generated Dockerfile runs `opm serve /configs --cache-dir=/tmp/cache`,
// which enforces the integrity of a cache pre-built during `docker build`.
// fbc runs no container, so it cannot pre-build that cache (its format and
// digest belong to the opm release in the base image); the command serves
// without --cache-dir instead, and opm builds its cache in a temporary
// directory at startup. docs/build.md explains the trade-off.
var (
	catalogEntrypoint = []string{"/bin/opm"}
	catalogCmd        = []string{"serve", ConfigsDir}
)

// BuildOptions configure a catalog image build.
type BuildOptions struct {
	// BaseImage is the image the catalog is added to: a reference Open
	// understands, or "scratch" for a binary-less image (no base layers, no
	// entrypoint). Empty means DefaultBaseImage.
	BaseImage string
	// Platforms to build. One platform builds one image; several build an
	// image index with one image per platform, each on the base's image for
	// that platform, all sharing the catalog layer. Empty means
	// Pull.Platform, or DefaultPlatform.
	Platforms []string
	// Labels are extra labels, on top of the base image's and the configs
	// label.
	Labels map[string]string
	// Created is the image's creation time and the modification time of
	// every file in the catalog layer. The zero value means the Unix epoch,
	// so that builds are reproducible by default.
	Created time.Time
	// Pull says how the base image is pulled and the result pushed; its
	// Warn receives the build's warnings too.
	Pull Options
	// TempDir holds the layer file while the build lives; empty means the
	// system default.
	TempDir string
	// ServerBinaries, when set, make the catalog served by fbc instead of
	// opm: Linux fbc executables, one per platform built (read from their
	// ELF headers); each image gets its platform's at /bin/fbc, in a layer
	// of its own, with ENTRYPOINT ["/bin/fbc"] CMD ["serve", "/configs"].
	// With BaseImage scratch that layer and the catalog are the whole
	// image, so the executables must be statically linked.
	ServerBinaries []string
}

// CatalogImage is a built catalog image, or an index of them (one per
// platform). Its layer lives in a temporary file until Close.
type CatalogImage struct {
	img   v1.Image      // one platform
	index v1.ImageIndex // several platforms
	layer *catalogLayer
}

// BuildCatalogImage builds a catalog image from the catalog directory dir:
// the base image plus one reproducible layer holding dir at /configs, the
// configs label and, unless the base is scratch, opm's entrypoint and serve
// command; with ServerBinaries, a layer with fbc below the catalog's and
// fbc's entrypoint and serve command instead. It does not validate the
// catalog; callers do that first.
func BuildCatalogImage(ctx context.Context, dir string, opts BuildOptions) (*CatalogImage, error) {
	platforms, servers, err := checkBuild(opts)
	if err != nil {
		return nil, err
	}
	return buildCatalogImage(ctx, dir, opts, platforms, servers)
}

// checkBuild checks what opts ask of a build before any work: the labels,
// the platforms, and with ServerBinaries one that runs on each platform
// (statically linked for a scratch image).
func checkBuild(opts BuildOptions) ([]v1.Platform, map[string]*serverBinary, error) {
	for k, v := range opts.Labels {
		if err := CheckLabel(k, v); err != nil {
			return nil, nil, err
		}
	}
	platforms, err := buildPlatforms(opts)
	if err != nil {
		return nil, nil, err
	}
	if len(opts.ServerBinaries) == 0 {
		return platforms, nil, nil
	}
	servers, err := serverBinaries(opts.ServerBinaries)
	if err != nil {
		return nil, nil, err
	}
	for _, p := range platforms {
		if _, err := serverFor(servers, p, opts.BaseImage == Scratch); err != nil {
			return nil, nil, err
		}
	}
	return platforms, servers, nil
}

// buildCatalogImage is BuildCatalogImage once checkBuild has passed.
func buildCatalogImage(ctx context.Context, dir string, opts BuildOptions, platforms []v1.Platform, servers map[string]*serverBinary) (_ *CatalogImage, err error) {
	if opts.BaseImage == "" {
		opts.BaseImage = DefaultBaseImage
	}
	created := opts.Created
	if created.IsZero() {
		created = time.Unix(0, 0)
	}
	created = created.UTC()

	// The layer first: a catalog that cannot be packed fails before any
	// network traffic.
	layer, err := buildCatalogLayer(ctx, dir, created, types.OCILayer, opts.TempDir)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			layer.remove()
		}
	}()
	scratch := opts.BaseImage == Scratch
	var adds []mutate.IndexAddendum
	for _, p := range platforms {
		var base v1.Image
		if scratch {
			base, err = scratchImage(p)
		} else {
			pull := opts.Pull
			pull.Platform = p.String()
			base, err = openBaseImage(ctx, opts.BaseImage, pull)
		}
		if err != nil {
			return nil, err
		}
		if err := checkBasePlatform(base, p, len(platforms) > 1, opts); err != nil {
			return nil, err
		}
		entrypoint, cmd := catalogEntrypoint, catalogCmd
		switch {
		case servers != nil:
			sb, err := serverFor(servers, p, scratch)
			if err != nil {
				return nil, err
			}
			sl, err := serverLayer(sb, created)
			if err != nil {
				return nil, err
			}
			if base, err = mutate.Append(base, mutate.Addendum{Layer: sl, MediaType: types.OCILayer, History: v1.History{
				Created: v1.Time{Time: created}, CreatedBy: "COPY fbc /bin/fbc # fbc build", Comment: "fbc build"}}); err != nil {
				return nil, err
			}
			entrypoint, cmd = fbcEntrypoint, fbcCmd
		case scratch:
			entrypoint, cmd = nil, nil
		}
		img, err := catalogImage(base, layer, entrypoint, cmd, opts.Labels, created)
		if err != nil {
			return nil, fmt.Errorf("assembling the image for %s: %w", p, err)
		}
		if len(platforms) == 1 {
			return &CatalogImage{img: img, layer: layer}, nil
		}
		adds = append(adds, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &p}})
	}
	index := mutate.AppendManifests(mutate.IndexMediaType(empty.Index, types.OCIImageIndex), adds...)
	return &CatalogImage{index: index, layer: layer}, nil
}

// buildPlatforms parses and checks the platforms to build.
func buildPlatforms(opts BuildOptions) ([]v1.Platform, error) {
	if len(opts.Platforms) > 0 {
		return parseBuildPlatforms(opts.Platforms)
	}
	n := opts.Pull.Platform
	if n == "" {
		n = DefaultPlatform
	}
	return parseBuildPlatforms([]string{n})
}

// CheckBuildPlatforms checks platforms as BuildOptions.Platforms takes them,
// so that a command can refuse a bad flag before any work.
func CheckBuildPlatforms(names []string) error {
	_, err := parseBuildPlatforms(names)
	return err
}

// The values an image's platform is built with: the GOOS and GOARCH values
// that the OCI image spec says platforms use (config.md, "os" and
// "architecture"), and the variants it lists (image-index.md) with arm's v5.
// Written as given, a name such as Linux/AMD64 would make an image no
// runtime picks.
var (
	knownOS = []string{"aix", "android", "darwin", "dragonfly", "freebsd", "illumos", "ios", "js",
		"linux", "netbsd", "openbsd", "plan9", "solaris", "wasip1", "windows"}
	knownArch = []string{"386", "amd64", "arm", "arm64", "loong64", "mips", "mips64", "mips64le", "mipsle",
		"ppc64", "ppc64le", "riscv64", "s390x", "wasm"}
	knownVariants = map[string][]string{"arm": {"v5", "v6", "v7", "v8"}, "arm64": {"v8"}}
)

// parseBuildPlatforms parses os/arch[/variant] platforms, each of known
// values, none given twice.
func parseBuildPlatforms(names []string) ([]v1.Platform, error) {
	var out []v1.Platform
	seen := map[string]bool{}
	for _, n := range names {
		if n == "" {
			return nil, fmt.Errorf("empty platform in %q (a comma too many?)", strings.Join(names, ","))
		}
		p, err := parsePlatform(n)
		if err != nil {
			return nil, err
		}
		if p.OSVersion != "" || len(p.OSFeatures) > 0 {
			return nil, fmt.Errorf("invalid platform %q: want os/arch[/variant], e.g. linux/arm64", n)
		}
		if err := checkPlatformValue(n, "os", p.OS, knownOS); err != nil {
			return nil, err
		}
		if err := checkPlatformValue(n, "architecture", p.Architecture, knownArch); err != nil {
			return nil, err
		}
		if p.Variant != "" {
			variants := knownVariants[p.Architecture]
			if len(variants) == 0 {
				return nil, fmt.Errorf("invalid platform %q: architecture %s has no variants", n, p.Architecture)
			}
			if err := checkPlatformValue(n, p.Architecture+" variant", p.Variant, variants); err != nil {
				return nil, err
			}
		}
		if seen[p.String()] {
			return nil, fmt.Errorf("platform %s given twice", p)
		}
		seen[p.String()] = true
		out = append(out, p)
	}
	return out, nil
}

func checkPlatformValue(platform, what, v string, known []string) error {
	if slices.Contains(known, v) {
		return nil
	}
	hint := ""
	if lower := strings.ToLower(v); lower != v && slices.Contains(known, lower) {
		hint = fmt.Sprintf(" (platforms are written in lower case: %s)", lower)
	}
	return fmt.Errorf("invalid platform %q: %s %q is not one of %s%s", platform, what, v, strings.Join(known, ", "), hint)
}

// checkBasePlatform catches a base that is a single image of another
// platform than asked for: in an index that would be a lie (an error), for a
// single image a warning.
func checkBasePlatform(base v1.Image, want v1.Platform, multi bool, opts BuildOptions) error {
	cf, err := base.ConfigFile()
	if err != nil {
		return err
	}
	have := v1.Platform{OS: cf.OS, Architecture: cf.Architecture, Variant: cf.Variant}
	if have.Satisfies(want) {
		return nil
	}
	if multi {
		return fmt.Errorf("base image %s has no %s image (it is %s)", opts.BaseImage, want.String(), have.String())
	}
	opts.Pull.Warn.Printf("base image %s is %s, not %s; the catalog image is %s", opts.BaseImage, have.String(), want.String(), have.String())
	return nil
}

// Digest is the digest of the image's manifest, or of the index's.
func (c *CatalogImage) Digest() (string, error) {
	var d v1.Hash
	var err error
	if c.index != nil {
		d, err = c.index.Digest()
	} else {
		d, err = c.img.Digest()
	}
	if err != nil {
		return "", err
	}
	return d.String(), nil
}

// Close removes the layer's temporary file.
func (c *CatalogImage) Close() error { return c.layer.remove() }

// scratchImage is the empty base of binary-less catalog images: an OCI image
// with no layers whose config names the target platform (runtimes and
// registries expect one even for an image that runs nothing).
func scratchImage(p v1.Platform) (v1.Image, error) {
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Variant = p.OS, p.Architecture, p.Variant
	return mutate.ConfigFile(img, cf)
}

// catalogImage appends the catalog layer to base and sets what the generated
// Dockerfile sets: the configs label, extra labels, and the entrypoint and
// command of the server (none when entrypoint is nil). History records each
// step, with a fixed time.
func catalogImage(base v1.Image, layer *catalogLayer, entrypoint, command []string, labels map[string]string, created time.Time) (v1.Image, error) {
	at := v1.Time{Time: created}
	img, err := mutate.Append(base, mutate.Addendum{
		Layer:     layer,
		MediaType: layer.mediaType,
		History: v1.History{
			Created:   at,
			CreatedBy: "COPY catalog " + ConfigsDir + " # fbc build",
			Comment:   "fbc build",
		},
	})
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.Created = at
	step := func(createdBy string) {
		cf.History = append(cf.History, v1.History{Created: at, CreatedBy: createdBy, Comment: "fbc build", EmptyLayer: true})
	}
	if slices.Equal(entrypoint, fbcEntrypoint) {
		if !slices.ContainsFunc(cf.Config.Env, func(e string) bool { return strings.HasPrefix(e, "PATH=") }) {
			cf.Config.Env = append(cf.Config.Env, defaultPath)
			step("ENV " + defaultPath)
		}
		// Not root, as opm's images: clusters that require non-root pods
		// run it as is. Everything it reads is world-readable; /tmp is 1777.
		if cf.Config.User == "" {
			cf.Config.User = fbcUser
			step("USER " + fbcUser)
		}
	}
	if entrypoint != nil {
		cf.Config.Entrypoint = slices.Clone(entrypoint)
		cf.Config.Cmd = slices.Clone(command)
		step(fmt.Sprintf("ENTRYPOINT %s", execForm(entrypoint)))
		step(fmt.Sprintf("CMD %s", execForm(command)))
	}
	all := maps.Clone(cf.Config.Labels)
	if all == nil {
		all = map[string]string{}
	}
	all[ConfigsLabel] = ConfigsDir
	maps.Copy(all, labels)
	cf.Config.Labels = all
	keys := slices.Sorted(maps.Keys(labels))
	set := []string{ConfigsLabel + "=" + ConfigsDir}
	for _, k := range keys {
		set = append(set, dockerfileQuote(k)+"="+dockerfileQuote(labels[k]))
	}
	step("LABEL " + strings.Join(set, " "))
	return mutate.ConfigFile(img, cf)
}

func execForm(args []string) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = fmt.Sprintf("%q", a)
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}
