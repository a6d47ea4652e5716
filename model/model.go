// Package model is the catalog as OLM sees it, built once from declcfg
// blobs: packages, channels with their entries and upgrade edges, bundles
// with parsed versions and typed properties, deprecations, and indexes over
// them. Every OLM rule about channels (the head, opm's replaces chain and
// stranded entries, the order OLM's resolver gives a channel, which entries
// upgrade an installed bundle) is written here once; what breaks a rule is
// reported as a declcfg.Finding with a position (Catalog.Problems).
//
// A Catalog is read-only once built and safe for concurrent readers. It
// refers to the blobs it was built from: callers must not change them.
package model

import (
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/blang/semver/v4"

	"github.com/fbc-project/fbc/declcfg"
)

// Catalog is a whole catalog: every package that a blob declares or names.
type Catalog struct {
	// Packages sorted by name. A package that channels, bundles or
	// deprecations name without an olm.package blob is here too, with a
	// nil Blob.
	Packages []*Package

	byName map[string]*Package

	problemsOnce sync.Once
	problems     []declcfg.Finding

	indexOnce sync.Once
	provided  map[declcfg.GVK][]*Bundle
	required  map[declcfg.GVK][]*Bundle
	replacing map[string][]*Entry
}

// Package is one package: its channels, bundles and deprecation.
type Package struct {
	Name string
	// DefaultChannel is the olm.package blob's defaultChannel as written.
	DefaultChannel string
	// Blob is the package's olm.package blob (the first, when there are
	// several), nil when it has none.
	Blob *declcfg.Package
	// Pos is where Blob is; zero when there is no Blob.
	Pos declcfg.Pos
	// Channels in catalog order, one per name (the first blob wins).
	Channels []*Channel
	// Bundles in catalog order, one per name (the first blob wins).
	Bundles []*Bundle
	// Deprecation is set when the package itself is deprecated.
	Deprecation *Deprecation

	channels map[string]*Channel
	bundles  map[string]*Bundle

	// What the rules need beyond the model proper: the blobs that lost to
	// an earlier one of the same name, every deprecations blob, and the
	// first blob that named the package.
	extraDecls    []*declcfg.Package
	extraChannels []*declcfg.Channel
	extraBundles  []*declcfg.Bundle
	deprecations  []*declcfg.Deprecation
	firstUse      declcfg.Pos
	used          bool
	// lost holds the schemas of the package's documents the loader
	// skipped for syntax errors ("" when the text did not say).
	lost []string

	problemsOnce sync.Once
	problems     []declcfg.Finding
}

// Channel is one olm.channel blob of a package.
type Channel struct {
	Name    string
	Package *Package
	// Entries in the blob's order, one per name (the first entry wins);
	// entries without a name are left out.
	Entries []*Entry
	// Blob is the channel's olm.channel blob.
	Blob *declcfg.Channel
	Pos  declcfg.Pos
	// Deprecation is set when the channel is deprecated.
	Deprecation *Deprecation

	byName map[string]*Entry
	// all is every named entry in blob order when a name repeats, nil
	// otherwise (then it is Entries).
	all       []*Entry
	shapeOnce sync.Once
	shape     *Shape
}

// Entry is one bundle's place in a channel: the edges by which it upgrades
// older bundles. The embedded ChannelEntry is the blob's entry as written.
type Entry struct {
	declcfg.ChannelEntry
	Channel *Channel
	// Bundle is the package's bundle of the entry's name, nil when the
	// package has none.
	Bundle *Bundle
	// Index is the entry's place in Channel.Entries (for a repeat, see
	// AllEntries, that of the entry it repeats).
	Index int
	// Range is the parsed skipRange: nil when the entry has none or it
	// does not parse (RangeErr says why; OLM then ignores it).
	Range    semver.Range
	RangeErr error
}

// Deprecation is an olm.deprecations entry that applies to a package,
// channel or bundle.
type Deprecation struct {
	Message string
	Pos     declcfg.Pos
}

// New builds the model of cfg. It never fails: what OLM would reject is a
// finding (Problems), and the model holds what can be made of the rest. Blobs are
// added packages first, then channels, bundles and deprecations; a Builder
// keeps the catalog's own order.
func New(cfg *declcfg.DeclarativeConfig) *Catalog {
	b := NewBuilder()
	if cfg != nil {
		for i := range cfg.Packages {
			b.Add(declcfg.Blob{Schema: declcfg.SchemaPackage, Package: &cfg.Packages[i]})
		}
		for i := range cfg.Channels {
			b.Add(declcfg.Blob{Schema: declcfg.SchemaChannel, Channel: &cfg.Channels[i]})
		}
		for i := range cfg.Bundles {
			b.Add(declcfg.Blob{Schema: declcfg.SchemaBundle, Bundle: &cfg.Bundles[i]})
		}
		for i := range cfg.Deprecations {
			b.Add(declcfg.Blob{Schema: declcfg.SchemaDeprecations, Deprecation: &cfg.Deprecations[i]})
		}
	}
	return b.Build()
}

// Package returns the named package, nil if the catalog has none.
func (c *Catalog) Package(name string) *Package { return c.byName[name] }

// PackageNames lists the catalog's packages sorted by name.
func (c *Catalog) PackageNames() []string {
	names := make([]string, len(c.Packages))
	for i, p := range c.Packages {
		names[i] = p.Name
	}
	return names
}

// Channel returns the named channel of the package, nil if there is none.
func (p *Package) Channel(name string) *Channel { return p.channels[name] }

// Bundle returns the named bundle of the package, nil if there is none.
func (p *Package) Bundle(name string) *Bundle { return p.bundles[name] }

// Duplicates returns the blobs that lost to an earlier one of the same
// name, in catalog order: olm.package blobs after the first, and channels
// and bundles whose name an earlier blob of the package already has. They
// are in Problems too; a caller that works around them can say so.
func (p *Package) Duplicates() (packages []*declcfg.Package, channels []*declcfg.Channel, bundles []*declcfg.Bundle) {
	return p.extraDecls, p.extraChannels, p.extraBundles
}

// Default returns the default channel, nil when defaultChannel is unset or
// names no channel of the package.
func (p *Package) Default() *Channel { return p.channels[p.DefaultChannel] }

// ChannelNames lists the package's channels sorted by name.
func (p *Package) ChannelNames() []string {
	names := make([]string, len(p.Channels))
	for i, ch := range p.Channels {
		names[i] = ch.Name
	}
	sort.Strings(names)
	return names
}

// AllEntries returns every entry of the blob that has a name, in order,
// including later entries that repeat an earlier one's name (opm rejects
// them, a duplicate-entry problem; OLM v1 reads their edges too). A repeat
// links to the same bundle and has the Index of the entry it repeats.
// Without repeats it is Entries.
func (ch *Channel) AllEntries() []*Entry {
	if ch.all != nil {
		return ch.all
	}
	return ch.Entries
}

// Entry returns the channel's entry of that name, nil if there is none.
func (ch *Channel) Entry(name string) *Entry { return ch.byName[name] }

// Shape is what OLM's channel rules see in the channel's entries.
func (ch *Channel) Shape() *Shape {
	ch.shapeOnce.Do(func() {
		entries := make([]*declcfg.ChannelEntry, len(ch.Entries))
		for i, e := range ch.Entries {
			entries[i] = &e.ChannelEntry
		}
		ch.shape = newShape(entries, func(name string) (int, bool) {
			if e := ch.byName[name]; e != nil {
				return e.Index, true
			}
			return 0, false
		})
	})
	return ch.shape
}

// Head returns the channel's head, nil unless it has exactly one: the
// bundle a fresh install gets, and the one opm serves for the channel.
func (ch *Channel) Head() *Entry {
	h, ok := ch.Shape().head()
	if !ok {
		return nil
	}
	return ch.Entries[h]
}

// Heads returns every entry that no entry of the channel replaces or skips,
// in entry order. A valid channel has exactly one.
func (ch *Channel) Heads() []*Entry { return ch.entries(ch.Shape().heads) }

// ReplacesChain returns opm's replaces chain: from the single head along
// replaces, stopping before a name some entry skips, before a name that is
// not an entry, and before coming back to an entry already on it. It is
// nil when the channel does not have exactly one head.
func (ch *Channel) ReplacesChain() []*Entry { return ch.entries(ch.Shape().chain) }

// Stranded returns the entries opm calls stranded: neither on the replaces
// chain nor skipped by any entry. It is nil when the channel does not have
// exactly one head.
func (ch *Channel) Stranded() []*Entry { return ch.entries(ch.Shape().stranded) }

func (ch *Channel) entries(idx []int) []*Entry {
	if len(idx) == 0 {
		return nil
	}
	out := make([]*Entry, len(idx))
	for i, k := range idx {
		out[i] = ch.Entries[k]
	}
	return out
}

// InRange reports whether the entry's skipRange contains v (false when it
// has none, or one that does not parse).
func (e *Entry) InRange(v semver.Version) bool { return e.Range != nil && e.Range(v) }

// Bundles returns every bundle of the catalog, package by package.
func (c *Catalog) Bundles() []*Bundle {
	var out []*Bundle
	for _, p := range c.Packages {
		out = append(out, p.Bundles...)
	}
	return out
}

// sortedPackages orders packages by name.
func sortedPackages(m map[string]*Package) []*Package {
	out := make([]*Package, 0, len(m))
	for _, p := range m {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b *Package) int { return strings.Compare(a.Name, b.Name) })
	return out
}
