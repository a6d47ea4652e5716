package graph

import (
	blang "github.com/blang/semver/v4"

	"github.com/fbc-project/fbc/model"
)

// EdgeKind names how a channel entry declares that it upgrades a bundle.
type EdgeKind = model.EdgeKind

// The three edge kinds of an olm.channel entry.
const (
	EdgeReplaces  = model.EdgeReplaces
	EdgeSkips     = model.EdgeSkips
	EdgeSkipRange = model.EdgeSkipRange
)

// Edge is one reason an entry is a successor of an installed bundle.
type Edge struct {
	Kind    EdgeKind
	Channel string
	// SkipRange is the entry's range for EdgeSkipRange.
	SkipRange string
}

// coverage is an entry position and the edges by which it covers the
// installed bundle.
type coverage struct {
	pos   int
	edges []Edge
}

// cover lists the entries of ix that replace or skip name, or whose
// skipRange contains v (when hasVersion), in position order: the model's
// edge index, with each edge named for the picture and the explanations.
func cover(ix *model.EdgeIndex, name string, v blang.Version, hasVersion bool) []coverage {
	var vp *blang.Version
	if hasVersion {
		vp = &v
	}
	cs := ix.Cover(name, vp)
	if len(cs) == 0 {
		return nil
	}
	n := 0
	for _, c := range cs {
		n += len(c.Kinds)
	}
	all := make([]Edge, 0, n)
	out := make([]coverage, len(cs))
	for i, c := range cs {
		start := len(all)
		for _, kind := range c.Kinds {
			e := Edge{Kind: kind, Channel: c.Entry.Channel.Name}
			if kind == EdgeSkipRange {
				e.SkipRange = c.Entry.SkipRange
			}
			all = append(all, e)
		}
		out[i] = coverage{pos: c.Index, edges: all[start:len(all):len(all)]}
	}
	return out
}
