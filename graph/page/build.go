package page

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/blang/semver/v4"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/graph"
	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/model"
)

// Options say what a graph page shows.
type Options struct {
	// Package is the package to show; "" shows every package of the
	// catalog, with a picker.
	Package string
	// Channel, a channel of Package, is the view the page opens on.
	Channel string
	// Catalog names the catalog in the commands the page shows.
	Catalog string
	// Others are the catalog's blobs of other schemas: the lifecycle
	// blobs among them are read.
	Others []declcfg.Meta
	// Dependencies resolves the dependencies of OLM classic's steps as
	// fbc upgrade-path does; without it, a step to a bundle with
	// dependencies says they are not simulated.
	Dependencies graph.DependencyResolver
	// Warn receives the problems the simulations work around (the page
	// lists them too).
	Warn fault.Warn
}

// Build computes the page of a catalog: one package (Options.Package) or
// every package. A package the catalog does not have is a usage error
// naming the closest one; a catalog without packages is an error too. It
// stops with ctx's error when ctx ends.
func Build(ctx context.Context, cat *graph.Catalog, opts Options) (*Document, error) {
	doc := &Document{Kind: "graph", Catalog: opts.Catalog, Packages: []*Package{}}
	pkgs := cat.Packages
	if opts.Package != "" {
		p, err := cat.Lookup(opts.Package)
		if err != nil {
			return nil, err
		}
		pkgs = []*graph.Package{p}
		doc.Title = fmt.Sprintf("%s: upgrade graph", p.Name)
		if opts.Channel != "" {
			if _, err := graph.LookupChannel(p, opts.Channel); err != nil {
				return nil, err
			}
			doc.Channel = opts.Channel
		}
	} else {
		doc.Title = fmt.Sprintf("%s: upgrade graphs", opts.Catalog)
	}
	if len(pkgs) == 0 {
		return nil, fault.Errorf(fault.Usage, "nothing to draw: the catalog has no packages")
	}
	w := newWarnings(opts.Warn)
	cat.Warn(w.list) // graph.New sent them on already
	lc := lifecycles(opts.Others, w)
	for _, p := range pkgs {
		s, err := newSide(ctx, cat, p, sideOptions{deps: opts.Dependencies, warn: w.add})
		if err != nil {
			return nil, err
		}
		doc.Packages = append(doc.Packages, assemble(nil, s, false, lc[p.Name]))
	}
	doc.Warnings = w.msgs
	return doc, nil
}

// DiffOptions say what a diff page shows besides the report.
type DiffOptions struct {
	// Old and New name the catalogs.
	Old, New string
	// OldOthers and NewOthers are the catalogs' blobs of other schemas:
	// the lifecycle blobs among them are read.
	OldOthers, NewOthers []declcfg.Meta
	Warn                 fault.Warn
}

// BuildDiff computes the page of a change: every package the change
// touched (one with changes or findings), the two catalogs' graphs merged,
// each node, entry, edge and channel marked added or removed, and the
// upgrades simulated in both catalogs. The simulations follow the upgrade
// graph as fbc diff judges it: dependencies are not resolved. It stops
// with ctx's error when ctx ends.
func BuildDiff(ctx context.Context, oldCat, newCat *graph.Catalog, report *graph.DiffReport, opts DiffOptions) (*Document, error) {
	doc := &Document{Kind: "diff", Title: fmt.Sprintf("%s -> %s: upgrade graph change", opts.Old, opts.New),
		Old: opts.Old, New: opts.New, Packages: []*Package{}}
	d := &Diff{Verdict: report.Verdict(), Safe: report.Safe(), Semantics: report.Semantics, Preexisting: len(report.Preexisting),
		Fragment: report.Fragment, OutOfScope: report.OutOfScope, Prune: report.Prune}
	for _, f := range report.Findings {
		if f.Severity == declcfg.SeverityError {
			d.Errors++
		} else {
			d.Warnings++
		}
	}
	doc.Diff = d
	touched := map[string]bool{}
	for _, c := range report.Changes {
		touched[c.Package] = true
	}
	for _, f := range report.Findings {
		touched[f.Package] = true
	}
	names := append(oldCat.PackageNames(), newCat.PackageNames()...)
	slices.Sort(names)
	names = slices.Compact(names)
	w := newWarnings(opts.Warn)
	oldLC, newLC := lifecycles(opts.OldOthers, w), lifecycles(opts.NewOthers, w)
	for _, name := range names {
		if slices.Contains(report.OutOfScope, name) {
			continue
		}
		if !touched[name] {
			doc.Unchanged++
			continue
		}
		op, np := oldCat.Package(name), newCat.Package(name)
		var before, after *side
		var err error
		if op != nil {
			if before, err = newSide(ctx, oldCat, op, sideOptions{warn: w.add}); err != nil {
				return nil, err
			}
		}
		if np != nil {
			// Clusters still run the bundles the change removed: their
			// paths in NEW start from their old name and version, as
			// fbc diff simulates them.
			extra := map[string]string{}
			if op != nil {
				for _, b := range op.Bundles {
					if np.Bundle(b.Name) == nil {
						extra[b.Name] = b.Version
					}
				}
			}
			if after, err = newSide(ctx, newCat, np, sideOptions{warn: w.add, extra: extra}); err != nil {
				return nil, err
			}
		}
		lc := newLC[name]
		if np == nil {
			lc = oldLC[name]
		}
		pp := assemble(before, after, true, lc)
		for _, c := range report.Changes {
			if c.Package == name {
				pp.Changes = append(pp.Changes, c.Describe())
			}
		}
		for _, f := range report.Findings {
			if f.Package == name {
				pp.Findings = append(pp.Findings, graph.JSONFindings([]declcfg.Finding{f})...)
			}
		}
		pp.Problems = len(pp.Findings)
		doc.Packages = append(doc.Packages, pp)
	}
	doc.Warnings = w.msgs
	return doc, nil
}

// warnings collects the warnings of a page once each, passing them on.
type warnings struct {
	pass fault.Warn
	msgs []string
	seen map[string]bool
}

func newWarnings(pass fault.Warn) *warnings {
	return &warnings{pass: pass, seen: map[string]bool{}}
}

// list lists a warning on the page only.
func (w *warnings) list(msg string) {
	if !w.seen[msg] {
		w.seen[msg] = true
		w.msgs = append(w.msgs, msg)
	}
}

// add lists a warning and passes it on, once.
func (w *warnings) add(msg string) {
	if !w.seen[msg] {
		w.list(msg)
		w.pass.Printf("%s", msg)
	}
}

func deprecation(d *model.Deprecation) string {
	if d == nil {
		return ""
	}
	return d.Message
}

// assemble makes the page's package of one side (cur, with old nil and
// diff false) or of a change (old and cur, either nil when the package was
// added or removed).
func assemble(old, cur *side, diff bool, lc []*LifecycleVersion) *Package {
	sides := []*side{}
	for _, s := range []*side{cur, old} {
		if s != nil {
			sides = append(sides, s)
		}
	}
	main := sides[0]
	p := &Package{Name: main.pkg.Name, DefaultChannel: main.pkg.DefaultChannel, Deprecated: deprecation(main.pkg.Deprecation),
		Lifecycle: lc, Bundles: []*Bundle{}, Channels: []*Channel{}, Views: []*View{}}
	if diff {
		switch {
		case old == nil:
			p.Status = "added"
		case cur == nil:
			p.Status = "removed"
		default:
			p.Status = "changed"
			if old.pkg.DefaultChannel != cur.pkg.DefaultChannel {
				p.OldDefaultChannel = old.pkg.DefaultChannel
			}
		}
	}

	// The nodes: every name of every view of either side, in version
	// order.
	type node struct {
		name string
		ver  *semver.Version
	}
	seen := map[string]bool{}
	var nodes []node
	for _, s := range sides {
		for _, v := range s.views {
			for _, n := range v.nodes {
				if !seen[n] {
					seen[n] = true
					nodes = append(nodes, node{n, s.semver(n)})
				}
			}
		}
	}
	slices.SortStableFunc(nodes, func(a, b node) int {
		switch {
		case a.ver == nil && b.ver == nil:
		case a.ver == nil:
			return -1
		case b.ver == nil:
			return 1
		default:
			if c := a.ver.Compare(*b.ver); c != 0 {
				return c
			}
		}
		return strings.Compare(a.name, b.name)
	})
	idx := make(map[string]int, len(nodes))
	for i, n := range nodes {
		idx[n.name] = i
		p.Bundles = append(p.Bundles, bundleOf(n.name, n.ver, old, cur, diff, lc))
	}

	// The channels of either side, by name.
	var chans []string
	for _, s := range sides {
		chans = append(chans, s.pkg.ChannelNames()...)
	}
	slices.Sort(chans)
	chans = slices.Compact(chans)
	for _, name := range chans {
		p.Channels = append(p.Channels, channelOf(name, old, cur, diff, idx))
	}

	// The views: every channel's, then each channel's.
	bundles := make([]string, len(nodes))
	for i, n := range nodes {
		bundles[i] = n.name
	}
	for _, name := range append([]string{""}, chans...) {
		p.Views = append(p.Views, viewOf(name, old, cur, diff, idx, bundles))
	}
	if !diff {
		problems := map[string]bool{}
		for _, v := range main.views[1:] {
			for _, sim := range v.sims {
				for n, st := range sim.steps {
					if st.note != "" {
						problems[n] = true
					}
				}
			}
		}
		p.Problems = len(problems)
	}
	return p
}

func bundleOf(name string, ver *semver.Version, old, cur *side, diff bool, lc []*LifecycleVersion) *Bundle {
	var nb, ob *graph.Bundle
	if cur != nil {
		nb = cur.pkg.Bundle(name)
	}
	if old != nil {
		ob = old.pkg.Bundle(name)
	}
	b := &Bundle{Name: name}
	src := cmp.Or(nb, ob)
	if src == nil {
		b.Missing = true
		return b
	}
	b.Version = src.Version
	b.Deprecated = deprecation(src.Deprecation)
	b.LegacyDeprecated = src.LegacyDeprecated
	b.Dependencies = graph.Dependency(src)
	if diff {
		switch {
		case nb != nil && ob == nil:
			b.Status = "added"
		case nb == nil:
			b.Status = "removed"
		case ob.Version != nb.Version:
			b.OldVersion = ob.Version
		}
	}
	if ver != nil {
		minor := fmt.Sprintf("%d.%d", ver.Major, ver.Minor)
		for _, v := range lc {
			if v.Name == minor {
				b.Lifecycle = minor
				break
			}
		}
	}
	return b
}

func channelOf(name string, old, cur *side, diff bool, idx map[string]int) *Channel {
	var nc, oc *graph.Channel
	if cur != nil {
		nc = cur.pkg.Channel(name)
	}
	if old != nil {
		oc = old.pkg.Channel(name)
	}
	src := cmp.Or(nc, oc)
	ch := &Channel{Name: name, Deprecated: deprecation(src.Deprecation), Heads: []int{}, Entries: []*Entry{}}
	if diff {
		switch {
		case nc == nil:
			ch.Status = "removed"
		case oc == nil:
			ch.Status = "added"
		}
	}
	for _, h := range src.Heads() {
		ch.Heads = append(ch.Heads, idx[h.Name])
	}
	entry := func(e *graph.Entry, skipped map[string]string, status string) *Entry {
		return &Entry{Bundle: idx[e.Name], Replaces: e.Replaces, Skips: e.Skips, SkipRange: e.SkipRange, SkippedBy: skipped[e.Name], Status: status}
	}
	skipped := skippedBy(src)
	for _, e := range src.Entries {
		status := ""
		if diff && nc != nil && oc != nil && oc.Entry(e.Name) == nil {
			status = "added"
		}
		ch.Entries = append(ch.Entries, entry(e, skipped, status))
	}
	if diff && nc != nil && oc != nil {
		oldSkipped := skippedBy(oc)
		for _, e := range oc.Entries {
			if nc.Entry(e.Name) == nil {
				ch.Entries = append(ch.Entries, entry(e, oldSkipped, "removed"))
			}
		}
	}
	return ch
}

func (s *side) viewOf(channel string) *sideView {
	if s == nil {
		return nil
	}
	for _, v := range s.views {
		if v.channel == channel {
			return v
		}
	}
	return nil
}

func viewOf(channel string, old, cur *side, diff bool, idx map[string]int, bundles []string) *View {
	nv, ov := cur.viewOf(channel), old.viewOf(channel)
	v := &View{Channel: channel, Nodes: []int{}, Edges: []*Edge{}}
	inView := map[string]bool{}
	for _, sv := range []*sideView{nv, ov} {
		if sv == nil {
			continue
		}
		for _, n := range sv.nodes {
			if !inView[n] {
				inView[n] = true
				v.Nodes = append(v.Nodes, idx[n])
			}
		}
	}
	slices.Sort(v.Nodes)
	names := make([]string, len(v.Nodes))
	for i, b := range v.Nodes {
		names[i] = bundles[b]
	}
	status := func(inNew, inOld bool) string {
		switch {
		case !diff || (inNew && inOld):
			return ""
		case inNew:
			return "added"
		}
		return "removed"
	}

	// Edges and ranges: the new side's, then those only the old side has.
	var oldEdges, newEdges []*sideEdge
	var oldRanges, newRanges []*sideRange
	if ov != nil {
		oldEdges, oldRanges = ov.edges, ov.ranges
	}
	if nv != nil {
		newEdges, newRanges = nv.edges, nv.ranges
	}
	merge(oldEdges, newEdges, func(e *sideEdge) edgeKey { return e.edgeKey }, status, func(e *sideEdge, st string) {
		ed := &Edge{From: idx[e.from], To: idx[e.to], Kind: e.kind, ClassicIgnores: e.classicIgnores, V1Ignores: e.v1Ignores, Status: st}
		if channel == "" {
			ed.Channels = e.channels
		}
		v.Edges = append(v.Edges, ed)
	})
	slices.SortStableFunc(v.Edges, func(a, b *Edge) int {
		return cmp.Or(cmp.Compare(a.To, b.To), cmp.Compare(a.From, b.From), cmp.Compare(a.Kind, b.Kind))
	})

	addRange := func(r *sideRange, st string) {
		rg := &Range{To: idx[r.to], Range: r.rng, Covers: [][2]int{}, Invalid: r.invalid, ClassicIgnores: r.classicIgnores, Status: st}
		if channel == "" {
			rg.Channels = r.channels
		}
		// Runs of covered nodes, in the view's order.
		run := -1
		for i, n := range names {
			switch {
			case r.covered[n] && run < 0:
				run = i
			case !r.covered[n] && run >= 0:
				rg.Covers = append(rg.Covers, [2]int{v.Nodes[run], v.Nodes[i-1]})
				run = -1
			}
		}
		if run >= 0 {
			rg.Covers = append(rg.Covers, [2]int{v.Nodes[run], v.Nodes[len(names)-1]})
		}
		v.Ranges = append(v.Ranges, rg)
	}
	merge(oldRanges, newRanges, func(r *sideRange) rangeKey { return r.rangeKey }, status, addRange)
	slices.SortStableFunc(v.Ranges, func(a, b *Range) int {
		return cmp.Or(cmp.Compare(a.To, b.To), cmp.Compare(a.Range, b.Range))
	})

	if nv != nil {
		v.Classic, v.V1 = simOf(nv.sims[graph.Classic], names, idx), simOf(nv.sims[graph.V1], names, idx)
		for _, d := range nv.differences() {
			v.Differences = append(v.Differences, &Difference{Bundle: idx[d.name], Classic: d.classic, V1: d.v1})
		}
	}
	if diff && ov != nil {
		v.OldClassic, v.OldV1 = simOf(ov.sims[graph.Classic], names, idx), simOf(ov.sims[graph.V1], names, idx)
	}
	return v
}

// merge adds the new side's items, then those only the old side has, each
// with its status (added, removed, or "" when both sides have it).
func merge[K comparable, T any](olds, news []T, key func(T) K, status func(inNew, inOld bool) string, add func(T, string)) {
	inOld, inNew := map[K]bool{}, map[K]bool{}
	for _, x := range olds {
		inOld[key(x)] = true
	}
	for _, x := range news {
		inNew[key(x)] = true
		add(x, status(true, inOld[key(x)]))
	}
	for _, x := range olds {
		if !inNew[key(x)] {
			add(x, status(false, true))
		}
	}
}

func simOf(ss *sideSim, names []string, idx map[string]int) *Sim {
	sim := &Sim{Semantics: ss.sem, Flags: ss.flags, Fresh: stepOf(ss.fresh, idx), Steps: make([]*Step, len(names))}
	for i, n := range names {
		if st := ss.steps[n]; st != nil {
			sim.Steps[i] = stepOf(st, idx)
		}
	}
	return sim
}

func stepOf(st *sideStep, idx map[string]int) *Step {
	out := &Step{Next: -1, Reason: st.reason, Error: st.err, More: st.more, Moves: st.moves, PathError: st.pathErr, Note: st.note, Hops: st.hops}
	if st.next != "" {
		out.Next = idx[st.next]
	}
	for _, c := range st.cands {
		out.Candidates = append(out.Candidates, &Candidate{Bundle: idx[c.name], Text: c.text})
	}
	return out
}
