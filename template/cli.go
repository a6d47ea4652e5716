package template

import (
	"context"
	"fmt"
	"io"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/render"
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
}

// RenderFile reads a template (path "-" is stdin) and renders it with
// bundles resolved through the image map, then render.
func RenderFile(ctx context.Context, path string, opts FileOptions) (*Result, error) {
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
	sources := &bundleSources{r: r}
	name := path
	if path == "-" {
		name = "-"
	}
	return Render(ctx, name, data, Options{
		Kind:      opts.Kind,
		Render:    MappedRenderer(m, localSource(sources), remoteSource(m, sources, r.Offline())),
		SkipRange: opts.SkipRange,
		Migrate: func(cfg *declcfg.DeclarativeConfig) error {
			if opts.MigrateLevel == "" || opts.MigrateLevel == "none" {
				return nil
			}
			return migrate(cfg, opts.MigrateLevel)
		},
	})
}

// localSource renders an image map's source: bundle directories and
// oci:/docker-archive: references through render, catalog files and
// directories by loading their bundles.
func localSource(sources *bundleSources) LocalRenderer {
	return func(ctx context.Context, source, ref string) ([]declcfg.Bundle, error) {
		if isBundleDir(source) || isImageSource(source) {
			return sources.render(ctx, source, ref)
		}
		return loadCatalogBundles(ctx, source, ref)
	}
}

// remoteSource renders references the image map does not hold. Offline,
// only the image cache can serve them; a miss is a problem of the template
// and its map (exit 1), said together with what the cache lacked.
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
		return nil, problemAt(declcfg.Pos{}, fmt.Sprintf("%s, and %v", where, err))
	}
}

func isImageSource(s string) bool {
	for _, t := range localTransports {
		if len(s) > len(t) && s[:len(t)] == t {
			return true
		}
	}
	return false
}
