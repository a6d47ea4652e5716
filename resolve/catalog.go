package resolve

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
)

// NewCatalog turns FBC blobs into the entries a CatalogSource serves: one
// per channel entry, carrying the channel entry's edges and its bundle's
// properties (without olm.bundle.object and olm.csv.metadata, which the
// catalog's API leaves out). A channel entry whose bundle is missing makes
// the catalog unservable, as it does for opm serve.
func NewCatalog(key CatalogKey, priority int, cfg *declcfg.DeclarativeConfig) *Catalog {
	c := &Catalog{Key: key, Priority: priority}
	defaults := make(map[string]string, len(cfg.Packages))
	for _, p := range cfg.Packages {
		defaults[p.Name] = p.DefaultChannel
	}
	type bundleKey struct{ pkg, name string }
	bundles := make(map[bundleKey]*declcfg.Bundle, len(cfg.Bundles))
	for i := range cfg.Bundles {
		b := &cfg.Bundles[i]
		bundles[bundleKey{b.Package, b.Name}] = b
	}
	missing := map[string][]string{}
	var missingPkgs []string
	for _, ch := range cfg.Channels {
		for _, ce := range ch.Entries {
			b := bundles[bundleKey{ch.Package, ce.Name}]
			if b == nil {
				if len(missing[ch.Package]) == 0 {
					missingPkgs = append(missingPkgs, ch.Package)
				}
				if !slices.Contains(missing[ch.Package], ce.Name) {
					missing[ch.Package] = append(missing[ch.Package], ce.Name)
				}
				continue
			}
			e := Entry{
				Name: ce.Name, Package: ch.Package, Channel: ch.Name,
				DefaultChannel: defaults[ch.Package] == ch.Name,
				Replaces:       ce.Replaces, Skips: ce.Skips, SkipRange: ce.SkipRange,
			}
			for _, p := range b.Properties {
				switch p.Type {
				case declcfg.PropertyBundleObject, declcfg.PropertyCSVMetadata:
					continue
				case declcfg.PropertyPackage:
					if e.Version == "" {
						var v declcfg.PackageProperty
						if p.Decode(&v) == nil {
							e.Version = v.Version
						}
					}
				}
				e.Properties = append(e.Properties, Property{Type: p.Type, Value: p.Value})
			}
			c.Entries = append(c.Entries, e)
		}
	}
	if len(missingPkgs) > 0 {
		pkg := missingPkgs[0]
		names := slices.Clone(missing[pkg])
		slices.Sort(names)
		c.Err = fmt.Errorf("no olm.bundle blobs found in package %q for olm.channel entries [%s]", pkg, strings.Join(names, " "))
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
