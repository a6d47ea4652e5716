package resolve

import (
	"context"

	"errors"
	"github.com/fbc-project/fbc/declcfg"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
)

// Result is what OLM does in one namespace.
type Result struct {
	Namespace string
	// Outcome is what OLM does (the first of Outcomes when it decides at
	// random).
	Outcome
	// Outcomes is set when OLM decides at random (it visits Subscriptions
	// in a random order, and their preferences pull apart): every possible
	// outcome.
	Outcomes []Outcome
	// OutcomesComplete is false when the namespace has too many interacting
	// Subscriptions to try every order, so Outcomes may miss some.
	OutcomesComplete bool
	// Err is OLM's reason when the namespace does not resolve: a
	// NotSatisfiable, or an error that stopped OLM before solving (a
	// property it cannot parse, a channel without a single head, a catalog
	// that cannot be served).
	Err error
	// Why sums up in one line, when the namespace does not resolve for a
	// conflict, what the conflict amounts to (Err has OLM's words).
	Why string
	// InstallFailures are CSVs of Install that OLM's CSV controller fails
	// for their OperatorGroup (Run fills them in).
	InstallFailures []InstallFailure
	// Pos is the namespace's first Subscription manifest, where an
	// annotation about the namespace goes (Run fills it in).
	Pos declcfg.Pos
}

// Outcome is one answer of OLM's resolver.
type Outcome struct {
	// Install is what OLM's resolver returns: new installs and upgrade
	// targets, in the order the search chose them. CSVs that stay are not
	// listed, so "no change" is empty.
	Install []Install
	// Subscriptions say what happens to each Subscription, in input order.
	Subscriptions []SubscriptionResult
}

// SubscriptionResult is what happens to one Subscription.
type SubscriptionResult struct {
	Subscription
	// Installed is the CSV the Subscription installed before, if any.
	Installed string
	// Next is the bundle installed or upgraded to; nil when the installed
	// CSV stays.
	Next *Install
	// Successors are the bundles the Subscription could move to (or
	// start from), in preference order.
	Successors []string
	// RequiredBy, when the installed CSV stays, says which dependencies it
	// satisfies.
	RequiredBy []Requirement
	// PassedOver are the candidates the Subscription preferred to what it
	// got (the channel's head and the bundles down to the chosen one, or
	// the upgrades of an installed CSV that stays), each with why it was
	// not chosen.
	PassedOver []PassedOver
}

// maxOrders bounds how many Subscription orders are tried when looking for
// OLM's random outcomes: every order of up to six interacting
// Subscriptions, fewer when they have many candidates (orderBudget).
const maxOrders = 720

// Resolve resolves one namespace. Resolution failures are in Result.Err;
// the error return is for a cancelled context.
func Resolve(ctx context.Context, ns *Namespace) (*Result, error) {
	res := &Result{Namespace: ns.Name, OutcomesComplete: true}
	s := newScope(ns)
	if err := s.build(ns.Subscriptions); err != nil {
		res.Err = err
		return res, nil
	}
	sol, err := solve(ctx, s.order)
	var ce *conflictError
	switch {
	case errors.Is(err, ErrIncomplete) && ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.As(err, &ce):
		res.Err, res.Why = err, s.summary(ce.core)
		return res, nil
	case err != nil:
		res.Err = err
		return res, nil
	}
	res.Outcome = s.outcome(sol)
	outcomes, complete, err := s.outcomes(ctx, sol)
	if err != nil {
		return nil, err
	}
	if len(outcomes) > 1 {
		res.Outcomes = outcomes
		res.OutcomesComplete = complete
	}
	return res, nil
}

// outcome reads a solution.
func (s *scope) outcome(sol *solution) Outcome {
	reqs := s.requirements(sol)
	out := Outcome{Install: s.installs(sol, reqs)}
	for _, sv := range s.subs {
		sr := SubscriptionResult{Subscription: sv.sub}
		if sv.current != nil {
			sr.Installed = sv.current.name
		}
		for _, c := range sv.candidates {
			if c.entry != sv.current {
				sr.Successors = append(sr.Successors, c.entry.name)
			}
		}
		sr.PassedOver = s.passedOver(sol, sv)
		for _, c := range sv.candidates {
			if !sol.chosen[c] {
				continue
			}
			if c.entry == sv.current {
				sr.RequiredBy = reqs[c]
			}
			for i := range out.Install {
				if out.Install[i].id == c.id {
					sr.Next = &out.Install[i]
				}
			}
			break
		}
		out.Subscriptions = append(out.Subscriptions, sr)
	}
	return out
}

// requirements says which dependencies each chosen bundle satisfies: the
// first chosen candidate of each dependency of each chosen bundle.
func (s *scope) requirements(sol *solution) map[*variable][]Requirement {
	reqs := map[*variable][]Requirement{}
	for _, v := range s.order {
		if v.entry == nil || !sol.chosen[v] {
			continue
		}
		deps := 0
		for _, c := range v.constraints {
			if c.kind != dependency {
				continue
			}
			p := v.predicates[deps]
			deps++
			for i, id := range c.ids {
				w := s.vars[id]
				if !sol.chosen[w] {
					continue
				}
				var passed []string
				for _, pid := range c.ids[:i] {
					pe := s.vars[pid].entry
					if pe.catalog.virtual {
						passed = append(passed, pe.name+" (installed)")
					} else {
						passed = append(passed, pe.name)
					}
				}
				r := Requirement{Bundle: v.entry.name, What: p.String(), Passed: passed}
				// OLM reads each olm.gvk.required and olm.package.required
				// twice (servedDependencies); say it once.
				if !slices.ContainsFunc(reqs[w], func(o Requirement) bool { return o.Bundle == r.Bundle && o.What == r.What }) {
					reqs[w] = append(reqs[w], r)
				}
				break
			}
		}
	}
	return reqs
}

// installs lists the chosen catalog bundles: first those the search chose,
// in its order, then those the constraints forced.
func (s *scope) installs(sol *solution, reqs map[*variable][]Requirement) []Install {
	var order []*variable
	seen := map[*variable]bool{}
	for _, v := range sol.guessed {
		if !seen[v] {
			seen[v] = true
			order = append(order, v)
		}
	}
	for _, v := range s.order {
		if sol.chosen[v] && !seen[v] {
			seen[v] = true
			order = append(order, v)
		}
	}
	var out []Install
	for _, v := range order {
		e := v.entry
		if e == nil || e.catalog.virtual {
			continue
		}
		out = append(out, Install{
			id: v.id, Name: e.name, Package: e.pkg, Channel: e.channel, Catalog: e.catalog.key,
			Replaces: v.replaces, Subscription: s.subscriptionFor(e), RequiredBy: reqs[v],
		})
	}
	return out
}

// subscriptionFor is the Subscription OLM counts a bundle as installed for:
// one of its package whose channel and catalog, when set, match.
func (s *scope) subscriptionFor(e *entry) string {
	for _, sv := range s.subs {
		sub := sv.sub
		if sub.Package != e.pkg || sub.Channel != "" && sub.Channel != e.channel {
			continue
		}
		if sub.Catalog != (CatalogKey{}) && sub.Catalog != e.catalog.key {
			continue
		}
		return sub.Name
	}
	return ""
}

// outcomes finds what OLM may do besides sol. OLM hands the solver its
// variables in Go map order, so the order in which it visits Subscriptions
// (and installed CSVs that must stay) is random; when their preferences
// interact, the answer depends on it. Variables linked by no constraint
// are independent problems, so the anchors of each group of linked
// variables (a component) are tried in every order on that component
// alone, and the variants of the components are combined.
func (s *scope) outcomes(ctx context.Context, sol *solution) ([]Outcome, bool, error) {
	first := s.outcome(sol)
	comps := s.interactingComponents()
	complete := true
	type variant struct {
		chosen  map[*variable]bool
		guessed []*variable
	}
	// variants[i] are the distinct answers of component i, the
	// canonical one first.
	var variants [][]variant
	for _, comp := range comps {
		canon := variant{chosen: map[*variable]bool{}}
		for _, v := range comp.vars {
			if sol.chosen[v] {
				canon.chosen[v] = true
			}
		}
		in := map[*variable]bool{}
		for _, v := range comp.vars {
			in[v] = true
		}
		for _, v := range sol.guessed {
			if in[v] {
				canon.guessed = append(canon.guessed, v)
			}
		}
		found := []variant{canon}
		keys := map[string]bool{chosenKey(canon.chosen): true}
		orders, all := anchorOrders(len(comp.anchors), orderBudget/len(comp.vars))
		complete = complete && all
		for _, order := range orders {
			vars := slices.Clone(comp.vars)
			for i, p := range comp.anchors {
				vars[p] = comp.vars[comp.anchors[order[i]]]
			}
			alt, err := solve(ctx, vars)
			if err != nil {
				if ctx.Err() != nil {
					return nil, false, ctx.Err()
				}
				continue
			}
			if k := chosenKey(alt.chosen); !keys[k] {
				keys[k] = true
				found = append(found, variant{alt.chosen, alt.guessed})
			}
		}
		if len(found) > 1 {
			variants = append(variants, found)
		}
	}
	// Every combination of the components' variants, up to a bound.
	out := []Outcome{first}
	combos := [][]int{make([]int, len(variants))}
	for i, vs := range variants {
		var next [][]int
		for _, c := range combos {
			for j := range vs {
				if len(next) >= maxOutcomes {
					complete = false
					break
				}
				n := slices.Clone(c)
				n[i] = j
				next = append(next, n)
			}
		}
		combos = next
	}
	seen := map[string]bool{installKey(first.Install): true}
	for _, c := range combos[1:] {
		alt := &solution{chosen: maps.Clone(sol.chosen)}
		replaced := map[*variable]bool{}
		for i, j := range c {
			for v := range variants[i][0].chosen {
				delete(alt.chosen, v)
				replaced[v] = true
			}
			for v := range variants[i][j].chosen {
				alt.chosen[v] = true
			}
			for _, v := range variants[i][0].guessed {
				replaced[v] = true
			}
		}
		for _, v := range sol.guessed {
			if !replaced[v] {
				alt.guessed = append(alt.guessed, v)
			}
		}
		for i, j := range c {
			alt.guessed = append(alt.guessed, variants[i][j].guessed...)
		}
		o := s.outcome(alt)
		if k := installKey(o.Install); !seen[k] {
			seen[k] = true
			out = append(out, o)
		}
	}
	return out, complete, nil
}

// maxOutcomes bounds the combinations of component variants listed.
const maxOutcomes = 64

// orderBudget bounds the work of trying orders: orders tried times the
// variables of the component (each try solves the component anew): about
// a quarter of a second of CPU.
const orderBudget = 8_000

// anchorOrders lists the orders to try for n anchors besides the first:
// every one when there are at most max, else every rotation forwards and
// backwards and then pseudo-random ones (the same in every run) up to max;
// all is then false.
func anchorOrders(n, max int) (orders [][]int, all bool) {
	if f := factorial(n); f <= maxOrders && f <= max {
		return permutations(n)[1:], true
	}
	for r := 0; r < n; r++ {
		fwd := make([]int, n)
		bwd := make([]int, n)
		for i := range fwd {
			fwd[i] = (i + r) % n
			bwd[i] = (n - 1 - i + r) % n
		}
		if r > 0 {
			orders = append(orders, fwd)
		}
		orders = append(orders, bwd)
	}
	rng := rand.New(rand.NewPCG(uint64(n), 1))
	for len(orders) < max {
		orders = append(orders, rng.Perm(n))
	}
	return orders, false
}

// component is a group of variables linked by constraints, with the
// positions (in vars) of its anchors that have dependencies.
type component struct {
	vars    []*variable
	anchors []int
}

// interactingComponents are the components with two anchors or more whose
// dependencies could interact.
func (s *scope) interactingComponents() []component {
	parent := map[string]string{}
	var find func(string) string
	find = func(x string) string {
		p, ok := parent[x]
		if !ok || p == x {
			parent[x] = x
			return x
		}
		r := find(p)
		parent[x] = r
		return r
	}
	union := func(a, b string) { parent[find(a)] = find(b) }
	for _, v := range s.order {
		for _, c := range v.constraints {
			for _, id := range c.ids {
				union(v.id, id)
			}
		}
	}
	byRoot := map[string]*component{}
	var roots []string
	for _, v := range s.order {
		r := find(v.id)
		c := byRoot[r]
		if c == nil {
			c = &component{}
			byRoot[r] = c
			roots = append(roots, r)
		}
		if v.anchor() && hasDependencies(v) {
			c.anchors = append(c.anchors, len(c.vars))
		}
		c.vars = append(c.vars, v)
	}
	var out []component
	for _, r := range roots {
		if c := byRoot[r]; len(c.anchors) > 1 {
			out = append(out, *c)
		}
	}
	return out
}

func hasDependencies(v *variable) bool {
	for _, c := range v.constraints {
		if c.kind == dependency && len(c.ids) > 0 {
			return true
		}
	}
	return false
}

func installKey(ins []Install) string {
	ids := make([]string, len(ins))
	for i, in := range ins {
		ids[i] = in.id
	}
	slices.Sort(ids)
	return strings.Join(ids, "\n")
}

func chosenKey(chosen map[*variable]bool) string {
	ids := make([]string, 0, len(chosen))
	for v := range chosen {
		ids = append(ids, v.id)
	}
	slices.Sort(ids)
	return strings.Join(ids, "\n")
}

func factorial(n int) int {
	f := 1
	for i := 2; i <= n; i++ {
		f *= i
		if f > maxOrders {
			return f
		}
	}
	return f
}

// permutations lists every order of 0..n-1, the identity first.
func permutations(n int) [][]int {
	var out [][]int
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	var rec func(k int)
	rec = func(k int) {
		if k == n {
			out = append(out, slices.Clone(p))
			return
		}
		for i := k; i < n; i++ {
			p[k], p[i] = p[i], p[k]
			rec(k + 1)
			p[k], p[i] = p[i], p[k]
		}
	}
	rec(0)
	return out
}
