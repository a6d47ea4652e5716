// Package tree is the document tree declcfg parses files into: a node per
// mapping, sequence and scalar, each with its line and column. declcfg
// exports it as declcfg.Node, so that no package outside declcfg depends on
// the YAML library that defines YAML here (go.yaml.in/yaml/v3).
//
// The kinds, styles and tags mean what yaml.v3's do, and have the same
// values, so that a tree converted from yaml.v3's is the same tree. A node
// keeps what declcfg and its users read (no comments, no anchor names) and
// its tag already resolved, so it is about half the size of a yaml.v3 node
// and reading its tag costs nothing.
package tree

// Kind is the kind of a node.
type Kind uint8

const (
	DocumentNode Kind = 1 << iota
	SequenceNode
	MappingNode
	ScalarNode
	AliasNode
)

// Style is how a node was written.
type Style uint8

const (
	TaggedStyle Style = 1 << iota
	DoubleQuotedStyle
	SingleQuotedStyle
	LiteralStyle
	FoldedStyle
	FlowStyle
)

// Node is one node of a document.
type Node struct {
	Kind  Kind
	Style Style

	// Tag is the node's short tag ("!!str", "!!int", "!!map", or a local
	// tag such as "!custom"), resolved when the node was parsed.
	Tag string

	// Value is a scalar's text, or an alias's anchor name.
	Value string

	// Alias is the node an alias refers to.
	Alias *Node

	// Content holds a document's root, a sequence's items, or a mapping's
	// keys and values, alternating.
	Content []*Node

	// Line and Column are 1-based; the column counts characters.
	Line, Column int
}
