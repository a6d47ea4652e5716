package mirror

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	mmsemver "github.com/Masterminds/semver/v3"
	blang "github.com/blang/semver/v4"

	"github.com/fbc-project/fbc/compose"
	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/textout"
	"github.com/fbc-project/fbc/model"
)

// Cut is what one mirror.operators[] entry keeps of its catalog.
type Cut struct {
	// Config is the catalog fbc writes: OCMirror's bundles, made a valid
	// catalog where OCMirror is not one (Notes say where).
	Config *declcfg.DeclarativeConfig
	// OCMirror is the catalog oc-mirror v2 writes for the entry.
	OCMirror *declcfg.DeclarativeConfig
	// Notes say what the cut did that the configuration does not show:
	// bundles kept outside their range, channels listed that the catalog
	// lacks, and each place where fbc's catalog differs from oc-mirror's.
	Notes []compose.Note
	// OutOfRange are the bundles a range keeps although their versions
	// are outside it: the replaces chain from the bundles in range passes
	// through them (oc-mirror warns of each).
	OutOfRange []OutOfRange
	// HeadsOnly is set when the entry keeps channel heads (it is not full):
	// dependencies are then added as heads too.
	HeadsOnly bool
}

// OutOfRange is a bundle kept outside its channel's range.
type OutOfRange struct {
	Package, Channel, Bundle string
	// Version is the bundle's version, "" when the name has no bundle.
	Version string
}

// cutter is one CutCatalog run.
type cutter struct {
	cat  *declcfg.DeclarativeConfig
	op   Operator
	errs []error
	// listed are the entry's packages by name; nil when it lists none (the
	// whole catalog is cut).
	listed map[string]*Package
	// versions are the strict semver versions of each package's bundles.
	versions map[string]map[string]*mmsemver.Version
	// bundles are each package's bundles by name (the first of a name).
	bundles map[string]map[string]*declcfg.Bundle
	// reach is, per package and channel, what the cut of the channel keeps
	// (channel entries or other names its graph reaches), in order.
	reach map[string]map[string][]string
	// kept are the bundles kept, by package; a package is there once one
	// of its channels is cut.
	kept    map[string]map[string]bool
	notes   []compose.Note
	outside []OutOfRange
	model   *model.Catalog
}

// CutCatalog cuts a catalog as oc-mirror v2 cuts it for an operators[] entry
// (its filter is catalog-filter v0.0.5's mirror-config, called as
// oc-mirror's catalog handler calls it):
//
//   - without packages, a full entry keeps the whole catalog and another the
//     head of every channel;
//   - packages not listed are dropped (blobs of no package stay); a package
//     keeps the channels it lists (a listed channel the catalog lacks is
//     ignored), or all of them;
//   - a channel without a range keeps its head, the one entry nothing
//     replaces or skips (full: every entry); with a range (the channel's
//     minVersion/maxVersion, else the package's, a Masterminds constraint
//     over strict semver bundle versions) it keeps a stretch of the
//     replaces chain and the names in range that it skips (chanGraph.cutRange);
//   - the default channel must survive (or defaultChannel name a channel
//     kept), the default channel must not be emptied by a range, full does
//     not take ranges; a channel a range empties is dropped;
//   - deprecations of bundles and channels not kept go.
//
// oc-mirror's refusals are *ConfigError, in its words, at the value of the
// configuration they concern; a package the catalog lacks is refused too
// (oc-mirror mirrors nothing for it, silently). known lists every package
// of the catalog (cat may hold only the listed ones), for "did you mean".
//
// Where oc-mirror's catalog is not a valid one (an empty channel, a default
// channel it does not have, a bundle in no channel, a stranded entry, a
// deprecation of a channel it dropped), Config keeps the same bundles in a
// catalog that validates, and a Note says what oc-mirror writes.
func CutCatalog(cat *declcfg.DeclarativeConfig, op Operator, known []string) (*Cut, error) {
	if len(op.Packages) == 0 && op.Full {
		return &Cut{Config: cat, OCMirror: cat}, nil
	}
	c := &cutter{cat: cat, op: op, versions: map[string]map[string]*mmsemver.Version{}, bundles: map[string]map[string]*declcfg.Bundle{},
		reach: map[string]map[string][]string{}, kept: map[string]map[string]bool{}}
	if len(op.Packages) > 0 {
		c.listed = map[string]*Package{}
		for i := range op.Packages {
			c.listed[op.Packages[i].Name] = &op.Packages[i]
		}
	}
	sel := c.selectPackages(known)
	if len(c.errs) > 0 {
		return nil, joinErrors(c.errs)
	}
	c.index(sel)
	c.defaultChannels(sel)
	if len(c.errs) > 0 {
		return nil, joinErrors(c.errs)
	}
	empty := c.cutChannels(sel)
	if len(c.errs) > 0 {
		return nil, joinErrors(c.errs)
	}
	out := c.ocMirror(sel, empty)
	cut := &Cut{OCMirror: out, HeadsOnly: !op.Full}
	fixed, err := c.repair(sel, out)
	if err != nil {
		return nil, err
	}
	cut.Config, cut.Notes, cut.OutOfRange = fixed, c.notes, c.outside
	return cut, nil
}

func joinErrors(errs []error) error {
	if len(errs) == 1 {
		return errs[0]
	}
	return joinedConfigErrors(errs)
}

// joinedConfigErrors is several refusals, one a line; Input like each.
type joinedConfigErrors []error

func (e joinedConfigErrors) Error() string {
	msgs := make([]string, len(e))
	for i, err := range e {
		msgs[i] = err.Error()
	}
	return strings.Join(msgs, "\n")
}

func (e joinedConfigErrors) Unwrap() []error { return e }

func (c *cutter) fail(pos declcfg.Pos, format string, args ...any) {
	c.errs = append(c.errs, &ConfigError{Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

func (c *cutter) note(pkg string, warning bool, format string, args ...any) {
	c.notes = append(c.notes, compose.Note{Package: pkg, Warning: warning, Message: fmt.Sprintf(format, args...)})
}

// selectPackages keeps the listed packages' blobs (and every package-less
// blob), and of each package the channels it lists; a package the catalog
// lacks is an error, a channel it lacks a note.
func (c *cutter) selectPackages(known []string) *declcfg.DeclarativeConfig {
	if c.listed == nil {
		return c.cat
	}
	have := map[string]bool{}
	chans := map[string][]string{}
	for _, p := range c.cat.Packages {
		have[p.Name] = true
	}
	for _, ch := range c.cat.Channels {
		have[ch.Package] = true
		chans[ch.Package] = append(chans[ch.Package], ch.Name)
	}
	for _, b := range c.cat.Bundles {
		have[b.Package] = true
	}
	if known == nil {
		for p := range have {
			known = append(known, p)
		}
		slices.Sort(known)
	}
	for _, p := range c.op.Packages {
		if have[p.Name] {
			for _, ch := range p.Channels {
				if !slices.Contains(chans[p.Name], ch.Name) {
					c.note(p.Name, true, "channel %q (%s) is not in the catalog%s; oc-mirror ignores it, and so does fbc", ch.Name, ch.NamePos, suggest(ch.Name, chans[p.Name], "channels"))
				}
			}
			continue
		}
		c.fail(p.NamePos, "package %q is not in catalog %q%s", p.Name, c.op.Catalog, suggest(p.Name, known, "packages"))
	}
	sel := &declcfg.DeclarativeConfig{}
	for _, p := range c.cat.Packages {
		if c.listed[p.Name] != nil {
			sel.Packages = append(sel.Packages, p)
		}
	}
	for _, ch := range c.cat.Channels {
		if p := c.listed[ch.Package]; p != nil && (len(p.Channels) == 0 || slices.ContainsFunc(p.Channels, func(x Channel) bool { return x.Name == ch.Name })) {
			sel.Channels = append(sel.Channels, ch)
		}
	}
	for _, b := range c.cat.Bundles {
		if c.listed[b.Package] != nil {
			sel.Bundles = append(sel.Bundles, b)
		}
	}
	for _, d := range c.cat.Deprecations {
		if c.listed[d.Package] != nil {
			sel.Deprecations = append(sel.Deprecations, d)
		}
	}
	for _, m := range c.cat.Others {
		if m.Package == "" || c.listed[m.Package] != nil {
			sel.Others = append(sel.Others, m)
		}
	}
	return sel
}

// suggest is " (did you mean "x"?)", or what there is, for a name that is
// not among names.
func suggest(name string, names []string, what string) string {
	if s := declcfg.Suggest(name, names); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	if len(names) == 0 {
		return fmt.Sprintf(" (it has no %s)", what)
	}
	const most = 10
	if len(names) > most {
		return fmt.Sprintf(" (it has %d %s: %s, ...)", len(names), what, strings.Join(names[:most], ", "))
	}
	return fmt.Sprintf(" (it has %s)", strings.Join(names, ", "))
}

// index reads the selected bundles' versions as the filter does: every one
// must have an olm.package property with a strict semver version, or the
// cut fails.
func (c *cutter) index(sel *declcfg.DeclarativeConfig) {
	for i := range sel.Bundles {
		b := &sel.Bundles[i]
		if c.bundles[b.Package] == nil {
			c.bundles[b.Package] = map[string]*declcfg.Bundle{}
			c.versions[b.Package] = map[string]*mmsemver.Version{}
		}
		if c.bundles[b.Package][b.Name] == nil {
			c.bundles[b.Package][b.Name] = b
		}
		pos := c.op.CatalogPos
		if p := c.listed[b.Package]; p != nil {
			pos = p.NamePos
		}
		v, ok := bundleVersion(b)
		if !ok {
			c.fail(pos, "failed to filter catalog: bundle %q in package %q has no package property%s", b.Name, b.Package, at(b.Pos))
			continue
		}
		sv, err := mmsemver.StrictNewVersion(v)
		if err != nil {
			c.fail(pos, "failed to filter catalog: bundle %q in package %q: version %q is not strict semantic versioning: %v%s", b.Name, b.Package, v, err, at(b.Pos))
			continue
		}
		c.versions[b.Package][b.Name] = sv
	}
}

// at is " (FILE:LINE)" for a position in the catalog, or "".
func at(p declcfg.Pos) string {
	if !p.IsValid() {
		return ""
	}
	return " (" + p.String() + ")"
}

// bundleVersion is the version of a bundle's first olm.package property.
func bundleVersion(b *declcfg.Bundle) (string, bool) {
	for _, p := range b.Properties {
		if p.Type != declcfg.PropertyPackage {
			continue
		}
		var v declcfg.PackageProperty
		if err := json.Unmarshal(p.Value, &v); err != nil {
			return "", false
		}
		return v.Version, true
	}
	return "", false
}

// channelNames are the channels selected of each package.
func channelNames(sel *declcfg.DeclarativeConfig) map[string][]string {
	out := map[string][]string{}
	for _, ch := range sel.Channels {
		out[ch.Package] = append(out[ch.Package], ch.Name)
	}
	return out
}

// defaultChannels checks each listed package's default channel against the
// channels selected, and applies defaultChannel.
func (c *cutter) defaultChannels(sel *declcfg.DeclarativeConfig) {
	names := channelNames(sel)
	for i := range sel.Packages {
		pkg := &sel.Packages[i]
		p := c.listed[pkg.Name]
		if p == nil || pkg.DefaultChannel == "" && p.DefaultChannel == "" {
			continue
		}
		const invalid = "failed to filter catalog: invalid default channel configuration for package %q: "
		switch {
		case p.DefaultChannel != "" && !slices.Contains(names[pkg.Name], p.DefaultChannel):
			c.fail(p.DefaultChannelPos, invalid+"specified default channel override %q does not exist in the filtered output%s", pkg.Name, p.DefaultChannel, suggest(p.DefaultChannel, names[pkg.Name], "channels kept"))
		case p.DefaultChannel != "":
			pkg.DefaultChannel = p.DefaultChannel
		case !slices.Contains(names[pkg.Name], pkg.DefaultChannel):
			hint := "; none of the channels listed is in the catalog"
			if len(names[pkg.Name]) > 0 {
				hint = " (defaultChannel: one of " + strings.Join(names[pkg.Name], ", ") + ")"
			}
			c.fail(p.NamePos, invalid+"the default channel %q was filtered out, a new default channel must be configured for this package%s", pkg.Name, pkg.DefaultChannel, hint)
		}
	}
}

// rangeOf is the version range that applies to a channel: the channel's,
// else its package's, with where it is written.
func (c *cutter) rangeOf(pkg, channel string) (string, declcfg.Pos) {
	p := c.listed[pkg]
	if p == nil {
		return "", declcfg.Pos{}
	}
	for _, ch := range p.Channels {
		if ch.Name == channel && ch.hasRange() {
			return versionRange(ch.MinVersion, ch.MaxVersion), rangePos(ch.MinVersionPos, ch.MaxVersionPos)
		}
	}
	return versionRange(p.MinVersion, p.MaxVersion), rangePos(p.MinVersionPos, p.MaxVersionPos)
}

// where is the configuration value a channel's refusal points at: the
// channel's name when the package lists it, else the package's.
func (c *cutter) where(pkg, channel string) declcfg.Pos {
	p := c.listed[pkg]
	if p == nil {
		return c.op.CatalogPos
	}
	for _, ch := range p.Channels {
		if ch.Name == channel {
			return ch.NamePos
		}
	}
	return p.NamePos
}

// cutChannels cuts each selected channel (heads, whole, or a range) and
// returns the channels a range emptied, which oc-mirror drops.
func (c *cutter) cutChannels(sel *declcfg.DeclarativeConfig) map[string]bool {
	defaults := map[string]string{} // the catalog's own default channels
	for _, p := range c.cat.Packages {
		if _, ok := defaults[p.Name]; !ok {
			defaults[p.Name] = p.DefaultChannel
		}
	}
	empty := map[string]bool{}
	for _, ch := range sel.Channels {
		rng, rngPos := c.rangeOf(ch.Package, ch.Name)
		if c.kept[ch.Package] == nil {
			c.kept[ch.Package] = map[string]bool{}
			c.reach[ch.Package] = map[string][]string{}
		}
		var keep []string
		switch {
		case c.op.Full && rng != "":
			c.fail(rngPos, "failed to filter catalog: package %q channel %q: Full: true cannot be mixed with versionRange (%q)", ch.Package, ch.Name, rng)
			continue
		case c.op.Full:
			for _, e := range ch.Entries {
				keep = append(keep, e.Name)
			}
		case rng != "":
			cons, err := mmsemver.NewConstraint(rng)
			if err != nil {
				c.fail(rngPos, "failed to filter catalog: error parsing version range: %v", err)
				continue
			}
			g, err := newGraph(ch.Entries)
			if err != nil {
				c.fail(c.where(ch.Package, ch.Name), "failed to filter catalog: package %q channel %q: %s%s", ch.Package, ch.Name, oneLine(err), at(ch.Pos))
				continue
			}
			var out []outside
			keep, out = g.cutRange(cons, c.versions[ch.Package])
			for _, o := range out {
				oor := OutOfRange{Package: ch.Package, Channel: ch.Name, Bundle: o.name}
				if o.version != nil {
					oor.Version = o.version.Original()
				}
				c.outside = append(c.outside, oor)
				if o.version == nil {
					c.note(ch.Package, false, "channel %q: including bundle %q: it is unversioned but is required to ensure inclusion of all bundles in the range", ch.Name, o.name)
				} else {
					c.note(ch.Package, false, "channel %q: including bundle %q with version %q: it falls outside the specified range of %q but is required to ensure inclusion of all bundles in the range", ch.Name, o.name, o.version.Original(), strings.TrimSpace(rng))
				}
			}
			if len(keep) == 0 {
				if ch.Name == defaults[ch.Package] {
					c.fail(rngPos, "failed to filter catalog: package %q channel %q has version range %q that results in an empty channel%s", ch.Package, ch.Name, rng, prereleaseHint(cons, rng, ch.Entries, c.versions[ch.Package]))
					continue
				}
				empty[ch.Package+"/"+ch.Name] = true
			}
		default:
			g, err := newGraph(ch.Entries)
			if err != nil {
				c.fail(c.where(ch.Package, ch.Name), "failed to filter catalog: package %q channel %q unable to filter head of channel: %s%s", ch.Package, ch.Name, oneLine(err), at(ch.Pos))
				continue
			}
			keep = []string{g.head.name}
		}
		c.reach[ch.Package][ch.Name] = keep
		for _, n := range keep {
			c.kept[ch.Package][n] = true
		}
	}
	return empty
}

// oneLine joins an error's lines with "; ".
func oneLine(err error) string { return strings.ReplaceAll(err.Error(), "\n", "; ") }

// ocMirror assembles the catalog oc-mirror writes.
func (c *cutter) ocMirror(sel *declcfg.DeclarativeConfig, empty map[string]bool) *declcfg.DeclarativeConfig {
	out := &declcfg.DeclarativeConfig{Packages: sel.Packages, Others: sel.Others}
	for _, ch := range sel.Channels {
		if empty[ch.Package+"/"+ch.Name] {
			continue
		}
		keep := c.reach[ch.Package][ch.Name]
		nc := ch
		nc.Entries = nil
		if c.op.Full {
			nc.Entries = ch.Entries
		} else {
			for _, e := range ch.Entries {
				if slices.Contains(keep, e.Name) {
					nc.Entries = append(nc.Entries, e)
				}
			}
		}
		out.Channels = append(out.Channels, nc)
	}
	if len(c.kept) == 0 {
		out.Bundles = sel.Bundles
	} else {
		for pkg, names := range c.kept {
			for n := range names {
				if b := c.bundles[pkg][n]; b != nil {
					out.Bundles = append(out.Bundles, *b)
				}
			}
		}
		slices.SortFunc(out.Bundles, func(a, b declcfg.Bundle) int {
			if c := strings.Compare(a.Package, b.Package); c != 0 {
				return c
			}
			return strings.Compare(a.Name, b.Name)
		})
	}
	names := channelNames(sel)
	for _, d := range sel.Deprecations {
		nd := d
		nd.Entries = nil
		for _, e := range d.Entries {
			switch e.Reference.Schema {
			case declcfg.SchemaBundle:
				if k, ok := c.kept[d.Package]; ok && !k[e.Reference.Name] {
					continue
				}
			case declcfg.SchemaChannel:
				if chans, ok := names[d.Package]; ok && !slices.Contains(chans, e.Reference.Name) {
					continue
				}
			}
			nd.Entries = append(nd.Entries, e)
		}
		out.Deprecations = append(out.Deprecations, nd)
	}
	return out
}

// repair turns oc-mirror's catalog into a valid one with the same bundles,
// noting each difference.
func (c *cutter) repair(sel, oc *declcfg.DeclarativeConfig) (*declcfg.DeclarativeConfig, error) {
	out := &declcfg.DeclarativeConfig{Others: oc.Others, Bundles: oc.Bundles}
	inChannel := map[string]map[string]bool{} // package -> names listed by oc-mirror's channels
	for _, ch := range oc.Channels {
		if inChannel[ch.Package] == nil {
			inChannel[ch.Package] = map[string]bool{}
		}
		for _, e := range ch.Entries {
			inChannel[ch.Package][e.Name] = true
		}
	}
	original := map[string]declcfg.Channel{}
	for _, ch := range sel.Channels {
		original[ch.Package+"/"+ch.Name] = ch
	}
	chans := map[string][]string{} // channels fbc writes, per package
	for _, ch := range oc.Channels {
		nc := ch
		// Bundles the channel's cut keeps but does not list: oc-mirror
		// keeps them all the same, in this channel's graph.
		var missing []string
		for _, n := range c.reach[ch.Package][ch.Name] {
			if c.bundles[ch.Package][n] == nil || slices.ContainsFunc(ch.Entries, func(e declcfg.ChannelEntry) bool { return e.Name == n }) {
				continue
			}
			if len(ch.Entries) == 0 || !inChannel[ch.Package][n] {
				missing = append(missing, n)
			}
		}
		if len(missing) > 0 {
			nc.Entries = slices.Clone(ch.Entries)
			for _, n := range missing {
				nc.Entries = append(nc.Entries, declcfg.ChannelEntry{Name: n})
			}
			if len(ch.Entries) == 0 {
				c.note(ch.Package, false, "channel %q: oc-mirror writes it with no entries, which opm refuses, though its range keeps %s; fbc lists them in it", ch.Name, quoteList(missing))
			} else {
				c.note(ch.Package, false, "channel %q: oc-mirror keeps %s, which the channel's upgrade graph reaches, in no channel, which opm refuses; fbc lists them in the channel", ch.Name, quoteList(missing))
			}
		}
		if len(nc.Entries) == 0 {
			c.note(ch.Package, false, "channel %q: oc-mirror writes it with no entries, which opm refuses (its range keeps no bundle of the channel); fbc leaves it out", ch.Name)
			continue
		}
		if !validChannel(nc.Entries) {
			redrawn, err := c.redraw(original[ch.Package+"/"+ch.Name], nc.Entries)
			if err != nil {
				return nil, err
			}
			c.note(ch.Package, false, "channel %q: oc-mirror keeps entries that do not form a valid channel (%s); fbc re-draws their edges", ch.Name, shapeProblem(nc.Entries))
			nc.Entries = redrawn
		}
		out.Channels = append(out.Channels, nc)
		chans[ch.Package] = append(chans[ch.Package], ch.Name)
	}
	dropped := map[string]bool{}
	for _, p := range oc.Packages {
		if len(chans[p.Name]) == 0 && c.kept[p.Name] != nil {
			c.note(p.Name, true, "oc-mirror writes the package with no channel and no bundle, which opm refuses; fbc leaves it out")
			dropped[p.Name] = true
			continue
		}
		if p.DefaultChannel != "" && !slices.Contains(chans[p.Name], p.DefaultChannel) {
			nd := c.newDefault(p.Name, chans[p.Name], out.Channels)
			c.note(p.Name, false, "oc-mirror writes default channel %q, which its catalog does not have (opm refuses it); fbc makes %q the default channel", p.DefaultChannel, nd)
			p.DefaultChannel = nd
		}
		out.Packages = append(out.Packages, p)
	}
	if len(dropped) > 0 {
		out.Others = slices.DeleteFunc(slices.Clone(out.Others), func(m declcfg.Meta) bool { return dropped[m.Package] })
		out.Bundles = slices.DeleteFunc(slices.Clone(out.Bundles), func(b declcfg.Bundle) bool { return dropped[b.Package] })
	}
	for _, d := range oc.Deprecations {
		if dropped[d.Package] {
			continue
		}
		nd := d
		nd.Entries = nil
		for _, e := range d.Entries {
			if e.Reference.Schema == declcfg.SchemaChannel && !slices.Contains(chans[d.Package], e.Reference.Name) {
				c.note(d.Package, false, "oc-mirror keeps the deprecation of channel %q, which its catalog does not have (opm refuses it); fbc leaves it out", e.Reference.Name)
				continue
			}
			nd.Entries = append(nd.Entries, e)
		}
		out.Deprecations = append(out.Deprecations, nd)
	}
	return out, nil
}

// validChannel reports a channel opm accepts: one head, no stranded entry,
// no replaces cycle.
func validChannel(entries []declcfg.ChannelEntry) bool {
	s := model.ShapeOf(entries)
	_, one := s.Head()
	return one && len(s.Stranded()) == 0 && s.Cycle() == nil
}

// shapeProblem says why a channel is not valid.
func shapeProblem(entries []declcfg.ChannelEntry) string {
	s := model.ShapeOf(entries)
	if _, one := s.Head(); !one {
		return fmt.Sprintf("heads %s", quoteList(s.Heads()))
	}
	if st := s.Stranded(); len(st) > 0 {
		return fmt.Sprintf("stranded %s", quoteList(st))
	}
	return fmt.Sprintf("a replaces cycle %s", strings.Join(s.Cycle(), " -> "))
}

// redraw re-draws a channel's kept entries over its original graph
// (compose's subset rules), the names it lists from other channels added
// with the edges they have there.
func (c *cutter) redraw(orig declcfg.Channel, entries []declcfg.ChannelEntry) ([]declcfg.ChannelEntry, error) {
	if c.model == nil {
		c.model = model.New(c.cat)
	}
	keep := map[string]bool{}
	for _, e := range entries {
		keep[e.Name] = true
	}
	all := slices.Clone(orig.Entries)
	for _, e := range entries {
		if slices.ContainsFunc(all, func(x declcfg.ChannelEntry) bool { return x.Name == e.Name }) {
			continue
		}
		all = append(all, c.entryElsewhere(orig.Package, e.Name))
	}
	p := c.model.Package(orig.Package)
	version := func(name string) (blang.Version, bool) {
		if p == nil {
			return blang.Version{}, false
		}
		if b := p.Bundle(name); b != nil && b.HasVersion() {
			return b.SemVer, true
		}
		return blang.Version{}, false
	}
	out := compose.Subset(all, func(n string) bool { return keep[n] }, version)
	if !validChannel(out) {
		return nil, &ConfigError{Pos: c.where(orig.Package, orig.Name), Msg: fmt.Sprintf("package %q channel %q: the entries the cut keeps do not form a valid channel (%s), and fbc cannot re-draw them into one", orig.Package, orig.Name, shapeProblem(out))}
	}
	return out, nil
}

// entryElsewhere is a bundle's entry in another channel of its package (its
// first), or a bare one.
func (c *cutter) entryElsewhere(pkg, name string) declcfg.ChannelEntry {
	for _, ch := range c.cat.Channels {
		if ch.Package != pkg {
			continue
		}
		for _, e := range ch.Entries {
			if e.Name == name {
				return e
			}
		}
	}
	return declcfg.ChannelEntry{Name: name}
}

// newDefault picks a default channel among those kept: the first the
// package's entry lists, else the one whose head has the highest version,
// then by name.
func (c *cutter) newDefault(pkg string, kept []string, channels []declcfg.Channel) string {
	if p := c.listed[pkg]; p != nil {
		for _, ch := range p.Channels {
			if slices.Contains(kept, ch.Name) {
				return ch.Name
			}
		}
	}
	best := ""
	var bestV *mmsemver.Version
	for _, ch := range channels {
		if ch.Package != pkg {
			continue
		}
		head, _ := model.ShapeOf(ch.Entries).Head()
		v := c.versions[pkg][head]
		switch {
		case best == "",
			v != nil && (bestV == nil || v.GreaterThan(bestV)),
			(v == nil) == (bestV == nil) && (v == nil || v.Equal(bestV)) && ch.Name < best:
			best, bestV = ch.Name, v
		}
	}
	return best
}

// quoteList is "a", "b" and "c".
func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return textout.JoinAnd(q)
}

// prereleaseHint says why a range kept nothing when the channel's bundles
// in it are prereleases (1.2.5274-c04833d for >=1.2.0), which a range
// without a prerelease never matches, and how to keep them; "" otherwise.
func prereleaseHint(cons *mmsemver.Constraints, rng string, entries []declcfg.ChannelEntry, versions map[string]*mmsemver.Version) string {
	for _, e := range entries {
		v := versions[e.Name]
		if v == nil || v.Prerelease() == "" {
			continue
		}
		core, err := v.SetPrerelease("")
		if err != nil || !cons.Check(&core) {
			continue
		}
		hint := fmt.Sprintf(" (fbc: its bundles in that range are prereleases, such as %s, and a range without a prerelease matches none", v.Original())
		if bound := rangeBound.FindString(rng); bound != "" {
			hint += fmt.Sprintf("; write the version as %s-0 to keep them", bound)
		}
		return hint + ")"
	}
	return ""
}

// rangeBound is the first version a range names.
var rangeBound = regexp.MustCompile(`\d+\.\d+\.\d+`)
