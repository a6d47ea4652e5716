package template

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/internal/imageref"
	"github.com/fbc-project/fbc/render"
	"github.com/fbc-project/fbc/repo"
	"github.com/fbc-project/fbc/validate"
)

// FileOptions render a template file the way the command line does.
type FileOptions struct {
	// Kind forces a template kind; empty detects it.
	Kind Kind
	// ImageMap is the path of an image map file ("" for none).
	ImageMap string
	// Renderer renders the bundles the template names (default: a
	// Renderer with zero Options). Offline, a reference missing from the
	// image map must be in its image cache.
	Renderer *render.Renderer
	// MigrateLevel is a render migration level ("none" or "" for none).
	MigrateLevel string
	// SkipRange: see Options.SkipRange.
	SkipRange bool
	// Stdin is read for the file "-".
	Stdin io.Reader
	// Finder, when set, is asked for references that the image map does
	// not name and the image cache does not hold, before a registry.
	Finder Finder
	// NoValidate leaves the rendered catalog unchecked; otherwise it is
	// validated as fbc validate checks a catalog (Result.Validation).
	NoValidate bool
}

// A Finder looks bundle references up where an image map does not name
// them and the image cache does not hold them, before a registry is asked:
// an operator repository's published catalogs and bundle directories.
type Finder interface {
	// Find returns the bundle that ref names, with ref as its image, or an
	// error wrapping ErrNotFound when it has none.
	Find(ctx context.Context, ref string) ([]declcfg.Bundle, error)
	// Where says where Find looked for ref, for the message of a
	// reference found nowhere.
	Where(ref string) string
	// Whole returns ref's bundle with its manifests, when Find gave it
	// without (see Options.Whole); nil, nil when it has none.
	Whole(ctx context.Context, ref string) (*declcfg.Bundle, error)
}

// whole is f's Whole, nil without a Finder.
func whole(f Finder) func(context.Context, string) (*declcfg.Bundle, error) {
	if f == nil {
		return nil
	}
	return f.Whole
}

// ErrNotFound is wrapped by a Finder's error for a reference it does not
// have.
var ErrNotFound = errors.New("not found")

// RenderFile reads a template (path "-" is stdin), renders it with bundles
// resolved through the image map, then render, and unless NoValidate
// validates the catalog it renders to (Result.Validation says whether it is
// valid). A template that cannot be rendered returns no result; when the
// validation cannot run, the result comes back with its error.
func RenderFile(ctx context.Context, path string, opts FileOptions) (*Result, error) {
	res, err := renderFile(ctx, path, opts)
	if err != nil || opts.NoValidate {
		return res, err
	}
	res.Validation, err = validate.ValidateConfig(ctx, res.Config, validate.Options{})
	return res, err
}

func renderFile(ctx context.Context, path string, opts FileOptions) (*Result, error) {
	data, err := ReadInput(ctx, path, opts.Stdin)
	if err != nil {
		return nil, err
	}
	var m *ImageMap
	if opts.ImageMap != "" {
		if m, err = LoadImageMap(ctx, opts.ImageMap); err != nil {
			return nil, err
		}
	}
	r := opts.Renderer
	if r == nil {
		if r, err = render.New(render.Options{}); err != nil {
			return nil, err
		}
	}
	name := path
	if path == "-" {
		name = "-"
	}
	return Render(ctx, name, data, Options{
		Kind:      opts.Kind,
		Render:    Sources(SourceOptions{Map: m, Renderer: r, Finder: opts.Finder}),
		Whole:     whole(opts.Finder),
		SkipRange: opts.SkipRange,
		Migrate: func(cfg *declcfg.DeclarativeConfig) error {
			if opts.MigrateLevel == "" || opts.MigrateLevel == "none" {
				return nil
			}
			return migrate(cfg, opts.MigrateLevel)
		},
	})
}

// SourceOptions say where Sources looks for bundle references.
type SourceOptions struct {
	// Map is the image map (nil for none).
	Map *ImageMap
	// Renderer renders bundle directories and images (required).
	Renderer *render.Renderer
	// Finder, when set, is asked after the image cache, before a
	// registry.
	Finder Finder
	// Memo, when set, keeps what each source gave for the renders that
	// share it.
	Memo *Memo
}

// Sources resolves bundle references as fbc template does: through the
// image map first, then the image cache, then the finder, then, unless the
// Renderer is offline, the registry.
func Sources(opts SourceOptions) BundleRenderer {
	sources := &bundleSources{r: opts.Renderer, memo: opts.Memo}
	remote := remoteSource(opts.Map, sources, opts.Renderer.Offline())
	if opts.Finder != nil {
		remote = findingSource(opts.Map, sources, opts.Finder)
	}
	return MappedRenderer(opts.Map, localSource(sources), remote)
}

// findingSource renders references the image map does not hold from the
// image cache, the finder, and the registry (not offline), in that order.
// A reference found nowhere is an image fbc could not obtain (see
// notObtained: exit 2), and says where fbc looked.
func findingSource(m *ImageMap, sources *bundleSources, f Finder) BundleRenderer {
	cache := &bundleSources{r: sources.r.CacheOnly(), memo: sources.memo, cache: true}
	offline := sources.r.Offline()
	return func(ctx context.Context, ref string) ([]declcfg.Bundle, error) {
		bs, cerr := cache.pull(ctx, ref)
		if cerr == nil || ctx.Err() != nil || !errors.Is(cerr, render.ErrOffline) {
			return bs, cerr
		}
		bs, ferr := f.Find(ctx, ref)
		if ferr == nil || !errors.Is(ferr, ErrNotFound) {
			return bs, ferr
		}
		where := "no image map was given"
		if m != nil {
			where = fmt.Sprintf("it is not in image map %s", m.File)
		}
		looked := fmt.Sprintf("%s; the image cache: %v; the repository: %s", where, cerr, f.Where(ref))
		if offline {
			return nil, notObtained(looked + "; offline, no registry was asked")
		}
		bs, err := sources.pull(ctx, ref)
		if err != nil && ctx.Err() == nil {
			return nil, fmt.Errorf("%s; from its registry: %w", looked, err)
		}
		return bs, err
	}
}

// localSource renders an image map's source: bundle directories and
// oci:/docker-archive: references through render, catalog files and
// directories by loading their bundles.
func localSource(sources *bundleSources) LocalRenderer {
	return func(ctx context.Context, source, ref string) ([]declcfg.Bundle, error) {
		if repo.IsBundleDir(source) || isImageSource(source) {
			return sources.render(ctx, source, ref)
		}
		return sources.memo.do("catalog\x00"+source+"\x00"+ref, func() ([]declcfg.Bundle, error) {
			return loadCatalogBundles(ctx, source, ref)
		})
	}
}

// remoteSource renders references the image map does not hold. Offline,
// only the image cache can serve them; a miss is an image fbc could not
// obtain (see notObtained: exit 2), said together with what the cache
// lacked.
func remoteSource(m *ImageMap, sources *bundleSources, offline bool) BundleRenderer {
	if !offline {
		return sources.pull
	}
	return func(ctx context.Context, ref string) ([]declcfg.Bundle, error) {
		bs, err := sources.pull(ctx, ref)
		if err == nil || ctx.Err() != nil {
			return bs, err
		}
		where := "no image map was given"
		if m != nil {
			where = fmt.Sprintf("it is not in image map %s", m.File)
		}
		return nil, notObtained(fmt.Sprintf("%s, and %v", where, err))
	}
}

// notObtained is a bundle image found nowhere fbc may look (offline: the
// image map, the image cache, the repository). The template is not at
// fault, the run is: fbc could not get the image, as a registry that
// cannot be reached (exit 2), and as fbc render of the image offline.
// It stays a finding underneath, so that renderRefs lets the other
// references go on and reports the first in template order.
func notObtained(msg string) error {
	return fault.Wrap(fault.Run, problemAt(declcfg.Pos{}, msg))
}

func isImageSource(s string) bool {
	_, rest, ok := imageref.CutTransport(s)
	return ok && rest != ""
}
