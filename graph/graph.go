// Package graph owns the upgrade graphs of file-based catalog packages: the
// edges that olm.channel entries declare (replaces, skips, skipRange), the
// successor rules of OLM classic and OLM v1 that walk them, upgrade paths,
// catalog diffs, and pictures of the graph (mermaid, dot, json).
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
	"fmt"
	"slices"
	"sort"

	"github.com/fbc-project/fbc/declcfg"
)

// Catalog is the upgrade-relevant view of a catalog: its packages by name.
type Catalog struct {
	packages map[string]*Package
	names    []string
	// Warnings are problems with the catalog that the graph works around
	// (an unparsable version, a duplicate bundle); they never stop a
	// simulation.
	Warnings []string
}

// Package is one package's channels, bundles and deprecations.
type Package struct {
	Name           string
	DefaultChannel string
	// Channels in catalog order.
	Channels []*Channel
	// Bundles in catalog order, one per name (the first blob wins).
	Bundles []*Bundle
	// Deprecated holds the package deprecation message when the package
	// itself is deprecated (olm.deprecations, schema olm.package).
	Deprecated string
	// Pos is where the olm.package blob is, if the catalog has one.
	Pos declcfg.Pos

	bundles  map[string]*Bundle
	channels map[string]*Channel
	// hasDeprecations records whether the package has an olm.deprecations
	// blob; only the first one counts for v1's ordering, like upstream.
	hasDeprecations bool
}

// Channel is an olm.channel blob's entries.
type Channel struct {
	Name    string
	Package string
	Entries []*Entry
	// Deprecated holds the channel deprecation message, if any.
	Deprecated string
	Pos        declcfg.Pos
}

// Entry is one channel entry with its incoming edges.
type Entry struct {
	Name      string
	Replaces  string
	Skips     []string
	SkipRange string
	Channel   *Channel
	// Bundle is the entry's olm.bundle, nil when the catalog has none.
	Bundle *Bundle
	Pos    declcfg.Pos

	// skipRange is the blang range of SkipRange, nil when absent or
	// unparsable (both resolvers then ignore it silently).
	skipRange    func(v blangVersion) bool
	skipRangeErr error
}

// Bundle is an olm.bundle blob's upgrade-relevant facts.
type Bundle struct {
	Name    string
	Package string
	// Version is the olm.package property's version as written.
	Version string
	// Release is the olm.package property's release, if any.
	Release string
	// LegacyDeprecated marks the legacy olm.deprecated property, which
	// classic treats as "never install".
	LegacyDeprecated bool
	// Deprecated holds the deprecation message of an olm.deprecations
	// entry with schema olm.bundle naming this bundle.
	Deprecated string
	// Dependency names the first property that declares a dependency
	// (olm.package.required, olm.gvk.required, olm.constraint); OLM v1
	// refuses to install such bundles.
	Dependency string
	Pos        declcfg.Pos

	versionErr error
	version    parsedVersion
}

// HasVersion reports whether the bundle's version parsed as strict semver.
func (b *Bundle) HasVersion() bool { return b.versionErr == nil }

// New builds the graph view of cfg. It never fails: problems that OLM
// would reject at load time are recorded as warnings and the affected
// facts left out.
func New(cfg *declcfg.DeclarativeConfig) *Catalog {
	c := &Catalog{packages: map[string]*Package{}}
	pkg := func(name string) *Package {
		p := c.packages[name]
		if p == nil {
			p = &Package{Name: name, bundles: map[string]*Bundle{}, channels: map[string]*Channel{}}
			c.packages[name] = p
			c.names = append(c.names, name)
		}
		return p
	}
	for i := range cfg.Packages {
		p := pkg(cfg.Packages[i].Name)
		if !p.Pos.IsValid() {
			p.DefaultChannel, p.Pos = cfg.Packages[i].DefaultChannel, cfg.Packages[i].Pos
		}
	}
	for i := range cfg.Bundles {
		b := &cfg.Bundles[i]
		p := pkg(b.Package)
		if _, dup := p.bundles[b.Name]; dup {
			c.warnf("%s: bundle %q of package %q is defined more than once; the first definition is used", b.Pos, b.Name, b.Package)
			continue
		}
		nb := newBundle(b)
		p.bundles[b.Name] = nb
		p.Bundles = append(p.Bundles, nb)
	}
	for i := range cfg.Channels {
		ch := &cfg.Channels[i]
		p := pkg(ch.Package)
		if _, dup := p.channels[ch.Name]; dup {
			c.warnf("%s: channel %q of package %q is defined more than once; the first definition is used", ch.Pos, ch.Name, ch.Package)
			continue
		}
		nc := &Channel{Name: ch.Name, Package: ch.Package, Pos: ch.Pos}
		for _, e := range ch.Entries {
			ne := &Entry{
				Name: e.Name, Replaces: e.Replaces, Skips: slices.Clone(e.Skips), SkipRange: e.SkipRange,
				Channel: nc, Bundle: p.bundles[e.Name], Pos: e.Pos,
			}
			if e.SkipRange != "" {
				ne.skipRange, ne.skipRangeErr = parseSkipRange(e.SkipRange)
			}
			nc.Entries = append(nc.Entries, ne)
		}
		p.channels[ch.Name] = nc
		p.Channels = append(p.Channels, nc)
	}
	for i := range cfg.Deprecations {
		d := &cfg.Deprecations[i]
		p := pkg(d.Package)
		first := !p.hasDeprecations
		p.hasDeprecations = true
		for _, e := range d.Entries {
			switch e.Reference.Schema {
			case declcfg.SchemaPackage:
				p.Deprecated = e.Message
			case declcfg.SchemaChannel:
				if ch := p.channels[e.Reference.Name]; ch != nil {
					ch.Deprecated = e.Message
				}
			case declcfg.SchemaBundle:
				// operator-controller reads only the package's first
				// olm.deprecations blob; later ones (which opm rejects)
				// change nothing.
				if b := p.bundles[e.Reference.Name]; b != nil && first {
					b.Deprecated = e.Message
				}
			}
		}
	}
	sort.Strings(c.names)
	for _, name := range c.names {
		for _, b := range c.packages[name].Bundles {
			if b.versionErr != nil {
				c.warnf("%s: bundle %q: %v", b.Pos, b.Name, b.versionErr)
			}
		}
	}
	return c
}

func (c *Catalog) warnf(format string, args ...any) {
	c.Warnings = append(c.Warnings, fmt.Sprintf(format, args...))
}

// PackageNames lists the catalog's packages sorted by name.
func (c *Catalog) PackageNames() []string { return slices.Clone(c.names) }

// Package returns the named package, nil if the catalog has none.
func (c *Catalog) Package(name string) *Package { return c.packages[name] }

// Bundle returns the named bundle of the package, nil if there is none.
func (p *Package) Bundle(name string) *Bundle { return p.bundles[name] }

// Channel returns the named channel of the package, nil if there is none.
func (p *Package) Channel(name string) *Channel { return p.channels[name] }

// ChannelNames lists the package's channels sorted by name.
func (p *Package) ChannelNames() []string {
	names := make([]string, 0, len(p.Channels))
	for _, ch := range p.Channels {
		names = append(names, ch.Name)
	}
	sort.Strings(names)
	return names
}

func newBundle(b *declcfg.Bundle) *Bundle {
	nb := &Bundle{Name: b.Name, Package: b.Package, Pos: b.Pos}
	pkgs, err := declcfg.PackageProperties(b.Properties)
	switch {
	case err != nil:
		nb.versionErr = err
	case len(pkgs) != 1:
		nb.versionErr = fmt.Errorf("bundle %q must have exactly 1 %q property, found %d", b.Name, declcfg.PropertyPackage, len(pkgs))
	default:
		nb.Version, nb.Release = pkgs[0].Version, pkgs[0].Release
		nb.version, nb.versionErr = parseBundleVersion(nb.Version)
		if nb.versionErr != nil {
			nb.versionErr = fmt.Errorf("invalid version %q: %w", nb.Version, nb.versionErr)
		}
	}
	for _, p := range b.Properties {
		switch p.Type {
		case declcfg.PropertyDeprecated:
			nb.LegacyDeprecated = true
		case declcfg.PropertyPackageRequired, declcfg.PropertyGVKRequired, declcfg.PropertyConstraint:
			if nb.Dependency == "" {
				nb.Dependency = p.Type
			}
		}
	}
	return nb
}
