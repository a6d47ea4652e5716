package graph

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	blang "github.com/blang/semver/v4"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/model"
)

// Change is one difference between two catalogs' upgrade graphs.
type Change struct {
	// Kind is one of package-added, package-removed, default-channel,
	// channel-added, channel-removed, bundle-added, bundle-removed,
	// bundle-version, entry-added, entry-removed, edge-added, edge-removed,
	// head-moved, deprecation-added, deprecation-removed (of the package,
	// a channel or a bundle).
	Kind    string `json:"kind"`
	Package string `json:"package"`
	Channel string `json:"channel,omitempty"`
	Bundle  string `json:"bundle,omitempty"`
	// Detail describes the change ("replaces a.v1", "a.v1 -> a.v2").
	Detail string `json:"detail,omitempty"`
	// Semantics is set for head-moved: whose head moved.
	Semantics Semantics `json:"semantics,omitempty"`
}

// A finding of a diff is a declcfg.Finding: a safety problem of a catalog
// change, its rule one of package-removed, channel-removed, stranded,
// resolution-fails, head-downgrade, head-deprecated, deprecated-end,
// removed-without-edge, dead-end, entry-pruned; its Semantics the ones it
// holds under, when it depends on them; its Pos where in the new catalog
// the fix belongs, when known.

// DiffReport is what changed between two catalogs and whether the change
// is safe for the clusters running the old one.
type DiffReport struct {
	Old, New  string
	Semantics []Semantics
	Changes   []Change
	// Findings are what the change did: problems it caused or changed.
	Findings []declcfg.Finding
	// Preexisting are the problems OLD had already, unchanged by the
	// change (a bundle that could not reach its head and stops where it
	// stopped before, a channel that did not resolve and fails the same
	// way). They are warnings; the reports count them and list them only
	// with All.
	Preexisting []declcfg.Finding
	// All lists the pre-existing problems in the reports; ListHint is
	// what the count of them adds when they are not listed (how the
	// caller lists them, e.g. "`--all` lists them"), "" for nothing.
	All      bool
	ListHint string
	// Fragment is set when NEW was compared as a fragment; OutOfScope then
	// lists OLD's packages that NEW does not hold.
	Fragment   bool
	OutOfScope []string
	// Prune is the pattern of channel names that may drop released
	// entries, when the pruning rule applied.
	Prune string
}

// Safe reports whether the change has no error findings.
func (d *DiffReport) Safe() bool {
	return !slices.ContainsFunc(d.Findings, func(f declcfg.Finding) bool { return f.Severity == declcfg.SeverityError })
}

// diffCatalogPackage compares one package of either catalog.
func (d *DiffReport) diffCatalogPackage(name string, op, np *Package) {
	switch {
	case op == nil:
		d.change("package-added", name, "", "", count(len(np.Channels), "channel", "channels")+", "+count(len(np.Bundles), "bundle", "bundles"))
	case np == nil:
		d.change("package-removed", name, "", "", "")
		d.finding(declcfg.Finding{Severity: declcfg.SeverityError, Rule: "package-removed", Package: name,
			Message: fmt.Sprintf("package %s (%s) was removed: clusters running it lose every upgrade and its subscriptions stop resolving", name, count(len(op.Bundles), "bundle", "bundles"))})
	default:
		d.diffPackage(op, np)
	}
}

func (d *DiffReport) change(kind, pkg, ch, bundle, detail string) {
	d.Changes = append(d.Changes, Change{Kind: kind, Package: pkg, Channel: ch, Bundle: bundle, Detail: detail})
}

func (d *DiffReport) finding(f declcfg.Finding) { d.Findings = append(d.Findings, f) }

// preexisting records a problem OLD had already, the same way.
func (d *DiffReport) preexisting(f declcfg.Finding) { d.Preexisting = append(d.Preexisting, f) }

func (d *DiffReport) diffPackage(op, np *Package) {
	if op.DefaultChannel != np.DefaultChannel {
		d.change("default-channel", op.Name, "", "", fmt.Sprintf("%s -> %s", orNone(op.DefaultChannel), orNone(np.DefaultChannel)))
	}
	d.deprecation(op.Name, "", "", deprecated(op.Deprecation), deprecated(np.Deprecation))
	for _, b := range np.Bundles {
		if ob := op.Bundle(b.Name); ob == nil {
			d.change("bundle-added", np.Name, "", b.Name, b.Version)
		} else {
			if ob.Version != b.Version {
				d.change("bundle-version", np.Name, "", b.Name, fmt.Sprintf("%s -> %s", ob.Version, b.Version))
			}
			d.deprecation(np.Name, "", b.Name, deprecated(ob.Deprecation), deprecated(b.Deprecation))
		}
	}
	// A removed bundle is safe only if some entry of the new package still
	// leads out of it.
	newEdges := model.NewEdgeIndex(allEntries(np))
	removed := map[string]bool{}
	for _, b := range op.Bundles {
		if np.Bundle(b.Name) != nil {
			continue
		}
		d.change("bundle-removed", op.Name, "", b.Name, b.Version)
		v, err := parseClassicVersion(b.Version)
		var vp *blang.Version
		if err == nil {
			vp = &v
		}
		if len(newEdges.Cover(b.Name, vp)) == 0 {
			removed[b.Name] = true
			d.finding(declcfg.Finding{Severity: declcfg.SeverityError, Rule: "removed-without-edge", Package: op.Name, Bundle: b.Name, Pos: np.Pos,
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
			d.finding(declcfg.Finding{Severity: declcfg.SeverityError, Rule: "channel-removed", Package: op.Name, Channel: c, Pos: np.Pos,
				Message: fmt.Sprintf("channel %s (%s) was removed: subscriptions to it stop resolving", c, count(len(oc.Entries), "entry", "entries"))})
		default:
			d.deprecation(op.Name, c, "", deprecated(oc.Deprecation), deprecated(nc.Deprecation))
			d.diffEntries(op.Name, oc, nc)
			for _, s := range d.Semantics {
				d.judgeChannel(s, op, np, c, removed)
			}
		}
	}
	if slices.Contains(d.Semantics, Classic) {
		d.judgeNoChannel(op, np)
	}
}

// judgeNoChannel checks classic subscriptions that name no channel: they
// order every channel (the default one first), so a broken channel
// anywhere stops them resolving, and a new default channel with a lower
// head gives their new installs an older version. Per-channel checks
// cover the rest.
func (d *DiffReport) judgeNoChannel(op, np *Package) {
	opts := Options{Semantics: Classic}
	oldR, err := NewResolver(op, opts)
	if err != nil {
		return // cannot happen: the options are built here
	}
	newR, _ := NewResolver(np, opts)
	oldSt, oldErr := oldR.Step(nil)
	newSt, newErr := newR.Step(nil)
	base := declcfg.Finding{Semantics: string(Classic), Package: op.Name, Pos: np.Pos}
	switch {
	case oldErr == nil && newErr != nil:
		if slices.ContainsFunc(d.Findings, func(f declcfg.Finding) bool {
			return f.Rule == "resolution-fails" && f.Package == op.Name && strings.Contains(f.Message, newErr.Error())
		}) {
			return // the broken channel is reported already
		}
		f := base
		f.Severity, f.Rule = declcfg.SeverityError, "resolution-fails"
		f.Message = fmt.Sprintf("subscriptions to package %s without a channel no longer resolve: %v", op.Name, newErr)
		d.finding(f)
		return
	case oldErr != nil || newErr != nil || op.DefaultChannel == np.DefaultChannel:
		return
	}
	oh, nh := oldSt.Next, newSt.Next
	if oh.Name == nh.Name && oh.Version == nh.Version {
		return
	}
	d.Changes = append(d.Changes, Change{Kind: "head-moved", Package: op.Name, Semantics: Classic,
		Detail: fmt.Sprintf("%s (%s) -> %s (%s) for subscriptions without a channel", oh.Name, oh.Version, nh.Name, nh.Version)})
	if oh.HasVersion() && nh.HasVersion() && nh.SemVer.LT(oh.SemVer) {
		f := base
		f.Severity, f.Rule = declcfg.SeverityError, "head-downgrade"
		f.Message = fmt.Sprintf("the default channel changed from %s to %s: subscriptions without a channel now install %s (%s) instead of %s (%s), an older version",
			orNone(op.DefaultChannel), orNone(np.DefaultChannel), nh.Name, nh.Version, oh.Name, oh.Version)
		d.finding(f)
	}
}

// deprecation records an olm.deprecations entry that appeared or went
// away; v1 sorts deprecated bundles last, so it can move heads.
func (d *DiffReport) deprecation(pkg, ch, bundle, old, new string) {
	switch {
	case old == "" && new != "":
		d.change("deprecation-added", pkg, ch, bundle, new)
	case old != "" && new == "":
		d.change("deprecation-removed", pkg, ch, bundle, "")
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
		out = append(out, ch.AllEntries()...)
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
	for _, e := range ch.AllEntries() {
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
	base := declcfg.Finding{Semantics: string(s), Package: op.Name, Channel: channel, Pos: pos}
	deprecatedHead := "" // a head deprecated by the change, reported once

	switch {
	case newSel.Err != nil && oldSel.Err == nil:
		f := base
		f.Severity, f.Rule = declcfg.SeverityError, "resolution-fails"
		f.Message = fmt.Sprintf("channel %s no longer resolves: %v", channel, newSel.Err)
		if cause := np.ChannelCause(channel); s == Classic && cause != nil {
			// What classic trips on (several heads, a loop) is the
			// model's problem with the channel, found at its entry.
			f.Message += "; the cause: " + cause.Message
			if cause.Pos.IsValid() {
				f.Pos = cause.Pos
			}
		}
		d.finding(f)
		return
	case newSel.Err != nil:
		f := base
		f.Severity, f.Rule = declcfg.SeverityWarning, "resolution-fails"
		if oldSel.Err.Error() == newSel.Err.Error() {
			f.Message = fmt.Sprintf("channel %s does not resolve: %v", channel, newSel.Err)
			d.preexisting(f)
			return
		}
		f.Message = fmt.Sprintf("channel %s did not resolve before either (%v); now: %v", channel, oldSel.Err, newSel.Err)
		d.finding(f)
		return
	}
	// A head whose bundle kept its name but changed its version moved too:
	// new installs get the new version.
	if oldSel.Head != nil && newSel.Head != nil && (oldSel.Head.Name != newSel.Head.Name || oldSel.Head.Version != newSel.Head.Version) {
		d.Changes = append(d.Changes, Change{Kind: "head-moved", Package: op.Name, Channel: channel, Semantics: s,
			Detail: fmt.Sprintf("%s (%s) -> %s (%s)", oldSel.Head.Name, oldSel.Head.Version, newSel.Head.Name, newSel.Head.Version)})
		if oldSel.Head.HasVersion() && newSel.Head.HasVersion() && newSel.Head.SemVer.LT(oldSel.Head.SemVer) {
			f := base
			f.Severity, f.Rule = declcfg.SeverityError, "head-downgrade"
			f.Message = fmt.Sprintf("the head of channel %s moved down from %s (%s) to %s (%s): new installs get an older version",
				channel, oldSel.Head.Name, oldSel.Head.Version, newSel.Head.Name, newSel.Head.Version)
			if nb := np.Bundle(oldSel.Head.Name); s == V1 && nb != nil && nb.Deprecation != nil && oldSel.Head.Deprecation == nil {
				// v1 installs the highest bundle that is not deprecated:
				// deprecating the head moves it down on purpose.
				f.Severity, f.Rule = declcfg.SeverityWarning, "head-deprecated"
				f.Message = fmt.Sprintf("%s (%s), the head of channel %s, is now deprecated: new installs get %s (%s), and clusters running %s stay on it until a newer bundle upgrades them",
					oldSel.Head.Name, oldSel.Head.Version, channel, newSel.Head.Name, newSel.Head.Version, oldSel.Head.Name)
				deprecatedHead = oldSel.Head.Name
			}
			d.finding(f)
		}
	}
	for _, row := range oldSel.Rows {
		if removed[row.From.Name] {
			continue // reported once as removed-without-edge
		}
		reachedBefore := row.Hops >= 0
		now := reachesHead(newR, newSel, row.From)
		if now.ok || (row.From.Name == deprecatedHead && now.end != nil && now.end.Name == deprecatedHead) {
			continue
		}
		f := base
		f.Bundle = row.From.Name
		if e := entryPos(np.Channel(channel), row.From.Name); e.IsValid() {
			f.Pos = e
		}
		switch {
		case s == V1 && reachedBefore && deprecatedAbove(now.end, newSel.Head):
			f.Severity, f.Rule = declcfg.SeverityWarning, "deprecated-end"
			f.Message = fmt.Sprintf("%s (%s) reached the head of %s before; now its upgrades stop at %s (%s), which is deprecated and newer than the head %s (%s): clusters wait there for a newer bundle",
				row.From.Name, row.From.Version, channel, now.end.Name, now.end.Version, newSel.Head.Name, newSel.Head.Version)
		case reachedBefore:
			f.Severity, f.Rule = declcfg.SeverityError, "stranded"
			f.Message = fmt.Sprintf("%s (%s) reached the head of %s before; now %s", row.From.Name, row.From.Version, channel, now.says)
		default:
			f.Severity, f.Rule = declcfg.SeverityWarning, "dead-end"
			was := reachesHead(oldR, oldSel, row.From)
			if was.stop == now.stop {
				// The change left this bundle where it was: not its doing.
				f.Message = fmt.Sprintf("%s (%s) cannot reach the head of %s: %s", row.From.Name, row.From.Version, channel, now.says)
				d.preexisting(f)
				continue
			}
			f.Message = fmt.Sprintf("%s (%s) could not reach the head of %s before either (%s); now %s", row.From.Name, row.From.Version, channel, was.says, now.says)
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

// reach is what becomes of an installed bundle in a channel.
type reach struct {
	ok bool
	// end is where its upgrades stop, when they stop at a bundle rather
	// than failing.
	end *Bundle
	// says what happens, in words; stop says where it goes wrong, without
	// the head: two simulations with the same stop are the same problem
	// (the bundle stays, stops at the same bundle, or fails the same way),
	// whatever the head is.
	says, stop string
}

// reachesHead simulates an installed bundle (by name and version) in a
// channel and says whether it reaches the head and, when not, what
// happens.
func reachesHead(r *Resolver, sel *Selection, b *Bundle) reach {
	if sel.Head != nil && b.Name == sel.Head.Name {
		return reach{ok: true, end: sel.Head}
	}
	st, err := r.Step(&Installed{Name: b.Name, Version: b.Version})
	switch {
	case err != nil:
		return reach{says: "resolution fails: " + err.Error(), stop: "fails: " + err.Error()}
	case st.Next == nil:
		return reach{says: fmt.Sprintf("it has no upgrade and is not the head (%s)", sel.Head.Name), end: r.pkg.Bundle(b.Name), stop: "stays"}
	}
	row := sel.row(st.Next.Name)
	switch {
	case row == nil:
		return reach{says: fmt.Sprintf("it upgrades to %s, outside the channel", st.Next.Name), stop: "outside: " + st.Next.Name}
	case row.Err != nil:
		return reach{says: fmt.Sprintf("it upgrades to %s, where resolution fails: %v", st.Next.Name, row.Err),
			stop: fmt.Sprintf("fails after %s: %v", st.Next.Name, row.Err)}
	case row.Hops < 0:
		return reach{says: fmt.Sprintf("its upgrades stop at %s, short of the head %s", row.End.Name, sel.Head.Name), end: row.End,
			stop: "stops at " + row.End.Name}
	}
	return reach{ok: true, end: sel.Head}
}

// deprecatedAbove reports whether a path that stops at end stops on a
// deprecated bundle newer than the head: under v1 that is where clusters
// on a deprecated release wait for its fix, not a stranding.
func deprecatedAbove(end, head *Bundle) bool {
	return end != nil && head != nil && end.Deprecation != nil && end.HasVersion() && head.HasVersion() &&
		vrOf(end).compare(vrOf(head)) > 0
}

// mergeFindings folds the same finding under several semantics into one
// and orders findings errors first, then by package, channel, bundle; the
// pre-existing ones alike.
func (d *DiffReport) mergeFindings() {
	d.Findings = mergeFindings(d.Findings)
	d.Preexisting = mergeFindings(d.Preexisting)
}

func mergeFindings(fs []declcfg.Finding) []declcfg.Finding {
	type key struct {
		sev                        declcfg.Severity
		rule, pkg, ch, bundle, msg string
	}
	byKey := map[key]int{}
	var out []declcfg.Finding
	for _, f := range fs {
		k := key{f.Severity, f.Rule, f.Package, f.Channel, f.Bundle, f.Message}
		if i, ok := byKey[k]; ok {
			out[i].Semantics += "," + f.Semantics
			continue
		}
		byKey[k] = len(out)
		out = append(out, f)
	}
	slices.SortStableFunc(out, func(a, b declcfg.Finding) int {
		if a.Severity != b.Severity {
			if a.Severity == declcfg.SeverityError {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(a.Package, b.Package), cmp.Compare(a.Channel, b.Channel), cmp.Compare(a.Bundle, b.Bundle))
	})
	return out
}
