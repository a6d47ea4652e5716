package model

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
)

// Rule ids of the problems the model finds.
const (
	RuleUnknownPackage   = "unknown-package"
	RuleDuplicatePackage = "duplicate-package"
	RuleEmptyPackage     = "empty-package"
	RuleDefaultChannel   = "default-channel"

	RuleDuplicateChannel = "duplicate-channel"
	RuleDuplicateEntry   = "duplicate-entry"
	RuleEmptyChannel     = "empty-channel"
	RuleChannelHead      = "channel-head"
	RuleReplacesCycle    = "replaces-cycle"
	RuleStrandedBundle   = "stranded-bundle"
	RuleMissingBundle    = "missing-bundle"
	RuleSkipRange        = "skip-range"
	RuleEdgeTarget       = "edge-target"
	RuleDowngradeEdge    = "downgrade-edge"

	RuleDuplicateBundle  = "duplicate-bundle"
	RuleOrphanBundle     = "orphan-bundle"
	RuleDuplicateVersion = "duplicate-version"

	RuleDuplicateDeprecation = "duplicate-deprecation"
	RuleDeprecationReference = "deprecation-reference"
	RuleDeprecatedDefault    = "deprecated-default"
)

// Problems returns what breaks OLM's rules, package by package (sorted by
// name), each package's in a fixed order. It is computed on first use.
func (c *Catalog) Problems() []declcfg.Finding {
	c.problemsOnce.Do(func() {
		for _, p := range c.Packages {
			c.problems = append(c.problems, p.Problems()...)
		}
	})
	return c.problems
}

// Problems returns what breaks OLM's rules in the package, in a fixed
// order (Catalog.Problems lists every package's). It is computed on first
// use.
func (p *Package) Problems() []declcfg.Finding {
	p.problemsOnce.Do(func() {
		r := &reporter{pkg: p}
		r.check()
		p.problems = r.out
	})
	return p.problems
}

// ChannelCause returns the problem that keeps a channel from having one
// head and a replaces chain that ends (channel-head, replaces-cycle),
// reported at the entry to fix; nil when it has none.
func (p *Package) ChannelCause(channel string) *declcfg.Finding {
	for i, pr := range p.Problems() {
		if pr.Channel == channel && (pr.Rule == RuleChannelHead || pr.Rule == RuleReplacesCycle) {
			return &p.Problems()[i]
		}
	}
	return nil
}

type reporter struct {
	pkg *Package
	out []declcfg.Finding
	// explained are the edges a channel-head or replaces-cycle problem
	// names as its cause (a typo, the edge that closes a loop), which
	// edge-target and downgrade-edge do not report again.
	explained []edgeRef
}

// edgeRef is an entry's edge to a name: channel, entry, target.
type edgeRef struct{ channel, entry, target string }

func (r *reporter) add(rule string, pos declcfg.Pos, channel, bundle, msg string) {
	if r.pkg.lostMayCause(rule) {
		return
	}
	sev := declcfg.SeverityError
	if rule == RuleEdgeTarget || rule == RuleDeprecatedDefault || rule == RuleDowngradeEdge {
		sev = declcfg.SeverityWarning
	}
	r.out = append(r.out, declcfg.Finding{Rule: rule, Severity: sev, Pos: pos, Package: r.pkg.Name, Channel: channel, Bundle: bundle, Message: msg})
}

// lostCauses are, for each rule, the schemas of the documents whose loss
// (a syntax error made the loader skip them) can cause a problem of the
// rule: what the rule finds missing may be in the lost document.
var lostCauses = map[string][]string{
	RuleUnknownPackage:       {declcfg.SchemaPackage},
	RuleEmptyPackage:         {declcfg.SchemaChannel},
	RuleDefaultChannel:       {declcfg.SchemaChannel},
	RuleOrphanBundle:         {declcfg.SchemaChannel},
	RuleMissingBundle:        {declcfg.SchemaBundle},
	RuleEdgeTarget:           {declcfg.SchemaChannel, declcfg.SchemaBundle},
	RuleDeprecationReference: {declcfg.SchemaChannel, declcfg.SchemaBundle},
}

// lostMayCause reports whether a document the package lost may be what a
// problem of rule finds missing. A defaultChannel that is not set is a
// problem whatever was lost.
func (p *Package) lostMayCause(rule string) bool {
	if len(p.lost) == 0 || rule == RuleDefaultChannel && p.DefaultChannel == "" {
		return false
	}
	for _, schema := range p.lost {
		if schema == "" || slices.Contains(lostCauses[rule], schema) {
			return true
		}
	}
	return false
}

// or returns the first valid position: the most precise one known.
func or(ps ...declcfg.Pos) declcfg.Pos {
	for _, p := range ps {
		if p.IsValid() {
			return p
		}
	}
	return declcfg.Pos{}
}

func (r *reporter) check() {
	p := r.pkg
	if p.Blob == nil && p.used {
		r.add(RuleUnknownPackage, p.firstUse, "", "", fmt.Sprintf(
			"package %q has no olm.package blob, but %s to it; add one (schema: olm.package, name: %s, defaultChannel: ...) or fix the package name",
			p.Name, usage(p), p.Name))
	}
	for _, dup := range p.extraDecls {
		r.add(RuleDuplicatePackage, dup.Pos, "", "", fmt.Sprintf(
			"package %q is declared twice: here and at %s; keep one olm.package blob (when composing catalogs, two sources define this package)",
			p.Name, p.Pos))
	}
	for _, dup := range p.extraChannels {
		r.add(RuleDuplicateChannel, dup.Pos, dup.Name, "", fmt.Sprintf(
			"channel %q of package %q is declared twice: here and at %s; merge their entries into one olm.channel blob", dup.Name, p.Name, p.channels[dup.Name].Pos))
	}
	for _, dup := range p.extraBundles {
		r.add(RuleDuplicateBundle, dup.Pos, "", dup.Name, fmt.Sprintf(
			"bundle %q of package %q is declared twice: here and at %s; keep one", dup.Name, p.Name, p.bundles[dup.Name].Pos))
	}
	if p.Blob != nil {
		r.defaultChannel()
	}
	for _, ch := range p.Channels {
		r.skipRanges(ch.Blob, ch)
		r.channel(ch)
	}
	for _, ch := range p.extraChannels {
		r.skipRanges(ch, nil)
	}
	r.orphans()
	r.versions()
	r.edgeTargets()
	r.downgradeEdges()
	r.deprecations()
}

// usage says what refers to a package that has no olm.package blob, with
// the verb agreeing ("1 bundle refers", "2 bundles refer").
func usage(p *Package) string {
	var parts []string
	items := 0
	count := func(n int, what string) {
		items += n
		switch n {
		case 0:
		case 1:
			parts = append(parts, "1 "+what)
		default:
			parts = append(parts, fmt.Sprintf("%d %ss", n, what))
		}
	}
	count(len(p.Channels)+len(p.extraChannels), "channel")
	count(len(p.Bundles)+len(p.extraBundles), "bundle")
	count(len(p.deprecations), "deprecations blob")
	verb := "refer"
	if items == 1 {
		verb = "refers"
	}
	if len(parts) > 2 {
		parts = []string{strings.Join(parts[:len(parts)-1], ", "), parts[len(parts)-1]}
	}
	return strings.Join(parts, " and ") + " " + verb
}

// defaultChannel checks that the package has channels and that its
// defaultChannel names one of them. An unset defaultChannel is reported at
// its value when the blob has one (null, "", or a value of the wrong type),
// else at the blob.
func (r *reporter) defaultChannel() {
	p := r.pkg
	names := p.ChannelNames()
	switch {
	case len(p.Channels) == 0:
		r.add(RuleEmptyPackage, p.Pos, "", "", fmt.Sprintf("package %q has no channels; add an olm.channel blob with its bundles", p.Name))
	case p.DefaultChannel == "":
		r.add(RuleDefaultChannel, or(p.Blob.DefaultChannelPos, p.Pos), "", "", fmt.Sprintf("package %q has no defaultChannel; set it to one of its channels: %s", p.Name, strings.Join(names, ", ")))
	case p.channels[p.DefaultChannel] == nil:
		msg := fmt.Sprintf("defaultChannel %q is not a channel of package %q", p.DefaultChannel, p.Name)
		if sug := declcfg.Suggest(p.DefaultChannel, names); sug != "" {
			msg += fmt.Sprintf("; did you mean %q?", sug)
		} else {
			msg += fmt.Sprintf("; its channels are: %s", strings.Join(names, ", "))
		}
		r.add(RuleDefaultChannel, or(p.Blob.DefaultChannelPos, p.Pos), "", "", msg)
	}
}

// skipRanges reports the skipRanges of a channel blob that do not parse,
// on every entry (also of a duplicate blob: each is written somewhere).
// The model's entries were parsed once already; the others (a duplicate
// channel's, or one without a name) are parsed here.
func (r *reporter) skipRanges(ch *declcfg.Channel, model *Channel) {
	var named []*Entry
	if model != nil {
		named = model.AllEntries()
	}
	for i := range ch.Entries {
		e := &ch.Entries[i]
		var err error
		switch {
		case e.Name != "" && len(named) > 0:
			err, named = named[0].RangeErr, named[1:]
		case e.SkipRange != "":
			_, err = declcfg.ParseRange(e.SkipRange)
		}
		if err == nil {
			continue
		}
		fix := "OLM ignores a skipRange it cannot parse"
		if errors.Is(err, declcfg.ErrEmptyAlternative) {
			fix = "remove the empty alternative"
		}
		r.add(RuleSkipRange, or(e.SkipRangePos, e.Pos, ch.Pos), ch.Name, "", fmt.Sprintf("entry %q: invalid skipRange %q: %v; %s", e.Name, e.SkipRange, err, fix))
	}
}

// channel applies opm's channel rules: entries unique and backed by a
// bundle, exactly one head, no cycle on the replaces chain from the head,
// and no stranded entries.
func (r *reporter) channel(ch *Channel) {
	p := r.pkg
	if len(ch.Entries) == 0 {
		if len(ch.Blob.Entries) > 0 {
			return // its entries have no names (reported where they are)
		}
		r.add(RuleEmptyChannel, ch.Pos, ch.Name, "", fmt.Sprintf("channel %q has no entries; add the bundles it offers or remove it", ch.Name))
		return
	}
	seen := make(map[string]bool, len(ch.Entries))
	for _, e := range ch.Blob.Entries {
		if e.Name == "" {
			continue
		}
		if seen[e.Name] {
			first := ch.byName[e.Name]
			r.add(RuleDuplicateEntry, or(e.Pos, ch.Pos), ch.Name, "", fmt.Sprintf("channel %q lists bundle %q twice (first at %s); keep one entry", ch.Name, e.Name, first.Pos))
			continue
		}
		seen[e.Name] = true
	}
	for _, e := range ch.Entries {
		if e.Bundle == nil {
			r.add(RuleMissingBundle, or(e.Pos, ch.Pos), ch.Name, e.Name, fmt.Sprintf(
				"channel %q lists bundle %q, but package %q has no olm.bundle blob of that name; add the bundle or remove the entry", ch.Name, e.Name, p.Name))
		}
	}
	if r.selfReplaces(ch) {
		return
	}
	s := ch.Shape()
	switch heads := s.Heads(); {
	case len(heads) == 0:
		r.loop(ch, s.Loop(), "")
		return
	case len(heads) > 1:
		r.heads(ch, heads)
		return
	}
	head, _ := s.Head()
	if cycle := s.Cycle(); cycle != nil {
		r.loop(ch, cycle, head)
		return
	}
	for _, e := range ch.Stranded() {
		r.add(RuleStrandedBundle, or(e.Pos, ch.Pos), ch.Name, e.Name, fmt.Sprintf(
			"entry %q of channel %q is stranded: it is not on the replaces chain from head %q and no entry skips it; make a newer entry replace or skip it, or remove it",
			e.Name, ch.Name, head))
	}
}

// orphans reports bundles no channel lists. Entries of duplicate channel
// blobs count: the duplicate is reported once, not again as every bundle
// it alone lists.
func (r *reporter) orphans() {
	p := r.pkg
	var extra map[string]bool
	if len(p.extraChannels) > 0 {
		extra = map[string]bool{}
		for _, ch := range p.extraChannels {
			for _, e := range ch.Entries {
				extra[e.Name] = true
			}
		}
	}
	for _, b := range p.Bundles {
		if len(b.Entries) == 0 && !extra[b.Name] {
			r.add(RuleOrphanBundle, b.Pos, "", b.Name, fmt.Sprintf(
				"bundle %q is not in any channel of package %q; add it to a channel's entries or remove it", b.Name, p.Name))
		}
	}
}

// versions reports bundles of a package that share a version (and
// release).
func (r *reporter) versions() {
	p := r.pkg
	first := make(map[versionKey]*Bundle, len(p.Bundles))
	for _, b := range p.Bundles {
		key, ok := b.versionKey()
		if !ok {
			continue
		}
		if f, dup := first[key]; dup {
			r.add(RuleDuplicateVersion, b.Pos, "", b.Name, fmt.Sprintf(
				"bundles %q and %q of package %q both have version %s (%q is at %s); give each bundle its own version, or a release to tell rebuilds apart",
				f.Name, b.Name, p.Name, b.versionText(), f.Name, f.Pos))
			continue
		}
		first[key] = b
	}
}

// edgeTargets warns about replaces and skips targets that exist nowhere in
// the package while a bundle with the same version does: a typo, not a
// pruned bundle (those are common and fine).
func (r *reporter) edgeTargets() {
	p := r.pkg
	known := func(name string) bool {
		if p.bundles[name] != nil {
			return true
		}
		for _, ch := range p.Channels {
			if ch.byName[name] != nil {
				return true
			}
		}
		return false
	}
	// Built on the first target that needs it: most catalogs have none.
	var byVersion map[versionID][]string
	check := func(ch *Channel, e *declcfg.ChannelEntry, edge, target string) {
		if target == "" || known(target) || slices.Contains(r.explained, edgeRef{ch.Name, e.Name, target}) {
			return
		}
		v, ok := NameVersion(target)
		if !ok {
			return
		}
		if byVersion == nil {
			byVersion = map[versionID][]string{}
			for _, b := range p.Bundles {
				if _, ok := b.versionKey(); ok {
					id := idOf(b.SemVer)
					byVersion[id] = append(byVersion[id], b.Name)
				}
			}
		}
		var cands []string
		for _, n := range byVersion[idOf(v)] {
			if n != e.Name {
				cands = append(cands, n)
			}
		}
		if len(cands) == 0 {
			return
		}
		sug := declcfg.Suggest(target, cands)
		if sug == "" {
			sug = cands[0]
		}
		r.add(RuleEdgeTarget, or(e.Pos, ch.Pos), ch.Name, e.Name, fmt.Sprintf(
			"entry %q %s %q, which is not a bundle of package %q, but bundle %q has that version; did you mean %q?",
			e.Name, edge, target, p.Name, sug, sug))
	}
	// Every entry as written counts, duplicates too: each is a place to
	// fix.
	for _, ch := range p.Channels {
		for i := range ch.Blob.Entries {
			e := &ch.Blob.Entries[i]
			if e.Name == "" {
				continue
			}
			check(ch, e, "replaces", e.Replaces)
			for _, s := range e.Skips {
				check(ch, e, "skips", s)
			}
		}
	}
}

// deprecations applies opm's deprecation rules and warns when new installs
// would land on deprecated content.
func (r *reporter) deprecations() {
	p := r.pkg
	if len(p.deprecations) == 0 {
		return
	}
	for _, dup := range p.deprecations[1:] {
		r.add(RuleDuplicateDeprecation, dup.Pos, "", "", fmt.Sprintf(
			"package %q has a second olm.deprecations blob (the first is at %s); merge them: a package has at most one", p.Name, p.deprecations[0].Pos))
	}
	// The deprecated-default advice reads every blob as if they were
	// merged (a second blob is already an error): fixing that error must
	// not make a new warning appear.
	pkgDeprecated := false
	deprecatedChannel := map[string]declcfg.Pos{}
	deprecatedBundle := map[string]declcfg.Pos{}
	for _, dep := range p.deprecations {
		seen := map[declcfg.PackageScopedReference]declcfg.Pos{}
		for _, e := range dep.Entries {
			ref := e.Reference
			if f, ok := seen[ref]; ok && ref.Schema != "" {
				r.add(RuleDuplicateDeprecation, or(e.Pos, dep.Pos), "", "", fmt.Sprintf("%s %q is deprecated twice in package %q (first at %s); keep one entry", ref.Schema, ref.Name, p.Name, f))
				continue
			}
			seen[ref] = e.Pos
			at := or(e.NamePos, e.ReferencePos, e.Pos, dep.Pos)
			switch ref.Schema {
			case declcfg.SchemaPackage:
				if ref.Name != "" {
					r.add(RuleDeprecationReference, at, "", "", fmt.Sprintf("a package deprecation names no package (it applies to %q); remove name %q", p.Name, ref.Name))
				}
				pkgDeprecated = true
			case declcfg.SchemaChannel:
				if p.channels[ref.Name] == nil {
					r.add(RuleDeprecationReference, at, ref.Name, "", fmt.Sprintf("cannot deprecate channel %q: package %q has no such channel%s", ref.Name, p.Name, didYouMean(ref.Name, p.ChannelNames())))
				}
				deprecatedChannel[ref.Name] = e.Pos
			case declcfg.SchemaBundle:
				if p.bundles[ref.Name] == nil {
					r.add(RuleDeprecationReference, at, "", ref.Name, fmt.Sprintf("cannot deprecate bundle %q: package %q has no such bundle%s", ref.Name, p.Name, didYouMean(ref.Name, bundleNames(p))))
				}
				deprecatedBundle[ref.Name] = e.Pos
			}
		}
	}
	if pkgDeprecated || p.Blob == nil {
		return
	}
	at := or(p.Blob.DefaultChannelPos, p.Pos)
	ch := p.Default()
	if ch == nil {
		return
	}
	if pos, ok := deprecatedChannel[ch.Name]; ok {
		r.add(RuleDeprecatedDefault, at, "", "", fmt.Sprintf(
			"defaultChannel %q is deprecated (at %s) but package %q is not: new installs land on a deprecated channel; point defaultChannel at a supported one", ch.Name, pos, p.Name))
		return
	}
	if head := ch.Head(); head != nil {
		if pos, ok := deprecatedBundle[head.Name]; ok {
			r.add(RuleDeprecatedDefault, at, "", "", fmt.Sprintf(
				"the head of defaultChannel %q, bundle %q, is deprecated (at %s): new installs get a deprecated bundle; publish a supported one or point defaultChannel elsewhere", ch.Name, head.Name, pos))
		}
	}
}

func bundleNames(p *Package) []string {
	names := make([]string, len(p.Bundles))
	for i, b := range p.Bundles {
		names[i] = b.Name
	}
	return names
}

func didYouMean(name string, cands []string) string {
	if sug := declcfg.Suggest(name, cands); sug != "" {
		return fmt.Sprintf("; did you mean %q?", sug)
	}
	return ""
}
