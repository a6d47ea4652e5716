package model

import (
	"fmt"
	"slices"
	"strings"

	"github.com/blang/semver/v4"

	"github.com/fbc-project/fbc/declcfg"
)

// A channel without exactly one head, or with a loop, breaks at an entry:
// the one whose replaces names something not in the channel (a typo leaves
// the bundle it meant unreplaced, a second head), one that replaces nothing
// although an older entry waits for it, one that replaces itself, or the
// edge that closes a circle. The explanations below find that entry, so
// that the problem is reported where the fix goes, with the fix, instead of
// at the channel.

// entryVersion is the version of an entry's bundle, false when the entry
// has no bundle or the bundle no valid version.
func entryVersion(e *Entry) (semver.Version, bool) {
	if e == nil || e.Bundle == nil || e.Bundle.VersionErr != nil {
		return semver.Version{}, false
	}
	return e.Bundle.SemVer, true
}

// versionNote is " (VERSION)" for an entry with a version, "" otherwise.
func versionNote(e *Entry) string {
	if v, ok := entryVersion(e); ok {
		return " (" + v.String() + ")"
	}
	return ""
}

// replacesAt is where an entry's replaces edge is written: its value, else
// the entry, else the channel.
func replacesAt(ch *Channel, e *Entry) declcfg.Pos { return or(e.ReplacesPos, e.Pos, ch.Pos) }

// selfReplaces reports the entries that replace themselves where it does
// harm: nothing else skips them, so the edge puts them on a loop, strands
// them, or takes the place of the edge to the entry they follow. (opm
// accepts a self-replace that another entry skips: the skip ends its walk
// there.) It reports whether there were any: the channel's heads, loops and
// stranded entries then follow from them and are not reported.
func (r *reporter) selfReplaces(ch *Channel) bool {
	var selfish []*Entry
	for _, e := range ch.Entries {
		if e.Replaces == e.Name {
			selfish = append(selfish, e)
		}
	}
	if len(selfish) == 0 {
		return false
	}
	skippedByOther := map[string]bool{}
	for _, e := range ch.Entries {
		for _, s := range e.Skips {
			if s != e.Name {
				skippedByOther[s] = true
			}
		}
	}
	found := false
	for _, e := range selfish {
		if skippedByOther[e.Name] {
			continue
		}
		found = true
		msg := fmt.Sprintf("entry %q of channel %q replaces itself; an entry replaces an older one", e.Name, ch.Name)
		if prev := olderHead(ch, e); prev != nil {
			msg += fmt.Sprintf(": did you mean %q%s, the newest entry below it that nothing replaces?", prev.Name, versionNote(prev))
		} else {
			msg += ": point replaces at the entry it follows, or remove it"
		}
		r.add(RuleReplacesCycle, replacesAt(ch, e), ch.Name, e.Name, msg)
	}
	return found
}

// olderHead is the entry with the highest version below e's that no entry
// but e replaces or skips: what e most likely meant to replace. nil when
// versions do not tell.
func olderHead(ch *Channel, e *Entry) *Entry {
	v, ok := entryVersion(e)
	if !ok {
		return nil
	}
	replaced := map[string]bool{}
	for _, o := range ch.Entries {
		if o == e {
			continue
		}
		replaced[o.Replaces] = true
		for _, s := range o.Skips {
			replaced[s] = true
		}
	}
	var best *Entry
	var bestV semver.Version
	for _, o := range ch.Entries {
		ov, ok := entryVersion(o)
		if o == e || replaced[o.Name] || !ok || !ov.LT(v) {
			continue
		}
		if best == nil || ov.GT(bestV) {
			best, bestV = o, ov
		}
	}
	return best
}

// loop reports a circle of edges: names in the direction of the edges
// (a -> b: a replaces or skips b), the first repeated at the end. A
// replaces chain that loops below head is replaces-cycle; a channel whose
// entries all replace or skip each other (head "") has no head. The
// finding goes to the edge that points up, from an entry to a newer one,
// which is what is wrong in a circle of upgrades; without versions to
// tell, to the edge that closes it.
func (r *reporter) loop(ch *Channel, names []string, head string) {
	if len(names) < 2 {
		return
	}
	var parts []string
	kind := func(from, to *Entry) string {
		if from.Replaces == to.Name {
			return "replaces"
		}
		return "skips"
	}
	allReplaces := true
	at, atTo := -1, -1
	for i := 0; i+1 < len(names); i++ {
		from, to := ch.byName[names[i]], ch.byName[names[i+1]]
		if from == nil || to == nil {
			return
		}
		k := kind(from, to)
		if k != "replaces" {
			allReplaces = false
		}
		parts = append(parts, fmt.Sprintf("%s %s %s", from.Name, k, to.Name))
		fv, fok := entryVersion(from)
		tv, tok := entryVersion(to)
		if at < 0 && fok && tok && fv.LT(tv) {
			at, atTo = i, i+1
		}
	}
	circle := strings.Join(parts, ", ")
	rule := RuleReplacesCycle
	if !allReplaces {
		rule = RuleChannelHead
	}
	var where string
	if head != "" {
		where = fmt.Sprintf("the replaces chain from head %q of channel %q loops", head, ch.Name)
	} else {
		where = fmt.Sprintf("channel %q has no head: its entries %s each other in a cycle", ch.Name, orWords(allReplaces))
	}
	if at >= 0 {
		from, to := ch.byName[names[at]], ch.byName[names[atTo]]
		pos := or(from.Pos, ch.Pos)
		if kind(from, to) == "replaces" {
			pos = replacesAt(ch, from)
		}
		r.explained = append(r.explained, edgeRef{ch.Name, from.Name, to.Name})
		r.add(rule, pos, ch.Name, from.Name, fmt.Sprintf("entry %q%s %s %q%s, a newer version: %s (%s); an entry replaces or skips older ones",
			from.Name, versionNote(from), kind(from, to), to.Name, versionNote(to), where, circle))
		return
	}
	// No edge points up: report at the edge that closes the circle.
	last := ch.byName[names[len(names)-2]]
	pos := or(last.Pos, ch.Pos)
	if last.Replaces == names[len(names)-1] {
		pos = replacesAt(ch, last)
	}
	r.add(rule, pos, ch.Name, last.Name, fmt.Sprintf("%s: %s; break the cycle so that each entry replaces an older one", where, circle))
}

func orWords(onlyReplaces bool) string {
	if onlyReplaces {
		return "replace"
	}
	return "replace or skip"
}

// heads explains a channel with several heads, one finding per head too
// many, at the entry to fix:
//   - an entry whose replaces names no entry of the channel but is close to
//     a head's name (the same version in the name, or a few letters apart,
//     among heads older than the entry): a typo that left that head
//     unreplaced;
//   - else, for each head but the newest, the entry that should replace it:
//     the oldest newer one that replaces nothing (the foot of the newer
//     chain), or the head itself when there is none.
//
// Without versions to tell the newest head, what the typos do not explain
// is reported at the channel, as one problem.
func (r *reporter) heads(ch *Channel, heads []string) {
	listed := slices.Clone(heads)
	slices.Sort(listed)
	summary := fmt.Sprintf("channel %q has %d heads (%s)", ch.Name, len(heads), strings.Join(listed, ", "))
	headOf := chainHeads(ch, heads)
	explained := map[string]bool{}
	for _, e := range ch.Entries {
		if e.Replaces == "" || ch.byName[e.Replaces] != nil {
			continue
		}
		meant := meantHead(ch, e, heads, headOf)
		if meant == nil || explained[meant.Name] {
			continue
		}
		explained[meant.Name] = true
		r.explained = append(r.explained, edgeRef{ch.Name, e.Name, e.Replaces})
		r.add(RuleChannelHead, replacesAt(ch, e), ch.Name, e.Name, fmt.Sprintf(
			"entry %q replaces %q, which is not in channel %q; did you mean %q%s? As written nothing replaces %q, and %s",
			e.Name, e.Replaces, ch.Name, meant.Name, versionNote(meant), meant.Name, summary))
	}
	var rest []*Entry
	for _, h := range heads {
		if !explained[h] {
			rest = append(rest, ch.byName[h])
		}
	}
	if len(rest) < 2 {
		return
	}
	newest := newestEntry(rest)
	if newest == nil {
		names := make([]string, len(rest))
		for i, e := range rest {
			names[i] = e.Name
		}
		slices.Sort(names)
		r.add(RuleChannelHead, ch.Pos, ch.Name, "", fmt.Sprintf(
			"%s; exactly one entry may be left unreplaced: make the newer ones among %s replace or skip the others", summary, strings.Join(names, ", ")))
		return
	}
	for _, h := range rest {
		if h == newest {
			continue
		}
		if foot := footAbove(ch, h, headOf); foot != nil {
			how := "replaces nothing"
			switch {
			case foot.Replaces == foot.Name:
				how = "replaces itself"
			case foot.Replaces != "":
				how = fmt.Sprintf("replaces %q, which is not in the channel", foot.Replaces)
			}
			r.add(RuleChannelHead, or(foot.ReplacesPos, foot.Pos, ch.Pos), ch.Name, foot.Name, fmt.Sprintf(
				"entry %q%s %s, so nothing upgrades from %q%s and %s: make %q replace %q",
				foot.Name, versionNote(foot), how, h.Name, versionNote(h), summary, foot.Name, h.Name))
			continue
		}
		r.add(RuleChannelHead, or(h.Pos, ch.Pos), ch.Name, h.Name, fmt.Sprintf(
			"no entry replaces or skips %q%s, so %s; the newest is %q%s: make a newer entry replace or skip %q, or remove it",
			h.Name, versionNote(h), summary, newest.Name, versionNote(newest), h.Name))
	}
}

// chainHeads maps each entry on a head's replaces chain to that head (the
// first head to reach it).
func chainHeads(ch *Channel, heads []string) map[string]string {
	headOf := map[string]string{}
	for _, h := range heads {
		for cur := ch.byName[h]; cur != nil; cur = ch.byName[cur.Replaces] {
			if _, seen := headOf[cur.Name]; seen {
				break
			}
			headOf[cur.Name] = h
		}
	}
	return headOf
}

// meantHead is the head an entry's replaces most likely meant, when its
// target is not in the channel: among the heads of other chains than the
// entry's and older than it (when versions tell), the one whose version
// the target's name carries, else the one whose name is closest to the
// target (declcfg.Suggest). nil when none is close.
func meantHead(ch *Channel, e *Entry, heads []string, headOf map[string]string) *Entry {
	ev, eok := entryVersion(e)
	var cands []string
	for _, h := range heads {
		he := ch.byName[h]
		if h == e.Name || headOf[e.Name] == h {
			continue
		}
		if hv, ok := entryVersion(he); eok && ok && !hv.LT(ev) {
			continue
		}
		cands = append(cands, h)
	}
	if tv, ok := NameVersion(e.Replaces); ok {
		var same []string
		for _, h := range cands {
			if hv, ok := entryVersion(ch.byName[h]); ok && hv.EQ(tv) {
				same = append(same, h)
			}
		}
		if len(same) == 1 {
			return ch.byName[same[0]]
		}
	}
	if s := declcfg.Suggest(e.Replaces, cands); s != "" {
		return ch.byName[s]
	}
	return nil
}

// newestEntry is the entry of the highest version, nil when one has no
// version or two share the highest.
func newestEntry(es []*Entry) *Entry {
	var best *Entry
	var bestV semver.Version
	tie := false
	for _, e := range es {
		v, ok := entryVersion(e)
		if !ok {
			return nil
		}
		switch {
		case best == nil || v.GT(bestV):
			best, bestV, tie = e, v, false
		case v.EQ(bestV):
			tie = true
		}
	}
	if tie {
		return nil
	}
	return best
}

// footAbove is the entry that most likely should replace head h: of the
// entries newer than h on another chain that replace no entry of the
// channel (nothing, themselves, or a name not in it), the oldest. nil when
// there is none.
func footAbove(ch *Channel, h *Entry, headOf map[string]string) *Entry {
	hv, ok := entryVersion(h)
	if !ok {
		return nil
	}
	var best *Entry
	var bestV semver.Version
	for _, e := range ch.Entries {
		v, ok := entryVersion(e)
		if e == h || !ok || !hv.LT(v) || (e.Replaces != e.Name && ch.byName[e.Replaces] != nil) || headOf[e.Name] == h.Name {
			continue
		}
		if best == nil || v.LT(bestV) {
			best, bestV = e, v
		}
	}
	return best
}
