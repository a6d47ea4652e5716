package graph

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
)

// Change is one difference between two catalogs' upgrade graphs.
type Change struct {
	// Kind is one of package-added, package-removed, default-channel,
	// channel-added, channel-removed, bundle-added, bundle-removed,
	// entry-added, entry-removed, edge-added, edge-removed, head-moved.
	Kind    string `json:"kind"`
	Package string `json:"package"`
	Channel string `json:"channel,omitempty"`
	Bundle  string `json:"bundle,omitempty"`
	// Detail describes the change ("replaces a.v1", "a.v1 -> a.v2").
	Detail string `json:"detail,omitempty"`
	// Semantics is set for head-moved: whose head moved.
	Semantics Semantics `json:"semantics,omitempty"`
}

// Severities of diff findings.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
)

// Finding is a safety problem of a catalog change.
type Finding struct {
	Severity string `json:"severity"`
	// Rule is one of package-removed, channel-removed, stranded,
	// resolution-fails, head-downgrade, removed-without-edge, dead-end.
	Rule      string      `json:"rule"`
	Semantics []Semantics `json:"semantics,omitempty"`
	Package   string      `json:"package"`
	Channel   string      `json:"channel,omitempty"`
	Bundle    string      `json:"bundle,omitempty"`
	Message   string      `json:"message"`
	// Pos points into the new catalog where the fix belongs, when known.
	Pos declcfg.Pos `json:"position,omitzero"`
}

// DiffReport is what changed between two catalogs and whether the change
// is safe for the clusters running the old one.
type DiffReport struct {
	Old, New  string
	Semantics []Semantics
	Changes   []Change
	Findings  []Finding
}

// Safe reports whether the change has no error findings.
func (d *DiffReport) Safe() bool {
	return !slices.ContainsFunc(d.Findings, func(f Finding) bool { return f.Severity == SeverityError })
}

// Diff compares two catalogs. Safety is judged per channel under each
// semantics: every bundle a subscriber of the old channel could run must
// still reach the channel's head (or be it) unless it could not before
// either, no head may move to a lower version, and no bundle may disappear
// without a new edge out of it.
func Diff(oldCat, newCat *Catalog, semantics []Semantics) (*DiffReport, error) {
	if len(semantics) == 0 {
		return nil, optionErrorf("no semantics to judge the change by")
	}
	d := &DiffReport{Semantics: semantics}
	names := append(oldCat.PackageNames(), newCat.PackageNames()...)
	slices.Sort(names)
	names = slices.Compact(names)
	for _, name := range names {
		op, np := oldCat.Package(name), newCat.Package(name)
		switch {
		case op == nil:
			d.change("package-added", name, "", "", count(len(np.Channels), "channel", "channels")+", "+count(len(np.Bundles), "bundle", "bundles"))
		case np == nil:
			d.change("package-removed", name, "", "", "")
			d.finding(Finding{Severity: SeverityError, Rule: "package-removed", Package: name,
				Message: fmt.Sprintf("package %s (%s) was removed: clusters running it lose every upgrade and its subscriptions stop resolving", name, count(len(op.Bundles), "bundle", "bundles"))})
		default:
			d.diffPackage(op, np)
		}
	}
	d.mergeFindings()
	return d, nil
}

func (d *DiffReport) change(kind, pkg, ch, bundle, detail string) {
	d.Changes = append(d.Changes, Change{Kind: kind, Package: pkg, Channel: ch, Bundle: bundle, Detail: detail})
}

func (d *DiffReport) finding(f Finding) { d.Findings = append(d.Findings, f) }

func (d *DiffReport) diffPackage(op, np *Package) {
	if op.DefaultChannel != np.DefaultChannel {
		d.change("default-channel", op.Name, "", "", fmt.Sprintf("%s -> %s", orNone(op.DefaultChannel), orNone(np.DefaultChannel)))
	}
	for _, b := range np.Bundles {
		if ob := op.Bundle(b.Name); ob == nil {
			d.change("bundle-added", np.Name, "", b.Name, b.Version)
		} else if ob.Version != b.Version {
			d.change("bundle-added", np.Name, "", b.Name, fmt.Sprintf("version %s -> %s", ob.Version, b.Version))
		}
	}
	// A removed bundle is safe only if some entry of the new package still
	// leads out of it.
	newEdges := newEdgeIndex(allEntries(np))
	removed := map[string]bool{}
	for _, b := range op.Bundles {
		if np.Bundle(b.Name) != nil {
			continue
		}
		d.change("bundle-removed", op.Name, "", b.Name, b.Version)
		v, err := parseClassicVersion(b.Version)
		if len(newEdges.cover(b.Name, v, err == nil)) == 0 {
			removed[b.Name] = true
			d.finding(Finding{Severity: SeverityError, Rule: "removed-without-edge", Package: op.Name, Bundle: b.Name, Pos: np.Pos,
				Message: fmt.Sprintf("bundle %s (%s) was removed and no entry replaces it, skips it or has a skipRange containing %s: clusters running it can never upgrade", b.Name, b.Version, b.Version)})
		}
	}
	chans := append(op.ChannelNames(), np.ChannelNames()...)
	slices.Sort(chans)
	chans = slices.Compact(chans)
	for _, c := range chans {
		oc, nc := op.Channel(c), np.Channel(c)
		switch {
		case oc == nil:
			d.change("channel-added", np.Name, c, "", count(len(nc.Entries), "entry", "entries"))
		case nc == nil:
			d.change("channel-removed", op.Name, c, "", "")
			d.finding(Finding{Severity: SeverityError, Rule: "channel-removed", Package: op.Name, Channel: c, Pos: np.Pos,
				Message: fmt.Sprintf("channel %s (%s) was removed: subscriptions to it stop resolving", c, count(len(oc.Entries), "entry", "entries"))})
		default:
			d.diffEntries(op.Name, oc, nc)
			for _, s := range d.Semantics {
				d.judgeChannel(s, op, np, c, removed)
			}
		}
	}
}

// count renders n with the noun in the right number.
func count(n int, one, many string) string { return fmt.Sprintf("%d %s", n, plural(n, one, many)) }

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func allEntries(p *Package) []*Entry {
	var out []*Entry
	for _, ch := range p.Channels {
		out = append(out, ch.Entries...)
	}
	return out
}

// entryEdges lists an entry's declared edges as stable strings.
func entryEdges(e *Entry) []string {
	var out []string
	if e.Replaces != "" {
		out = append(out, "replaces "+e.Replaces)
	}
	for _, s := range e.Skips {
		out = append(out, "skips "+s)
	}
	if e.SkipRange != "" {
		out = append(out, fmt.Sprintf("skipRange %q", e.SkipRange))
	}
	return slices.Compact(out)
}

func (d *DiffReport) diffEntries(pkg string, oc, nc *Channel) {
	oldEdges, newEdges := edgesByEntry(oc), edgesByEntry(nc)
	inNew := make(map[string]bool, len(newEdges))
	for name := range newEdges {
		inNew[name] = true
	}
	for _, e := range nc.Entries {
		oe, ok := oldEdges[e.Name]
		ne := newEdges[e.Name]
		if ne == nil {
			continue // a second entry of the same name, already compared
		}
		delete(newEdges, e.Name)
		if !ok {
			d.change("entry-added", pkg, nc.Name, e.Name, strings.Join(ne, ", "))
			continue
		}
		for _, x := range ne {
			if !slices.Contains(oe, x) {
				d.change("edge-added", pkg, nc.Name, e.Name, x)
			}
		}
		for _, x := range oe {
			if !slices.Contains(ne, x) {
				d.change("edge-removed", pkg, nc.Name, e.Name, x)
			}
		}
	}
	for _, e := range oc.Entries {
		if inNew[e.Name] {
			continue
		}
		if oe, ok := oldEdges[e.Name]; ok {
			delete(oldEdges, e.Name)
			d.change("entry-removed", pkg, oc.Name, e.Name, strings.Join(oe, ", "))
		}
	}
}

// edgesByEntry maps each entry name of the channel to its declared edges.
// A channel that lists a name twice (opm rejects it, OLM v1 reads both)
// gets the union of the entries' edges, in order.
func edgesByEntry(ch *Channel) map[string][]string {
	out := make(map[string][]string, len(ch.Entries))
	for _, e := range ch.Entries {
		edges := out[e.Name]
		if edges == nil {
			edges = []string{}
		}
		for _, x := range entryEdges(e) {
			if !slices.Contains(edges, x) {
				edges = append(edges, x)
			}
		}
		out[e.Name] = edges
	}
	return out
}

// judgeChannel checks one channel under one semantics: a subscriber of
// the old channel must still reach the new head.
func (d *DiffReport) judgeChannel(s Semantics, op, np *Package, channel string, removed map[string]bool) {
	opts := Options{Semantics: s, Channels: []string{channel}}
	oldR, err := NewResolver(op, opts)
	if err != nil {
		return // cannot happen: the options are built here
	}
	newR, _ := NewResolver(np, opts)
	oldSel, newSel := survey(oldR, opts.Channels), survey(newR, opts.Channels)
	pos := np.Channel(channel).Pos
	base := Finding{Semantics: []Semantics{s}, Package: op.Name, Channel: channel, Pos: pos}

	switch {
	case newSel.Err != nil && oldSel.Err == nil:
		f := base
		f.Severity, f.Rule = SeverityError, "resolution-fails"
		f.Message = fmt.Sprintf("channel %s no longer resolves: %v", channel, newSel.Err)
		d.finding(f)
		return
	case newSel.Err != nil:
		f := base
		f.Severity, f.Rule = SeverityWarning, "resolution-fails"
		f.Message = fmt.Sprintf("channel %s did not resolve before either: %v", channel, newSel.Err)
		d.finding(f)
		return
	}
	if oldSel.Head != nil && newSel.Head != nil && oldSel.Head.Name != newSel.Head.Name {
		d.Changes = append(d.Changes, Change{Kind: "head-moved", Package: op.Name, Channel: channel, Semantics: s,
			Detail: fmt.Sprintf("%s (%s) -> %s (%s)", oldSel.Head.Name, oldSel.Head.Version, newSel.Head.Name, newSel.Head.Version)})
		if oldSel.Head.HasVersion() && newSel.Head.HasVersion() && newSel.Head.version.strict.LT(oldSel.Head.version.strict) {
			f := base
			f.Severity, f.Rule = SeverityError, "head-downgrade"
			f.Message = fmt.Sprintf("the head of channel %s moved down from %s (%s) to %s (%s): new installs get an older version",
				channel, oldSel.Head.Name, oldSel.Head.Version, newSel.Head.Name, newSel.Head.Version)
			d.finding(f)
		}
	}
	for _, row := range oldSel.Rows {
		if removed[row.From.Name] {
			continue // reported once as removed-without-edge
		}
		reachedBefore := row.Hops >= 0
		outcome, ok := reachesHead(newR, newSel, row.From)
		if ok {
			continue
		}
		f := base
		f.Bundle = row.From.Name
		if e := entryPos(np.Channel(channel), row.From.Name); e.IsValid() {
			f.Pos = e
		}
		if reachedBefore {
			f.Severity, f.Rule = SeverityError, "stranded"
			f.Message = fmt.Sprintf("%s (%s) reached the head of %s before; now %s", row.From.Name, row.From.Version, channel, outcome)
		} else {
			f.Severity, f.Rule = SeverityWarning, "dead-end"
			f.Message = fmt.Sprintf("%s (%s) could not reach the head of %s before either; now %s", row.From.Name, row.From.Version, channel, outcome)
		}
		d.finding(f)
	}
}

func entryPos(ch *Channel, name string) declcfg.Pos {
	for _, e := range ch.Entries {
		if e.Name == name {
			return e.Pos
		}
	}
	return declcfg.Pos{}
}

// reachesHead simulates an old bundle (by name and old version) in the new
// channel; when it does not reach the new head it says what happens.
func reachesHead(r *Resolver, sel *Selection, b *Bundle) (string, bool) {
	if sel.Head != nil && b.Name == sel.Head.Name {
		return "", true
	}
	st, err := r.Step(&Installed{Name: b.Name, Version: b.Version})
	switch {
	case err != nil:
		return "resolution fails: " + err.Error(), false
	case st.Next == nil:
		return fmt.Sprintf("it has no upgrade and is not the head (%s)", sel.Head.Name), false
	}
	row := sel.row(st.Next.Name)
	switch {
	case row == nil:
		return fmt.Sprintf("it upgrades to %s, outside the channel", st.Next.Name), false
	case row.Err != nil:
		return fmt.Sprintf("it upgrades to %s, where resolution fails: %v", st.Next.Name, row.Err), false
	case row.Hops < 0:
		return fmt.Sprintf("its upgrades stop at %s, short of the head %s", row.End.Name, sel.Head.Name), false
	}
	return "", true
}

// mergeFindings folds the same finding under several semantics into one
// and orders findings errors first, then by package, channel, bundle.
func (d *DiffReport) mergeFindings() {
	type key struct{ sev, rule, pkg, ch, bundle, msg string }
	byKey := map[key]int{}
	var out []Finding
	for _, f := range d.Findings {
		k := key{f.Severity, f.Rule, f.Package, f.Channel, f.Bundle, f.Message}
		if i, ok := byKey[k]; ok {
			out[i].Semantics = append(out[i].Semantics, f.Semantics...)
			continue
		}
		byKey[k] = len(out)
		out = append(out, f)
	}
	slices.SortStableFunc(out, func(a, b Finding) int {
		if a.Severity != b.Severity {
			if a.Severity == SeverityError {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(a.Package, b.Package), cmp.Compare(a.Channel, b.Channel), cmp.Compare(a.Bundle, b.Bundle))
	})
	d.Findings = out
}
