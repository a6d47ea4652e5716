package validate

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/blang/semver/v4"
	yaml "go.yaml.in/yaml/v3"

	"github.com/fbc-project/fbc/declcfg"
)

// catalogIndex is what the cross-blob rules need to know about a catalog:
// names, edges, versions and positions, per package. It holds no YAML nodes
// and no property values.
type catalogIndex struct {
	packages map[string]*pkgIndex
}

func newCatalogIndex() *catalogIndex { return &catalogIndex{packages: map[string]*pkgIndex{}} }

func (x *catalogIndex) pkg(name string) *pkgIndex {
	p := x.packages[name]
	if p == nil {
		p = &pkgIndex{name: name}
		x.packages[name] = p
	}
	return p
}

type pkgIndex struct {
	name         string
	decls        []pkgDecl
	channels     []*chanIndex
	bundles      []*bundleIndex
	deprecations []*depIndex
	// firstUse is the first channel, bundle or deprecation naming the
	// package (for unknown-package).
	firstUse *declcfg.Pos
}

func (p *pkgIndex) use(pos declcfg.Pos) {
	if p.firstUse == nil {
		p.firstUse = &pos
	}
}

// indexRecord is what one blob adds to the index; exactly one pointer is
// set. Files are checked concurrently and their records applied in file
// order, so the index is the same whatever the scheduling.
type indexRecord struct {
	pkg         string
	decl        *pkgDecl
	channel     *chanIndex
	bundle      *bundleIndex
	deprecation *depIndex
}

func (x *catalogIndex) apply(r indexRecord) {
	p := x.pkg(r.pkg)
	switch {
	case r.decl != nil:
		p.decls = append(p.decls, *r.decl)
	case r.channel != nil:
		p.channels = append(p.channels, r.channel)
		p.use(r.channel.pos)
	case r.bundle != nil:
		p.bundles = append(p.bundles, r.bundle)
		p.use(r.bundle.pos)
	case r.deprecation != nil:
		p.deprecations = append(p.deprecations, r.deprecation)
		p.use(r.deprecation.pos)
	}
}

type pkgDecl struct {
	pos            declcfg.Pos
	defaultChannel string
	defaultPos     declcfg.Pos
	// defaultBad is set when defaultChannel is not a string (the decoder
	// reports that), so that it is not reported again as unset.
	defaultBad bool
}

type chanIndex struct {
	name    string
	pos     declcfg.Pos
	entries []entryIndex
	// unnamed counts entries left out of entries because their name is
	// missing or not a string (reported where they are).
	unnamed int
}

type entryIndex struct {
	name     string
	replaces string
	skips    []string
	pos      declcfg.Pos
}

type bundleIndex struct {
	name string
	pos  declcfg.Pos
	// versionKey is version[-release] when both parse ("" otherwise); it is
	// what must be unique per package.
	versionKey string
	version    *semver.Version
	hasRelease bool
}

type depIndex struct {
	pos     declcfg.Pos
	entries []depEntry
}

type depEntry struct {
	schema, name string
	pos          declcfg.Pos
	namePos      declcfg.Pos
}

var dns1123Label = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

func (c *fileCheck) packageBlob(d *docContext, root *yaml.Node, p *declcfg.Package) {
	if p.Name == "" {
		return // missing-field or empty-value already
	}
	nameNode := field(root, "name")
	switch {
	case len(p.Name) > 63:
		d.reportf(RulePackageName, nameNode, "package name %q is longer than 63 characters; package names are DNS-1123 labels", p.Name)
	case !dns1123Label.MatchString(p.Name):
		d.reportf(RulePackageName, nameNode, "package name %q is not a DNS-1123 label: use lowercase letters, digits and '-', starting and ending with a letter or digit", p.Name)
	}
	dc := field(root, "defaultChannel")
	bad := dc != nil && !isNull(dc) && !isString(dc)
	if dc == nil {
		dc = root
	}
	c.records = append(c.records, indexRecord{pkg: p.Name, decl: &pkgDecl{
		pos: d.pos(root), defaultChannel: p.DefaultChannel, defaultPos: d.pos(dc), defaultBad: bad}})
}

func (c *fileCheck) channelBlob(d *docContext, root *yaml.Node, ch *declcfg.Channel) {
	if ch.Package == "" || ch.Name == "" {
		return
	}
	ci := &chanIndex{name: ch.Name, pos: d.pos(root)}
	for _, en := range items(field(root, "entries")) {
		en = declcfg.Deref(en)
		if en == nil || en.Kind != yaml.MappingNode {
			continue
		}
		e := entryIndex{name: strValue(field(en, "name")), replaces: strValue(field(en, "replaces")), pos: d.pos(en)}
		for _, s := range items(field(en, "skips")) {
			e.skips = append(e.skips, strValue(declcfg.Deref(s)))
		}
		if srn := field(en, "skipRange"); strValue(srn) != "" {
			if _, err := declcfg.ParseRange(srn.Value); errors.Is(err, declcfg.ErrEmptyAlternative) {
				d.reportf(RuleSkipRange, srn, "entry %q: invalid skipRange %q: %v; remove the empty alternative", e.name, srn.Value, err)
			} else if err != nil {
				d.reportf(RuleSkipRange, srn, "entry %q: invalid skipRange %q: %v; OLM ignores a skipRange it cannot parse", e.name, srn.Value, err)
			}
		}
		if e.name != "" {
			ci.entries = append(ci.entries, e)
		} else {
			ci.unnamed++
		}
	}
	c.records = append(c.records, indexRecord{pkg: ch.Package, channel: ci})
}

func (c *fileCheck) deprecationBlob(d *docContext, root *yaml.Node, dep *declcfg.Deprecation) {
	if dep.Package == "" {
		return
	}
	di := &depIndex{pos: d.pos(root)}
	for _, en := range items(field(root, "entries")) {
		en = declcfg.Deref(en)
		ref := field(en, "reference")
		if ref == nil || ref.Kind != yaml.MappingNode {
			continue
		}
		e := depEntry{schema: strValue(field(ref, "schema")), name: strValue(field(ref, "name")), pos: d.pos(en), namePos: d.pos(ref)}
		if nn := field(ref, "name"); nn != nil {
			e.namePos = d.pos(nn)
		}
		di.entries = append(di.entries, e)
	}
	c.records = append(c.records, indexRecord{pkg: dep.Package, deprecation: di})
}

// finish runs the rules that need the whole catalog, a package at a time.
func (c *checker) finish() {
	names := make([]string, 0, len(c.index.packages))
	for n := range c.index.packages {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		c.checkPackage(c.index.packages[n])
	}
}

func (c *checker) checkPackage(p *pkgIndex) {
	ref := blobRef{pkg: p.name}
	if len(p.decls) == 0 {
		if p.firstUse != nil {
			c.add(RuleUnknownPackage, *p.firstUse, ref, fmt.Sprintf(
				"package %q has no olm.package blob, but %s to it; add one (schema: olm.package, name: %s, defaultChannel: ...) or fix the package name",
				p.name, usage(p), p.name))
		}
	}
	for _, dup := range p.decls[min(1, len(p.decls)):] {
		c.add(RuleDuplicatePackage, dup.pos, ref, fmt.Sprintf(
			"package %q is declared twice: here and at %s; keep one olm.package blob (when composing catalogs, two sources define this package)",
			p.name, p.decls[0].pos))
	}

	channels := c.uniqueChannels(p)
	bundles := c.uniqueBundles(p)

	if len(p.decls) > 0 {
		decl := p.decls[0]
		chNames := make([]string, 0, len(channels))
		for _, ch := range channels {
			chNames = append(chNames, ch.name)
		}
		sort.Strings(chNames)
		switch {
		case len(channels) == 0:
			c.add(RuleEmptyPackage, decl.pos, ref, fmt.Sprintf("package %q has no channels; add an olm.channel blob with its bundles", p.name))
		case decl.defaultBad:
		case decl.defaultChannel == "":
			c.add(RuleDefaultChannel, decl.pos, ref, fmt.Sprintf("package %q has no defaultChannel; set it to one of its channels: %s", p.name, strings.Join(chNames, ", ")))
		case !slices.Contains(chNames, decl.defaultChannel):
			msg := fmt.Sprintf("defaultChannel %q is not a channel of package %q", decl.defaultChannel, p.name)
			if sug := declcfg.Suggest(decl.defaultChannel, chNames); sug != "" {
				msg += fmt.Sprintf("; did you mean %q?", sug)
			} else {
				msg += fmt.Sprintf("; its channels are: %s", strings.Join(chNames, ", "))
			}
			c.add(RuleDefaultChannel, decl.defaultPos, ref, msg)
		}
	}

	// Entries of duplicate channel blobs count too: the duplicate is
	// reported once, not again as every bundle it alone lists.
	inChannel := map[string]bool{}
	for _, ch := range p.channels {
		for _, e := range ch.entries {
			inChannel[e.name] = true
		}
	}
	for _, ch := range channels {
		c.checkChannel(p, ch, bundles)
	}
	for _, b := range bundles {
		if !inChannel[b.name] {
			c.add(RuleOrphanBundle, b.pos, blobRef{pkg: p.name, bundle: b.name}, fmt.Sprintf(
				"bundle %q is not in any channel of package %q; add it to a channel's entries or remove it", b.name, p.name))
		}
	}
	c.checkVersions(p, bundles)
	c.checkEdgeTargets(p, channels, bundles)
	c.checkDeprecations(p, channels, bundles)
}

// usage says what refers to a package that has no olm.package blob, with
// the verb agreeing ("1 bundle refers", "2 bundles refer").
func usage(p *pkgIndex) string {
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
	count(len(p.channels), "channel")
	count(len(p.bundles), "bundle")
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

// firstByKey returns the first item of each key, in order, and calls dup
// for every later one with the first.
func firstByKey[T any](list []T, key func(T) string, dup func(later, first T)) []T {
	first := make(map[string]T, len(list))
	out := make([]T, 0, len(list))
	for _, it := range list {
		k := key(it)
		if f, ok := first[k]; ok {
			dup(it, f)
			continue
		}
		first[k] = it
		out = append(out, it)
	}
	return out
}

// uniqueChannels reports duplicate channel names and returns the first
// channel of each name, in catalog order.
func (c *checker) uniqueChannels(p *pkgIndex) []*chanIndex {
	return firstByKey(p.channels, func(ch *chanIndex) string { return ch.name }, func(ch, f *chanIndex) {
		c.add(RuleDuplicateChannel, ch.pos, blobRef{pkg: p.name, channel: ch.name}, fmt.Sprintf(
			"channel %q of package %q is declared twice: here and at %s; merge their entries into one olm.channel blob", ch.name, p.name, f.pos))
	})
}

func (c *checker) uniqueBundles(p *pkgIndex) []*bundleIndex {
	return firstByKey(p.bundles, func(b *bundleIndex) string { return b.name }, func(b, f *bundleIndex) {
		c.add(RuleDuplicateBundle, b.pos, blobRef{pkg: p.name, bundle: b.name}, fmt.Sprintf(
			"bundle %q of package %q is declared twice: here and at %s; keep one", b.name, p.name, f.pos))
	})
}

// checkChannel applies opm's channel rules: entries unique and backed by a
// bundle, exactly one head, no cycle on the replaces chain from the head,
// and no stranded entries.
func (c *checker) checkChannel(p *pkgIndex, ch *chanIndex, bundles []*bundleIndex) {
	ref := blobRef{pkg: p.name, channel: ch.name}
	if len(ch.entries) == 0 {
		if ch.unnamed > 0 {
			return // its entries' names are reported; the graph is unknown
		}
		c.add(RuleEmptyChannel, ch.pos, ref, fmt.Sprintf("channel %q has no entries; add the bundles it offers or remove it", ch.name))
		return
	}
	haveBundle := make(map[string]bool, len(bundles))
	for _, b := range bundles {
		haveBundle[b.name] = true
	}
	byName := make(map[string]*entryIndex, len(ch.entries))
	var unique []*entryIndex
	for i := range ch.entries {
		e := &ch.entries[i]
		if f, ok := byName[e.name]; ok {
			c.add(RuleDuplicateEntry, e.pos, ref, fmt.Sprintf("channel %q lists bundle %q twice (first at %s); keep one entry", ch.name, e.name, f.pos))
			continue
		}
		byName[e.name] = e
		unique = append(unique, e)
		if !haveBundle[e.name] {
			c.add(RuleMissingBundle, e.pos, blobRef{pkg: p.name, channel: ch.name, bundle: e.name}, fmt.Sprintf(
				"channel %q lists bundle %q, but package %q has no olm.bundle blob of that name; add the bundle or remove the entry", ch.name, e.name, p.name))
		}
	}

	incoming := map[string]bool{}
	skipped := map[string]bool{}
	for _, e := range unique {
		if e.replaces != "" && byName[e.replaces] != nil {
			incoming[e.replaces] = true
		}
		for _, s := range e.skips {
			skipped[s] = true
			if byName[s] != nil {
				incoming[s] = true
			}
		}
	}
	var heads []string
	for _, e := range unique {
		if !incoming[e.name] {
			heads = append(heads, e.name)
		}
	}
	switch {
	case len(heads) == 0:
		c.add(RuleChannelHead, ch.pos, ref, fmt.Sprintf("channel %q has no head: every entry is replaced or skipped by another, so its edges form a cycle", ch.name))
		return
	case len(heads) > 1:
		sort.Strings(heads)
		c.add(RuleChannelHead, ch.pos, ref, fmt.Sprintf("channel %q has %d heads (%s); exactly one entry may be left unreplaced: make the newer ones replace or skip the others", ch.name, len(heads), strings.Join(heads, ", ")))
		return
	}

	// Walk the replaces chain from the head. A replaces target that some
	// entry skips ends the chain (the skipped entry is reached by the skip).
	chain := []string{heads[0]}
	onChain := map[string]bool{heads[0]: true}
	for cur := byName[heads[0]]; cur != nil; {
		next := cur.replaces
		if skipped[next] {
			break
		}
		if onChain[next] {
			i := slices.Index(chain, next)
			cycle := append(slices.Clone(chain[i:]), next)
			c.add(RuleReplacesCycle, ch.pos, ref, fmt.Sprintf("channel %q: the replaces chain from head %q loops: %s; each entry must replace an older one", ch.name, heads[0], strings.Join(cycle, " -> ")))
			return
		}
		chain = append(chain, next)
		onChain[next] = true
		cur = byName[next]
	}
	for _, e := range unique {
		if !onChain[e.name] && !skipped[e.name] {
			c.add(RuleStrandedBundle, e.pos, blobRef{pkg: p.name, channel: ch.name, bundle: e.name}, fmt.Sprintf(
				"entry %q of channel %q is stranded: it is not on the replaces chain from head %q and no entry skips it; make a newer entry replace or skip it, or remove it",
				e.name, ch.name, heads[0]))
		}
	}
}

// checkVersions reports bundles of a package that share a version (and
// release).
func (c *checker) checkVersions(p *pkgIndex, bundles []*bundleIndex) {
	first := map[string]*bundleIndex{}
	for _, b := range bundles {
		if b.versionKey == "" {
			continue
		}
		if f, ok := first[b.versionKey]; ok {
			c.add(RuleDuplicateVersion, b.pos, blobRef{pkg: p.name, bundle: b.name}, fmt.Sprintf(
				"bundles %q and %q of package %q both have version %s (%q is at %s); give each bundle its own version, or a release to tell rebuilds apart",
				f.name, b.name, p.name, b.versionKey, f.name, f.pos))
			continue
		}
		first[b.versionKey] = b
	}
}

// trailingVersion finds the version a bundle name ends with
// (foo.v1.2.3 -> 1.2.3).
var trailingVersion = regexp.MustCompile(`(?:^|[.-])v?(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?)$`)

func nameVersion(name string) (semver.Version, bool) {
	m := trailingVersion.FindStringSubmatch(name)
	if m == nil {
		return semver.Version{}, false
	}
	v, err := semver.Parse(m[1])
	return v, err == nil
}

// checkEdgeTargets warns about replaces and skips targets that exist nowhere
// in the package while a bundle with the same version does: a typo, not a
// pruned bundle (those are common and fine).
func (c *checker) checkEdgeTargets(p *pkgIndex, channels []*chanIndex, bundles []*bundleIndex) {
	names := map[string]bool{}
	byVersion := map[string][]string{}
	for _, b := range bundles {
		names[b.name] = true
		if b.version != nil {
			byVersion[b.version.String()] = append(byVersion[b.version.String()], b.name)
		}
	}
	for _, ch := range channels {
		for _, e := range ch.entries {
			names[e.name] = true
		}
	}
	check := func(ch *chanIndex, e entryIndex, edge, target string) {
		if target == "" || names[target] {
			return
		}
		v, ok := nameVersion(target)
		if !ok {
			return
		}
		var cands []string
		for _, n := range byVersion[v.String()] {
			if n != e.name {
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
		c.add(RuleEdgeTarget, e.pos, blobRef{pkg: p.name, channel: ch.name, bundle: e.name}, fmt.Sprintf(
			"entry %q %s %q, which is not a bundle of package %q, but bundle %q has that version; did you mean %q?",
			e.name, edge, target, p.name, sug, sug))
	}
	for _, ch := range channels {
		for _, e := range ch.entries {
			check(ch, e, "replaces", e.replaces)
			for _, s := range e.skips {
				check(ch, e, "skips", s)
			}
		}
	}
}

// checkDeprecations applies opm's deprecation rules and warns when new
// installs would land on deprecated content.
func (c *checker) checkDeprecations(p *pkgIndex, channels []*chanIndex, bundles []*bundleIndex) {
	if len(p.deprecations) == 0 {
		return
	}
	ref := blobRef{pkg: p.name}
	for _, dup := range p.deprecations[1:] {
		c.add(RuleDuplicateDeprecation, dup.pos, ref, fmt.Sprintf(
			"package %q has a second olm.deprecations blob (the first is at %s); merge them: a package has at most one", p.name, p.deprecations[0].pos))
	}
	chNames := map[string]bool{}
	for _, ch := range channels {
		chNames[ch.name] = true
	}
	bNames := map[string]bool{}
	for _, b := range bundles {
		bNames[b.name] = true
	}
	pkgDeprecated := false
	deprecatedChannel := map[string]declcfg.Pos{}
	deprecatedBundle := map[string]declcfg.Pos{}
	for _, dep := range p.deprecations {
		seen := map[[2]string]declcfg.Pos{}
		for _, e := range dep.entries {
			key := [2]string{e.schema, e.name}
			if f, ok := seen[key]; ok && e.schema != "" {
				c.add(RuleDuplicateDeprecation, e.pos, ref, fmt.Sprintf("%s %q is deprecated twice in package %q (first at %s); keep one entry", e.schema, e.name, p.name, f))
				continue
			}
			seen[key] = e.pos
			switch e.schema {
			case declcfg.SchemaPackage:
				if e.name != "" {
					c.add(RuleDeprecationReference, e.namePos, ref, fmt.Sprintf("a package deprecation names no package (it applies to %q); remove name %q", p.name, e.name))
				}
				pkgDeprecated = true
			case declcfg.SchemaChannel:
				if !chNames[e.name] {
					c.add(RuleDeprecationReference, e.namePos, blobRef{pkg: p.name, channel: e.name}, fmt.Sprintf("cannot deprecate channel %q: package %q has no such channel%s", e.name, p.name, didYouMean(e.name, chNames)))
				}
				deprecatedChannel[e.name] = e.pos
			case declcfg.SchemaBundle:
				if !bNames[e.name] {
					c.add(RuleDeprecationReference, e.namePos, blobRef{pkg: p.name, bundle: e.name}, fmt.Sprintf("cannot deprecate bundle %q: package %q has no such bundle%s", e.name, p.name, didYouMean(e.name, bNames)))
				}
				deprecatedBundle[e.name] = e.pos
			}
		}
	}
	if pkgDeprecated || len(p.decls) == 0 {
		return
	}
	decl := p.decls[0]
	if pos, ok := deprecatedChannel[decl.defaultChannel]; ok && chNames[decl.defaultChannel] {
		c.add(RuleDeprecatedDefault, decl.defaultPos, ref, fmt.Sprintf(
			"defaultChannel %q is deprecated (at %s) but package %q is not: new installs land on a deprecated channel; point defaultChannel at a supported one", decl.defaultChannel, pos, p.name))
		return
	}
	for _, ch := range channels {
		if ch.name != decl.defaultChannel {
			continue
		}
		if head := channelHead(ch); head != "" {
			if pos, ok := deprecatedBundle[head]; ok {
				c.add(RuleDeprecatedDefault, decl.defaultPos, ref, fmt.Sprintf(
					"the head of defaultChannel %q, bundle %q, is deprecated (at %s): new installs get a deprecated bundle; publish a supported one or point defaultChannel elsewhere", ch.name, head, pos))
			}
		}
	}
}

// channelHead returns the channel's single head, or "" when it has none or
// several (checkChannel reports those).
func channelHead(ch *chanIndex) string {
	names := map[string]bool{}
	for _, e := range ch.entries {
		names[e.name] = true
	}
	incoming := map[string]bool{}
	for _, e := range ch.entries {
		if names[e.replaces] {
			incoming[e.replaces] = true
		}
		for _, s := range e.skips {
			if names[s] {
				incoming[s] = true
			}
		}
	}
	head := ""
	for _, e := range ch.entries {
		if !incoming[e.name] && e.name != head {
			if head != "" {
				return ""
			}
			head = e.name
		}
	}
	return head
}

func didYouMean(name string, set map[string]bool) string {
	cands := make([]string, 0, len(set))
	for k := range set {
		cands = append(cands, k)
	}
	if sug := declcfg.Suggest(name, cands); sug != "" {
		return fmt.Sprintf("; did you mean %q?", sug)
	}
	return ""
}
