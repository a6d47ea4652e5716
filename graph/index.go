package graph

import "github.com/fbc-project/fbc/model"

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

// appendEdges appends the edges by which a covering entry upgrades the
// installed bundle, named for the explanations.
func appendEdges(dst []Edge, c model.Coverage) []Edge {
	for _, kind := range c.Kinds {
		e := Edge{Kind: kind, Channel: c.Entry.Channel.Name}
		if kind == EdgeSkipRange {
			e.SkipRange = c.Entry.SkipRange
		}
		dst = append(dst, e)
	}
	return dst
}
