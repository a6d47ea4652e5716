package template

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/blang/semver/v4"
	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/model"
)

// genChannel is a channel the semver template generates.
type genChannel struct {
	arch    Archetype
	kind    StreamKind
	ch      *declcfg.Channel
	created semver.Version // version of the bundle that created it (its lowest)
}

// slot is one bundle's entry in one channel.
type slot struct {
	ch     *genChannel
	idx    int
	m      member
	reason string
}

func (s *slot) entry() *declcfg.ChannelEntry { return &s.ch.ch.Entries[s.idx] }

// group is the entries that edges may connect: one archetype, one kind, one
// major version, in ascending version order. With minor channels a group
// spans several channels.
type group struct {
	arch  Archetype
	kind  StreamKind
	major uint64
	slots []*slot
}

type generated struct {
	channels       []*genChannel
	groups         []*group
	defaultChannel string
	defaultWhy     string
	skipRange      bool
}

func channelName(a Archetype, k StreamKind, v semver.Version) string {
	if k == Major {
		return fmt.Sprintf("%s-v%d", a, v.Major)
	}
	return fmt.Sprintf("%s-v%d.%d", a, v.Major, v.Minor)
}

// highWater is a default-channel candidate.
type highWater struct {
	arch    Archetype
	kind    StreamKind
	version semver.Version
	name    string
}

// above is opm's default-channel order: the more stable archetype, then the
// higher version of the bundle that created the channel, then the preferred
// kind, then minor over major. So the preference only breaks exact ties: a
// minor channel created by a higher version beats the major channel that
// holds it.
func (h highWater) above(o highWater, pref StreamKind) bool {
	if h.arch.priority() != o.arch.priority() {
		return h.arch.priority() > o.arch.priority()
	}
	if c := h.version.Compare(o.version); c != 0 {
		return c > 0
	}
	if h.kind != o.kind {
		if h.kind == pref {
			return true
		}
		if o.kind == pref {
			return false
		}
		return h.kind.priority() > o.kind.priority()
	}
	return false
}

// generate builds the channels of a semver template from its bundles
// (ascending per archetype), picks the default channel and links the edges.
func generate(t *semverTemplate, pkg string, members map[Archetype][]member, skipRange bool) *generated {
	g := &generated{skipRange: skipRange}
	byName := map[string]*genChannel{}
	groups := map[[3]any]*group{}
	var kinds []StreamKind
	if t.major {
		kinds = append(kinds, Major)
	}
	if t.minor {
		kinds = append(kinds, Minor)
	}
	var best *highWater
	var tie string
	for _, a := range archetypes {
		for _, m := range members[a] {
			for _, k := range kinds {
				name := channelName(a, k, m.version)
				gc := byName[name]
				if gc == nil {
					gc = &genChannel{arch: a, kind: k, created: m.version,
						ch: &declcfg.Channel{Schema: declcfg.SchemaChannel, Name: name, Package: pkg, Entries: []declcfg.ChannelEntry{}}}
					byName[name] = gc
					g.channels = append(g.channels, gc)
					cand := highWater{arch: a, kind: k, version: m.version, name: name}
					switch {
					case best == nil || cand.above(*best, t.preference):
						if best != nil && best.arch == a && best.version.EQ(m.version) {
							tie = best.name
						} else {
							tie = ""
						}
						best = &cand
					case best.arch == a && best.version.EQ(m.version):
						tie = name
					}
				}
				gc.ch.Entries = append(gc.ch.Entries, declcfg.ChannelEntry{Name: m.name, Pos: m.pos})
				key := [3]any{a, k, m.version.Major}
				gr := groups[key]
				if gr == nil {
					gr = &group{arch: a, kind: k, major: m.version.Major}
					groups[key] = gr
					g.groups = append(g.groups, gr)
				}
				gr.slots = append(gr.slots, &slot{ch: gc, idx: len(gc.ch.Entries) - 1, m: m})
			}
		}
	}
	if best != nil {
		g.defaultChannel = best.name
		g.defaultWhy = fmt.Sprintf("%s is the most stable archetype with bundles, and of its channels %s was created by the highest version (%s)",
			best.arch, best.name, best.version)
		if tie != "" {
			g.defaultWhy += fmt.Sprintf("; %s was created by the same version, and defaultChannelTypePreference %s breaks the tie", tie, t.preference)
		}
	}
	slices.SortStableFunc(g.groups, func(x, y *group) int {
		return cmp.Or(cmp.Compare(x.arch.priority(), y.arch.priority()), cmp.Compare(x.kind.priority(), y.kind.priority()), cmp.Compare(x.major, y.major))
	})
	for _, gr := range g.groups {
		if skipRange {
			linkRanges(gr)
		} else {
			linkGroup(gr)
		}
	}
	slices.SortFunc(g.channels, func(x, y *genChannel) int { return strings.Compare(x.ch.Name, y.ch.Name) })
	return g
}

// streams splits a group's slots into Y-streams (same minor version).
func streams(gr *group) [][]*slot {
	var out [][]*slot
	for i, s := range gr.slots {
		if i == 0 || s.m.version.Minor != gr.slots[i-1].m.version.Minor {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], s)
	}
	return out
}

// linkGroup applies opm's z-stream rule: only the highest Z of each Y-stream
// gets edges. It replaces the highest Z of the previous Y-stream and skips
// every other lower version of the group (earlier Y-streams included); the
// replaced bundle is not also skipped, because OLM classic drops a replaces
// edge whose target is skipped. Nothing links across archetypes, kinds or
// majors.
func linkGroup(gr *group) {
	ys := streams(gr)
	var seen []string // names of the group below the current stream head
	prevHead := ""
	for k, st := range ys {
		head := st[len(st)-1]
		for _, s := range st[:len(st)-1] {
			seen = append(seen, s.m.name)
			s.reason = fmt.Sprintf("not the highest %s: no edges of its own; %s skips it", yName(s.m.version), head.m.name)
		}
		e := head.entry()
		e.Replaces = prevHead
		var skips []string
		for _, n := range seen {
			if n != prevHead {
				skips = append(skips, n)
			}
		}
		slices.Sort(skips)
		if len(skips) > 0 {
			e.Skips = skips
		}
		switch {
		case k > 0:
			head.reason = fmt.Sprintf("highest %s: replaces %s, the highest %s%s", yName(head.m.version), prevHead, yName(ys[k-1][0].m.version), elsewhere(ys[k-1][len(ys[k-1])-1], head))
			if len(skips) > 0 {
				head.reason += fmt.Sprintf(", and skips the %d other lower %s %s", len(skips), gr.arch, plural(len(skips), "version", "versions")) + fmt.Sprintf(" of %d.y.z", gr.major)
			}
		case len(skips) > 0:
			head.reason = fmt.Sprintf("highest %s: skips the %d lower %s", yName(head.m.version), len(skips), plural(len(skips), "version", "versions"))
		case len(ys) > 1:
			head.reason = fmt.Sprintf("the only %s and the lowest %s %d.y.z version: no edges of its own; %s replaces it", yName(head.m.version), gr.arch, gr.major, ys[1][len(ys[1])-1].m.name)
		default:
			head.reason = fmt.Sprintf("the only %s %d.y.z version: no edges (fbc never links across archetypes, channel kinds or majors)", gr.arch, gr.major)
		}
		seen = append(seen, head.m.name)
		prevHead = head.m.name
	}
}

// linkRanges is --skip-range: every entry replaces the next lower version of
// its group, so all entries sit on one replaces chain (no stranded bundles,
// one head), and each Y-stream head with lower Zs carries a skipRange over
// its own Y-stream so those upgrade to it in one step. A version of an
// earlier Y-stream reaches the head in two steps: its own Y-stream head
// (by that head's skipRange), then the replaces chain.
func linkRanges(gr *group) {
	for _, st := range streams(gr) {
		head := st[len(st)-1]
		if len(st) > 1 {
			v := head.m.version
			lower := semver.Version{Major: v.Major, Minor: v.Minor}
			if st[0].m.version.LT(lower) {
				// a prerelease of X.Y.0: "-0" is the lowest prerelease
				lower.Pre = []semver.PRVersion{{VersionNum: 0, IsNum: true}}
			}
			upper := v
			upper.Build = nil
			head.entry().SkipRange = fmt.Sprintf(">=%s <%s", lower, upper)
		}
	}
	for i, s := range gr.slots {
		e := s.entry()
		if i == 0 {
			s.reason = fmt.Sprintf("lowest %s %d.y.z version: no edges (fbc never links across archetypes, channel kinds or majors)", gr.arch, gr.major)
		} else {
			prev := gr.slots[i-1]
			e.Replaces = prev.m.name
			s.reason = fmt.Sprintf("replaces %s, the next lower version%s", prev.m.name, elsewhere(prev, s))
		}
		if e.SkipRange != "" {
			s.reason += fmt.Sprintf("; highest %s, so its skipRange %q takes every lower %s straight to it", yName(s.m.version), e.SkipRange, yName(s.m.version))
		}
	}
}

func yName(v semver.Version) string { return fmt.Sprintf("%d.%d.z", v.Major, v.Minor) }

// elsewhere notes when an edge points into another channel (minor
// channels: a Y-stream head replaces the previous minor channel's head).
func elsewhere(target, from *slot) string {
	if target.ch == from.ch {
		return ""
	}
	return " (in channel " + target.ch.ch.Name + ")"
}

// defaultHead is the head of the default channel (the bundle a fresh
// install gets), "" when it has none.
func (g *generated) defaultHead() string {
	for _, c := range g.channels {
		if c.ch.Name == g.defaultChannel {
			head, _ := model.ShapeOf(c.ch.Entries).Head()
			return head
		}
	}
	return ""
}

// Explanation says why a semver template produced the channels it did.
type Explanation struct {
	DefaultChannel string
	DefaultReason  string
	Channels       []ChannelExplanation
}

// ChannelExplanation is one generated channel.
type ChannelExplanation struct {
	Name      string
	Archetype Archetype
	Kind      StreamKind
	Entries   []EntryExplanation
}

// EntryExplanation is one entry, its edges and the reason for them.
type EntryExplanation struct {
	Name      string
	Version   string
	Replaces  string
	Skips     []string
	SkipRange string
	Reason    string
}

func (g *generated) explain() *Explanation {
	x := &Explanation{DefaultChannel: g.defaultChannel, DefaultReason: g.defaultWhy}
	reasons := map[*genChannel][]*slot{}
	for _, gr := range g.groups {
		for _, s := range gr.slots {
			reasons[s.ch] = append(reasons[s.ch], s)
		}
	}
	for _, c := range g.channels {
		ce := ChannelExplanation{Name: c.ch.Name, Archetype: c.arch, Kind: c.kind}
		for _, s := range reasons[c] {
			e := s.entry()
			ce.Entries = append(ce.Entries, EntryExplanation{Name: e.Name, Version: s.m.version.String(),
				Replaces: e.Replaces, Skips: e.Skips, SkipRange: e.SkipRange, Reason: s.reason})
		}
		x.Channels = append(x.Channels, ce)
	}
	return x
}

// WriteText prints the explanation for people.
func (x *Explanation) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "default channel %s: %s\n", x.DefaultChannel, x.DefaultReason)
	for _, c := range x.Channels {
		fmt.Fprintf(&b, "\nchannel %s (%s, %s channel)\n", c.Name, c.Archetype, c.Kind)
		for _, e := range c.Entries {
			fmt.Fprintf(&b, "  %s (%s)\n", e.Name, e.Version)
			if e.Replaces != "" {
				fmt.Fprintf(&b, "      replaces:  %s\n", e.Replaces)
			}
			if len(e.Skips) > 0 {
				fmt.Fprintf(&b, "      skips:     %s\n", strings.Join(e.Skips, ", "))
			}
			if e.SkipRange != "" {
				fmt.Fprintf(&b, "      skipRange: %s\n", e.SkipRange)
			}
			fmt.Fprintf(&b, "      why:       %s\n", e.Reason)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
