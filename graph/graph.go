// Package graph owns the upgrade simulations over the catalog model: the
// successor rules of OLM classic and OLM v1 that walk a channel's edges,
// upgrade paths, catalog diffs, and pictures of the graph (mermaid, dot,
// json). The channel rules themselves (heads, classic's channel order, the
// edges that cover an installed bundle) are the model's.
//
// The rules follow the upstream resolvers as described in
// olm-upgrade-semantics.md: classic orders a channel along its replaces chain
// and takes the candidate closest to the head; v1 takes the highest version
// among every entry whose edges cover the installed bundle. Nothing here
// requires a catalog that opm would accept: several heads, cycles and
// stranded bundles are ordinary inputs and become resolution errors only
// where OLM itself would fail.
package graph

import (
	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/model"
)

// The graph works on the catalog model: its packages, channels, entries
// and bundles are model's, which owns the channel rules (heads, OLM
// classic's channel order, which entries upgrade an installed bundle).
type (
	Package = model.Package
	Channel = model.Channel
	Entry   = model.Entry
	Bundle  = model.Bundle
)

// Catalog is the upgrade-relevant view of a catalog: its model.
type Catalog struct {
	*model.Catalog
}

// New builds the graph view of cfg. It never fails: problems that OLM
// would reject at load time go to warn (see Warn) and the affected facts
// are left out.
func New(cfg *declcfg.DeclarativeConfig, warn fault.Warn) *Catalog {
	c := &Catalog{Catalog: model.New(cfg)}
	c.Warn(warn)
	return c
}

// Warn sends warn the problems with the catalog that the graph works
// around (a duplicate bundle or channel, an unparsable version), which
// never stop a simulation; New sent them once, and a page that lists them
// asks again.
func (c *Catalog) Warn(warn fault.Warn) {
	if warn == nil {
		return
	}
	for _, p := range c.Packages {
		_, _, bundles := p.Duplicates()
		for _, b := range bundles {
			warn.Printf("%s: bundle %q of package %q is defined more than once; the first definition is used", b.Pos, b.Name, b.Package)
		}
	}
	for _, p := range c.Packages {
		_, channels, _ := p.Duplicates()
		for _, ch := range channels {
			warn.Printf("%s: channel %q of package %q is defined more than once; the first definition is used", ch.Pos, ch.Name, ch.Package)
		}
	}
	for _, p := range c.Packages {
		for _, b := range p.Bundles {
			if b.VersionErr != nil {
				warn.Printf("%s: bundle %q: %v", b.Pos, b.Name, b.VersionErr)
			}
		}
	}
}

// deprecated is a deprecation's message, "" when there is none.
func deprecated(d *model.Deprecation) string {
	if d == nil {
		return ""
	}
	return d.Message
}

// Dependency names the first property by which a bundle declares a
// dependency OLM v1 refuses (olm.package.required, olm.gvk.required,
// olm.constraint), "" when it has none.
// Only the property types matter: their values are not decoded.
func Dependency(b *Bundle) string {
	for _, p := range b.Blob.Properties {
		switch p.Type {
		case declcfg.PropertyPackageRequired, declcfg.PropertyGVKRequired, declcfg.PropertyConstraint:
			return p.Type
		}
	}
	return ""
}

// ReadsValue reports whether the upgrade simulations (paths, surveys,
// diffs, pictures) read the value of a property of this type: only
// olm.package's, a bundle's version. Of the others they read the type
// alone (a dependency OLM v1 refuses, the legacy olm.deprecated). A
// loader can leave the other values unencoded (declcfg.DecodeOptions).
func ReadsValue(propertyType string) bool { return propertyType == declcfg.PropertyPackage }

// Slim drops from a part of a catalog what the upgrade simulations do not
// read, so that a catalog loaded for them holds its names, edges,
// versions, deprecations and positions, not its manifests: the values of
// bundle properties ReadsValue does not name (kept with their type and
// position), bundles' related images, packages' icons and descriptions,
// and the content of blobs of other schemas (their schema, package, name
// and position stay). The model built from what is left has no manifests
// (Bundle.Objects) and no typed property values but the version.
func Slim(part *declcfg.DeclarativeConfig) {
	for i := range part.Packages {
		part.Packages[i].Icon, part.Packages[i].Description = nil, ""
	}
	for i := range part.Bundles {
		b := &part.Bundles[i]
		b.RelatedImages = nil
		for j := range b.Properties {
			if p := &b.Properties[j]; !ReadsValue(p.Type) {
				p.Value = nil
			}
		}
	}
	for i := range part.Others {
		part.Others[i].Blob = nil
	}
}
