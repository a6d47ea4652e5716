package template

import (
	"context"
	"io"

	"github.com/fbc-project/fbc/declcfg"
)

// FileOptions render a template file the way the command line does.
type FileOptions struct {
	// Kind forces a template kind; empty detects it.
	Kind Kind
	// ImageMap is the path of an image map file ("" for none).
	ImageMap string
	// Offline makes references missing from the image map errors instead
	// of registry pulls.
	Offline bool
	// MigrateLevel is a render migration level ("none" or "" for none).
	MigrateLevel string
	// SkipRange: see Options.SkipRange.
	SkipRange bool
	// Stdin is read for the file "-".
	Stdin io.Reader
	// Warn receives render's warnings (files a bundle ignores and the
	// like), possibly from several goroutines; nil drops them.
	Warn func(msg string)
}

// RenderFile reads a template (path "-" is stdin) and renders it with
// bundles resolved through the image map, then render.
func RenderFile(ctx context.Context, path string, opts FileOptions) (*Result, error) {
	data, err := ReadInput(path, opts.Stdin)
	if err != nil {
		return nil, err
	}
	var m *ImageMap
	if opts.ImageMap != "" {
		if m, err = LoadImageMap(opts.ImageMap); err != nil {
			return nil, err
		}
	}
	var remote BundleRenderer
	if !opts.Offline {
		remote = pullBundle(opts)
	}
	name := path
	if path == "-" {
		name = "-"
	}
	return Render(ctx, name, data, Options{
		Kind:      opts.Kind,
		Render:    MappedRenderer(m, localSource(opts), remote),
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
func localSource(opts FileOptions) LocalRenderer {
	return func(ctx context.Context, source, image string) ([]declcfg.Bundle, error) {
		if isBundleDir(source) || isImageSource(source) {
			return renderBundleSource(ctx, source, image, opts)
		}
		return loadCatalogBundles(ctx, source, image)
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
