package profiles

import (
	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/model"
)

// Catalog is what the catalog-wide profile checks read of a catalog, with
// the positions their findings point at: the blobs of its model, without
// properties other than olm.package. fbc-profile builds the same model
// from it.
type Catalog struct {
	Packages []PackageBlob `json:"packages,omitempty"`
	Channels []ChannelBlob `json:"channels,omitempty"`
	Bundles  []BundleBlob  `json:"bundles,omitempty"`
}

// PackageBlob is an olm.package blob's name and default channel.
type PackageBlob struct {
	Name              string      `json:"name"`
	DefaultChannel    string      `json:"defaultChannel,omitempty"`
	Pos               declcfg.Pos `json:"pos"`
	DefaultChannelPos declcfg.Pos `json:"defaultChannelPos"`
}

// ChannelBlob is an olm.channel blob with its entries.
type ChannelBlob struct {
	Package string      `json:"package"`
	Name    string      `json:"name"`
	Pos     declcfg.Pos `json:"pos"`
	Entries []EntryBlob `json:"entries,omitempty"`
}

// EntryBlob is one channel entry as written.
type EntryBlob struct {
	Name         string      `json:"name"`
	Replaces     string      `json:"replaces,omitempty"`
	Skips        []string    `json:"skips,omitempty"`
	SkipRange    string      `json:"skipRange,omitempty"`
	Pos          declcfg.Pos `json:"pos"`
	SkipRangePos declcfg.Pos `json:"skipRangePos"`
}

// BundleBlob is an olm.bundle blob's names, image and olm.package
// property (its version).
type BundleBlob struct {
	Package    string             `json:"package"`
	Name       string             `json:"name"`
	Image      string             `json:"image,omitempty"`
	Pos        declcfg.Pos        `json:"pos"`
	Properties []declcfg.Property `json:"properties,omitempty"`
}

// CatalogOf is the part of cat the profiles read: each package's first
// olm.package, olm.channel and olm.bundle blob of a name, in catalog order.
func CatalogOf(cat *model.Catalog) *Catalog {
	out := &Catalog{}
	if cat == nil {
		return out
	}
	for _, p := range cat.Packages {
		if b := p.Blob; b != nil {
			out.Packages = append(out.Packages, PackageBlob{Name: b.Name, DefaultChannel: b.DefaultChannel, Pos: b.Pos, DefaultChannelPos: b.DefaultChannelPos})
		}
		for _, ch := range p.Channels {
			if ch.Blob == nil {
				continue
			}
			cb := ChannelBlob{Package: ch.Blob.Package, Name: ch.Blob.Name, Pos: ch.Blob.Pos}
			for _, e := range ch.Blob.Entries {
				cb.Entries = append(cb.Entries, EntryBlob{Name: e.Name, Replaces: e.Replaces, Skips: e.Skips, SkipRange: e.SkipRange, Pos: e.Pos, SkipRangePos: e.SkipRangePos})
			}
			out.Channels = append(out.Channels, cb)
		}
		for _, b := range p.Bundles {
			if b.Blob == nil {
				continue
			}
			bb := BundleBlob{Package: b.Blob.Package, Name: b.Blob.Name, Image: b.Blob.Image, Pos: b.Blob.Pos}
			for _, prop := range b.Blob.Properties {
				if prop.Type == declcfg.PropertyPackage {
					bb.Properties = append(bb.Properties, prop)
				}
			}
			out.Bundles = append(out.Bundles, bb)
		}
	}
	return out
}

// Model builds the model of the catalog, as CatalogOf's source had it for
// what the profiles read.
func (c *Catalog) Model() *model.Catalog {
	b := model.NewBuilder()
	for _, p := range c.Packages {
		b.Add(declcfg.Blob{Schema: declcfg.SchemaPackage, Package: &declcfg.Package{
			Schema: declcfg.SchemaPackage, Name: p.Name, DefaultChannel: p.DefaultChannel, Pos: p.Pos, DefaultChannelPos: p.DefaultChannelPos}})
	}
	for _, ch := range c.Channels {
		blob := &declcfg.Channel{Schema: declcfg.SchemaChannel, Package: ch.Package, Name: ch.Name, Pos: ch.Pos}
		for _, e := range ch.Entries {
			blob.Entries = append(blob.Entries, declcfg.ChannelEntry{Name: e.Name, Replaces: e.Replaces, Skips: e.Skips, SkipRange: e.SkipRange, Pos: e.Pos, SkipRangePos: e.SkipRangePos})
		}
		b.Add(declcfg.Blob{Schema: declcfg.SchemaChannel, Channel: blob})
	}
	for _, bb := range c.Bundles {
		b.Add(declcfg.Blob{Schema: declcfg.SchemaBundle, Bundle: &declcfg.Bundle{
			Schema: declcfg.SchemaBundle, Package: bb.Package, Name: bb.Name, Image: bb.Image, Pos: bb.Pos, Properties: bb.Properties}})
	}
	return b.Build()
}
