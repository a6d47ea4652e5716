package page

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/blang/semver/v4"

	"github.com/fbc-project/fbc/graph"
	"github.com/fbc-project/fbc/internal/fault"
)

// maxCandidates is how many successors of a step the page lists; the
// others are counted. A channel whose every entry has a skipRange over all
// older ones gives each bundle as many successors as there are newer
// entries, and listing them all would make the page grow with the square
// of the channel.
const maxCandidates = 3

// side is one catalog's package as the page shows it, by bundle name:
// Build makes one Package of one side, BuildDiff one of two.
type side struct {
	cat   *graph.Catalog
	pkg   *graph.Package
	views []*sideView // every channel first, then each channel by name
	// extra gives the versions of bundles the package lacks that paths
	// are simulated from all the same (on a diff page, the bundles the
	// change removed: their clusters run them still).
	extra map[string]string
}

type sideView struct {
	channel string
	// chans are the channels the view draws and subscribes to.
	chans   []*graph.Channel
	nodes   []string
	hasNode map[string]bool
	edges   []*sideEdge
	ranges  []*sideRange
	sims    map[graph.Semantics]*sideSim
}

type edgeKey struct{ from, to, kind string }

type sideEdge struct {
	edgeKey
	channels []string
	// ignoredIn counts the channels where classic never offers the edge's
	// newer end; classicIgnores says why (in the first of them).
	ignoredIn      int
	classicIgnores string
	v1Ignores      string
}

type rangeKey struct{ to, rng string }

type sideRange struct {
	rangeKey
	entry          *graph.Entry
	covered        map[string]bool
	channels       []string
	ignoredIn      int
	classicIgnores string
	invalid        string
}

type sideSim struct {
	sem   graph.Semantics
	flags string
	fresh *sideStep
	steps map[string]*sideStep
}

type sideStep struct {
	next        string // "" when OLM stays
	reason, err string
	cands       []sideCandidate
	more        int
	moves       int
	pathErr     string
	end         string // where the path ends, "" when it fails
	note        string
	hops        *int
}

type sideCandidate struct{ name, text string }

// sideOptions are what a side's simulations need besides the catalog.
type sideOptions struct {
	deps  graph.DependencyResolver
	warn  fault.Warn
	extra map[string]string
}

// newSide simulates a package; it stops, with ctx's error, when ctx ends.
func newSide(ctx context.Context, cat *graph.Catalog, p *graph.Package, opts sideOptions) (*side, error) {
	s := &side{cat: cat, pkg: p, extra: opts.extra}
	s.views = append(s.views, s.view("", p.Channels))
	for _, name := range p.ChannelNames() {
		s.views = append(s.views, s.view(name, []*graph.Channel{p.Channel(name)}))
	}
	for _, sem := range []graph.Semantics{graph.Classic, graph.V1} {
		for _, v := range s.views {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			v.sims[sem] = s.simulate(v, sem, opts.deps)
		}
		s.survey(sem, opts.warn)
	}
	return s, nil
}

// skippedBy maps each name an entry of the channel skips to the first
// entry that skips it: OLM classic drops those from the channel.
func skippedBy(ch *graph.Channel) map[string]string {
	out := map[string]string{}
	for _, e := range ch.AllEntries() {
		for _, s := range e.Skips {
			if _, ok := out[s]; !ok {
				out[s] = e.Name
			}
		}
	}
	return out
}

// view collects the nodes and edges of the channels.
func (s *side) view(name string, chans []*graph.Channel) *sideView {
	v := &sideView{channel: name, chans: chans, hasNode: map[string]bool{}, sims: map[graph.Semantics]*sideSim{}}
	add := v.add
	edges := map[edgeKey]*sideEdge{}
	ranges := map[rangeKey]*sideRange{}
	for _, ch := range chans {
		for _, e := range ch.AllEntries() {
			add(e.Name)
		}
	}
	for _, ch := range chans {
		skipped := skippedBy(ch)
		for _, e := range ch.AllEntries() {
			ignore := ""
			if by, ok := skipped[e.Name]; ok {
				ignore = fmt.Sprintf("%s skips %s in %s, so OLM classic never offers %s there", by, e.Name, ch.Name, e.Name)
			}
			edge := func(from, kind string) {
				add(from)
				k := edgeKey{from, e.Name, kind}
				se := edges[k]
				if se == nil {
					se = &sideEdge{edgeKey: k}
					edges[k] = se
					v.edges = append(v.edges, se)
				}
				if slices.Contains(se.channels, ch.Name) {
					return
				}
				se.channels = append(se.channels, ch.Name)
				if ignore != "" {
					se.ignoredIn++
					if se.classicIgnores == "" {
						se.classicIgnores = ignore
					}
				}
			}
			if e.Replaces != "" {
				edge(e.Replaces, "replaces")
			}
			for _, sk := range e.Skips {
				edge(sk, "skips")
			}
			if e.SkipRange != "" {
				k := rangeKey{e.Name, e.SkipRange}
				sr := ranges[k]
				if sr == nil {
					sr = &sideRange{rangeKey: k, entry: e}
					if e.Range == nil {
						sr.invalid = fmt.Sprintf("the skipRange does not parse, and both OLMs ignore it: %v", e.RangeErr)
					}
					ranges[k] = sr
					v.ranges = append(v.ranges, sr)
				}
				if !slices.Contains(sr.channels, ch.Name) {
					sr.channels = append(sr.channels, ch.Name)
					if ignore != "" {
						sr.ignoredIn++
						if sr.classicIgnores == "" {
							sr.classicIgnores = ignore
						}
					}
				}
			}
		}
	}
	if name == "" {
		// Bundles no channel lists are nodes of the view of every
		// channel: opm calls them orphans, and no upgrade reaches them.
		for _, b := range s.pkg.Bundles {
			add(b.Name)
		}
	}
	for _, se := range v.edges {
		// Classic ignores an edge only where no channel that declares it
		// offers its newer end.
		if se.ignoredIn < len(se.channels) {
			se.classicIgnores = ""
		}
		if from, to := s.semver(se.from), s.semver(se.to); from != nil && to != nil && to.LT(*from) {
			se.v1Ignores = fmt.Sprintf("a downgrade from %s to %s: OLM v1 keeps the installed %s rather than move to a lower version (unless only %s is deprecated)", from, to, se.from, se.from)
		}
	}
	for _, sr := range v.ranges {
		if sr.ignoredIn < len(sr.channels) {
			sr.classicIgnores = ""
		}
		sr.covered = map[string]bool{}
		if sr.entry.Range == nil {
			continue
		}
		for _, n := range v.nodes {
			if ver := s.semver(n); n != sr.to && ver != nil && sr.entry.InRange(*ver) {
				sr.covered[n] = true
			}
		}
	}
	return v
}

func (v *sideView) add(n string) {
	if !v.hasNode[n] {
		v.hasNode[n] = true
		v.nodes = append(v.nodes, n)
	}
}

// semver is a node's version parsed as FBC requires, nil when it has none
// that parses.
func (s *side) semver(name string) *semver.Version {
	if b := s.pkg.Bundle(name); b != nil {
		if !b.HasVersion() {
			return nil
		}
		return &b.SemVer
	}
	if v, err := semver.Parse(s.extra[name]); err == nil {
		return &v
	}
	return nil
}

// simulate resolves, with the rules of sem, a fresh install and an upgrade
// from every node of the view, as fbc upgrade-path does for a subscription
// to the view's channel (to none, in the view of every channel).
func (s *side) simulate(v *sideView, sem graph.Semantics, deps graph.DependencyResolver) *sideSim {
	opts := graph.Options{Semantics: sem}
	var flags []string
	if sem == graph.V1 {
		flags = append(flags, "--semantics v1")
	} else {
		// fbc upgrade-path resolves a classic path's dependencies as
		// OLM's resolver does (a survey does not).
		opts.Dependencies = deps
	}
	if v.channel != "" {
		opts.Channels = []string{v.channel}
		flags = append(flags, "--channel "+shellQuote(v.channel))
	}
	sim := &sideSim{sem: sem, flags: strings.Join(flags, " "), steps: map[string]*sideStep{}}
	r, err := graph.NewResolver(s.pkg, opts)
	if err != nil {
		// The options are built here: only a channel name v1 refuses
		// (an empty one) gets here.
		sim.fresh = &sideStep{err: err.Error(), pathErr: err.Error()}
		return sim
	}
	r.Remember()
	ends := &pathEnds{r: r, memo: map[string]*pathEnd{}, on: map[string]bool{}}
	sim.fresh = ends.walk(nil)
	v.close(sim.fresh)
	// Every bundle a step names is a node with a step of its own, so
	// that the page can follow any path to its end (the view's nodes
	// hold them all already: this keeps it so). The bundles the change
	// removed get a step too where nothing here names them any more: the
	// merged view draws them from the old side, and their clusters' path
	// in this catalog is what the page is for.
	var removed []string
	for n := range s.extra {
		if !v.hasNode[n] {
			removed = append(removed, n)
		}
	}
	slices.Sort(removed)
	walk := func(n string) {
		if from := s.installed(r, n); from != nil {
			st := ends.walk(from)
			sim.steps[n] = st
			v.close(st)
		}
	}
	for i := 0; ; {
		for ; i < len(v.nodes); i++ {
			walk(v.nodes[i])
		}
		if len(removed) == 0 {
			break
		}
		walk(removed[0])
		removed = removed[1:]
	}
	return sim
}

// close makes nodes of the bundles a step names.
func (v *sideView) close(st *sideStep) {
	if st.next != "" {
		v.add(st.next)
	}
	for _, c := range st.cands {
		v.add(c.name)
	}
}

// installed is the installed bundle a path from node n starts at, nil when
// none can be simulated: n has no olm.bundle and no version, or a version
// the semantics cannot read.
func (s *side) installed(r *graph.Resolver, n string) *graph.Installed {
	if b := s.pkg.Bundle(n); b != nil {
		return &graph.Installed{Name: b.Name, Version: b.Version}
	}
	v, ok := s.extra[n]
	if !ok {
		return nil
	}
	in := graph.Installed{Name: n, Version: v}
	if r.CheckInstalled(in) != nil {
		return nil
	}
	return &in
}

// pathEnds finds where the path from each installed bundle ends, as
// r.Path does, in time linear in the bundles: a path's upgrades, end and
// failure are its first step's followed by those of the path from the
// bundle it moves to, and the steps are remembered (Resolver.Remember).
// Only a path that comes back to a bundle it passed is left to r.Path: its
// error names the path from its start.
type pathEnds struct {
	r    *graph.Resolver
	memo map[string]*pathEnd
	on   map[string]bool // the bundles of the path being followed
}

type pathEnd struct {
	moves int
	end   string // where the path stops, "" when it fails
	err   string
	loop  bool
}

// of is the end of the path from an installed bundle (nil: a fresh
// install).
func (pe *pathEnds) of(from *graph.Installed) *pathEnd {
	if from != nil {
		if e := pe.memo[from.Name]; e != nil {
			return e
		}
	}
	st, err := pe.r.Step(from)
	var e *pathEnd
	switch {
	case err != nil:
		e = &pathEnd{err: err.Error()}
	case st.Next == nil && from != nil:
		e = &pathEnd{end: from.Name}
	case st.Next == nil:
		e = &pathEnd{}
	case pe.on[st.Next.Name] || (from != nil && st.Next.Name == from.Name):
		e = &pathEnd{loop: true}
	default:
		if from != nil {
			pe.on[from.Name] = true
		}
		next := pe.of(&graph.Installed{Name: st.Next.Name, Version: st.Next.Version})
		if from != nil {
			delete(pe.on, from.Name)
		}
		e = &pathEnd{moves: next.moves + 1, end: next.end, err: next.err, loop: next.loop}
	}
	if from != nil {
		pe.memo[from.Name] = e
	}
	return e
}

// walk resolves the first step from an installed bundle (nil: a fresh
// install) and where its path ends: what fbc upgrade-path says of it.
func (pe *pathEnds) walk(from *graph.Installed) *sideStep {
	first, err := pe.r.Step(from)
	e := pe.of(from)
	if e.loop {
		// The loop's error names the path from here: r.Path says it.
		p := pe.r.Path(from)
		e = &pathEnd{moves: len(p.Bundles())}
		if p.Err != nil {
			e.err = p.Err.Error()
		}
	}
	st := &sideStep{moves: e.moves, end: e.end, pathErr: e.err}
	if err != nil {
		st.err = err.Error()
	}
	if first != nil {
		if first.Next != nil {
			st.next = first.Next.Name
		}
		st.reason = first.Reason
		for i, c := range first.Candidates {
			if i == maxCandidates {
				st.more = len(first.Candidates) - i
				break
			}
			st.cands = append(st.cands, sideCandidate{c.Name, c.Explain(from)})
		}
	}
	if st.err == st.pathErr {
		st.pathErr = "" // the page reads this step's error as the path's
	}
	return st
}

// survey adds what fbc upgrade-path --all says of each bundle, channel by
// channel, to the steps of the channel's view, and to the view of every
// channel with the channel's name.
func (s *side) survey(sem graph.Semantics, warn fault.Warn) {
	sv, err := graph.SurveyUpgrades(s.cat, graph.UpgradeQuery{Package: s.pkg.Name, Options: graph.Options{Semantics: sem}, Warn: warn})
	if err != nil {
		return // the query is built here
	}
	all := s.views[0].sims[sem]
	for _, sel := range sv.Selections {
		var v *sideView
		for _, cand := range s.views[1:] {
			if len(sel.Channels) == 1 && cand.channel == sel.Channels[0] {
				v = cand
			}
		}
		if v == nil || sel.Err != nil {
			continue // a channel that does not resolve says so at every step
		}
		sim := v.sims[sem]
		notes := map[string][]string{}
		for _, row := range sel.Rows {
			st := sim.steps[row.From.Name]
			if st == nil {
				continue
			}
			if row.Hops >= 0 {
				h := row.Hops
				st.hops = &h
			}
			if n := row.Note(nil); n != "" {
				notes[row.From.Name] = append(notes[row.From.Name], n)
			}
		}
		for _, u := range sel.Unreachable {
			notes[u.Bundle.Name] = append(notes[u.Bundle.Name], "no cluster version reaches it: "+u.Reason)
		}
		for name, ns := range notes {
			note := strings.Join(ns, "; ")
			if st := sim.steps[name]; st != nil {
				st.note = note
			}
			if st := all.steps[name]; st != nil {
				st.note = joinNote(st.note, "in "+v.channel+": "+note)
			}
		}
	}
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// differences lists the nodes of a view whose upgrades classic and v1
// decide differently: the next bundle, where the path ends, or whether it
// fails.
func (v *sideView) differences() []sideDifference {
	classic, v1 := v.sims[graph.Classic], v.sims[graph.V1]
	var out []sideDifference
	for _, n := range v.nodes {
		c, o := classic.steps[n], v1.steps[n]
		if c == nil || o == nil {
			continue
		}
		if c.next == o.next && c.end == o.end && (c.pathErr == "") == (o.pathErr == "") {
			continue
		}
		out = append(out, sideDifference{n, describeOutcome(c), describeOutcome(o)})
	}
	return out
}

type sideDifference struct{ name, classic, v1 string }

// describeOutcome says in a few words where a path goes.
func describeOutcome(st *sideStep) string {
	switch {
	case st.err != "":
		return "fails to resolve: " + st.err
	case st.pathErr != "" && st.moves == 0:
		return "fails: " + st.pathErr
	case st.pathErr != "":
		return fmt.Sprintf("upgrades to %s, then fails: %s", st.next, st.pathErr)
	case st.moves == 0:
		return "stays"
	case st.moves == 1:
		return fmt.Sprintf("upgrades to %s (1 upgrade)", st.next)
	}
	return fmt.Sprintf("upgrades to %s, then on to %s (%d upgrades)", st.next, st.end, st.moves)
}

// shellQuote quotes a word for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@=+,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
