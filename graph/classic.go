package graph

import (
	"fmt"
	"sort"

	"github.com/fbc-project/fbc/model"
)

// classicPlan is a subscription's candidate list: the ordered entries of
// its channel, or of every channel (default channel first, then by name)
// when it names none.
type classicPlan struct {
	pkg     *Package
	channel string
	order   []*Entry
	index   *model.EdgeIndex
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
		order, err := ch.Order()
		if err != nil {
			cp.err = err
			return cp
		}
		cp.order = append(cp.order, order...)
	}
	cp.index = model.NewEdgeIndex(cp.order)
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
	for _, c := range cover(cp.index, from.Name, v, err == nil) {
		e := cp.index.Entries()[c.pos]
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
	if dep := dependency(winner.Bundle); dep != "" {
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
