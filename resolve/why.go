package resolve

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// OLM says what it chose, and when nothing works, the constraints gini
// found in conflict, by identifier. A user asks why: why a Subscription got
// an older bundle than its channel's head, and what the conflict amounts
// to. The explanations below read the solution (or the conflict) the
// search found, in the domain's words.

// PassedOver is a candidate a Subscription preferred but did not get, and
// why.
type PassedOver struct {
	Bundle string
	Reason string
}

// conflictError is OLM's NotSatisfiable with the constraints behind it, so
// that the conflict can be summed up; it reads as NotSatisfiable (errors.As
// finds one).
type conflictError struct {
	NotSatisfiable
	core []appliedConstraint
}

func (e *conflictError) As(target any) bool {
	if t, ok := target.(*NotSatisfiable); ok {
		*t = e.NotSatisfiable
		return true
	}
	return false
}

// name is what a user calls a variable: a bundle's name, a Subscription's,
// the API or package of an "only one" rule.
func (s *scope) name(id string) string {
	v := s.vars[id]
	switch {
	case v == nil:
		return id
	case v.entry != nil:
		return v.entry.name
	}
	return strings.TrimPrefix(id, "subscription:")
}

func (s *scope) names(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = s.name(id)
	}
	return slices.Compact(out) // a bundle in several channels is one name
}

// onlyOne says what an "only one" rule allows: "one operator of package P"
// or "one provider of API".
func onlyOne(v *variable) string {
	for _, c := range v.constraints {
		if c.kind != mandatory {
			continue
		}
		if p, ok := strings.CutPrefix(c.msg, "there can be only one operator from package "); ok {
			return "one operator of package " + p
		}
		if a, ok := strings.CutPrefix(c.msg, "there can be only one provider of "); ok {
			return "one provider of " + a
		}
	}
	return "one of " + v.id
}

// chosenFor says why the namespace has a chosen variable: the Subscription
// that asked for it (pinned, when it is its only candidate), or that it is
// installed, or which chosen bundle required it.
func (s *scope) chosenFor(sol *solution, u *variable) string {
	for _, sv := range s.subs {
		if !slices.Contains(sv.candidates, u) {
			continue
		}
		if len(sv.candidates) == 1 {
			return fmt.Sprintf("which subscription %s requires", sv.sub.Name)
		}
		return fmt.Sprintf("for subscription %s", sv.sub.Name)
	}
	if u.entry != nil && u.entry.catalog.virtual {
		return "which is installed"
	}
	for _, w := range s.order {
		if !sol.chosen[w] || w.entry == nil {
			continue
		}
		for _, c := range w.constraints {
			if c.kind == dependency && slices.Contains(c.ids, u.id) {
				return "which " + w.entry.name + " requires"
			}
		}
	}
	return ""
}

// passedOver explains, for each Subscription's candidate preferred to the
// one the solution chose (or to the installed CSV that stays), why it was
// not chosen.
func (s *scope) passedOver(sol *solution, sv *subscriptionVar) []PassedOver {
	var out []PassedOver
	seen := map[string]bool{}
	for _, c := range sv.candidates {
		if sol.chosen[c] {
			break
		}
		if c.entry == nil || seen[c.entry.name] {
			continue
		}
		seen[c.entry.name] = true
		out = append(out, PassedOver{Bundle: c.entry.name, Reason: s.whyNot(sol, c)})
	}
	return out
}

// whyNot says why the solution does not have p: the first of its
// dependencies no chosen bundle meets (and what keeps the bundles that
// would from the namespace), that it is deprecated, or the chosen bundle
// it cannot live with.
func (s *scope) whyNot(sol *solution, p *variable) string {
	deps := 0
	for _, c := range p.constraints {
		switch c.kind {
		case prohibited: // bundleVar prohibits only deprecated bundles
			return "it is deprecated (the legacy olm.deprecated property: OLM never installs it)"
		case dependency:
			pred := ""
			if deps < len(p.predicates) {
				pred = p.predicates[deps].String()
			}
			deps++
			if slices.ContainsFunc(c.ids, func(id string) bool { return sol.chosen[s.vars[id]] }) {
				continue
			}
			need := "it requires an operator " + pred
			if len(c.ids) == 0 {
				return need + ", and no catalog the namespace sees has one"
			}
			if b := s.blockers(sol, c.ids); b != "" {
				return need + ", and " + b
			}
			return fmt.Sprintf("%s, and none of the %d that would can be installed with the rest", need, len(s.names(c.ids)))
		}
	}
	if b := s.blockers(sol, []string{p.id}); b != "" {
		return b
	}
	return "the rest of the namespace cannot be satisfied with it"
}

// blockers says which chosen bundles keep the bundles ids out of the
// namespace through "only one" rules ("the namespace gets X instead, which
// subscription S requires (it holds one operator of package P)"), "" when
// none does.
func (s *scope) blockers(sol *solution, ids []string) string {
	var order []string
	rules := map[string][]string{} // blocking bundle id -> the rules
	for _, v := range s.order {
		for _, c := range v.constraints {
			if c.kind != atMost || !slices.ContainsFunc(c.ids, func(id string) bool { return slices.Contains(ids, id) }) {
				continue
			}
			for _, id := range c.ids {
				if u := s.vars[id]; u == nil || !sol.chosen[u] || slices.Contains(ids, id) {
					continue
				}
				if _, ok := rules[id]; !ok {
					order = append(order, id)
				}
				if r := onlyOne(v); !slices.Contains(rules[id], r) {
					rules[id] = append(rules[id], r)
				}
			}
		}
	}
	var parts []string
	for _, id := range order {
		part := "the namespace gets " + s.name(id) + " instead"
		if why := s.chosenFor(sol, s.vars[id]); why != "" {
			part += ", " + why
		}
		// A package's rule says more than an API's its bundles share.
		r := rules[id]
		rank := func(rule string) int {
			if strings.HasPrefix(rule, "one operator") {
				return 0
			}
			return 1
		}
		slices.SortStableFunc(r, func(a, b string) int { return cmp.Compare(rank(a), rank(b)) })
		parts = append(parts, part+" (it holds "+strings.Join(r, " and ")+")")
	}
	return strings.Join(parts, "; ")
}

// summary sums up a conflict in one line: what each Subscription in it
// requires, what those bundles require in turn, and the rules that leave
// no room for all of it.
func (s *scope) summary(core []appliedConstraint) string {
	var subs, deps, rules, other []string
	used := map[int]bool{}
	for i, a := range core {
		if a.c.kind != dependency || !strings.HasPrefix(a.subject.id, "subscription:") {
			continue
		}
		used[i] = true
		targets := s.names(a.c.ids)
		var phrase string
		switch len(targets) {
		case 0:
			phrase = fmt.Sprintf("subscription %s has no candidate", s.name(a.subject.id))
		case 1:
			phrase = fmt.Sprintf("subscription %s requires %s", s.name(a.subject.id), targets[0])
		default:
			phrase = fmt.Sprintf("subscription %s requires one of %s", s.name(a.subject.id), joinNames(targets, 3))
		}
		// What those bundles require in turn.
		for j, b := range core {
			if b.c.kind == dependency && !used[j] && slices.Contains(a.c.ids, b.subject.id) {
				used[j] = true
				phrase += ", which requires an operator " + dependencyWhat(b)
			}
		}
		subs = append(subs, phrase)
	}
	for i, a := range core {
		if used[i] {
			continue
		}
		switch a.c.kind {
		case dependency:
			deps = append(deps, s.name(a.subject.id)+" requires an operator "+dependencyWhat(a))
		case atMost:
			rules = append(rules, "a namespace holds "+onlyOne(a.subject))
		case prohibited:
			msg := a.c.msg
			if a.c.hint != "" {
				msg += " (" + a.c.hint + ")"
			}
			other = append(other, msg)
		case conflict:
			other = append(other, fmt.Sprintf("%s conflicts with %s", s.name(a.subject.id), s.name(a.c.ids[0])))
		}
	}
	parts := slices.Concat(subs, deps, other, rules)
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "; ")
}

// dependencyWhat is what a bundle's dependency constraint asks for, from
// its message ("bundle B requires an operator WHAT").
func dependencyWhat(a appliedConstraint) string {
	_, what, ok := strings.Cut(a.c.msg, " requires an operator ")
	if !ok {
		return a.c.msg
	}
	return what
}
