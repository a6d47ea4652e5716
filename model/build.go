package model

import (
	"slices"

	"github.com/fbc-project/fbc/declcfg"
)

// Builder makes a Catalog from blobs added one at a time, in catalog order,
// so that a caller streaming a catalog need not keep a DeclarativeConfig.
// The order of Add calls decides which of two blobs of the same name wins
// (the first) and where a package is first named.
type Builder struct {
	packages map[string]*Package
	lost     []declcfg.LostDoc
}

// NewBuilder returns an empty builder.
func NewBuilder() *Builder { return &Builder{packages: map[string]*Package{}} }

func (b *Builder) pkg(name string) *Package {
	p := b.packages[name]
	if p == nil {
		p = &Package{Name: name}
		b.packages[name] = p
	}
	return p
}

func (p *Package) use(pos declcfg.Pos) {
	if !p.used {
		p.used, p.firstUse = true, pos
	}
}

// Add records one blob. Blobs of other schemas, and blobs without the
// package or name that place them, are ignored: they name nothing (the
// shape checks report the missing field).
func (b *Builder) Add(blob declcfg.Blob) {
	switch {
	case blob.Package != nil:
		d := blob.Package
		if d.Name == "" {
			return
		}
		p := b.pkg(d.Name)
		if p.Blob == nil {
			p.Blob, p.Pos, p.DefaultChannel = d, d.Pos, d.DefaultChannel
		} else {
			p.extraDecls = append(p.extraDecls, d)
		}
	case blob.Channel != nil:
		ch := blob.Channel
		if ch.Package == "" || ch.Name == "" {
			return
		}
		p := b.pkg(ch.Package)
		p.use(ch.Pos)
		if p.channels == nil {
			p.channels = map[string]*Channel{}
		}
		if _, dup := p.channels[ch.Name]; dup {
			p.extraChannels = append(p.extraChannels, ch)
			return
		}
		nc := &Channel{Name: ch.Name, Package: p, Blob: ch, Pos: ch.Pos}
		p.channels[ch.Name] = nc
		p.Channels = append(p.Channels, nc)
	case blob.Bundle != nil:
		bd := blob.Bundle
		if bd.Package == "" || bd.Name == "" {
			return
		}
		p := b.pkg(bd.Package)
		p.use(bd.Pos)
		if p.bundles == nil {
			p.bundles = map[string]*Bundle{}
		}
		if _, dup := p.bundles[bd.Name]; dup {
			p.extraBundles = append(p.extraBundles, bd)
			return
		}
		nb := newBundle(p, bd)
		nb.Index = len(p.Bundles)
		p.bundles[bd.Name] = nb
		p.Bundles = append(p.Bundles, nb)
	case blob.Deprecation != nil:
		d := blob.Deprecation
		if d.Package == "" {
			return
		}
		p := b.pkg(d.Package)
		p.use(d.Pos)
		p.deprecations = append(p.deprecations, d)
	}
}

// AddLost records a document the loader skipped for a syntax error. The
// syntax error is what to fix: the problems the document's absence causes
// in its package (no channels, a bundle in no channel, an entry without its
// bundle, ...) are not reported. A document whose package its text does
// not say counts for every package with a blob in its file.
func (b *Builder) AddLost(doc declcfg.LostDoc) {
	b.lost = append(b.lost, doc)
}

// applyLost marks the packages that lost a document.
func (b *Builder) applyLost() {
	for _, l := range b.lost {
		if name := l.PackageName(); name != "" {
			if p := b.packages[name]; p != nil {
				p.lost = append(p.lost, l.Schema)
			}
			continue
		}
		for _, p := range b.packages {
			if p.hasBlobIn(l.Pos.File) {
				p.lost = append(p.lost, l.Schema)
			}
		}
	}
}

// hasBlobIn reports whether a blob of the package is in file.
func (p *Package) hasBlobIn(file string) bool {
	if p.Pos.File == file || p.firstUse.File == file {
		return true
	}
	for _, ch := range p.Channels {
		if ch.Pos.File == file {
			return true
		}
	}
	for _, bd := range p.Bundles {
		if bd.Pos.File == file {
			return true
		}
	}
	for _, d := range p.deprecations {
		if d.Pos.File == file {
			return true
		}
	}
	return false
}

// Build links what was added: entries to their bundles, deprecations to
// what they deprecate. The builder must not be used afterwards.
func (b *Builder) Build() *Catalog {
	b.applyLost()
	c := &Catalog{byName: b.packages}
	c.Packages = sortedPackages(b.packages)
	for _, p := range c.Packages {
		for _, ch := range p.Channels {
			linkEntries(ch)
		}
		p.linkBundles()
		p.applyDeprecations()
	}
	b.packages = nil
	return c
}

// linkEntries makes the channel's entries: one per name, the first wins.
// Later entries of a name are kept aside for AllEntries.
func linkEntries(ch *Channel) {
	p := ch.Package
	ch.byName = make(map[string]*Entry, len(ch.Blob.Entries))
	ch.Entries = make([]*Entry, 0, len(ch.Blob.Entries))
	// The entries live in one array, sized once so that pointers into it
	// stay valid.
	store := make([]Entry, 0, len(ch.Blob.Entries))
	for _, e := range ch.Blob.Entries {
		if e.Name == "" {
			continue
		}
		first, repeat := ch.byName[e.Name]
		store = append(store, Entry{ChannelEntry: e, Channel: ch, Index: len(ch.Entries), Bundle: p.bundles[e.Name]})
		ne := &store[len(store)-1]
		if e.SkipRange != "" {
			ne.Range, ne.RangeErr = declcfg.ParseRange(e.SkipRange)
		}
		if repeat {
			if ch.all == nil {
				// Every entry so far is the first of its name.
				ch.all = slices.Clone(ch.Entries)
			}
			ne.Index = first.Index
			ch.all = append(ch.all, ne)
			continue
		}
		ch.byName[e.Name] = ne
		ch.Entries = append(ch.Entries, ne)
		if ch.all != nil {
			ch.all = append(ch.all, ne)
		}
	}
}

// linkBundles gives each bundle its entries, all of the package's from one
// array.
func (p *Package) linkBundles() {
	counts := make([]int32, len(p.Bundles))
	n := 0
	for _, ch := range p.Channels {
		for _, e := range ch.Entries {
			if e.Bundle != nil {
				counts[e.Bundle.Index]++
				n++
			}
		}
	}
	if n == 0 {
		return
	}
	backing := make([]*Entry, n)
	for i, b := range p.Bundles {
		b.Entries = backing[:0:counts[i]]
		backing = backing[counts[i]:]
	}
	for _, ch := range p.Channels {
		for _, e := range ch.Entries {
			if e.Bundle != nil {
				e.Bundle.Entries = append(e.Bundle.Entries, e)
			}
		}
	}
}

// applyDeprecations marks what the package's olm.deprecations blob
// deprecates. Only the first blob counts, as in OLM v1 (opm rejects a
// second); within it, the first entry for a reference wins.
func (p *Package) applyDeprecations() {
	if len(p.deprecations) == 0 {
		return
	}
	for _, e := range p.deprecations[0].Entries {
		dep := &Deprecation{Message: e.Message, Pos: e.Pos}
		switch e.Reference.Schema {
		case declcfg.SchemaPackage:
			if p.Deprecation == nil {
				p.Deprecation = dep
			}
		case declcfg.SchemaChannel:
			if ch := p.channels[e.Reference.Name]; ch != nil && ch.Deprecation == nil {
				ch.Deprecation = dep
			}
		case declcfg.SchemaBundle:
			if b := p.bundles[e.Reference.Name]; b != nil && b.Deprecation == nil {
				b.Deprecation = dep
			}
		}
	}
}
