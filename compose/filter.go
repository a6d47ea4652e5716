package compose

import (
	"fmt"
	"slices"
	"strings"

	"github.com/blang/semver/v4"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/model"
)

// Selection chooses part of a catalog for Filter. The zero value selects
// everything.
type Selection struct {
	// Packages to keep; empty keeps every package.
	Packages []string
	// Channels to keep, by name, in each kept package; empty keeps them all.
	Channels []string
	// VersionRange keeps the bundles whose olm.package version is in the
	// range, written in blang/semver range syntax, the syntax of skipRange
	// and of olm.package.required (">=1.2.0 <2.0.0 || 3.x").
	VersionRange string
	// HeadsOnly keeps only each channel's head (of what the other criteria
	// keep).
	HeadsOnly bool
	// Latest keeps the N highest versions of each channel (0: no limit).
	Latest int
	// WithDependencies adds, transitively, the bundles that satisfy the
	// olm.package.required, olm.gvk.required and olm.constraint (package,
	// gvk, all) properties of kept bundles, when no kept bundle already
	// does. HeadsOnly and Latest trim the added bundles per channel too.
	WithDependencies bool
}

// IsZero reports whether the selection keeps the whole catalog.
func (s Selection) IsZero() bool {
	return len(s.Packages) == 0 && len(s.Channels) == 0 && s.VersionRange == "" && !s.HeadsOnly && s.Latest == 0 && !s.WithDependencies
}

// SelectionError is a selection that does not fit the catalog: a package or
// channel it does not have, an unparsable range, nothing left to keep.
type SelectionError struct{ Msg string }

func (e *SelectionError) Error() string { return e.Msg }

// FaultKind is Usage: the selection asks for what the sources do not have.
func (e *SelectionError) FaultKind() fault.Kind { return fault.Usage }

func selectionErrorf(format string, args ...any) error {
	return &SelectionError{Msg: fmt.Sprintf(format, args...)}
}

// Note is something Filter changed on its own or could not do, for the user
// to read.
type Note struct {
	Package string
	Message string
	// Warning marks notes about a result that may not work as the user
	// expects (a dependency no source provides).
	Warning bool
}

func (n Note) String() string {
	if n.Package == "" {
		return n.Message
	}
	return fmt.Sprintf("package %q: %s", n.Package, n.Message)
}

// filterPackage is one package of the catalog being filtered: its model
// (bundles, versions) and every channel blob it has.
type filterPackage struct {
	name     string
	m        *model.Package
	channels []*declcfg.Channel
}

// version is the bundle's strict semver version, when it has one.
func (p *filterPackage) version(name string) (semver.Version, bool) {
	if b := p.m.Bundle(name); b != nil && b.HasVersion() {
		return b.SemVer, true
	}
	return semver.Version{}, false
}

type bundleKey struct{ pkg, name string }

// filter holds one Filter run: the index of the catalog and what is kept,
// as entry names per package and channel.
type filter struct {
	cfg    *declcfg.DeclarativeConfig
	cat    *model.Catalog
	sel    Selection
	rng    semver.Range
	pkgs   map[string]*filterPackage
	names  []string
	kept   map[string]map[string]map[string]bool
	notes  []Note
	warned map[string]bool
}

// Filter returns the part of cfg that sel selects. Channels keep valid
// upgrade graphs over the kept entries (see subset.go), bundles are kept
// when a kept channel lists them, and deprecations of anything dropped are
// dropped with it. A package whose default channel is dropped gets a new
// one: the first of sel.Channels it keeps, else the kept channel whose head
// has the highest version; each such change is reported as a Note. Blobs of
// other schemas follow their package; package-less ones are all kept.
// Filter does not change cfg.
func Filter(cfg *declcfg.DeclarativeConfig, sel Selection) (*declcfg.DeclarativeConfig, []Note, error) {
	if sel.IsZero() {
		return cfg, nil, nil
	}
	f := &filter{cfg: cfg, sel: sel, kept: map[string]map[string]map[string]bool{}, warned: map[string]bool{}}
	if sel.HeadsOnly && sel.Latest > 0 {
		return nil, nil, selectionErrorf("heads-only and latest cannot be combined: the head is what latest 1 keeps when the head is the highest version")
	}
	if sel.Latest < 0 {
		return nil, nil, selectionErrorf("latest must be a positive number, not %d", sel.Latest)
	}
	if sel.VersionRange != "" {
		r, err := declcfg.ParseRange(sel.VersionRange)
		if err != nil {
			return nil, nil, selectionErrorf("invalid version range %q: %v (write ranges like skipRange: \">=1.2.0 <2.0.0\")", sel.VersionRange, err)
		}
		f.rng = r
	}
	f.index()
	selected, err := f.selectedPackages()
	if err != nil {
		return nil, nil, err
	}
	if err := f.checkChannels(selected); err != nil {
		return nil, nil, err
	}
	var empty []string
	for _, name := range selected {
		p := f.pkgs[name]
		for _, ch := range p.channels {
			if len(sel.Channels) > 0 && !slices.Contains(sel.Channels, ch.Name) {
				continue
			}
			k := map[string]bool{}
			for _, e := range ch.Entries {
				if f.rng == nil {
					k[e.Name] = true
				} else if v, ok := p.version(e.Name); ok && f.rng(v) {
					k[e.Name] = true
				}
			}
			f.keep(p, ch, f.trim(p, ch, k))
		}
		if len(f.kept[name]) == 0 {
			if len(sel.Packages) > 0 {
				return nil, nil, selectionErrorf("package %q has no bundle in the selection%s", name, f.describeSelection())
			}
			empty = append(empty, name)
		}
	}
	if len(empty) > 0 && len(empty) == len(selected) {
		return nil, nil, selectionErrorf("no package has a bundle in the selection%s; the sources have %s", f.describeSelection(), listNames(empty, 10))
	}
	if len(empty) > 0 {
		msg := fmt.Sprintf("%d packages have no bundle in the selection and are left out: %s", len(empty), listNames(empty, 10))
		if len(empty) == 1 {
			msg = "1 package has no bundle in the selection and is left out: " + listNames(empty, 10)
		}
		f.notes = append(f.notes, Note{Message: msg})
	}
	if sel.WithDependencies {
		f.addDependencies()
	}
	return f.result(), f.notes, nil
}

// index builds the catalog's model (versions, provided APIs, dependencies)
// and groups the channel blobs by package.
func (f *filter) index() {
	f.cat = model.New(f.cfg)
	f.pkgs = make(map[string]*filterPackage, len(f.cat.Packages))
	for _, mp := range f.cat.Packages {
		if _, chans, bundles := mp.Duplicates(); mp.Blob == nil && len(mp.Channels)+len(chans)+len(mp.Bundles)+len(bundles) == 0 {
			continue // only a deprecations blob names it
		}
		f.pkgs[mp.Name] = &filterPackage{name: mp.Name, m: mp}
		f.names = append(f.names, mp.Name)
	}
	for i := range f.cfg.Channels {
		ch := &f.cfg.Channels[i]
		if p := f.pkgs[ch.Package]; p != nil {
			p.channels = append(p.channels, ch)
		}
	}
}

func (f *filter) selectedPackages() ([]string, error) {
	if len(f.sel.Packages) == 0 {
		var out []string
		for _, n := range f.names {
			if n != "" {
				out = append(out, n)
			}
		}
		return out, nil
	}
	var out, unknown []string
	for _, n := range f.sel.Packages {
		if slices.Contains(out, n) {
			continue
		}
		if _, ok := f.pkgs[n]; !ok || n == "" {
			unknown = append(unknown, n)
			continue
		}
		out = append(out, n)
	}
	if len(unknown) > 0 {
		var msgs []string
		for _, n := range unknown {
			m := fmt.Sprintf("package %q is not in the sources", n)
			if s := declcfg.Suggest(n, f.names); s != "" {
				m += fmt.Sprintf(" (did you mean %q?)", s)
			}
			msgs = append(msgs, m)
		}
		return nil, selectionErrorf("%s", strings.Join(msgs, "; "))
	}
	return out, nil
}

func (f *filter) checkChannels(selected []string) error {
	if len(f.sel.Channels) == 0 {
		return nil
	}
	have := map[string]bool{}
	var all []string
	for _, n := range selected {
		for _, ch := range f.pkgs[n].channels {
			if !have[ch.Name] {
				have[ch.Name] = true
				all = append(all, ch.Name)
			}
		}
	}
	slices.Sort(all)
	for _, c := range f.sel.Channels {
		if have[c] {
			continue
		}
		m := fmt.Sprintf("channel %q is in none of the selected packages", c)
		if s := declcfg.Suggest(c, all); s != "" {
			m += fmt.Sprintf(" (did you mean %q?)", s)
		} else if len(all) > 0 {
			m += "; they have " + listNames(all, 10)
		}
		return selectionErrorf("%s", m)
	}
	return nil
}

func (f *filter) describeSelection() string {
	var parts []string
	if len(f.sel.Channels) > 0 {
		parts = append(parts, "channels "+strings.Join(f.sel.Channels, ", "))
	}
	if f.sel.VersionRange != "" {
		parts = append(parts, fmt.Sprintf("versions %q", f.sel.VersionRange))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

// trim applies HeadsOnly and Latest to the entries k keeps of a channel.
func (f *filter) trim(p *filterPackage, ch *declcfg.Channel, k map[string]bool) map[string]bool {
	if len(k) == 0 {
		return k
	}
	switch {
	case f.sel.HeadsOnly:
		sub := subsetEntries(ch.Entries, func(n string) bool { return k[n] }, p.version)
		if head, ok := channelHead(sub); ok {
			return map[string]bool{head: true}
		}
		f.notes = append(f.notes, Note{Package: p.name, Warning: true,
			Message: fmt.Sprintf("channel %q has no single head (a replaces cycle?); all its selected entries are kept", ch.Name)})
		return k
	case f.sel.Latest > 0 && len(k) > f.sel.Latest:
		names := make([]string, 0, len(k))
		for n := range k {
			names = append(names, n)
		}
		slices.SortFunc(names, func(a, b string) int {
			va, oka := p.version(a)
			vb, okb := p.version(b)
			switch {
			case oka && okb:
				if c := vb.Compare(va); c != 0 {
					return c
				}
			case oka:
				return -1
			case okb:
				return 1
			}
			return strings.Compare(a, b)
		})
		out := map[string]bool{}
		for _, n := range names[:f.sel.Latest] {
			out[n] = true
		}
		return out
	}
	return k
}

// keep adds entries of a channel to the kept set and returns the bundles that
// were not kept before.
func (f *filter) keep(p *filterPackage, ch *declcfg.Channel, k map[string]bool) []bundleKey {
	if len(k) == 0 {
		return nil
	}
	chans := f.kept[p.name]
	if chans == nil {
		chans = map[string]map[string]bool{}
		f.kept[p.name] = chans
	}
	before := f.keptBundles(p.name)
	cur := chans[ch.Name]
	if cur == nil {
		cur = map[string]bool{}
		chans[ch.Name] = cur
	}
	var added []bundleKey
	for n := range k {
		cur[n] = true
		if !before[n] {
			before[n] = true
			added = append(added, bundleKey{p.name, n})
		}
	}
	slices.SortFunc(added, func(a, b bundleKey) int { return strings.Compare(a.name, b.name) })
	return added
}

func (f *filter) keptBundles(pkg string) map[string]bool {
	out := map[string]bool{}
	for _, k := range f.kept[pkg] {
		for n := range k {
			out[n] = true
		}
	}
	return out
}

// requirement is one dependency of a bundle.
type requirement struct {
	pkg   string
	rng   semver.Range
	rngS  string
	gvk   *declcfg.GVK
	owner bundleKey
}

func (r requirement) String() string {
	if r.gvk != nil {
		return fmt.Sprintf("API %s/%s %s", r.gvk.Group, r.gvk.Version, r.gvk.Kind)
	}
	return fmt.Sprintf("package %q (%s)", r.pkg, r.rngS)
}

func (f *filter) addDependencies() {
	var queue []bundleKey
	for _, name := range f.names {
		kb := f.keptBundles(name)
		names := make([]string, 0, len(kb))
		for n := range kb {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			queue = append(queue, bundleKey{name, n})
		}
	}
	for len(queue) > 0 {
		bk := queue[0]
		queue = queue[1:]
		b := f.pkgs[bk.pkg].m.Bundle(bk.name)
		if b == nil {
			continue
		}
		for _, req := range f.requirements(b) {
			if f.satisfied(req) {
				continue
			}
			providers := f.providers(req)
			if len(providers) == 0 {
				key := req.String()
				if !f.warned[key] {
					f.warned[key] = true
					f.notes = append(f.notes, Note{Package: bk.pkg, Warning: true,
						Message: fmt.Sprintf("bundle %q requires %s, which no bundle in the sources provides", bk.name, req)})
				}
				continue
			}
			for _, pkg := range sortedKeys(providers) {
				p := f.pkgs[pkg]
				for _, ch := range p.channels {
					k := map[string]bool{}
					for _, e := range ch.Entries {
						if providers[pkg][e.Name] {
							k[e.Name] = true
						}
					}
					queue = append(queue, f.keep(p, ch, f.trim(p, ch, k))...)
				}
			}
		}
	}
}

// requirements lists what a bundle depends on.
func (f *filter) requirements(b *model.Bundle) []requirement {
	pkg := b.Package.Name
	owner := bundleKey{pkg, b.Name}
	var out []requirement
	addPkg := func(name, text string, r semver.Range, err error) {
		if err != nil {
			key := owner.pkg + "/" + owner.name + "/" + text
			if !f.warned[key] {
				f.warned[key] = true
				f.notes = append(f.notes, Note{Package: pkg, Warning: true,
					Message: fmt.Sprintf("bundle %q requires package %q with an invalid versionRange %q (%v); the requirement is not followed", b.Name, name, text, err)})
			}
			return
		}
		out = append(out, requirement{pkg: name, rng: r, rngS: text, owner: owner})
	}
	var constraint func(c declcfg.Constraint)
	constraint = func(c declcfg.Constraint) {
		switch {
		case c.Package != nil:
			r, err := declcfg.ParseRange(c.Package.VersionRange)
			addPkg(c.Package.PackageName, c.Package.VersionRange, r, err)
		case c.GVK != nil:
			g := *c.GVK
			out = append(out, requirement{gvk: &g, owner: owner})
		case c.All != nil:
			for _, cc := range c.All.Constraints {
				constraint(cc)
			}
		default:
			key := owner.pkg + "/" + owner.name + "/constraint"
			if !f.warned[key] {
				f.warned[key] = true
				f.notes = append(f.notes, Note{Package: pkg,
					Message: fmt.Sprintf("bundle %q has an olm.constraint (any, not or cel) that dependencies are not followed through", b.Name)})
			}
		}
	}
	// Label requirements are not followed: labels name no package.
	for _, r := range b.Requires() {
		switch {
		case r.Package != nil:
			addPkg(r.Package.Name, r.Package.VersionRange, r.Package.Range, r.Package.RangeErr)
		case r.GVK != nil:
			out = append(out, requirement{gvk: r.GVK, owner: owner})
		case r.Constraint != nil:
			constraint(*r.Constraint)
		}
	}
	return out
}

func (f *filter) satisfied(req requirement) bool {
	if req.gvk != nil {
		for _, b := range f.cat.ProvidedBy(*req.gvk) {
			if f.keptBundles(b.Package.Name)[b.Name] {
				return true
			}
		}
		return false
	}
	p := f.pkgs[req.pkg]
	if p == nil {
		return false
	}
	for n := range f.keptBundles(req.pkg) {
		if v, ok := p.version(n); ok && req.rng(v) {
			return true
		}
	}
	return false
}

// providers returns the bundles that satisfy req, by package.
func (f *filter) providers(req requirement) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	add := func(pkg, name string) {
		if out[pkg] == nil {
			out[pkg] = map[string]bool{}
		}
		out[pkg][name] = true
	}
	if req.gvk != nil {
		for _, b := range f.cat.ProvidedBy(*req.gvk) {
			add(b.Package.Name, b.Name)
		}
		return out
	}
	p := f.pkgs[req.pkg]
	if p == nil {
		return out
	}
	for _, b := range p.m.Bundles {
		if b.HasVersion() && req.rng(b.SemVer) {
			add(req.pkg, b.Name)
		}
	}
	return out
}

// result builds the filtered catalog.
func (f *filter) result() *declcfg.DeclarativeConfig {
	out := &declcfg.DeclarativeConfig{}
	keptBundles := map[string]map[string]bool{}
	for pkg := range f.kept {
		keptBundles[pkg] = f.keptBundles(pkg)
	}
	keptChannels := map[string][]string{}
	for _, ch := range f.cfg.Channels {
		k := f.kept[ch.Package][ch.Name]
		if len(k) == 0 {
			continue
		}
		p := f.pkgs[ch.Package]
		nc := ch
		if !keepsAll(ch.Entries, k) {
			nc.Entries = subsetEntries(ch.Entries, func(n string) bool { return k[n] }, p.version)
		}
		out.Channels = append(out.Channels, nc)
		if !slices.Contains(keptChannels[ch.Package], ch.Name) {
			keptChannels[ch.Package] = append(keptChannels[ch.Package], ch.Name)
		}
	}
	for _, pkg := range f.cfg.Packages {
		if len(f.kept[pkg.Name]) == 0 {
			continue
		}
		if pkg.DefaultChannel != "" && !slices.Contains(keptChannels[pkg.Name], pkg.DefaultChannel) {
			nd := f.newDefault(pkg.Name, keptChannels[pkg.Name], out.Channels)
			f.notes = append(f.notes, Note{Package: pkg.Name,
				Message: fmt.Sprintf("default channel %q is not kept; %q is the new default channel", pkg.DefaultChannel, nd)})
			pkg.DefaultChannel = nd
		}
		out.Packages = append(out.Packages, pkg)
	}
	for _, b := range f.cfg.Bundles {
		if keptBundles[b.Package][b.Name] {
			out.Bundles = append(out.Bundles, b)
		}
	}
	for _, d := range f.cfg.Deprecations {
		if len(f.kept[d.Package]) == 0 {
			continue
		}
		nd := d
		nd.Entries = nil
		for _, e := range d.Entries {
			switch e.Reference.Schema {
			case declcfg.SchemaChannel:
				if !slices.Contains(keptChannels[d.Package], e.Reference.Name) {
					continue
				}
			case declcfg.SchemaBundle:
				if !keptBundles[d.Package][e.Reference.Name] {
					continue
				}
			}
			nd.Entries = append(nd.Entries, e)
		}
		if len(nd.Entries) > 0 {
			out.Deprecations = append(out.Deprecations, nd)
		}
	}
	for _, m := range f.cfg.Others {
		if m.Package == "" || len(f.kept[m.Package]) > 0 {
			out.Others = append(out.Others, m)
		}
	}
	return out
}

// newDefault picks a package's default channel among the kept ones: the
// first the user named, else the one whose head has the highest version,
// then by name.
func (f *filter) newDefault(pkg string, kept []string, channels []declcfg.Channel) string {
	for _, c := range f.sel.Channels {
		if slices.Contains(kept, c) {
			return c
		}
	}
	p := f.pkgs[pkg]
	best, bestV, bestOK := "", semver.Version{}, false
	for _, ch := range channels {
		if ch.Package != pkg {
			continue
		}
		head, _ := channelHead(ch.Entries)
		v, ok := p.version(head)
		better := best == "" ||
			(ok && (!bestOK || v.GT(bestV))) ||
			(ok == bestOK && (!ok || v.EQ(bestV)) && ch.Name < best)
		if better {
			best, bestV, bestOK = ch.Name, v, ok
		}
	}
	return best
}

func keepsAll(entries []declcfg.ChannelEntry, k map[string]bool) bool {
	for _, e := range entries {
		if !k[e.Name] {
			return false
		}
	}
	return true
}

// where returns the elements of s that keep admits, in a new slice.
func where[T any](s []T, keep func(T) bool) []T {
	var out []T
	for _, x := range s {
		if keep(x) {
			out = append(out, x)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// listNames joins up to max names, saying how many more there are.
func listNames(names []string, max int) string {
	if len(names) <= max {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:max], ", "), len(names)-max)
}

// AddDependencies adds to cut, a valid part of cfg made by some other
// selection, what its bundles require, by Filter's WithDependencies rules:
// for each olm.package.required, olm.gvk.required and olm.constraint that no
// bundle of the result satisfies, every bundle of cfg that does, in each
// channel that lists it (only the head of those, per channel, with
// headsOnly), transitively; a requirement nothing in cfg provides is a
// warning Note. The channels that gain entries are re-drawn as Filter draws
// them, over the entries kept and added, and a package new to the result
// comes as Filter writes it (with a default channel among those kept); the
// rest of cut is returned as it is. Neither cfg nor cut is changed.
func AddDependencies(cfg, cut *declcfg.DeclarativeConfig, headsOnly bool) (*declcfg.DeclarativeConfig, []Note) {
	f := &filter{cfg: cfg, sel: Selection{HeadsOnly: headsOnly, WithDependencies: true}, kept: map[string]map[string]map[string]bool{}, warned: map[string]bool{}}
	f.index()
	size := map[string]int{} // entries kept per package and channel, before
	for _, ch := range cut.Channels {
		if p := f.pkgs[ch.Package]; p != nil {
			k := map[string]bool{}
			for _, e := range ch.Entries {
				k[e.Name] = true
			}
			f.keep(p, &declcfg.Channel{Package: ch.Package, Name: ch.Name}, k)
			size[ch.Package+"/"+ch.Name] = len(f.kept[ch.Package][ch.Name])
		}
	}
	f.addDependencies()
	grown := map[string]bool{}   // packages that gained bundles
	changed := map[string]bool{} // their channels that gained entries, as package/channel
	for pkg, chans := range f.kept {
		for ch, k := range chans {
			if len(k) > size[pkg+"/"+ch] {
				grown[pkg], changed[pkg+"/"+ch] = true, true
			}
		}
	}
	notes := f.notes
	if len(grown) == 0 {
		return cut, notes
	}
	inCut := map[string]bool{}
	for _, p := range cut.Packages {
		inCut[p.Name] = true
	}
	added := f.result()
	for _, n := range f.notes[len(notes):] {
		if !inCut[n.Package] {
			notes = append(notes, n) // a new package's default channel
		}
	}
	// A grown package takes its bundles and deprecations from added, its
	// changed channels too, and, when it is new, everything.
	takeAdded := func(pkg, ch string) bool {
		return grown[pkg] && (!inCut[pkg] || changed[pkg+"/"+ch])
	}
	out := &declcfg.DeclarativeConfig{Packages: slices.Clone(cut.Packages), Others: slices.Clone(cut.Others)}
	for _, p := range added.Packages {
		if takeAdded(p.Name, "") {
			out.Packages = append(out.Packages, p)
		}
	}
	for _, m := range added.Others {
		if m.Package != "" && takeAdded(m.Package, "") {
			out.Others = append(out.Others, m)
		}
	}
	out.Channels = append(where(cut.Channels, func(ch declcfg.Channel) bool { return !changed[ch.Package+"/"+ch.Name] }),
		where(added.Channels, func(ch declcfg.Channel) bool { return takeAdded(ch.Package, ch.Name) })...)
	out.Bundles = append(where(cut.Bundles, func(b declcfg.Bundle) bool { return !grown[b.Package] }),
		where(added.Bundles, func(b declcfg.Bundle) bool { return grown[b.Package] })...)
	out.Deprecations = append(where(cut.Deprecations, func(d declcfg.Deprecation) bool { return !grown[d.Package] }),
		where(added.Deprecations, func(d declcfg.Deprecation) bool { return grown[d.Package] })...)
	return out, notes
}
