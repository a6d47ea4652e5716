package template

import (
	"context"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/render"
)

// MigrateLevels are the migration levels FileOptions.MigrateLevel accepts:
// render's, since render runs them.
var MigrateLevels = render.MigrationLevels

// bundleSources renders the bundles a template names through one
// Renderer, shared by all of them (connections, tokens and the cache).
type bundleSources struct {
	r *render.Renderer
}

// render renders a bundle directory or a bundle image (registry, oci:,
// oci-archive:, docker-archive:) under the template's reference. No
// migration: the semver template reads the CSV from olm.bundle.object, so
// migrations run on the finished catalog (Options.Migrate).
func (s *bundleSources) render(ctx context.Context, source, ref string) ([]declcfg.Bundle, error) {
	b, err := s.r.RenderBundle(ctx, source, ref, render.Request{Allowed: render.KindBundles})
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
