package declcfg

import "github.com/fbc-project/fbc/declcfg/internal/tree"

// Node is a node of a parsed document: a mapping, sequence, scalar or alias,
// with its resolved tag and its line and column. Every file declcfg reads,
// JSON or YAML, is parsed into these trees (see internal/tree).
type Node = tree.Node

// Kind is the kind of a Node.
type Kind = tree.Kind

// Style is how a Node was written (quoted, literal, flow).
type Style = tree.Style

// The kinds of node.
const (
	DocumentNode = tree.DocumentNode
	SequenceNode = tree.SequenceNode
	MappingNode  = tree.MappingNode
	ScalarNode   = tree.ScalarNode
	AliasNode    = tree.AliasNode
)

// The styles of node.
const (
	TaggedStyle       = tree.TaggedStyle
	DoubleQuotedStyle = tree.DoubleQuotedStyle
	SingleQuotedStyle = tree.SingleQuotedStyle
	LiteralStyle      = tree.LiteralStyle
	FoldedStyle       = tree.FoldedStyle
	FlowStyle         = tree.FlowStyle
)
