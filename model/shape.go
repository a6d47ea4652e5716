package model

import (
	"fmt"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
)

// Shape is the structure OLM's rules see in one channel's entries. Entries
// count once per name (the first wins) and only with a name; edges to names
// that are not entries are allowed and lead nowhere.
//
//   - A head is an entry that no entry replaces or skips. A valid channel has
//     exactly one; it is what a fresh install gets.
//   - opm's replaces chain starts at the single head and follows replaces,
//     stopping before a name that some entry skips (that entry is reached
//     by the skip) or that is not an entry; coming back to an entry already
//     on the chain is a cycle.
//   - An entry is stranded when it is neither on the chain nor skipped by
//     any entry: nothing upgrades a cluster away from it.
//
// skipRange plays no part: it names versions, not entries.
type Shape struct {
	entries []*declcfg.ChannelEntry
	// find returns an entry's index; a channel answers from its own map.
	find    func(name string) (int, bool)
	skipped map[string]bool
	heads   []int
	// chain, stranded and cycle are set only with a single head.
	chain    []int
	cycle    []string
	stranded []int
	// flags holds, per entry, whether an entry replaces or skips it and
	// whether it is on the chain.
	flags []uint8
}

const (
	replacedFlag uint8 = 1 << iota
	onChainFlag
)

// ShapeOf computes the shape of a list of channel entries, such as one being
// cut or generated.
func ShapeOf(entries []declcfg.ChannelEntry) *Shape {
	index := make(map[string]int, len(entries))
	unique := make([]*declcfg.ChannelEntry, 0, len(entries))
	for i := range entries {
		e := &entries[i]
		if _, dup := index[e.Name]; dup || e.Name == "" {
			continue
		}
		index[e.Name] = len(unique)
		unique = append(unique, e)
	}
	return newShape(unique, func(name string) (int, bool) {
		i, ok := index[name]
		return i, ok
	})
}

// newShape computes the shape of entries that are unique and named; find
// returns an entry's index by name.
func newShape(entries []*declcfg.ChannelEntry, find func(string) (int, bool)) *Shape {
	n := len(entries)
	s := &Shape{entries: entries, find: find, skipped: map[string]bool{}, flags: make([]uint8, n)}
	for _, e := range s.entries {
		if i, ok := s.find(e.Replaces); ok {
			s.flags[i] |= replacedFlag
		}
		for _, sk := range e.Skips {
			s.skipped[sk] = true
			if i, ok := s.find(sk); ok {
				s.flags[i] |= replacedFlag
			}
		}
	}
	// heads take at most n places; the chain and the stranded entries,
	// which are disjoint, at most n together.
	idx := make([]int, 2*n)
	s.heads = idx[:0:n]
	for i := range s.entries {
		if s.flags[i]&replacedFlag == 0 {
			s.heads = append(s.heads, i)
		}
	}
	if len(s.heads) != 1 {
		return s
	}
	s.chain = idx[n:n]
	for cur := s.heads[0]; ; {
		s.chain = append(s.chain, cur)
		s.flags[cur] |= onChainFlag
		next := s.entries[cur].Replaces
		if s.skipped[next] {
			break
		}
		nx, ok := s.find(next)
		if !ok {
			break
		}
		if s.flags[nx]&onChainFlag != 0 {
			for k, c := range s.chain {
				if c == nx {
					for _, c := range s.chain[k:] {
						s.cycle = append(s.cycle, s.entries[c].Name)
					}
					s.cycle = append(s.cycle, next)
					break
				}
			}
			break
		}
		cur = nx
	}
	end := n + len(s.chain)
	s.stranded = idx[end:end]
	for i, e := range s.entries {
		if s.flags[i]&onChainFlag == 0 && !s.skipped[e.Name] {
			s.stranded = append(s.stranded, i)
		}
	}
	return s
}

func (s *Shape) names(idx []int) []string {
	if len(idx) == 0 {
		return nil
	}
	out := make([]string, len(idx))
	for i, k := range idx {
		out[i] = s.entries[k].Name
	}
	return out
}

func (s *Shape) head() (int, bool) {
	if len(s.heads) != 1 {
		return 0, false
	}
	return s.heads[0], true
}

// Has reports whether name is an entry.
func (s *Shape) Has(name string) bool {
	_, ok := s.find(name)
	return ok
}

// Index returns the entry's place among the shape's entries (the first of
// each name, those with a name, in order): for a list without repeats or
// nameless entries, its index in the list.
func (s *Shape) Index(name string) (int, bool) { return s.find(name) }

// Entry returns the entry of that name (the first, when the list has
// several), nil if there is none.
func (s *Shape) Entry(name string) *declcfg.ChannelEntry {
	i, ok := s.find(name)
	if !ok {
		return nil
	}
	return s.entries[i]
}

// Heads returns the names of the heads, in entry order.
func (s *Shape) Heads() []string { return s.names(s.heads) }

// Head returns the single head's name; false when there are none or
// several.
func (s *Shape) Head() (string, bool) {
	h, ok := s.head()
	if !ok {
		return "", false
	}
	return s.entries[h].Name, true
}

// Skipped reports whether some entry skips name (an entry or not).
func (s *Shape) Skipped(name string) bool { return s.skipped[name] }

// OnChain reports whether the entry is on the replaces chain from the
// single head (false for every name without a single head).
func (s *Shape) OnChain(name string) bool {
	i, ok := s.find(name)
	return ok && s.flags[i]&onChainFlag != 0
}

// Chain returns the names on the replaces chain, head first.
func (s *Shape) Chain() []string { return s.names(s.chain) }

// Cycle returns the loop of the replaces chain, from the first entry that
// comes back to that entry again (a -> b -> a); nil when the chain ends.
func (s *Shape) Cycle() []string { return s.cycle }

// Loop returns, for a list of entries without a head (each is replaced or
// skipped by another), entries that replace or skip each other in a
// circle, in the direction of the edges (a -> b: a replaces or skips b),
// the first name repeated at the end; nil when there is a head or no
// entry.
func (s *Shape) Loop() []string {
	if len(s.heads) > 0 || len(s.entries) == 0 {
		return nil
	}
	// by[i] is the first entry that replaces or skips entry i: every entry
	// has one, so going up from any entry comes back to one seen before.
	by := make([]int, len(s.entries))
	for i := range by {
		by[i] = -1
	}
	for j, e := range s.entries {
		if i, ok := s.find(e.Replaces); ok && by[i] < 0 {
			by[i] = j
		}
		for _, sk := range e.Skips {
			if i, ok := s.find(sk); ok && by[i] < 0 {
				by[i] = j
			}
		}
	}
	place := map[int]int{}
	var walk []int // each entry is replaced or skipped by the next
	for cur := 0; cur >= 0; cur = by[cur] {
		if k, seen := place[cur]; seen {
			loop := walk[k:]
			names := make([]string, 0, len(loop)+1)
			for i := len(loop) - 1; i >= 0; i-- {
				names = append(names, s.entries[loop[i]].Name)
			}
			return append(names, names[0])
		}
		place[cur] = len(walk)
		walk = append(walk, cur)
	}
	return nil
}

// Stranded returns the names of the stranded entries, in entry order.
func (s *Shape) Stranded() []string { return s.names(s.stranded) }

// Order returns the channel's entries in the order OLM's classic resolver
// ranks them: from the single head along replaces (through entries that are
// skipped, which it leaves out), so the first is the head and each entry
// comes before the ones it replaces. It fails like OLM on a channel without
// a head, with a replaces cycle below a head, or with several heads.
// Without entries it returns nothing and no error.
func (ch *Channel) Order() ([]*Entry, error) {
	pkg := ""
	if ch.Package != nil {
		pkg = ch.Package.Name
	}
	idx, err := ch.Shape().order(pkg, ch.Name)
	if err != nil {
		return nil, err
	}
	return ch.entries(idx), nil
}

// Order is Channel.Order over any list of entries (OLM's resolver orders
// the subsets it forms the same way: a Subscription's startingCSV, the
// installed CSVs of a package), naming pkg and channel in its errors. It
// returns entry names.
func (s *Shape) Order(pkg, channel string) ([]string, error) {
	idx, err := s.order(pkg, channel)
	if err != nil {
		return nil, err
	}
	return s.names(idx), nil
}

func (s *Shape) order(pkg, channel string) ([]int, error) {
	if len(s.entries) == 0 {
		return nil, nil
	}
	if len(s.heads) == 0 {
		return nil, fmt.Errorf("no channel heads (entries not replaced by another entry) found in channel %q of package %q", channel, pkg)
	}
	chains := make([][]int, 0, len(s.heads))
	for _, h := range s.heads {
		var chain []int
		visited := map[int]bool{}
		for cur, ok := h, true; ok; cur, ok = s.find(s.entries[cur].Replaces) {
			if visited[cur] {
				return nil, fmt.Errorf("a cycle exists in the chain of replacement beginning with %q in channel %q of package %q", s.entries[h].Name, channel, pkg)
			}
			visited[cur] = true
			if !s.skipped[s.entries[cur].Name] {
				chain = append(chain, cur)
			}
		}
		chains = append(chains, chain)
	}
	if len(chains) > 1 {
		desc := make([]string, len(chains))
		for i, c := range chains {
			switch len(c) {
			case 0:
				desc[i] = "[]"
			case 1:
				desc[i] = s.entries[c[0]].Name
			default:
				desc[i] = s.entries[c[0]].Name + "..." + s.entries[c[len(c)-1]].Name
			}
		}
		return nil, fmt.Errorf("a unique replacement chain within a channel is required to determine the relative order between channel entries, but %d replacement chains were found in channel %q of package %q: %s",
			len(chains), channel, pkg, strings.Join(desc, ", "))
	}
	return chains[0], nil
}
