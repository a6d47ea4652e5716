package compose

import (
	"slices"

	"github.com/blang/semver/v4"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/model"
)

// This file re-draws a channel's upgrade graph over a subset of its entries.
// The rules follow opm's model checks (a valid channel has one head, the
// replaces chain from the head reaches every entry that no entry skips, and
// names that are not in the channel may be replaced or skipped freely), so a
// subset of a valid channel is again a valid channel:
//
//   - A kept entry's replaces is re-pointed along the original replaces chain
//     to the nearest kept entry. When none is kept below it, the original
//     value stays: a dangling replaces on the tail is valid and still gives a
//     cluster running that (dropped) bundle its upgrade edge.
//   - skips are kept as written (a skipped name need not exist). Entries that
//     only a dropped entry skipped are inherited by the kept entry that
//     replaced or skipped the dropped one, so they stay skipped rather than
//     stranded. skipRange is kept as written: it describes installed
//     versions, not channel entries.
//   - If the kept entries fall apart into several tops (their common
//     ancestors were all dropped), the top with the highest version becomes
//     the head: it replaces the top of what is left of the original replaces
//     chain when it has no kept replaces of its own, and skips the other tops.
//   - Any entry still stranded (only a skipped entry replaces it) is added to
//     the skips of the entry that replaces it: the same upgrade edge, made
//     visible to opm's stranded-bundle check.

// versionOf reports the semver version of a channel entry's bundle.
type versionOf func(name string) (semver.Version, bool)

// onChain reports whether name is on the replaces chain from the head. In a
// channel without a single head every entry counts, so replaces edges are
// still followed.
func onChain(s *model.Shape, name string) bool {
	_, single := s.Head()
	return !single || s.OnChain(name)
}

// subsetEntries returns the entries of a channel that keep admits, with
// edges re-drawn as described at the top of this file. Entries keep their
// original order.
func subsetEntries(entries []declcfg.ChannelEntry, keep func(string) bool, version versionOf) []declcfg.ChannelEntry {
	orig := model.ShapeOf(entries)
	var out []declcfg.ChannelEntry
	done := map[string]bool{}
	for _, p := range entries {
		if !keep(p.Name) || done[p.Name] {
			continue
		}
		done[p.Name] = true
		out = append(out, redrawEntry(orig, p, keep))
	}
	if len(out) == 0 {
		return nil
	}
	// Cutting can also open a replaces cycle that a dropped entry's skip
	// used to close off (opm stops walking the chain at a skipped entry);
	// each round removes one edge, so this ends.
	for range len(out) + 1 {
		joinTops(orig, out, version)
		unstrand(out)
		if !breakCycle(out) {
			break
		}
	}
	return out
}

// breakCycle removes the replaces edge that leads opm's walk from the head
// back into the chain it has walked, if there is one.
func breakCycle(out []declcfg.ChannelEntry) bool {
	cycle := model.ShapeOf(out).Cycle()
	if cycle == nil {
		return false
	}
	// The loop closes at its last entry: its replaces leads back.
	for i := range out {
		if out[i].Name == cycle[len(cycle)-2] {
			out[i].Replaces = ""
			return true
		}
	}
	return false
}

// redrawEntry computes a kept entry's edges over the kept entries.
func redrawEntry(orig *model.Shape, p declcfg.ChannelEntry, keep func(string) bool) declcfg.ChannelEntry {
	ne := declcfg.ChannelEntry{Name: p.Name, Replaces: p.Replaces, SkipRange: p.SkipRange, Pos: p.Pos, ReplacesPos: p.ReplacesPos, SkipRangePos: p.SkipRangePos}
	ne.Skips = slices.Clone(p.Skips)
	visited := map[string]bool{p.Name: true}
	var dropped []string // dropped entries whose skips p inherits
	for _, s := range p.Skips {
		if orig.Has(s) && !keep(s) {
			dropped = append(dropped, s)
		}
	}
	if onChain(orig, p.Name) {
		for r := p.Replaces; ; {
			e := orig.Entry(r)
			if e == nil || visited[r] {
				break
			}
			if keep(r) {
				ne.Replaces = r
				break
			}
			visited[r] = true
			dropped = append(dropped, e.Skips...)
			if !onChain(orig, r) {
				break
			}
			r = e.Replaces
		}
	}
	for len(dropped) > 0 {
		s := dropped[0]
		dropped = dropped[1:]
		e := orig.Entry(s)
		if e == nil || visited[s] {
			continue
		}
		visited[s] = true
		if keep(s) {
			if !slices.Contains(ne.Skips, s) {
				ne.Skips = append(ne.Skips, s)
			}
			continue
		}
		dropped = append(dropped, e.Skips...)
	}
	// An entry that replaces itself upgrades nothing. opm accepts one off
	// the replaces chain (skipped by another entry); once the entries
	// around it are gone, the edge would leave it stranded, or close a
	// cycle when a re-pointed replaces reaches it. (A self-skip stays: it
	// ends opm's walk of the replaces chain at that entry.)
	if ne.Replaces == ne.Name {
		ne.Replaces = ""
	}
	return ne
}

// joinTops makes one head out of several tops, or out of none.
func joinTops(orig *model.Shape, out []declcfg.ChannelEntry, version versionOf) {
	cur := model.ShapeOf(out)
	// The highest version wins; among equals (or unknown versions), the
	// entry on the original replaces chain, then the earlier one.
	rank := func(a, b string) int {
		va, oka := version(a)
		vb, okb := version(b)
		switch {
		case oka && okb:
			if c := va.Compare(vb); c != 0 {
				return -c
			}
		case oka:
			return -1
		case okb:
			return 1
		}
		ca, cb := orig.OnChain(a), orig.OnChain(b)
		if ca != cb {
			if ca {
				return -1
			}
			return 1
		}
		ia, _ := cur.Index(a)
		ib, _ := cur.Index(b)
		return ia - ib
	}
	if len(cur.Heads()) == 0 {
		// Every kept entry is replaced or skipped by a kept one: what is
		// left is a cycle (entries that skip each other, or themselves)
		// that only the dropped head stood above, which opm accepts below a
		// head but not without one. The highest entry becomes the head and
		// the edges into it go.
		names := make([]string, len(out))
		for i, e := range out {
			names[i] = e.Name
		}
		head := slices.MinFunc(names, rank)
		for i := range out {
			if out[i].Replaces == head {
				out[i].Replaces = ""
			}
			out[i].Skips = slices.DeleteFunc(out[i].Skips, func(s string) bool { return s == head })
		}
		cur = model.ShapeOf(out)
	}
	tops := cur.Heads()
	if len(tops) <= 1 {
		return
	}
	slices.SortStableFunc(tops, rank)
	head := cur.Entry(tops[0])
	rest := tops[1:]
	if !cur.Has(head.Replaces) {
		// Prefer the top of the original replaces chain, so the chain below
		// it stays a chain.
		pick := 0
		for i, t := range rest {
			if orig.OnChain(t) {
				pick = i
				break
			}
		}
		if head.Replaces != "" && !slices.Contains(head.Skips, head.Replaces) {
			head.Skips = append(head.Skips, head.Replaces)
		}
		head.Replaces = rest[pick]
		rest = slices.Delete(slices.Clone(rest), pick, pick+1)
	}
	for _, t := range rest {
		if !slices.Contains(head.Skips, t) {
			head.Skips = append(head.Skips, t)
		}
	}
}

// unstrand skips every entry that only a skipped entry replaces, until opm
// would find nothing stranded. Each round skips at least one more entry, so
// it ends within len(out) rounds.
func unstrand(out []declcfg.ChannelEntry) {
	for range len(out) {
		stranded := model.ShapeOf(out).Stranded()
		if len(stranded) == 0 {
			return
		}
		for _, y := range stranded {
			for i := range out {
				if out[i].Replaces == y && out[i].Name != y {
					out[i].Skips = append(out[i].Skips, y)
					break
				}
			}
		}
	}
}

// channelHead returns the single head of a channel's entries, if it has one.
func channelHead(entries []declcfg.ChannelEntry) (string, bool) {
	return model.ShapeOf(entries).Head()
}

// Subset returns the entries of a channel that keep admits, with their
// edges re-drawn as described at the top of this file, so that a subset of
// a valid channel is a valid channel; version gives the semver version of an
// entry's bundle. Entries keep their order; entries is not changed.
func Subset(entries []declcfg.ChannelEntry, keep func(string) bool, version func(name string) (semver.Version, bool)) []declcfg.ChannelEntry {
	return subsetEntries(entries, keep, version)
}
