package resolve

import (
	"errors"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/model"
)

// NewCatalog turns FBC blobs into the entries a CatalogSource serves: one
// per channel entry, carrying the channel entry's edges and its bundle's
// properties (without olm.bundle.object and olm.csv.metadata, which the
// catalog's API leaves out). A channel entry whose bundle is missing makes
// the catalog unservable, as it does for opm serve; other problems that
// opm refuses to serve are in Problems.
func NewCatalog(key CatalogKey, priority int, cfg *declcfg.DeclarativeConfig) *Catalog {
	return CatalogFromModel(key, priority, model.New(cfg))
}

// CatalogFromModel is NewCatalog over a catalog's model.
func CatalogFromModel(key CatalogKey, priority int, m *model.Catalog) *Catalog {
	c := &Catalog{Key: key, Priority: priority, bundles: map[string]*model.Bundle{}}
	for _, pkg := range m.Packages {
		for _, b := range pkg.Bundles {
			if _, dup := c.bundles[b.Name]; !dup {
				c.bundles[b.Name] = b
			}
		}
		for _, ch := range pkg.Channels {
			for _, ce := range ch.Entries {
				b := ce.Bundle
				if b == nil {
					continue
				}
				e := Entry{
					Name: ce.Name, Package: pkg.Name, Channel: ch.Name,
					DefaultChannel: pkg.DefaultChannel == ch.Name,
					Replaces:       ce.Replaces, Skips: ce.Skips, SkipRange: ce.SkipRange,
					Version: b.Version,
				}
				for _, p := range b.Blob.Properties {
					if p.Type != declcfg.PropertyBundleObject && p.Type != declcfg.PropertyCSVMetadata {
						e.Properties = append(e.Properties, Property{Type: p.Type, Value: p.Value})
					}
				}
				c.Entries = append(c.Entries, e)
			}
		}
	}
	for _, p := range m.Problems() {
		switch {
		case p.IsWarning():
		case p.Rule == model.RuleMissingBundle && c.Err == nil:
			c.Err = errors.New(p.Message)
		default:
			c.Problems = append(c.Problems, p.Message)
		}
	}
	return c
}

// InstalledFrom is an installed CSV named name whose properties OLM
// projected from a catalog bundle of that name (the first catalog that has
// it). ok is false when no catalog has the bundle.
func InstalledFrom(name string, catalogs []*Catalog) (Installed, bool) {
	for _, c := range catalogs {
		for _, e := range c.Entries {
			if e.Name == name {
				return Installed{Name: name, Version: e.Version, Properties: e.Properties}, true
			}
		}
	}
	return Installed{}, false
}
