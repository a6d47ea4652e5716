package graph

import (
	"fmt"
	"sort"
	"strings"
)

// ChannelOrder returns a channel's entries the way classic OLM orders them:
// from the single head along replaces, leaving out every entry that another
// entry of the channel skips. It fails like OLM on a channel without a head,
// with several heads, or with a replaces cycle.
func ChannelOrder(ch *Channel) ([]*Entry, error) {
	if len(ch.Entries) == 0 {
		return nil, nil
	}
	byName := make(map[string]*Entry, len(ch.Entries))
	for _, e := range ch.Entries {
		if _, dup := byName[e.Name]; !dup {
			byName[e.Name] = e
		}
	}
	replacedBy := map[*Entry]bool{}
	next := map[*Entry]*Entry{}
	skipped := map[string]bool{}
	for _, e := range ch.Entries {
		if r, ok := byName[e.Replaces]; ok && e.Replaces != "" {
			replacedBy[r] = true
			next[e] = r
		}
		for _, s := range e.Skips {
			if r, ok := byName[s]; ok {
				replacedBy[r] = true
				skipped[s] = true
			}
		}
	}
	var heads []*Entry
	for _, e := range ch.Entries {
		if !replacedBy[e] {
			heads = append(heads, e)
		}
	}
	if len(heads) == 0 {
		return nil, fmt.Errorf("no channel heads (entries not replaced by another entry) found in channel %q of package %q", ch.Name, ch.Package)
	}
	var chains [][]*Entry
	for _, h := range heads {
		var chain []*Entry
		visited := map[*Entry]bool{}
		for cur := h; cur != nil; cur = next[cur] {
			if visited[cur] {
				return nil, fmt.Errorf("a cycle exists in the chain of replacement beginning with %q in channel %q of package %q", h.Name, ch.Name, ch.Package)
			}
			visited[cur] = true
			if !skipped[cur.Name] {
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
				desc[i] = c[0].Name
			default:
				desc[i] = c[0].Name + "..." + c[len(c)-1].Name
			}
		}
		return nil, fmt.Errorf("a unique replacement chain within a channel is required to determine the relative order between channel entries, but %d replacement chains were found in channel %q of package %q: %s",
			len(chains), ch.Name, ch.Package, strings.Join(desc, ", "))
	}
	return chains[0], nil
}

// classicPlan is a subscription's candidate list: the ordered entries of
// its channel, or of every channel (default channel first, then by name)
// when it names none.
type classicPlan struct {
	pkg     *Package
	channel string
	order   []*Entry
	index   *edgeIndex
	err     error
}

func newClassicPlan(p *Package, channel string) *classicPlan {
	cp := &classicPlan{pkg: p, channel: channel}
	var chans []*Channel
	if channel != "" {
		ch := p.Channel(channel)
		if ch == nil || len(ch.Entries) == 0 {
			cp.err = fmt.Errorf("no operators found in channel %s of package %s in the catalog", channel, p.Name)
			return cp
		}
		chans = []*Channel{ch}
	} else {
		for _, ch := range p.Channels {
			if len(ch.Entries) > 0 {
				chans = append(chans, ch)
			}
		}
		if len(chans) == 0 {
			cp.err = fmt.Errorf("no operators found in package %s in the catalog", p.Name)
			return cp
		}
		sort.SliceStable(chans, func(i, j int) bool {
			di, dj := chans[i].Name == p.DefaultChannel, chans[j].Name == p.DefaultChannel
			if di != dj {
				return di
			}
			return chans[i].Name < chans[j].Name
		})
	}
	for _, ch := range chans {
		order, err := ChannelOrder(ch)
		if err != nil {
			cp.err = err
			return cp
		}
		cp.order = append(cp.order, order...)
	}
	cp.index = newEdgeIndex(cp.order)
	return cp
}

func (cp *classicPlan) step(from *Installed) (*Step, error) {
	if cp.err != nil {
		return nil, cp.err
	}
	st := &Step{From: from}
	if from == nil {
		for _, e := range cp.order {
			if reason := classicIneligible(e); reason != "" {
				continue
			}
			st.Next = e.Bundle
			st.Reason = fmt.Sprintf("a fresh install takes the head of channel %q", e.Channel.Name)
			if cp.channel == "" && e.Channel.Name == cp.pkg.DefaultChannel {
				st.Reason = fmt.Sprintf("a fresh install without a channel takes the head of the default channel %q", e.Channel.Name)
			} else if cp.channel == "" {
				st.Reason = fmt.Sprintf("a fresh install without a channel takes the first installable head (default channel first, then by name): channel %q", e.Channel.Name)
			}
			return st, nil
		}
		return nil, fmt.Errorf("constraints not satisfiable: no installable bundle for package %s (every candidate is deprecated with olm.deprecated or has no olm.bundle)", cp.pkg.Name)
	}
	v, err := parseClassicVersion(from.Version)
	seen := map[string]bool{}
	var winner *Candidate
	for _, c := range cp.index.cover(from.Name, v, err == nil) {
		e := cp.index.entries[c.pos]
		if seen[e.Name] {
			continue // the same bundle further down another channel
		}
		seen[e.Name] = true
		cand := Candidate{Name: e.Name, Bundle: e.Bundle, Channel: e.Channel.Name, Edges: c.edges, Excluded: classicIneligible(e)}
		if e.Name == from.Name {
			if winner == nil && cand.Excluded == "" {
				st.Reason = fmt.Sprintf("%s covers itself and is the candidate closest to the head: no change", e.Name)
				return st, nil
			}
			continue
		}
		st.Candidates = append(st.Candidates, cand)
		if winner == nil && cand.Excluded == "" {
			winner = &st.Candidates[len(st.Candidates)-1]
		}
	}
	if winner == nil {
		switch {
		case len(st.Candidates) == 0:
			st.Reason = fmt.Sprintf("no entry of %s replaces or skips %s or has a skipRange containing %s", cp.scope(), from.Name, from.Version)
		default:
			st.Reason = "no candidate is installable"
		}
		return st, nil
	}
	st.Next = winner.Bundle
	if len(st.Candidates) == 1 {
		st.Reason = fmt.Sprintf("%s is the only candidate", winner.Name)
	} else {
		st.Reason = fmt.Sprintf("%s is the candidate closest to the channel head", winner.Name)
	}
	if dep := winner.Bundle.Dependency; dep != "" {
		// The SAT solver skips a candidate whose dependencies it cannot
		// satisfy; the simulation does not see the cluster.
		st.Reason += fmt.Sprintf(" (it declares dependencies with %s, which OLM must satisfy on the cluster; that part is not simulated)", dep)
	}
	return st, nil
}

func (cp *classicPlan) scope() string {
	if cp.channel != "" {
		return fmt.Sprintf("channel %q", cp.channel)
	}
	return "any channel"
}

// classicIneligible says why classic would never install the entry.
func classicIneligible(e *Entry) string {
	switch {
	case e.Bundle == nil:
		return "no olm.bundle in the catalog"
	case e.Bundle.LegacyDeprecated:
		return "carries the olm.deprecated property"
	}
	return ""
}
