package graph

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/fbc-project/fbc/internal/textout"
)

// Survey is `upgrade-path --all`: every bundle of a channel selection
// simulated as the installed one, and whether its path reaches the bundle
// a fresh install gets (the head).
type Survey struct {
	Package    string
	Options    Options
	Selections []*Selection
	// Cluster is the cluster the paths were checked against
	// (UpgradeQuery.Cluster), nil for none.
	Cluster *ClusterVersion
	// ClusterChecked is set when the paths were checked against cluster
	// versions: a cluster was given, or a bundle of the package declares
	// olm.maxOpenShiftVersion.
	ClusterChecked bool
}

// Selection is one subscription setting surveyed: one channel, or the
// channels given.
type Selection struct {
	Channels []string
	// Head is where a fresh install lands, the target every path should
	// reach.
	Head *Bundle
	// Err is set when even a fresh install fails to resolve; no rows are
	// simulated then.
	Err error
	// Bundles counts the bundles of the selection.
	Bundles int
	Rows    []*SurveyRow
	// Unreachable lists the bundles no cluster version reaches, with why.
	Unreachable []Unreachable

	byName map[string]*SurveyRow
}

// row returns the row of the named bundle, nil if the selection has none.
func (sel *Selection) row(name string) *SurveyRow {
	if sel.byName == nil {
		sel.byName = make(map[string]*SurveyRow, len(sel.Rows))
		for _, r := range sel.Rows {
			sel.byName[r.From.Name] = r
		}
	}
	return sel.byName[name]
}

// SurveyRow is one installed bundle's fate.
type SurveyRow struct {
	From *Bundle
	// Next is the first upgrade, nil when the bundle stays.
	Next *Bundle
	// End is where the path stops (the bundle itself when it stays).
	End *Bundle
	// Hops counts the upgrades to the head; -1 when the path never gets
	// there.
	Hops int
	// Err is the resolution failure (or loop) on the way.
	Err error
	// ClusterBlock is the first step of the path no OpenShift cluster can
	// take, even one upgraded on the way; nil when some cluster can take
	// them all.
	ClusterBlock *ClusterBlock
	// Refused is the first step the survey's cluster cannot take; nil
	// when it takes them all, or when no cluster is given.
	Refused *ClusterBlock
	// NotOn says why the survey's cluster cannot run the installed bundle
	// itself (so no such cluster has it installed); such a row is not
	// checked against that cluster.
	NotOn string
}

// ClusterBlocked reports a row whose path some cluster cannot complete:
// no cluster version at all, or the survey's.
func (r *SurveyRow) ClusterBlocked() bool { return r.ClusterBlock != nil || r.Refused != nil }

// Unreachable is a bundle no cluster version reaches.
type Unreachable struct {
	Bundle *Bundle
	Reason string
}

// DeadEnd reports a bundle whose upgrades stop short of the head.
func (r *SurveyRow) DeadEnd() bool { return r.Err == nil && r.Hops < 0 }

// SurveyUpgrades simulates every bundle of the package as installed. With
// channels given, one selection uses them; otherwise each channel is
// surveyed on its own, as a subscription to that channel.
func SurveyUpgrades(cat *Catalog, q UpgradeQuery) (*Survey, error) {
	if q.From != "" || q.FromVersion != "" {
		return nil, optionErrorf("a survey simulates every bundle; it takes no installed bundle")
	}
	base, err := resolverFor(cat, q)
	if err != nil {
		return nil, err
	}
	p := base.pkg
	s := &Survey{Package: p.Name, Options: base.opts, Cluster: q.Cluster}
	cc := newClusterChecker(q.Warn)
	var selections [][]string
	if len(base.opts.Channels) > 0 {
		selections = [][]string{base.opts.Channels}
	} else {
		for _, name := range p.ChannelNames() {
			selections = append(selections, []string{name})
		}
	}
	for _, chans := range selections {
		opts := base.opts
		opts.Channels = chans
		r, err := NewResolver(p, opts)
		if err != nil {
			return nil, err
		}
		sel := survey(r, chans)
		if checkClusters(sel, q.Cluster, cc) {
			s.ClusterChecked = true
		}
		s.Selections = append(s.Selections, sel)
	}
	return s, nil
}

func survey(r *Resolver, chans []string) *Selection {
	sel := &Selection{Channels: chans}
	var bundles []*Bundle
	seen := map[string]bool{}
	for _, c := range chans {
		ch := r.pkg.Channel(c)
		if ch == nil {
			continue
		}
		for _, e := range ch.Entries {
			if e.Bundle != nil && !seen[e.Name] {
				seen[e.Name] = true
				bundles = append(bundles, e.Bundle)
			}
		}
	}
	sel.Bundles = len(bundles)
	fresh, err := r.Step(nil)
	if err != nil {
		sel.Err = err
		return sel
	}
	sel.Head = fresh.Next
	slices.SortStableFunc(bundles, byVersionDesc)

	type fate struct {
		next, end *Bundle
		depth     int // upgrades from here to end
		err       error
		done      bool
	}
	fates := map[*Bundle]*fate{}
	// follow walks the next pointers from b, stepping each bundle once, and
	// fills in the fate of every bundle on the way.
	follow := func(b *Bundle) *fate {
		var stack []*Bundle
		onStack := map[*Bundle]bool{}
		cur := b
		for {
			if f := fates[cur]; f != nil && f.done {
				break
			}
			if onStack[cur] {
				names := []string{}
				for _, x := range stack {
					names = append(names, x.Name)
				}
				loopErr := fmt.Errorf("%w: %s -> %s", ErrLoop, strings.Join(names, " -> "), cur.Name)
				for _, x := range stack {
					fates[x] = &fate{err: loopErr, done: true}
				}
				return fates[b]
			}
			onStack[cur] = true
			stack = append(stack, cur)
			st, err := r.Step(&Installed{Name: cur.Name, Version: cur.Version})
			switch {
			case err != nil:
				fates[cur] = &fate{err: err, done: true}
			case st.Next == nil:
				fates[cur] = &fate{end: cur, done: true}
			default:
				fates[cur] = &fate{next: st.Next}
				cur = st.Next
				continue
			}
			break
		}
		for i := len(stack) - 1; i >= 0; i-- {
			f := fates[stack[i]]
			if f.done {
				continue
			}
			nf := fates[f.next]
			f.end, f.depth, f.err, f.done = nf.end, nf.depth+1, nf.err, true
		}
		return fates[b]
	}
	for _, b := range bundles {
		f := follow(b)
		row := &SurveyRow{From: b, Next: f.next, End: f.end, Hops: -1, Err: f.err}
		if f.err == nil && f.end == sel.Head {
			row.Hops = f.depth
		}
		sel.Rows = append(sel.Rows, row)
	}
	return sel
}

// checkClusters checks every row's path against cluster versions, when a
// cluster is given or a bundle of the selection declares
// olm.maxOpenShiftVersion (without one, and without a cluster, nothing can
// be blocked); it reports whether it did.
func checkClusters(sel *Selection, at *ClusterVersion, cc *clusterChecker) bool {
	if sel.Err != nil {
		return false
	}
	bundles := make([]*Bundle, len(sel.Rows))
	for i, r := range sel.Rows {
		bundles[i] = r.From
	}
	anyMax := hasMax(bundles)
	if at == nil && !anyMax {
		return false
	}
	reached := map[*Bundle]bool{}
	onPath := map[*Bundle]string{} // bundles upgrades lead to, and why a path to it is blocked
	for _, r := range sel.Rows {
		path := []*Bundle{r.From}
		for cur := r; cur.Next != nil && len(path) <= len(sel.Rows); {
			path = append(path, cur.Next)
			if cur = sel.row(cur.Next.Name); cur == nil {
				break
			}
		}
		r.ClusterBlock = cc.blockAny(path)
		end := len(path)
		if r.ClusterBlock != nil {
			end = slices.Index(path, r.ClusterBlock.To)
		}
		for j := 1; j < len(path); j++ {
			switch b := path[j]; {
			case j < end:
				reached[b] = true
			case j == end || onPath[b] == "":
				onPath[b] = blockReason(r.ClusterBlock)
			}
		}
		if at == nil {
			continue
		}
		if why := cc.refuses(at, r.From); why != "" {
			r.NotOn = why
			continue
		}
		r.Refused = cc.blockAt(at, path)
	}
	if anyMax {
		for _, r := range sel.Rows {
			b := r.From
			if reached[b] {
				continue
			}
			if blk := cc.blockAny([]*Bundle{b}); blk != nil {
				sel.Unreachable = append(sel.Unreachable, Unreachable{Bundle: b, Reason: blk.Reason})
				continue
			}
			if why, ok := onPath[b]; ok && b != sel.Head {
				sel.Unreachable = append(sel.Unreachable, Unreachable{Bundle: b, Reason: "every upgrade to it is blocked: " + why})
			}
		}
	}
	return true
}

func blockReason(b *ClusterBlock) string {
	if b == nil {
		return ""
	}
	if b.From == nil {
		return b.Reason
	}
	return fmt.Sprintf("%s -> %s: %s", b.From.Name, b.To.Name, b.Reason)
}

// byVersionDesc orders bundles newest first, those without a version last.
func byVersionDesc(a, b *Bundle) int {
	switch {
	case a.HasVersion() && b.HasVersion():
		if c := b.SemVer.Compare(a.SemVer); c != 0 {
			return c
		}
	case a.HasVersion():
		return -1
	case b.HasVersion():
		return 1
	}
	return strings.Compare(a.Name, b.Name)
}

// Problems counts the bundles that cannot reach their head: dead ends,
// failed resolutions, and every bundle of a selection that cannot resolve.
func (s *Survey) Problems() int {
	n := 0
	for _, sel := range s.Selections {
		if sel.Err != nil {
			n += max(sel.Bundles, 1)
			continue
		}
		for _, r := range sel.Rows {
			if r.Err != nil || r.DeadEnd() || r.ClusterBlocked() {
				n++
			}
		}
	}
	return n
}

// Blocked counts the rows whose path a cluster cannot complete
// (SurveyRow.ClusterBlocked); some may be dead ends or failures too.
func (s *Survey) Blocked() int {
	n := 0
	for _, sel := range s.Selections {
		for _, r := range sel.Rows {
			if r.ClusterBlocked() {
				n++
			}
		}
	}
	return n
}

// Unreachable counts the bundles no cluster version reaches.
func (s *Survey) Unreachable() int {
	n := 0
	for _, sel := range s.Selections {
		n += len(sel.Unreachable)
	}
	return n
}

// Counts returns the number of dead ends and of failed resolutions
// (counting every bundle of a selection that cannot resolve).
func (s *Survey) Counts() (deadEnds, failures int) {
	for _, sel := range s.Selections {
		if sel.Err != nil {
			failures += max(sel.Bundles, 1) // a channel without bundles fails as a whole
			continue
		}
		for _, r := range sel.Rows {
			switch {
			case r.Err != nil:
				failures++
			case r.DeadEnd():
				deadEnds++
			}
		}
	}
	return deadEnds, failures
}

type surveyJSON struct {
	Package    string          `json:"package"`
	Semantics  Semantics       `json:"semantics"`
	Cluster    *clusterJSON    `json:"cluster,omitempty"`
	Selections []selectionJSON `json:"channels"`
	surveyTotals
}

// surveyTotals are the counts a package's survey and a catalog's end with.
type surveyTotals struct {
	DeadEnds int `json:"deadEnds"`
	Failures int `json:"failures"`
	// ClusterBlocked is there when the paths were checked against
	// cluster versions.
	ClusterBlocked *int `json:"clusterBlocked,omitempty"`
}

func totals(deadEnds, failures int, clusterChecked bool, blocked int) surveyTotals {
	t := surveyTotals{DeadEnds: deadEnds, Failures: failures}
	if clusterChecked {
		t.ClusterBlocked = &blocked
	}
	return t
}

type selectionJSON struct {
	Channels    []string          `json:"channels"`
	Head        *string           `json:"head"`
	Error       string            `json:"error,omitempty"`
	Rows        []rowJSON         `json:"rows"`
	Unreachable []unreachableJSON `json:"unreachable,omitempty"`
}

type unreachableJSON struct {
	Bundle string `json:"bundle"`
	Reason string `json:"reason"`
}

type rowJSON struct {
	From         Installed    `json:"from"`
	Next         *string      `json:"next"`
	End          *string      `json:"end"`
	Hops         *int         `json:"hops"`
	DeadEnd      bool         `json:"deadEnd"`
	Error        string       `json:"error,omitempty"`
	ClusterBlock *refusedJSON `json:"clusterBlock,omitempty"`
	Refused      *refusedJSON `json:"refused,omitempty"`
	NotOn        string       `json:"notOnCluster,omitempty"`
}

func (b *ClusterBlock) toJSON() *refusedJSON {
	if b == nil {
		return nil
	}
	return &refusedJSON{From: namePtr(b.From), To: b.To.Name, Reason: b.Reason}
}

func namePtr(b *Bundle) *string {
	if b == nil {
		return nil
	}
	return &b.Name
}

// WriteJSON writes the survey as one JSON object.
func (s *Survey) WriteJSON(w io.Writer) error { return writeJSON(w, s.toJSON()) }

func (s *Survey) toJSON() surveyJSON {
	out := surveyJSON{Package: s.Package, Semantics: s.Options.Semantics, Cluster: s.Cluster.toJSON(), Selections: []selectionJSON{}}
	dead, failed := s.Counts()
	out.surveyTotals = totals(dead, failed, s.ClusterChecked, s.Blocked())
	for _, sel := range s.Selections {
		sj := selectionJSON{Channels: sel.Channels, Head: namePtr(sel.Head), Rows: []rowJSON{}}
		if sel.Err != nil {
			sj.Error = sel.Err.Error()
		}
		for _, r := range sel.Rows {
			rj := rowJSON{From: Installed{Name: r.From.Name, Version: r.From.Version}, Next: namePtr(r.Next), End: namePtr(r.End), DeadEnd: r.DeadEnd()}
			if r.Hops >= 0 {
				h := r.Hops
				rj.Hops = &h
			}
			if r.Err != nil {
				rj.Error = r.Err.Error()
			}
			rj.ClusterBlock, rj.Refused, rj.NotOn = r.ClusterBlock.toJSON(), r.Refused.toJSON(), r.NotOn
			sj.Rows = append(sj.Rows, rj)
		}
		for _, u := range sel.Unreachable {
			sj.Unreachable = append(sj.Unreachable, unreachableJSON{Bundle: u.Bundle.Name, Reason: u.Reason})
		}
		out.Selections = append(out.Selections, sj)
	}
	return out
}

// WriteText writes one table per channel selection: each bundle, its next
// upgrade, the hops to the head, and what stops the dead ends.
func (s *Survey) WriteText(w io.Writer) error {
	t := textout.New(w)
	s.writeTables(t)
	dead, failed := s.Counts()
	t.Printf("\n%d dead %s, %d failed %s%s\n", dead, plural(dead, "end", "ends"), failed, plural(failed, "resolution", "resolutions"), blockedSummary(s.ClusterChecked, s.Blocked(), s.Unreachable()))
	return t.Err()
}

func (s *Survey) writeTables(t *textout.Writer) {
	if len(s.Selections) == 0 {
		t.Printf("package %s: no channels, nothing to simulate\n", s.Package)
	}
	for i, sel := range s.Selections {
		if i > 0 {
			t.Printf("\n")
		}
		opts := s.Options
		opts.Channels = sel.Channels
		t.Printf("package %s: %s\n", s.Package, opts.Describe())
		if sel.Err != nil {
			t.Printf("cannot resolve (%d %s affected): %v\n", sel.Bundles, plural(sel.Bundles, "bundle", "bundles"), sel.Err)
			continue
		}
		t.Printf("head: %s (%s)\n", sel.Head.Name, sel.Head.Version)
		if t.Err() != nil {
			break
		}
		var table strings.Builder
		tw := tabwriter.NewWriter(&table, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "FROM\tVERSION\tNEXT\tHOPS\tNOTE")
		for _, r := range sel.Rows {
			next, hops := "-", "-"
			if r.Next != nil {
				next = r.Next.Name
			}
			if r.Hops >= 0 {
				hops = strconv.Itoa(r.Hops)
			}
			note := r.Note(s.Cluster)
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.From.Name, r.From.Version, next, hops, note)
		}
		_ = tw.Flush() // writes to a strings.Builder
		for _, line := range strings.SplitAfter(table.String(), "\n") {
			if line != "" {
				t.Printf("%s\n", strings.TrimRight(line, " \n"))
			}
		}
		for _, u := range sel.Unreachable {
			t.Printf("no cluster version reaches %s: %s\n", u.Bundle.Name, u.Reason)
		}
	}
}

// Note is what the survey's table says of the row, "" when nothing is
// wrong: a failure, a dead end, and the steps a cluster cannot take (at is
// the survey's cluster, nil for none).
func (r *SurveyRow) Note(at *ClusterVersion) string {
	note := ""
	switch {
	case r.Err != nil:
		note = "fails: " + r.Err.Error()
	case r.DeadEnd() && r.End == r.From:
		note = "dead end: no upgrade"
	case r.DeadEnd():
		note = "dead end: stops at " + r.End.Name
	}
	return joinNotes(note, clusterNotes(r, at)...)
}

// clusterNotes are a row's notes about cluster versions.
func clusterNotes(r *SurveyRow, at *ClusterVersion) []string {
	var out []string
	if r.ClusterBlock != nil {
		out = append(out, "no cluster version: "+blockReason(r.ClusterBlock))
	}
	if r.Refused != nil {
		out = append(out, fmt.Sprintf("not on %s: %s", at, blockReason(r.Refused)))
	}
	if r.NotOn != "" {
		out = append(out, fmt.Sprintf("not run on %s: %s", at, r.NotOn))
	}
	return out
}

func joinNotes(first string, more ...string) string {
	if first != "" {
		more = append([]string{first}, more...)
	}
	return strings.Join(more, "; ")
}

// blockedSummary is the totals' part about cluster versions, when the
// paths were checked against them.
func blockedSummary(checked bool, blocked, unreachable int) string {
	if !checked {
		return ""
	}
	return fmt.Sprintf(", %d %s blocked by cluster versions, %d %s no cluster version reaches",
		blocked, plural(blocked, "path", "paths"), unreachable, plural(unreachable, "bundle", "bundles"))
}

// SurveyReport is what `upgrade-path --all` reports: one package's
// survey (*Survey) or every package's (*CatalogSurvey).
type SurveyReport interface {
	WriteText(io.Writer) error
	WriteJSON(io.Writer) error
	// Problems counts the bundles that cannot reach their head.
	Problems() int
	// Unreachable counts the bundles no cluster version reaches.
	Unreachable() int
}

// SurveyAll surveys the query's package, or every package of the catalog
// when the query names none.
func SurveyAll(cat *Catalog, q UpgradeQuery) (SurveyReport, error) {
	if q.Package == "" {
		cs, err := SurveyCatalog(cat, q)
		if err != nil {
			return nil, err
		}
		return cs, nil
	}
	s, err := SurveyUpgrades(cat, q)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// CatalogSurvey is `upgrade-path --all` without a package: every package
// of the catalog surveyed under the same options.
type CatalogSurvey struct {
	Semantics Semantics
	Packages  []*Survey
	// Cluster is the cluster the paths were checked against, if any.
	Cluster *ClusterVersion
}

// SurveyCatalog surveys every package of the catalog, in name order. The
// query names no package; channels, if given, apply to every package that
// has them, and a package with none of them is skipped.
func SurveyCatalog(cat *Catalog, q UpgradeQuery) (*CatalogSurvey, error) {
	if q.Package != "" {
		return nil, optionErrorf("a catalog survey covers every package; it takes no package")
	}
	if q.Semantics == Classic && len(q.Channels) == 1 && q.Channels[0] == "" {
		q.Channels = nil
	}
	// The options are checked once, on an empty package, so that a
	// mistake is reported even where no package has the channels.
	if _, err := NewResolver(&Package{}, q.Options); err != nil {
		return nil, err
	}
	cs := &CatalogSurvey{Semantics: q.Semantics, Cluster: q.Cluster}
	for _, name := range cat.PackageNames() {
		pq := q
		pq.Package = name
		if len(q.Channels) > 0 {
			pq.Channels = slices.DeleteFunc(slices.Clone(q.Channels), func(c string) bool { return cat.Package(name).Channel(c) == nil })
			if len(pq.Channels) == 0 {
				continue // none of the channels is in this package
			}
		}
		s, err := SurveyUpgrades(cat, pq)
		if err != nil {
			return nil, err
		}
		cs.Packages = append(cs.Packages, s)
	}
	if len(q.Channels) > 0 && len(cs.Packages) == 0 {
		return nil, optionErrorf("no package has a channel named %s", strings.Join(q.Channels, " or "))
	}
	return cs, nil
}

// Counts adds up the packages' dead ends and failed resolutions.
func (cs *CatalogSurvey) Counts() (deadEnds, failures int) {
	for _, s := range cs.Packages {
		d, f := s.Counts()
		deadEnds, failures = deadEnds+d, failures+f
	}
	return deadEnds, failures
}

// Blocked counts every package's rows blocked by cluster versions.
func (cs *CatalogSurvey) Blocked() int {
	n := 0
	for _, s := range cs.Packages {
		n += s.Blocked()
	}
	return n
}

// Unreachable counts every package's bundles no cluster version reaches.
func (cs *CatalogSurvey) Unreachable() int {
	n := 0
	for _, s := range cs.Packages {
		n += s.Unreachable()
	}
	return n
}

// clusterChecked reports whether any package was checked against cluster
// versions.
func (cs *CatalogSurvey) clusterChecked() bool {
	return slices.ContainsFunc(cs.Packages, func(s *Survey) bool { return s.ClusterChecked })
}

// Problems counts the bundles of every package that cannot reach their
// head.
func (cs *CatalogSurvey) Problems() int {
	n := 0
	for _, s := range cs.Packages {
		n += s.Problems()
	}
	return n
}

// WriteText writes every package's tables and the totals.
func (cs *CatalogSurvey) WriteText(w io.Writer) error {
	t := textout.New(w)
	for i, s := range cs.Packages {
		if i > 0 {
			t.Printf("\n")
		}
		s.writeTables(t)
	}
	dead, failed := cs.Counts()
	t.Printf("\n%s: %d dead %s, %d failed %s%s\n", count(len(cs.Packages), "package", "packages"),
		dead, plural(dead, "end", "ends"), failed, plural(failed, "resolution", "resolutions"), blockedSummary(cs.clusterChecked(), cs.Blocked(), cs.Unreachable()))
	return t.Err()
}

type catalogSurveyJSON struct {
	Semantics Semantics    `json:"semantics"`
	Cluster   *clusterJSON `json:"cluster,omitempty"`
	Packages  []surveyJSON `json:"packages"`
	surveyTotals
}

// WriteJSON writes one object: the packages' surveys (each as
// Survey.WriteJSON writes it) and the totals.
func (cs *CatalogSurvey) WriteJSON(w io.Writer) error {
	out := catalogSurveyJSON{Semantics: cs.Semantics, Cluster: cs.Cluster.toJSON(), Packages: []surveyJSON{}}
	for _, s := range cs.Packages {
		out.Packages = append(out.Packages, s.toJSON())
	}
	dead, failed := cs.Counts()
	out.surveyTotals = totals(dead, failed, cs.clusterChecked(), cs.Blocked())
	return writeJSON(w, out)
}
