package graph

import (
	"slices"
	"sort"

	blang "github.com/blang/semver/v4"
)

// EdgeKind names how a channel entry declares that it upgrades a bundle.
type EdgeKind string

// The three edge kinds of an olm.channel entry.
const (
	EdgeReplaces  EdgeKind = "replaces"
	EdgeSkips     EdgeKind = "skips"
	EdgeSkipRange EdgeKind = "skipRange"
)

// Edge is one reason an entry is a successor of an installed bundle.
type Edge struct {
	Kind    EdgeKind
	Channel string
	// SkipRange is the entry's range for EdgeSkipRange.
	SkipRange string
}

// edgeIndex answers "which entries of this list cover the installed
// bundle?" without scanning the list: replaces and skips are looked up by
// name, skipRanges through an interval index. Positions are indexes into
// entries, whose order is the resolver's preference order where it has one.
type edgeIndex struct {
	entries  []*Entry
	replaces map[string][]int32
	skips    map[string][]int32
	ranges   rangeIndex
}

func newEdgeIndex(entries []*Entry) *edgeIndex {
	ix := &edgeIndex{entries: entries, replaces: map[string][]int32{}, skips: map[string][]int32{}}
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
		if e.skipRange != nil {
			for _, iv := range rangeBounds(e.SkipRange) {
				items = append(items, rangeItem{interval: iv, pos: pos})
			}
		}
	}
	ix.ranges = newRangeIndex(items)
	return ix
}

// coverage is an entry position and the edges by which it covers the
// installed bundle.
type coverage struct {
	pos   int
	edges []Edge
}

// cover lists the entries that replace or skip name, or whose skipRange
// contains v (when hasVersion), in position order.
func (ix *edgeIndex) cover(name string, v blang.Version, hasVersion bool) []coverage {
	byPos := map[int][]Edge{}
	add := func(pos int, e Edge) {
		if _, seen := byPos[pos]; !seen {
			byPos[pos] = nil
		}
		byPos[pos] = append(byPos[pos], e)
	}
	for _, p := range ix.replaces[name] {
		add(int(p), Edge{Kind: EdgeReplaces, Channel: ix.entries[p].Channel.Name})
	}
	for _, p := range ix.skips[name] {
		add(int(p), Edge{Kind: EdgeSkips, Channel: ix.entries[p].Channel.Name})
	}
	if hasVersion {
		var hits []int32
		ix.ranges.stab(v, &hits)
		for _, p := range hits {
			e := ix.entries[p]
			if edges, ok := byPos[int(p)]; ok && slices.ContainsFunc(edges, func(x Edge) bool { return x.Kind == EdgeSkipRange }) {
				continue // several OR-groups of one range hit
			}
			if e.skipRange(v) {
				add(int(p), Edge{Kind: EdgeSkipRange, Channel: e.Channel.Name, SkipRange: e.SkipRange})
			}
		}
	}
	out := make([]coverage, 0, len(byPos))
	for p, edges := range byPos {
		out = append(out, coverage{pos: p, edges: edges})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].pos < out[j].pos })
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
func lessLo(a, b *blang.Version) bool {
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
func (ri *rangeIndex) stab(v blang.Version, out *[]int32) {
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

func (ri *rangeIndex) collect(node, from, to, limit int, v blang.Version, out *[]int32) {
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
