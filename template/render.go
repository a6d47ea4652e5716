package template

import (
	"context"
	"sync"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/image"
	"github.com/fbc-project/fbc/render"
)

// MigrateLevels are the migration levels FileOptions.MigrateLevel accepts:
// render's, since render runs them.
var MigrateLevels = render.MigrationLevels

// bundleSources renders the bundles a template names through render, with
// one image client for all of them (connections, tokens and the cache are
// shared), made on first use so that templates whose bundles are all
// directories never touch the image cache.
type bundleSources struct {
	opts FileOptions

	once   sync.Once
	client *image.Client
	err    error
}

func (s *bundleSources) images() (*image.Client, error) {
	s.once.Do(func() { s.client, s.err = image.NewClient(s.opts.Image) })
	return s.client, s.err
}

// render renders a bundle directory or a bundle image (registry, oci:,
// oci-archive:, docker-archive:) under the template's reference. No
// migration: the semver template reads the CSV from olm.bundle.object, so
// migrations run on the finished catalog (Options.Migrate).
func (s *bundleSources) render(ctx context.Context, source, ref string) ([]declcfg.Bundle, error) {
	ro := render.Options{Allowed: render.KindBundles, Warn: s.opts.Warn}
	if !isBundleDir(source) {
		c, err := s.images()
		if err != nil {
			return nil, err
		}
		ro.Images = c
	}
	b, err := render.RenderBundle(ctx, source, ref, ro)
	if err != nil {
		return nil, err
	}
	return []declcfg.Bundle{*b}, nil
}

// pull renders a reference the image map does not hold from its registry
// (or the image cache, offline).
func (s *bundleSources) pull(ctx context.Context, ref string) ([]declcfg.Bundle, error) {
	return s.render(ctx, ref, ref)
}

// migrate runs render's migrations up to level on a finished catalog.
func migrate(cfg *declcfg.DeclarativeConfig, level string) error {
	return render.Migrate(cfg, level)
}
