package model

import (
	"slices"
	"sort"
	"strings"

	"github.com/blang/semver/v4"
)

// EdgeKind names how a channel entry declares that it upgrades a bundle.
type EdgeKind string

// The three edge kinds of an olm.channel entry.
const (
	EdgeReplaces  EdgeKind = "replaces"
	EdgeSkips     EdgeKind = "skips"
	EdgeSkipRange EdgeKind = "skipRange"
)

var edgeKinds = [...]EdgeKind{EdgeReplaces, EdgeSkips, EdgeSkipRange}

// Edge is one upgrade edge of a channel: a cluster running the bundle
// named From may upgrade to the entry To.
type Edge struct {
	Kind EdgeKind
	From string
	// FromEntry is From's entry in the same channel, nil if it has none.
	FromEntry *Entry
	// FromBundle is the package's bundle named From, nil if there is none
	// (a replaces or skips target pruned from the catalog).
	FromBundle *Bundle
	To         *Entry
}

// Edges returns every upgrade edge of the channel, entry by entry: its
// replaces, its skips, then every other entry of the channel whose bundle's
// version its skipRange contains.
func (ch *Channel) Edges() []Edge {
	var out []Edge
	p := ch.Package
	edge := func(kind EdgeKind, from string, to *Entry) Edge {
		return Edge{Kind: kind, From: from, FromEntry: ch.byName[from], FromBundle: p.bundles[from], To: to}
	}
	for _, e := range ch.Entries {
		if e.Replaces != "" {
			out = append(out, edge(EdgeReplaces, e.Replaces, e))
		}
		for _, s := range e.Skips {
			if s != "" {
				out = append(out, edge(EdgeSkips, s, e))
			}
		}
		if e.Range == nil {
			continue
		}
		for _, o := range ch.Entries {
			if o != e && o.Bundle != nil && o.Bundle.HasVersion() && e.Range(o.Bundle.SemVer) {
				out = append(out, edge(EdgeSkipRange, o.Name, e))
			}
		}
	}
	return out
}

// EdgeIndex answers "which of these entries upgrade the installed bundle?"
// without scanning them: replaces and skips are looked up by name,
// skipRanges through an interval index. The entries' order is the caller's
// preference order (OLM classic: channel order from the head).
type EdgeIndex struct {
	entries  []*Entry
	replaces map[string][]int32
	skips    map[string][]int32
	ranges   rangeIndex
}

// NewEdgeIndex indexes the upgrade edges of entries (of one channel or of
// several).
func NewEdgeIndex(entries []*Entry) *EdgeIndex {
	ix := &EdgeIndex{entries: entries, replaces: make(map[string][]int32, len(entries)), skips: map[string][]int32{}}
	var items []rangeItem
	for i, e := range entries {
		pos := int32(i)
		if e.Replaces != "" {
			ix.replaces[e.Replaces] = append(ix.replaces[e.Replaces], pos)
		}
		for _, s := range e.Skips {
			if l := ix.skips[s]; len(l) == 0 || l[len(l)-1] != pos {
				ix.skips[s] = append(l, pos)
			}
		}
		if e.Range != nil {
			for _, iv := range rangeBounds(e.SkipRange) {
				items = append(items, rangeItem{interval: iv, pos: pos})
			}
		}
	}
	ix.ranges = newRangeIndex(items)
	return ix
}

// Entries returns the indexed entries, in the order given.
func (ix *EdgeIndex) Entries() []*Entry { return ix.entries }

// Coverage is an entry that upgrades the installed bundle and the kinds of
// edge by which it does (in the order replaces, skips, skipRange).
type Coverage struct {
	// Index is the entry's place in the indexed list.
	Index int
	Entry *Entry
	Kinds []EdgeKind
}

// Cover lists the entries that replace or skip name, or whose skipRange
// contains version (when it is not nil), in index order.
func (ix *EdgeIndex) Cover(name string, version *semver.Version) []Coverage {
	// kind indexes edgeKinds: a hit is 8 bytes.
	type hit struct {
		pos  int32
		kind uint8
	}
	byReplaces, bySkips := ix.replaces[name], ix.skips[name]
	var stabbed []int32
	if version != nil {
		ix.ranges.stab(*version, &stabbed)
	}
	if len(byReplaces)+len(bySkips)+len(stabbed) == 0 {
		return nil
	}
	hits := make([]hit, 0, len(byReplaces)+len(bySkips)+len(stabbed))
	for _, p := range byReplaces {
		hits = append(hits, hit{p, 0})
	}
	for _, p := range bySkips {
		hits = append(hits, hit{p, 1})
	}
	// Several OR-groups of one range can hold the version.
	slices.Sort(stabbed)
	for _, p := range slices.Compact(stabbed) {
		if ix.entries[p].Range(*version) {
			hits = append(hits, hit{p, 2})
		}
	}
	if len(hits) == 0 {
		return nil
	}
	// Stable: an entry's kinds stay in the order replaces, skips, skipRange.
	slices.SortStableFunc(hits, func(a, b hit) int { return int(a.pos) - int(b.pos) })
	kinds := make([]EdgeKind, len(hits))
	out := make([]Coverage, 0, len(hits))
	start := 0
	for i, h := range hits {
		kinds[i] = edgeKinds[h.kind]
		if n := len(out); n > 0 && out[n-1].Index == int(h.pos) {
			out[n-1].Kinds = kinds[start : i+1 : i+1]
			continue
		}
		start = i
		out = append(out, Coverage{Index: int(h.pos), Entry: ix.entries[h.pos], Kinds: kinds[i : i+1 : i+1]})
	}
	return out
}

// rangeIndex finds the intervals containing a version in O(log n + hits):
// items sorted by lower bound, with a tree of maximum upper bounds to skip
// every subtree that ends below the version.
type rangeIndex struct {
	items []rangeItem
	// maxHi[node] is the index of the item with the greatest upper bound in
	// the node's subtree (an implicit segment tree over items), -1 if empty.
	maxHi []int32
	size  int
}

type rangeItem struct {
	interval
	pos int32
}

func newRangeIndex(items []rangeItem) rangeIndex {
	sort.SliceStable(items, func(i, j int) bool { return lessLo(items[i].lo, items[j].lo) })
	size := 1
	for size < len(items) {
		size *= 2
	}
	ri := rangeIndex{items: items, size: size, maxHi: make([]int32, 2*size)}
	for i := range ri.maxHi {
		ri.maxHi[i] = -1
	}
	for i := range items {
		ri.maxHi[size+i] = int32(i)
	}
	for n := size - 1; n >= 1; n-- {
		ri.maxHi[n] = ri.higher(ri.maxHi[2*n], ri.maxHi[2*n+1])
	}
	return ri
}

// lessLo orders lower bounds, an open bound first.
func lessLo(a, b *semver.Version) bool {
	switch {
	case a == nil:
		return b != nil
	case b == nil:
		return false
	}
	return a.Compare(*b) < 0
}

func (ri *rangeIndex) higher(a, b int32) int32 {
	switch {
	case a < 0:
		return b
	case b < 0:
		return a
	}
	ha, hb := ri.items[a].hi, ri.items[b].hi
	if ha == nil || (hb != nil && ha.Compare(*hb) >= 0) {
		return a
	}
	return b
}

// stab appends the positions of the items whose interval contains v.
func (ri *rangeIndex) stab(v semver.Version, out *[]int32) {
	if len(ri.items) == 0 {
		return
	}
	// Items [0, n) start at or below v.
	n := sort.Search(len(ri.items), func(i int) bool {
		lo := ri.items[i].lo
		return lo != nil && lo.Compare(v) > 0
	})
	ri.collect(1, 0, ri.size, n, v, out)
}

func (ri *rangeIndex) collect(node, from, to, limit int, v semver.Version, out *[]int32) {
	if from >= limit {
		return
	}
	best := ri.maxHi[node]
	if best < 0 {
		return
	}
	if hi := ri.items[best].hi; hi != nil && hi.Compare(v) < 0 {
		return
	}
	if to-from == 1 {
		*out = append(*out, ri.items[from].pos)
		return
	}
	mid := (from + to) / 2
	ri.collect(2*node, from, mid, limit, v, out)
	ri.collect(2*node+1, mid, to, limit, v, out)
}

// rangeBounds returns, for each OR-group of a blang range that parsed, an
// interval that contains every version the group matches; nil bounds are
// open. The intervals only narrow down which skipRanges to evaluate:
// blang's own function decides. A token this reading does not fully
// understand (wildcards, a lone operator) leaves its group unbounded, so
// the intervals are always a superset.
func rangeBounds(s string) []interval {
	var groups [][]string
	cur := []string{}
	for _, tok := range blangTokens(s) {
		if tok == "||" {
			groups = append(groups, cur)
			cur = []string{}
			continue
		}
		cur = append(cur, tok)
	}
	groups = append(groups, cur)
	out := make([]interval, 0, len(groups))
	for _, g := range groups {
		out = append(out, groupBounds(g))
	}
	return out
}

// blangTokens splits a range like blang's tokenizer: on spaces, except a
// space right after '<', '>' or '=' (so "< 1.0.0" is one token), dropping
// tokens shorter than two bytes, then removing the spaces inside tokens.
func blangTokens(s string) []string {
	var toks []string
	start := 0
	var last byte
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' && last != '<' && last != '>' && last != '=' {
			if i-start >= 2 {
				toks = append(toks, s[start:i])
			}
			start = i + 1
		} else if s[i] != ' ' {
			last = s[i]
		}
	}
	if len(s)-start >= 2 {
		toks = append(toks, s[start:])
	}
	for i, t := range toks {
		toks[i] = strings.ReplaceAll(t, " ", "")
	}
	return toks
}

type interval struct {
	lo, hi *semver.Version // inclusive bounds; nil = open
}

func (iv interval) contains(v semver.Version) bool {
	return (iv.lo == nil || v.Compare(*iv.lo) >= 0) && (iv.hi == nil || v.Compare(*iv.hi) <= 0)
}

func groupBounds(toks []string) interval {
	var iv interval
	for _, t := range toks {
		if strings.Contains(t, "x") {
			return interval{}
		}
		i := strings.IndexAny(t, "0123456789")
		if i < 0 {
			return interval{}
		}
		op, vs := t[:i], t[i:]
		v, err := semver.Parse(vs)
		if err != nil {
			return interval{}
		}
		switch op {
		case "", "=", "==":
			iv = iv.withLo(v).withHi(v)
		case ">", ">=":
			iv = iv.withLo(v)
		case "<", "<=":
			iv = iv.withHi(v)
		case "!", "!=":
			// excludes one version: no bound
		default:
			return interval{}
		}
	}
	return iv
}

func (iv interval) withLo(v semver.Version) interval {
	if iv.lo == nil || v.Compare(*iv.lo) > 0 {
		iv.lo = &v
	}
	return iv
}

func (iv interval) withHi(v semver.Version) interval {
	if iv.hi == nil || v.Compare(*iv.hi) < 0 {
		iv.hi = &v
	}
	return iv
}
