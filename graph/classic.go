package graph

import (
	"fmt"
	"sort"

	blang "github.com/blang/semver/v4"

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
	deps    DependencyResolver
}

func newClassicPlan(p *Package, channel string, deps DependencyResolver) *classicPlan {
	cp := &classicPlan{pkg: p, channel: channel, deps: deps}
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
		// The first entry of each channel OLM passed over: its head, when
		// that cannot be installed.
		passed := map[string]*Entry{}
		for _, e := range cp.order {
			if reason := classicIneligible(e); reason != "" {
				if passed[e.Channel.Name] == nil {
					passed[e.Channel.Name] = e
				}
				continue
			}
			st.Next = e.Bundle
			st.Reason = fmt.Sprintf("a fresh install takes the head of channel %q", e.Channel.Name)
			if cp.channel == "" && e.Channel.Name == cp.pkg.DefaultChannel {
				st.Reason = fmt.Sprintf("a fresh install without a channel takes the head of the default channel %q", e.Channel.Name)
			} else if cp.channel == "" {
				st.Reason = fmt.Sprintf("a fresh install without a channel takes the first installable head (default channel first, then by name): channel %q", e.Channel.Name)
			}
			if h := passed[e.Channel.Name]; h != nil {
				st.Reason = fmt.Sprintf("the head %s of channel %q cannot be installed (it %s); a fresh install falls back down the channel to %s",
					h.Name, e.Channel.Name, classicIneligible(h), e.Bundle.Name)
			}
			return cp.dependencies(st, from)
		}
		return nil, fmt.Errorf("constraints not satisfiable: no installable bundle for package %s (every candidate is deprecated with olm.deprecated or has no olm.bundle)", cp.pkg.Name)
	}
	v, err := parseClassicVersion(from.Version)
	seen := map[string]bool{}
	var winner *Candidate
	var installed *blang.Version
	if err == nil {
		installed = &v
	}
	for _, c := range cp.index.Cover(from.Name, installed) {
		e := c.Entry
		if seen[e.Name] {
			continue // the same bundle further down another channel
		}
		seen[e.Name] = true
		cand := Candidate{Name: e.Name, Bundle: e.Bundle, Channel: e.Channel.Name, Edges: appendEdges(nil, c), Excluded: classicIneligible(e)}
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
	return cp.dependencies(st, from)
}

// dependencies settles a step whose chosen bundle declares dependencies:
// OLM's SAT solver passes over a candidate whose dependencies it cannot
// satisfy (to the next candidate, or it stays), and fails when nothing
// works. With a DependencyResolver the step says which; without one it says
// that part is not simulated.
func (cp *classicPlan) dependencies(st *Step, from *Installed) (*Step, error) {
	dep := Dependency(st.Next)
	if dep == "" {
		return st, nil
	}
	if cp.deps == nil {
		st.Reason += fmt.Sprintf(" (it declares dependencies with %s, which OLM must satisfy on the cluster; that part is not simulated)", dep)
		return st, nil
	}
	fromName, fromVersion := "", ""
	if from != nil {
		fromName, fromVersion = from.Name, from.Version
	}
	next, err := cp.deps.Step(cp.pkg.Name, cp.channel, fromName, fromVersion)
	if err != nil {
		return st.fail(err)
	}
	preferred := st.Next
	if next == preferred.Name {
		st.Reason += fmt.Sprintf("; its dependencies (%s) resolve from this catalog", dep)
		return st, nil
	}
	// OLM passed over the preferred bundle, and every candidate before
	// the one it took.
	for i := range st.Candidates {
		c := &st.Candidates[i]
		if c.Name == next {
			break
		}
		if c.Excluded == "" && c.Bundle != nil && Dependency(c.Bundle) != "" {
			c.Excluded = "its dependencies do not resolve from this catalog: " + cp.deps.Why(cp.pkg.Name, cp.channel, c.Name)
		}
	}
	switch {
	case next == "":
		st.Next = nil
		st.Reason = fmt.Sprintf("no successor's dependencies resolve from this catalog: %s stays", fromName)
	case from == nil:
		st.Next = cp.pkg.Bundle(next)
		st.Reason = fmt.Sprintf("the head %s cannot be installed (its dependencies do not resolve from this catalog: %s); OLM falls back down the channel to %s",
			preferred.Name, cp.deps.Why(cp.pkg.Name, cp.channel, preferred.Name), next)
	default:
		st.Next = cp.pkg.Bundle(next)
		st.Reason = fmt.Sprintf("%s is the candidate closest to the channel head whose dependencies resolve", next)
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
