package mirror

import (
	"errors"
	"fmt"
	"slices"

	mmsemver "github.com/Masterminds/semver/v3"

	"github.com/fbc-project/fbc/declcfg"
)

// The upgrade graph of one channel as oc-mirror's filter reads it: a node
// per name an entry has or names (replaces, skips), the head, and the
// checks the filter makes before it cuts a channel.

type node struct {
	name     string
	entry    bool // an entry of the channel, not only a name one names
	replaces *node
	skips    []*node // distinct, in the order the entry lists them
}

// chanGraph is a channel's upgrade graph with its one head.
type chanGraph struct {
	nodes map[string]*node
	head  *node
}

// newGraph builds the graph of a channel's entries and checks it as the
// filter does (catalog-filter's newChannel): no entry twice, none that
// replaces or skips itself, exactly one head (an entry nothing replaces or
// skips; skipRange plays no part), and no cycle through replaces and skips.
// The errors are the filter's, joined.
func newGraph(entries []declcfg.ChannelEntry) (*chanGraph, error) {
	if len(entries) == 0 {
		return nil, errors.New("channel has no entries")
	}
	g := &chanGraph{nodes: make(map[string]*node, len(entries))}
	get := func(name string) *node {
		n := g.nodes[name]
		if n == nil {
			n = &node{name: name}
			g.nodes[name] = n
		}
		return n
	}
	indeg := map[*node]int{}
	var errs []error
	var order []*node
	for _, e := range entries {
		n := get(e.Name)
		if n.entry {
			errs = append(errs, fmt.Errorf("duplicate channel entry %q", e.Name))
			continue
		}
		n.entry = true
		order = append(order, n)
		succ := map[*node]bool{}
		if e.Replaces != "" {
			if e.Replaces == e.Name {
				errs = append(errs, fmt.Errorf("invalid channel entry %q: replaces itself", e.Name))
			}
			n.replaces = get(e.Replaces)
			succ[n.replaces] = true
		}
		for _, s := range e.Skips {
			if s == e.Name {
				errs = append(errs, fmt.Errorf("invalid channel entry %q: skips itself", e.Name))
			}
			sn := get(s)
			if !slices.Contains(n.skips, sn) {
				n.skips = append(n.skips, sn)
			}
			succ[sn] = true
		}
		for s := range succ {
			indeg[s]++
		}
	}
	var heads []string
	for _, n := range order {
		if indeg[n] == 0 {
			heads = append(heads, n.name)
			if g.head == nil {
				g.head = n
			}
		}
	}
	switch {
	case len(heads) == 0:
		errs = append(errs, errors.New("no channel heads found"))
	case len(heads) > 1:
		slices.Sort(heads)
		errs = append(errs, fmt.Errorf("multiple channel heads found: %v", heads))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	// Remove edges from the head down (Kahn's order): an edge left over
	// lies on a cycle.
	queue := []*node{g.head}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, s := range cur.successors() {
			indeg[s]--
			if indeg[s] == 0 {
				queue = append(queue, s)
			}
		}
	}
	for _, d := range indeg {
		if d > 0 {
			return nil, errors.New("detected a cycle in the upgrade graph of the channel")
		}
	}
	return g, nil
}

// successors are the distinct nodes n replaces or skips.
func (n *node) successors() []*node {
	out := slices.Clone(n.skips)
	if n.replaces != nil && !slices.Contains(out, n.replaces) {
		out = append(out, n.replaces)
	}
	return out
}

// chain is the replaces chain from the head: it ends at a node that
// replaces nothing, or at a name that is not an entry.
func (g *chanGraph) chain() []*node {
	var out []*node
	for cur := g.head; cur != nil; cur = cur.replaces {
		out = append(out, cur)
	}
	return out
}

// outside is a bundle a range keeps although its version is outside it.
type outside struct {
	name    string
	version *mmsemver.Version // nil: the name has no bundle version
}

// cutRange keeps what oc-mirror's filter keeps of a channel for a version
// range: along the replaces chain, from the lowest node at or below which
// every bundle in range lies (as a node of the chain or a name it skips)
// down to the first node with none left below it, every chain node, in
// range or not, and every name they skip whose version is in range.
// Versions are those of the package's bundles (a name without one is never
// in range). It returns the names kept, in chain order, and the chain nodes
// kept from outside the range.
func (g *chanGraph) cutRange(rng *mmsemver.Constraints, versions map[string]*mmsemver.Version) ([]string, []outside) {
	in := func(n *node) bool {
		v := versions[n.name]
		return v != nil && rng.Check(v)
	}
	chain := g.chain()
	// below[i] counts the bundles in range at or below chain[i], each at
	// the lowest node that has it.
	below := make([]int, len(chain))
	seen := map[*node]bool{}
	for i := len(chain) - 1; i >= 0; i-- {
		cur := chain[i]
		if i+1 < len(chain) {
			below[i] = below[i+1]
		}
		for _, n := range append([]*node{cur}, cur.skips...) {
			if !seen[n] && in(n) {
				seen[n] = true
				below[i]++
			}
		}
	}
	top, end := 0, len(chain)
	for i := range chain {
		if below[i] >= below[top] {
			top = i
		}
		if below[i] == 0 {
			end = i
			break
		}
	}
	var keep []string
	var out []outside
	kept := map[string]bool{}
	add := func(name string) {
		if !kept[name] {
			kept[name] = true
			keep = append(keep, name)
		}
	}
	for _, cur := range chain[min(top, end):end] {
		add(cur.name)
		if !in(cur) {
			out = append(out, outside{name: cur.name, version: versions[cur.name]})
		}
		for _, s := range cur.skips {
			if in(s) {
				add(s.name)
			}
		}
	}
	return keep, out
}
