package resolve

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// scope is what one namespace's resolution sees: its catalogs, the virtual
// catalog of its installed CSVs, and the variables built so far.
type scope struct {
	namespace string
	catalogs  []*catalog // CatalogSources, in input order
	existing  *catalog   // installed CSVs
	all       []*catalog // existing first, then catalogs

	vars    map[string]*variable
	order   []*variable // variables in the order they were first built
	visited map[*entry]*variable
	errs    []error

	// subs are the Subscriptions' variables, in input order, with what
	// they asked for.
	subs []*subscriptionVar
}

type subscriptionVar struct {
	sub        Subscription
	v          *variable
	current    *entry
	candidates []*variable
}

func newScope(ns *Namespace) *scope {
	s := &scope{
		namespace: ns.Name,
		vars:      map[string]*variable{},
		visited:   map[*entry]*variable{},
	}
	s.existing = &catalog{key: CatalogKey{Namespace: ns.Name, Name: existingCatalog}, virtual: true}
	referenced := map[string]bool{}
	for _, sub := range ns.Subscriptions {
		if sub.InstalledCSV != "" {
			referenced[sub.InstalledCSV] = true
		}
	}
	for _, in := range ns.Installed {
		e := newInstalledEntry(s.existing, in)
		e.referenced = referenced[in.Name]
		s.existing.entries = append(s.existing.entries, e)
	}
	s.all = append(s.all, s.existing)
	for _, c := range ns.Catalogs {
		cat := c.forResolver()
		s.catalogs = append(s.catalogs, cat)
		s.all = append(s.all, cat)
	}
	return s
}

// forResolver parses the catalog's entries once.
func (c *Catalog) forResolver() *catalog {
	c.once.Do(func() {
		cat := &catalog{key: c.Key, priority: c.Priority, err: c.Err}
		cat.entries = make([]*entry, len(c.Entries))
		for i, in := range c.Entries {
			cat.entries[i] = newCatalogEntry(cat, in)
		}
		c.resolver = cat
	})
	return c.resolver
}

// catalog finds a CatalogSource by key.
func (s *scope) catalog(k CatalogKey) *catalog {
	for _, c := range s.catalogs {
		if c.key == k {
			return c
		}
	}
	return nil
}

// packageHint names the package of the catalog nearest to pkg, which the
// catalog lacks: "did you mean ...?", or "" when none is near.
func packageHint(pkg string, c *catalog) string {
	if c == nil {
		return ""
	}
	var names []string
	for _, e := range c.entries {
		if len(names) == 0 || names[len(names)-1] != e.pkg {
			names = append(names, e.pkg)
		}
	}
	if sug := suggestName(pkg, names); sug != "" {
		return fmt.Sprintf("did you mean package %q?", sug)
	}
	return ""
}

// add records a variable; a later variable of the same id replaces the
// earlier one but keeps its place.
func (s *scope) add(v *variable) {
	if _, ok := s.vars[v.id]; !ok {
		s.order = append(s.order, v)
	} else {
		for i, o := range s.order {
			if o.id == v.id {
				s.order[i] = v
			}
		}
	}
	s.vars[v.id] = v
}

// build makes every variable of the namespace: the installed CSVs and what
// they depend on, each Subscription and its candidates with their
// dependencies, and the "only one" invariants. Errors are OLM's reasons to
// give up before solving.
func (s *scope) build(subs []Subscription) error {
	if err := s.visit(s.existing.entries); err != nil {
		return err
	}
	for _, sub := range subs {
		if err := s.subscription(sub); err != nil {
			s.errs = append(s.errs, err)
		}
	}
	s.invariants()
	var catErrs []error
	for _, c := range s.catalogs {
		if c.err != nil {
			catErrs = append(catErrs, fmt.Errorf("error using catalogsource %s/%s: %w", c.key.Namespace, c.key.Name, c.err))
		}
	}
	if len(catErrs) > 0 {
		return aggregate(catErrs)
	}
	if len(s.errs) > 0 {
		return aggregate(s.errs)
	}
	return nil
}

// bundleVar is the variable of an entry, made once.
func (s *scope) bundleVar(e *entry) *variable {
	if v, ok := s.visited[e]; ok {
		return v
	}
	v := &variable{id: e.identifier(), entry: e}
	if e.catalog.virtual && !e.referenced {
		v.constraints = append(v.constraints, constraint{kind: mandatory,
			msg: fmt.Sprintf("clusterserviceversion %s exists and is not referenced by a subscription", e.name)})
	}
	if e.deprecated {
		v.constraints = append(v.constraints, constraint{kind: prohibited,
			msg: fmt.Sprintf("bundle %s is deprecated", v.id)})
	}
	s.visited[e] = v
	return v
}

// expanded marks variables whose dependencies are built.
func (v *variable) expanded() bool { return v.predicates != nil }

// visit builds the variables of entries and, transitively, of every
// candidate of their dependencies.
func (s *scope) visit(entries []*entry) error {
	var errs []error
	stack := slices.Clone(entries)
	for len(stack) > 0 {
		e := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		v := s.bundleVar(e)
		if v.expanded() {
			s.add(v)
			continue
		}
		v.predicates = []predicate{}
		preds, err := dependencyPredicates(e.props)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, p := range preds {
			cands, err := s.dependencyCandidates(e, p)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			ids := make([]string, len(cands))
			for i, c := range cands {
				ids[i] = s.bundleVar(c).id
				stack = append(stack, c)
			}
			v.constraints = append(v.constraints, constraint{kind: dependency, ids: ids,
				msg: fmt.Sprintf("bundle %s requires an operator %s", e.name, p)})
			v.predicates = append(v.predicates, p)
		}
		s.add(v)
	}
	if len(errs) > 0 {
		return aggregate(errs)
	}
	return nil
}

// dependencyCandidates lists the entries that satisfy p for the bundle e, in
// OLM's order of preference: installed CSVs, then e's own catalog, then
// other catalogs by priority (higher first), namespace (the namespace's own
// before the global one) and name; inside a catalog, default channels
// first, then by package and channel name; inside a channel from the head
// down. Whole channels are considered: an entry that another skips is
// never a candidate.
func (s *scope) dependencyCandidates(e *entry, p predicate) ([]*entry, error) {
	type group struct {
		cat     *catalog
		pkg     string
		channel string
		def     bool
		members []*entry // installed CSVs only
	}
	seen := map[pkgChannel]*group{}
	byCatalog := map[*catalog][]*group{}
	for _, c := range s.all {
		for _, m := range c.entries {
			if !p.test(m) {
				continue
			}
			if c.virtual {
				g := &group{cat: c, pkg: m.pkg, members: []*entry{m}}
				byCatalog[c] = append(byCatalog[c], g)
				continue
			}
			k := pkgChannel{c.key.String() + "\x00" + m.pkg, m.channel}
			if seen[k] != nil {
				continue
			}
			g := &group{cat: c, pkg: m.pkg, channel: m.channel, def: m.defaultChannel}
			seen[k] = g
			byCatalog[c] = append(byCatalog[c], g)
		}
	}
	var out []*entry
	for _, c := range s.preferred(e.catalog) {
		gs := byCatalog[c]
		if c.virtual {
			// Installed CSVs of one package are ordered as one channel
			// (and OLM fails when they are not one replaces chain).
			var merged []*group
			first := map[string]*group{}
			for _, g := range gs {
				if f := first[g.pkg]; f != nil {
					f.members = append(f.members, g.members...)
					continue
				}
				first[g.pkg] = g
				merged = append(merged, g)
			}
			gs = merged
		}
		sort.SliceStable(gs, func(i, j int) bool {
			if gs[i].def != gs[j].def {
				return gs[i].def
			}
			if gs[i].pkg != gs[j].pkg {
				return gs[i].pkg < gs[j].pkg
			}
			return gs[i].channel < gs[j].channel
		})
		for _, g := range gs {
			var chain []*entry
			var err error
			if c.virtual {
				chain, err = sortChannel(g.members)
			} else {
				chain, err = c.channelChain(g.pkg, g.channel)
			}
			if err != nil {
				return nil, err
			}
			for _, m := range chain {
				if p.test(m) {
					out = append(out, m)
				}
			}
		}
	}
	return out, nil
}

// preferred orders the catalogs for a dependency of a bundle from own.
func (s *scope) preferred(own *catalog) []*catalog {
	out := slices.Clone(s.all)
	rank := func(c *catalog) int {
		switch {
		case c == s.existing:
			return 0
		case c == own:
			return 1
		}
		return 2
	}
	slices.SortStableFunc(out, func(a, b *catalog) int {
		if r := cmp.Compare(rank(a), rank(b)); r != 0 || rank(a) < 2 {
			return r
		}
		if a.priority != b.priority {
			return cmp.Compare(b.priority, a.priority)
		}
		if a.key.Namespace != b.key.Namespace {
			if a.key.Namespace == s.namespace {
				return -1
			}
			if b.key.Namespace == s.namespace {
				return 1
			}
		}
		return strings.Compare(a.key.Name, b.key.Name)
	})
	return out
}

// subscription builds a Subscription's variable: its candidates in
// preference order (the default channel first, then channels by name; in a
// channel from the head down), or, for a Subscription with an installed
// CSV, the direct successors of that CSV and then the CSV itself.
func (s *scope) subscription(sub Subscription) error {
	sv := &subscriptionVar{sub: sub}
	id := "subscription:" + sub.Name
	exists := constraint{kind: mandatory, msg: fmt.Sprintf("subscription %s exists", sub.Name)}
	for _, e := range s.existing.entries {
		if e.name == sub.InstalledCSV && sub.InstalledCSV != "" {
			sv.current = e
		}
	}
	var matches []*entry
	var nall, npkg, nch, ncsv int
	if c := s.catalog(sub.Catalog); c != nil {
		for _, e := range c.entries {
			nall++
			if !packagePredicate(sub.Package).test(e) {
				continue
			}
			npkg++
			if sub.Channel != "" && e.channel != sub.Channel {
				continue
			}
			nch++
			if sv.current == nil && sub.StartingCSV != "" && e.name != sub.StartingCSV {
				continue
			}
			ncsv++
			matches = append(matches, e)
		}
	}
	var reason, hint string
	switch {
	case nall == 0:
		reason = fmt.Sprintf("no operators found from catalog %s in namespace %s referenced by subscription %s", sub.Catalog.Name, sub.Catalog.Namespace, sub.Name)
	case npkg == 0:
		reason = fmt.Sprintf("no operators found in package %s in the catalog referenced by subscription %s", sub.Package, sub.Name)
		hint = packageHint(sub.Package, s.catalog(sub.Catalog))
	case nch == 0:
		reason = fmt.Sprintf("no operators found in channel %s of package %s in the catalog referenced by subscription %s", sub.Channel, sub.Package, sub.Name)
	case ncsv == 0:
		reason = fmt.Sprintf("no operators found with name %s in channel %s of package %s in the catalog referenced by subscription %s", sub.StartingCSV, sub.Channel, sub.Package, sub.Name)
	}
	if reason != "" {
		sv.v = &variable{id: id, constraints: []constraint{exists, {kind: prohibited, msg: reason, hint: hint}}}
		s.add(sv.v)
		s.subs = append(s.subs, sv)
		return nil
	}

	sort.SliceStable(matches, func(i, j int) bool {
		if matches[i].defaultChannel != matches[j].defaultChannel {
			return matches[i].defaultChannel
		}
		return matches[i].channel < matches[j].channel
	})
	var ordered []*entry
	for i := 0; i < len(matches); {
		j := i
		for j < len(matches) && matches[j].channel == matches[i].channel {
			j++
		}
		chain, err := sortChannel(matches[i:j])
		if err != nil {
			return err
		}
		ordered = append(ordered, chain...)
		i = j
	}
	if cur := sv.current; cur != nil {
		ordered = slices.DeleteFunc(ordered, func(e *entry) bool {
			return !(e.skipRange != nil && e.skipRange(*cur.version) || e.replaces == cur.name || slices.Contains(e.skips, cur.name))
		})
	}
	// A bundle in several channels (a Subscription without a channel) is
	// one candidate per channel, in channel order.
	var stack []*entry
	seen := map[*entry]bool{}
	for _, o := range ordered {
		for _, m := range matches {
			if m.name == o.name && !seen[m] {
				seen[m] = true
				stack = append(stack, m)
			}
		}
	}
	if err := s.visit(stack); err != nil {
		return err
	}
	var ids []string
	for _, e := range stack {
		c := s.bundleVar(e)
		if sv.current != nil {
			c.replaces = sv.current.name
			c.constraints = append(c.constraints, constraint{kind: conflict, ids: []string{s.bundleVar(sv.current).id}})
		}
		sv.candidates = append(sv.candidates, c)
		ids = append(ids, c.id)
	}
	if sv.current != nil {
		cur := s.bundleVar(sv.current)
		sv.candidates = append(sv.candidates, cur)
		ids = append(ids, cur.id)
	}
	req := constraint{kind: dependency, ids: ids}
	switch len(ids) {
	case 0:
		req.msg = fmt.Sprintf("no operators found matching the criteria of subscription %s", sub.Name)
	case 1:
		req.msg = fmt.Sprintf("subscription %s requires %s", sub.Name, ids[0])
	default:
		req.msg = fmt.Sprintf("subscription %s requires at least one of %s or %s", sub.Name, strings.Join(ids[:len(ids)-1], ", "), ids[len(ids)-1])
	}
	sv.v = &variable{id: id, constraints: []constraint{exists, req}}
	s.add(sv.v)
	s.subs = append(s.subs, sv)
	return nil
}

// invariants adds OLM's namespace-wide rules: at most one provider of each
// API and at most one bundle of each package (installed CSVs count).
func (s *scope) invariants() {
	gvkProviders := map[gvk][]string{}
	pkgProviders := map[string][]string{}
	for _, v := range s.order {
		e := v.entry
		if e == nil {
			continue
		}
		for _, g := range e.gvks {
			gvkProviders[g] = append(gvkProviders[g], v.id)
		}
		for _, p := range e.packages {
			pkgProviders[p.name] = append(pkgProviders[p.name], v.id)
		}
	}
	gvks := make([]gvk, 0, len(gvkProviders))
	for g, ids := range gvkProviders {
		if len(ids) > 1 {
			gvks = append(gvks, g)
		}
	}
	slices.SortFunc(gvks, func(a, b gvk) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Group, b.Group), cmp.Compare(a.Version, b.Version))
	})
	for _, g := range gvks {
		ids := gvkProviders[g]
		slices.Sort(ids)
		name := fmt.Sprintf("%s (%s/%s)", g.Kind, g.Group, g.Version)
		s.add(&variable{id: name, constraints: []constraint{
			{kind: mandatory, msg: "there can be only one provider of " + name},
			{kind: atMost, n: 1, ids: ids, msg: fmt.Sprintf("%s and %s provide %s", strings.Join(ids[:len(ids)-1], ", "), ids[len(ids)-1], name)},
		}})
	}
	pkgs := make([]string, 0, len(pkgProviders))
	for p, ids := range pkgProviders {
		if len(ids) > 1 {
			pkgs = append(pkgs, p)
		}
	}
	slices.Sort(pkgs)
	for _, p := range pkgs {
		ids := pkgProviders[p]
		slices.Sort(ids)
		s.add(&variable{id: p, constraints: []constraint{
			{kind: mandatory, msg: "there can be only one operator from package " + p},
			{kind: atMost, n: 1, ids: ids, msg: fmt.Sprintf("%s and %s originate from package %s", strings.Join(ids[:len(ids)-1], ", "), ids[len(ids)-1], p)},
		}})
	}
}

// aggregate joins errors as Kubernetes' error aggregates print: one error
// as itself, several (each message once) in brackets.
func aggregate(errs []error) error {
	var msgs []string
	seen := map[string]bool{}
	var walk func([]error)
	walk = func(es []error) {
		for _, e := range es {
			if a, ok := e.(aggregateError); ok {
				walk(a.errs)
				continue
			}
			if m := e.Error(); !seen[m] {
				seen[m] = true
				msgs = append(msgs, m)
			}
		}
	}
	walk(errs)
	if len(errs) == 1 && len(msgs) == 1 {
		return errs[0]
	}
	return aggregateError{errs: errs, msgs: msgs}
}

type aggregateError struct {
	errs []error
	msgs []string
}

func (a aggregateError) Error() string {
	if len(a.msgs) == 1 {
		return a.msgs[0]
	}
	return "[" + strings.Join(a.msgs, ", ") + "]"
}
