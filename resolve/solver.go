package resolve

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/go-air/gini"
	"github.com/go-air/gini/inter"
	"github.com/go-air/gini/logic"
	"github.com/go-air/gini/z"
)

// The solver is OLM's: every candidate is a boolean variable, constraints
// become a gini circuit, and a search that follows preferences picks, for
// each choice in breadth-first order, the first candidate that keeps the
// formula satisfiable, undoing its latest guess at a dead end. gini (the
// SAT solver OLM uses) answers the satisfiability questions and, when there
// is no answer, which constraints conflict.

type constraintKind uint8

const (
	mandatory constraintKind = iota
	prohibited
	dependency
	conflict
	atMost
)

// constraint is one rule on a variable (its subject).
type constraint struct {
	kind constraintKind
	// ids are the candidates of a dependency in preference order, the
	// other variable of a conflict, or the members of an atMost.
	ids []string
	n   int
	// msg is OLM's wording of the constraint for error messages; empty
	// means the generic wording.
	msg string
	// hint is fbc's word beside OLM's in the summary of a conflict (a
	// package the Subscription may have meant); never part of msg.
	hint string
}

func (c constraint) describe(subject string) string {
	if c.msg != "" {
		return c.msg
	}
	switch c.kind {
	case mandatory:
		return subject + " is mandatory"
	case prohibited:
		return subject + " is prohibited"
	case dependency:
		if len(c.ids) == 0 {
			return subject + " has a dependency without any candidates to satisfy it"
		}
		return subject + " requires at least one of " + strings.Join(c.ids, ", ")
	case conflict:
		return subject + " conflicts with " + c.ids[0]
	default:
		return fmt.Sprintf("%s permits at most %d of %s", subject, c.n, strings.Join(c.ids, ", "))
	}
}

// variable is one thing the solver decides: a bundle (entry set), a
// Subscription, or one of the "only one per API / package" rules.
type variable struct {
	id          string
	constraints []constraint
	entry       *entry
	// replaces is the installed CSV this candidate upgrades.
	replaces string
	// predicates are the dependencies behind the entry's dependency
	// constraints, in the same order (for explanations).
	predicates []predicate
}

func (v *variable) anchor() bool {
	for _, c := range v.constraints {
		if c.kind == mandatory {
			return true
		}
	}
	return false
}

// NotSatisfiable is OLM's "constraints not satisfiable" error: the
// constraints of the conflict gini found, in OLM's order (sorted by text).
type NotSatisfiable []string

func (e NotSatisfiable) Error() string {
	const msg = "constraints not satisfiable"
	if len(e) == 0 {
		return msg
	}
	return msg + ": " + strings.Join(e, ", ")
}

// ErrIncomplete is OLM's error when resolution is stopped before it ends.
var ErrIncomplete = errors.New("cancelled before a solution could be found")

const (
	satisfiable   = 1
	unsatisfiable = -1
	unknown       = 0
)

// problem is the solver's input in gini's terms.
type problem struct {
	vars    []*variable
	c       *logic.C
	lits    map[string]z.Lit
	byLit   map[z.Lit]*variable
	applied []appliedConstraint // in creation order, one per distinct literal
	byCLit  map[z.Lit]int       // constraint literal -> index in applied
}

type appliedConstraint struct {
	lit     z.Lit
	subject *variable
	c       constraint
}

func newProblem(vars []*variable) (*problem, error) {
	p := &problem{
		vars:   vars,
		c:      logic.NewCCap(len(vars)),
		lits:   make(map[string]z.Lit, len(vars)),
		byLit:  make(map[z.Lit]*variable, len(vars)),
		byCLit: map[z.Lit]int{},
	}
	for _, v := range vars {
		if _, dup := p.lits[v.id]; dup {
			return nil, fmt.Errorf("duplicate identifier %q in input", v.id)
		}
		m := p.c.Lit()
		p.lits[v.id] = m
		p.byLit[m] = v
	}
	var missing []string
	lit := func(id string) z.Lit {
		m, ok := p.lits[id]
		if !ok {
			missing = append(missing, id)
		}
		return m
	}
	for _, v := range vars {
		for _, c := range v.constraints {
			var m z.Lit
			switch c.kind {
			case mandatory:
				m = lit(v.id)
			case prohibited:
				m = lit(v.id).Not()
			case dependency:
				m = lit(v.id).Not()
				for _, id := range c.ids {
					m = p.c.Or(m, lit(id))
				}
			case conflict:
				m = p.c.Or(lit(v.id).Not(), lit(c.ids[0]).Not())
			case atMost:
				ms := make([]z.Lit, len(c.ids))
				for i, id := range c.ids {
					ms[i] = lit(id)
				}
				m = p.c.CardSort(ms).Leq(c.n)
			}
			// Two constraints that build the same literal are one: the
			// later one names it, as in OLM.
			if i, ok := p.byCLit[m]; ok {
				p.applied[i] = appliedConstraint{m, v, c}
				continue
			}
			p.byCLit[m] = len(p.applied)
			p.applied = append(p.applied, appliedConstraint{m, v, c})
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("internal solver failure: variables referenced but not provided: %s", strings.Join(missing, ", "))
	}
	return p, nil
}

func (p *problem) assumeConstraints(g inter.S) {
	for _, a := range p.applied {
		g.Assume(a.lit)
	}
}

// solution is a satisfying choice of variables.
type solution struct {
	// guessed are the variables the search chose, in the order it chose
	// them.
	guessed []*variable
	// chosen are all variables set: the guesses and the fewest others the
	// constraints force.
	chosen map[*variable]bool
}

// solve runs OLM's search with the anchors (variables with a mandatory
// constraint) in the order of vars.
func solve(ctx context.Context, vars []*variable) (*solution, error) {
	p, err := newProblem(vars)
	if err != nil {
		return nil, err
	}
	g := gini.New()
	p.c.ToCnf(g)
	var anchors []z.Lit
	for _, v := range vars {
		if v.anchor() {
			anchors = append(anchors, p.lits[v.id])
		}
	}
	p.assumeConstraints(g)
	g.Assume(anchors...)

	assumptions := anchors
	var guessed map[z.Lit]bool
	outcome, _ := g.Test(nil)
	if outcome != satisfiable && outcome != unsatisfiable {
		s := &search{g: g, p: p}
		outcome, assumptions, err = s.run(ctx, anchors)
		if err != nil {
			return nil, err
		}
		guessed = make(map[z.Lit]bool, len(assumptions))
		for _, m := range assumptions {
			guessed[m] = true
		}
	}
	switch outcome {
	case satisfiable:
		return p.minimal(g, assumptions, guessed)
	case unsatisfiable:
		return nil, p.conflicts(g)
	}
	return nil, ErrIncomplete
}

// minimal keeps the guesses and sets as few other variables as the
// constraints allow: a cardinality constraint over the rest, tightened from
// zero until gini finds a model.
func (p *problem) minimal(g *gini.Gini, assumptions []z.Lit, guessed map[z.Lit]bool) (*solution, error) {
	var extras, excluded []z.Lit
	for _, v := range p.vars {
		m := p.lits[v.id]
		if guessed[m] {
			continue
		}
		if !g.Value(m) {
			excluded = append(excluded, m.Not())
			continue
		}
		extras = append(extras, m)
	}
	g.Untest()
	cs := p.cardinality(g, extras)
	g.Assume(assumptions...)
	g.Assume(excluded...)
	p.assumeConstraints(g)
	g.Test(nil)
	for w := 0; w <= cs.N(); w++ {
		g.Assume(cs.Leq(w))
		if g.Solve() == satisfiable {
			sol := &solution{chosen: map[*variable]bool{}}
			for _, v := range p.vars {
				if g.Value(p.lits[v.id]) {
					sol.chosen[v] = true
				}
			}
			for _, m := range assumptions {
				if v := p.byLit[m]; v != nil && guessed[m] {
					sol.guessed = append(sol.guessed, v)
				}
			}
			return sol, nil
		}
	}
	return nil, errors.New("unexpected internal error")
}

// cardinality adds a sorting network over ms to g, with the clauses for
// every bound.
func (p *problem) cardinality(g inter.Adder, ms []z.Lit) *logic.CardSort {
	before := p.c.Len()
	cs := p.c.CardSort(ms)
	marks := make([]int8, before, p.c.Len())
	for i := range marks {
		marks[i] = 1
	}
	for w := 0; w <= cs.N(); w++ {
		marks, _ = p.c.CnfSince(g, marks, cs.Leq(w))
	}
	return cs
}

// conflicts is the unsatisfiable core gini reports, in OLM's words.
func (p *problem) conflicts(g *gini.Gini) error {
	var core []appliedConstraint
	for _, m := range g.Why(nil) {
		if i, ok := p.byCLit[m]; ok {
			core = append(core, p.applied[i])
		}
	}
	slices.SortStableFunc(core, func(a, b appliedConstraint) int {
		return strings.Compare(a.c.describe(a.subject.id), b.c.describe(b.subject.id))
	})
	out := make([]string, len(core))
	for i, a := range core {
		out[i] = a.c.describe(a.subject.id)
	}
	return &conflictError{NotSatisfiable: out, core: core}
}

// search is OLM's preference-driven search. A choice is a list of
// candidates in preference order; guessing a candidate queues its
// dependencies' choices at the back (breadth first). A choice already
// satisfied by an earlier guess needs no guess. At a dead end the latest
// guess is undone and its choice's next candidate tried.
type search struct {
	g       *gini.Gini
	p       *problem
	assumed map[z.Lit]bool
	guesses []guess
	choices []choice // a deque: front is index 0
	result  int
	buf     []z.Lit
}

type choice struct {
	index      int // next candidate to try
	candidates []z.Lit
}

type guess struct {
	m          z.Lit // z.LitNull: no guess (satisfied earlier, or out of candidates)
	index      int
	children   int // choices this guess queued
	candidates []z.Lit
}

// maxSearchSteps bounds the search; OLM has no bound, but a namespace that
// needs this many guesses is far beyond anything real.
const maxSearchSteps = 5_000_000

func (s *search) run(ctx context.Context, anchors []z.Lit) (int, []z.Lit, error) {
	s.assumed = map[z.Lit]bool{}
	for _, m := range anchors {
		s.pushBack(choice{candidates: []z.Lit{m}})
	}
	for steps := 0; ; steps++ {
		if steps%1024 == 0 && ctx.Err() != nil || steps > maxSearchSteps {
			return unknown, nil, ErrIncomplete
		}
		if len(s.choices) == 0 && s.result == unknown {
			s.result = s.g.Solve()
		}
		if s.result == unsatisfiable {
			if len(s.guesses) == 0 {
				break
			}
			s.popGuess()
			continue
		}
		if len(s.choices) == 0 {
			break
		}
		s.pushGuess()
	}
	var lits []z.Lit
	for _, g := range s.guesses {
		if g.m != z.LitNull {
			lits = append(lits, g.m)
		}
	}
	result := s.result
	for len(s.guesses) > 0 {
		s.popGuess()
	}
	return result, lits, nil
}

func (s *search) pushGuess() {
	c := s.popFront()
	g := guess{m: z.LitNull, index: c.index, candidates: c.candidates}
	if g.index < len(g.candidates) {
		g.m = g.candidates[g.index]
	}
	for _, m := range g.candidates {
		if s.assumed[m] {
			g.m = z.LitNull
			break
		}
	}
	s.guesses = append(s.guesses, g)
	if g.m == z.LitNull {
		return
	}
	v := s.p.byLit[g.m]
	for _, con := range v.constraints {
		if con.kind != dependency || len(con.ids) == 0 {
			continue
		}
		ms := make([]z.Lit, len(con.ids))
		for i, id := range con.ids {
			ms[i] = s.p.lits[id]
		}
		s.guesses[len(s.guesses)-1].children++
		s.pushBack(choice{candidates: ms})
	}
	s.assumed[g.m] = true
	s.g.Assume(g.m)
	s.result, s.buf = s.g.Test(s.buf)
}

func (s *search) popGuess() {
	g := s.guesses[len(s.guesses)-1]
	s.guesses = s.guesses[:len(s.guesses)-1]
	if g.m != z.LitNull {
		delete(s.assumed, g.m)
		s.result = s.g.Untest()
	}
	for ; g.children > 0; g.children-- {
		s.popBack()
	}
	c := choice{index: g.index, candidates: g.candidates}
	if g.m != z.LitNull {
		c.index++
	}
	s.pushFront(c)
}

func (s *search) pushBack(c choice) { s.choices = append(s.choices, c) }

func (s *search) pushFront(c choice) {
	s.choices = append(s.choices, choice{})
	copy(s.choices[1:], s.choices)
	s.choices[0] = c
}

func (s *search) popFront() choice {
	c := s.choices[0]
	s.choices = s.choices[1:]
	return c
}

func (s *search) popBack() choice {
	c := s.choices[len(s.choices)-1]
	s.choices = s.choices[:len(s.choices)-1]
	return c
}
