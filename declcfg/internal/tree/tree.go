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

import (
	"strconv"
	"sync"
)

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

// Slab sizes: a node slab holds slabNodes nodes (about 11 KB), a pointer
// slab the children of many small collections.
const (
	slabNodes = 128
	slabPtrs  = 512
)

// An Arena hands out the nodes of a document's tree, and the slices of
// their children, from slabs: one allocation per slabNodes nodes instead of
// one per node (a catalog file's tree is tens of thousands of nodes). A
// reader that is done with the trees made from an arena gives its slabs
// back (Release), and the next trees are made from them: validating a
// catalog then allocates a few documents' worth of nodes instead of the
// catalog's.
//
// An arena is used by one goroutine at a time.
type Arena struct {
	nodes []Node  // what is left of the current node slab
	ptrs  []*Node // what is left of the current pointer slab
	// nodeSlabs and ptrSlabs are the slabs taken, for Release.
	nodeSlabs []*[slabNodes]Node
	ptrSlabs  []*[slabPtrs]*Node
}

var (
	nodeSlabPool = sync.Pool{New: func() any { return new([slabNodes]Node) }}
	ptrSlabPool  = sync.Pool{New: func() any { return new([slabPtrs]*Node) }}
)

// Node returns a new node holding n.
func (a *Arena) Node(n Node) *Node {
	if len(a.nodes) == 0 {
		s := nodeSlabPool.Get().(*[slabNodes]Node)
		a.nodeSlabs = append(a.nodeSlabs, s)
		a.nodes = s[:]
	}
	at := &a.nodes[0]
	*at = n
	a.nodes = a.nodes[1:]
	return at
}

// Ptrs returns a slice of n node pointers, all nil; long ones are
// allocated on their own.
func (a *Arena) Ptrs(n int) []*Node {
	if n > slabPtrs/8 {
		return make([]*Node, n)
	}
	if len(a.ptrs) < n {
		s := ptrSlabPool.Get().(*[slabPtrs]*Node)
		a.ptrSlabs = append(a.ptrSlabs, s)
		a.ptrs = s[:]
	}
	c := a.ptrs[:n:n]
	a.ptrs = a.ptrs[n:]
	return c
}

// Release gives the arena's slabs back for other trees, cleared. Every
// node made from the arena and every slice of children it handed out must
// be unreachable by then (a reader that keeps a node, or a child list,
// would see another document's). The arena is empty afterwards.
func (a *Arena) Release() {
	for _, s := range a.nodeSlabs {
		clear(s[:])
		nodeSlabPool.Put(s)
	}
	for _, s := range a.ptrSlabs {
		clear(s[:])
		ptrSlabPool.Put(s)
	}
	*a = Arena{}
}

// The limits of what one text may hold, which every parser of declcfg
// applies (declcfg exports them): far above what any catalog, template or
// manifest holds (the shared corpus of real catalogs nests 36 levels at
// most, its largest value is under 1 MiB and its largest document about
// 2 MiB; Kubernetes stores no object over about 1.5 MiB), and low enough
// that a text made to exhaust fbc (a hundred thousand '[', a 100 MB value)
// is refused at once instead of costing seconds and gigabytes. A file may
// hold any number of documents.
const (
	// MaxDepth is how deeply collections may nest.
	MaxDepth = 1000
	// MaxScalar is the longest text one scalar (a string, a number, a
	// block of text) may take.
	MaxScalar = 16 << 20
	// MaxDocument is the longest text one document (a blob: one YAML
	// document, one value of a JSON stream) may take.
	MaxDocument = 64 << 20
)

// MiB says a size in mebibytes, as the limits' errors do.
func MiB(n int) string {
	if n%(1<<20) == 0 {
		return strconv.Itoa(n>>20) + " MiB"
	}
	return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
}

// DepthMessage, ScalarMessage and DocumentMessage are the errors of a text
// past the limits, the same whichever parser finds it (parsers stop at the
// limit, so the size past it is not known).
func DepthMessage() string {
	return "nesting deeper than " + strconv.Itoa(MaxDepth) + " levels, the limit fbc reads"
}

func ScalarMessage() string {
	return "a value longer than " + MiB(MaxScalar) + ", the limit of one value"
}

func DocumentMessage() string {
	return "a document longer than " + MiB(MaxDocument) + ", the limit of one document (a file may hold any number of documents)"
}

// LimitError is a text past one of the limits, where the parser found it
// (Line and Col 1-based, Col in characters).
type LimitError struct {
	Line, Col int
	Msg       string
}

func (e *LimitError) Error() string { return e.Msg }
