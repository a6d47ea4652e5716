package template

import (
	"context"

	"github.com/fbc-project/fbc/declcfg"
)

// loadCatalogBundles reads the bundles of a catalog file or directory used
// as an image-map source (for example a bundle saved earlier with fbc
// render), setting their image to the template's reference. Blobs other
// than bundles are ignored: the template decides packages and channels.
func loadCatalogBundles(ctx context.Context, source, image string) ([]declcfg.Bundle, error) {
	cfg, err := declcfg.Load(ctx, []string{source}, declcfg.LoadOptions{})
	if err != nil {
		return nil, err
	}
	for i := range cfg.Bundles {
		cfg.Bundles[i].Image = image
	}
	return cfg.Bundles, nil
}
