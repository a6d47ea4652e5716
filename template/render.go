package template

import (
	"context"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/render"
)

// MigrateLevels are the migration levels FileOptions.MigrateLevel accepts:
// render's, since render runs them.
var MigrateLevels = render.MigrationLevels

// renderOptions are the render options of every bundle a template names.
// No migration: the semver template reads the CSV from olm.bundle.object,
// so migrations run on the finished catalog (Options.Migrate).
func renderOptions(opts FileOptions) render.Options {
	return render.Options{Allowed: render.KindBundles, Warn: opts.Warn}
}

// pullBundle renders references the image map does not hold through
// render, which pulls them from their registry. The bundle's image is the
// reference as written.
func pullBundle(opts FileOptions) BundleRenderer {
	return func(ctx context.Context, ref string) ([]declcfg.Bundle, error) {
		return renderBundleSource(ctx, ref, ref, opts)
	}
}

// renderBundleSource renders a bundle directory or a bundle image under the
// template's reference.
func renderBundleSource(ctx context.Context, source, image string, opts FileOptions) ([]declcfg.Bundle, error) {
	b, err := render.RenderBundle(ctx, source, image, renderOptions(opts))
	if err != nil {
		return nil, err
	}
	return []declcfg.Bundle{*b}, nil
}

// migrate runs render's migrations up to level on a finished catalog.
func migrate(cfg *declcfg.DeclarativeConfig, level string) error {
	return render.Migrate(cfg, level)
}
