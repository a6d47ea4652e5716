package validate

import (
	"github.com/fbc-project/fbc/declcfg"
)

// An in-memory blob (a template's or compose's result) is checked on the
// tree of its encoding (declcfg.BlobDocument), whose positions are the
// encoding's and mean nothing to a user. When the blob was loaded from a
// file it still knows where it and some of its parts were: the blob, each
// property, each channel entry and its skipRange, each deprecation entry,
// its reference and name, the default channel. placeBlob gives the tree
// those positions, each node taking the nearest one above it, so that a
// problem is reported at the property or entry at fault rather than at the
// blob's first line.

// placeBlob sets the positions of a blob's tree from what its typed blob
// kept. at is the blob's own position.
func placeBlob(root *declcfg.Node, b declcfg.Blob, at declcfg.Pos) {
	setPos(root, at)
	switch {
	case b.Package != nil:
		placeAt(field(root, "defaultChannel"), b.Package.DefaultChannelPos)
		placeProperties(root, b.Package.Properties)
	case b.Channel != nil:
		placeProperties(root, b.Channel.Properties)
		entries := items(field(root, "entries"))
		if len(entries) != len(b.Channel.Entries) {
			return
		}
		for i, e := range b.Channel.Entries {
			placeAt(entries[i], e.Pos)
			placeAt(field(entries[i], "replaces"), e.ReplacesPos)
			placeAt(field(entries[i], "skipRange"), e.SkipRangePos)
		}
	case b.Bundle != nil:
		placeProperties(root, b.Bundle.Properties)
	case b.Deprecation != nil:
		entries := items(field(root, "entries"))
		if len(entries) != len(b.Deprecation.Entries) {
			return
		}
		for i, e := range b.Deprecation.Entries {
			placeAt(entries[i], e.Pos)
			ref := field(entries[i], "reference")
			placeAt(ref, e.ReferencePos)
			placeAt(field(ref, "name"), e.NamePos)
		}
	}
}

func placeProperties(root *declcfg.Node, props []declcfg.Property) {
	nodes := items(field(root, "properties"))
	if len(nodes) != len(props) {
		return
	}
	for i, p := range props {
		placeAt(nodes[i], p.Pos)
	}
}

// placeAt moves a subtree to p, when p is known.
func placeAt(n *declcfg.Node, p declcfg.Pos) {
	if n != nil && p.Line > 0 {
		setPos(n, p)
	}
}

// setPos puts every node of a subtree at p.
func setPos(n *declcfg.Node, p declcfg.Pos) {
	if n == nil {
		return
	}
	n.Line, n.Column = p.Line, p.Col
	for _, c := range n.Content {
		setPos(c, p)
	}
}
