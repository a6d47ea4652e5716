// Package fastyaml reads the block-style YAML opm writes into declcfg's
// node trees (internal/tree), the trees yaml.v3 builds converted
// (FromYAML), several times faster.
//
// Catalog YAML is almost always written by opm (sigs.k8s.io/yaml): block
// mappings and sequences, one-line scalars, literal block scalars. yaml.v3
// scans such files byte by byte through an internal buffer, which makes it the
// bulk of the cost of loading a catalog. Parse reads exactly that subset
// with bulk byte scans and builds the same trees. On anything outside
// the subset (comments, anchors, tags, flow collections, folded scalars,
// tabs, CRLF, errors) it gives up and the caller parses the file with
// yaml.v3, which stays the definition of YAML here.
// TestFastYAMLMatchesYAMLv3 and FuzzFastYAML hold the two to the same trees.
//
// It earns its place: on the certified v4.16 and v4.18 catalog.yaml files of
// the shared corpus (72 MB), BenchmarkParse measured yaml.v3 at 18.8-30.8
// MB/s and Parse at 169-315 MB/s, 9.0-10.2 times as fast, in two runs on a
// shared 2-core machine (borrowing changes little: 166-309 MB/s):
//
//	go test ./declcfg/internal/fastyaml -run '^$' -bench . -benchtime 3x
package fastyaml

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"

	"github.com/fbc-project/fbc/declcfg/internal/tree"
	"github.com/fbc-project/fbc/internal/borrow"
	"github.com/fbc-project/fbc/internal/textscan"
)

// Doc is one document of a YAML stream: its root node and line. Empty is set
// for documents with no content (then Node may be nil).
type Doc struct {
	Node  *tree.Node
	Line  int
	Empty bool
}

// DocOf is the Doc of a document node yaml.v3 decoded, converted to a tree
// (FromYAML): a document without content, or whose content is an empty
// plain null, is empty.
func DocOf(doc *yaml.Node) Doc {
	d := Doc{Line: doc.Line}
	if len(doc.Content) == 0 {
		d.Empty = true
		return d
	}
	root := FromYAML(doc.Content[0])
	d.Node, d.Line = root, root.Line
	if root.Kind == tree.ScalarNode && root.Tag == "!!null" && root.Value == "" {
		d.Empty = true
	}
	return d
}

// FromYAML converts a yaml.v3 node tree: each node keeps its kind, style,
// short tag (resolved now), value and position; an alias points at the
// converted node its anchor names, so a tree that refers to itself stays
// one.
func FromYAML(n *yaml.Node) *tree.Node {
	return (&converter{}).node(n)
}

// converter remembers the converted nodes that have anchors, which aliases
// refer to (anchored before their aliases, as the parser reads them).
type converter struct {
	seen map[*yaml.Node]*tree.Node
}

func (c *converter) node(n *yaml.Node) *tree.Node {
	if n == nil {
		return nil
	}
	if t, ok := c.seen[n]; ok {
		return t
	}
	t := &tree.Node{
		Kind:   tree.Kind(n.Kind),
		Style:  tree.Style(n.Style),
		Value:  n.Value,
		Line:   n.Line,
		Column: n.Column,
	}
	if n.Anchor != "" {
		if c.seen == nil {
			c.seen = map[*yaml.Node]*tree.Node{}
		}
		c.seen[n] = t
	}
	if n.Kind != yaml.AliasNode {
		t.Tag = n.ShortTag()
	}
	if n.Alias != nil {
		t.Alias = c.node(n.Alias)
		t.Tag = t.Alias.Tag
	}
	if len(n.Content) > 0 {
		t.Content = make([]*tree.Node, len(n.Content))
		for i, k := range n.Content {
			t.Content[i] = c.node(k)
		}
	}
	return t
}

// resolve is the tag YAML's core schema gives a plain scalar, as yaml.v3
// resolves it.
func resolve(value string) string {
	n := yaml.Node{Kind: yaml.ScalarNode, Value: value}
	return n.ShortTag()
}

type fastYAML struct {
	data []byte
	// borrow lets long plain scalars share data's memory (borrow.String).
	borrow bool
	lines  []lineSpan
	i      int // current line index
	// start overrides where the current line's content begins (a compact
	// mapping inside "- key: value" starts after the dash).
	start int
	// arena is where nodes and their children's slices are taken from.
	arena *tree.Arena
	// base is the file's line number of the text's first line.
	base int
	// stack holds the children of the collections being read; each gets
	// them in a slice of their exact length, taken from the arena
	// (children): appending to each Content one child at a time grew and
	// copied it.
	stack []*tree.Node
	// depth counts the collections being read, for tree.MaxDepth.
	depth int
}

// limit stops the parse at a text past one of tree's limits: the text is
// not YAML fbc reads, and yaml.v3 would only take longer to say more.
func (p *fastYAML) limit(line, off int, msg string) {
	panic(&tree.LimitError{Line: p.lineNo(line), Col: p.col(line, off), Msg: msg})
}

// enter counts a collection starting at line, refusing one nested deeper
// than tree.MaxDepth.
func (p *fastYAML) enter(line int) {
	if p.depth++; p.depth > tree.MaxDepth {
		p.limit(line, max(p.lines[line].indent, 0), tree.DepthMessage())
	}
}

// Scratch is the memory parsing a text uses besides its tree: reused for
// the next text (ParseIn), a file's documents are parsed without
// allocating it again for each. One goroutine at a time may use it.
type Scratch struct {
	lines []lineSpan
	stack []*tree.Node
}

// lineNo is the file's line number of line index i.
func (p *fastYAML) lineNo(i int) int { return p.base + i }

// children pops the nodes pushed on the stack since base and returns them
// in a slice of their exact length.
func (p *fastYAML) children(base int) []*tree.Node {
	c := p.arena.Ptrs(len(p.stack) - base)
	copy(c, p.stack[base:])
	clear(p.stack[base:])
	p.stack = p.stack[:base]
	return c
}

// newNode returns a new node holding n.
func (p *fastYAML) newNode(n tree.Node) *tree.Node { return p.arena.Node(n) }

type lineSpan struct {
	start, end int // byte offsets of the line without its newline
	indent     int // leading spaces; -1 for blank lines
}

// bail aborts the fast path.
type bail struct{}

// Parse reads a YAML stream in the subset it handles: ok is false for any
// other stream (the caller then parses it with yaml.v3), and for one past
// tree's limits. With borrow, long plain scalars share data's memory
// (borrow.String).
func Parse(data []byte, borrow bool) (docs []Doc, ok bool) {
	return ParseAt(data, borrow, 1)
}

// ParseAt is Parse for a text that starts at line first of its file: the
// documents and nodes carry the file's lines.
func ParseAt(data []byte, borrow bool, first int) (docs []Doc, ok bool) {
	docs, ok, err := ParseIn(data, borrow, first, nil, nil)
	return docs, ok && err == nil
}

// ParseIn is ParseAt with the memory it works in: the trees' nodes come
// from arena and the rest from scratch (either may be nil: then they are
// allocated for this text alone). A text past one of tree's limits (a
// document longer than tree.MaxDocument, a scalar longer than
// tree.MaxScalar, collections nested deeper than tree.MaxDepth) is a
// *tree.LimitError, found as soon as the parse reaches it: no other parser
// need read it.
func ParseIn(data []byte, borrow bool, first int, scratch *Scratch, arena *tree.Arena) (docs []Doc, ok bool, err error) {
	// Tabs are whitespace in some places and content in others; opm never
	// writes them, so files with tabs go to yaml.v3.
	if !printable(data) || bytes.IndexByte(data, '\t') >= 0 {
		return nil, false, nil
	}
	if scratch == nil {
		scratch = &Scratch{}
	}
	if arena == nil {
		arena = &tree.Arena{}
	}
	p := &fastYAML{data: data, start: -1, borrow: borrow, base: first, arena: arena, lines: scratch.lines[:0], stack: scratch.stack[:0]}
	p.splitLines()
	defer func() {
		clear(p.stack[:cap(p.stack)])
		scratch.lines, scratch.stack = p.lines[:0], p.stack[:0]
		if r := recover(); r != nil {
			switch r := r.(type) {
			case bail:
				docs, ok = nil, false
			case *tree.LimitError:
				docs, ok, err = nil, true, r
			default:
				panic(r)
			}
		}
	}()
	return p.stream(), true, nil
}

// printable reports whether data holds only characters YAML allows in a
// stream, without line breaks other than \n (which the line splitter does not
// handle).
func printable(data []byte) bool {
	for i := 0; i < len(data); {
		if i += textscan.Printable(data[i:]); i == len(data) {
			break
		}
		c := data[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\n') || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return false
		case r == 0x85, r == 0x2028, r == 0x2029:
			return false // line breaks to yaml.v3, not to the line splitter
		case r >= 0xA0 && r <= 0xD7FF, r >= 0xE000 && r <= 0xFFFD && r != 0xFEFF, r >= 0x10000 && r <= 0x10FFFF:
		default:
			return false
		}
		i += size
	}
	return true
}

func (p *fastYAML) splitLines() {
	if n := bytes.Count(p.data, []byte("\n")) + 1; cap(p.lines) < n {
		p.lines = make([]lineSpan, 0, n)
	}
	for off := 0; off <= len(p.data); {
		end := bytes.IndexByte(p.data[off:], '\n')
		if end < 0 {
			end = len(p.data)
		} else {
			end += off
		}
		ls := lineSpan{start: off, end: end, indent: -1}
		for j := off; j < end; j++ {
			if p.data[j] != ' ' {
				ls.indent = j - off
				break
			}
		}
		p.lines = append(p.lines, ls)
		if end == len(p.data) {
			break
		}
		off = end + 1
	}
}

func (p *fastYAML) text(i int) []byte { return p.data[p.lines[i].start:p.lines[i].end] }

// col converts a byte offset in line i to yaml.v3's 1-based character column.
func (p *fastYAML) col(i, off int) int {
	seg := p.data[p.lines[i].start : p.lines[i].start+off]
	for _, c := range seg {
		if c >= utf8.RuneSelf {
			return utf8.RuneCount(seg) + 1
		}
	}
	return off + 1
}

// skipBlank moves past blank lines; comments and directives bail.
func (p *fastYAML) skipBlank() {
	for p.i < len(p.lines) && p.lines[p.i].indent < 0 {
		p.i++
	}
	if p.i < len(p.lines) {
		t := p.text(p.i)[p.lines[p.i].indent:]
		if t[0] == '#' || t[0] == '%' {
			panic(bail{})
		}
	}
}

func (p *fastYAML) isDocMarker(i int) bool {
	t := p.text(i)
	if len(t) < 3 || p.lines[i].indent != 0 {
		return false
	}
	if string(t[:3]) == "---" || string(t[:3]) == "..." {
		if len(t) == 3 && t[0] == '-' {
			return true
		}
		panic(bail{}) // "--- content", "..." and friends
	}
	return false
}

func (p *fastYAML) stream() []Doc {
	var docs []Doc
	first := true
	for {
		p.skipBlank()
		if p.i >= len(p.lines) {
			return docs
		}
		explicit := false
		if p.isDocMarker(p.i) {
			explicit = true
			p.i++
			p.skipBlank()
		} else if !first {
			panic(bail{})
		}
		first = false
		if p.i >= len(p.lines) || p.isDocMarker(p.i) {
			if explicit {
				// "---" with nothing after it: yaml.v3 yields an empty null document.
				docs = append(docs, Doc{Empty: true, Line: p.i + p.base - 1})
			}
			continue
		}
		if p.lines[p.i].indent != 0 {
			panic(bail{})
		}
		if start := p.lines[p.i].start; len(p.data)-start > tree.MaxDocument && p.docEnd(p.i)-start > tree.MaxDocument {
			p.limit(p.i, 0, tree.DocumentMessage())
		}
		n := p.node(0, true)
		docs = append(docs, Doc{Node: n, Line: n.Line})
		p.skipBlank()
		if p.i < len(p.lines) && !p.isDocMarker(p.i) {
			panic(bail{})
		}
	}
}

// docEnd is the byte offset where the document starting at line i ends:
// the next document marker, or the end of the text.
func (p *fastYAML) docEnd(i int) int {
	for j := i + 1; j < len(p.lines); j++ {
		if t := p.text(j); p.lines[j].indent == 0 && (bytes.HasPrefix(t, []byte("---")) || bytes.HasPrefix(t, []byte("..."))) {
			return p.lines[j].start
		}
	}
	return len(p.data)
}

// lineContent returns the current line's content and its byte offset.
func (p *fastYAML) lineContent() ([]byte, int) {
	off := p.lines[p.i].indent
	if p.start >= 0 {
		off = p.start
	}
	return p.text(p.i)[off:], off
}

// node parses the block node starting at the current line, whose content is
// at column indent.
func (p *fastYAML) node(indent int, top bool) *tree.Node {
	t, _ := p.lineContent()
	if IsSeqItem(t) {
		return p.sequence(indent)
	}
	if _, _, ok := SplitKey(t); ok {
		return p.mapping(indent)
	}
	if top {
		panic(bail{}) // a scalar document
	}
	panic(bail{})
}

// IsSeqItem reports whether a line's content t starts a block sequence item.
func IsSeqItem(t []byte) bool {
	return len(t) > 0 && t[0] == '-' && (len(t) == 1 || t[1] == ' ')
}

// SplitKey finds "key: value" or "key:" in t. ok is false on keys the fast
// path does not handle (complex keys, flow collections, anchors, tags).
func SplitKey(t []byte) (key []byte, rest []byte, ok bool) {
	if len(t) == 0 {
		return nil, nil, false
	}
	switch t[0] {
	case '"', '\'':
		end := ClosingQuote(t)
		if end < 0 || end+1 >= len(t) || t[end+1] != ':' {
			return nil, nil, false
		}
		if end+2 < len(t) && t[end+2] != ' ' {
			return nil, nil, false
		}
		return t[:end+1], t[end+2:], true
	case '?', '[', '{', '&', '*', '!', '|', '>', '%', '@', '`', '#', ',', ']', '}':
		return nil, nil, false
	}
	for j := 0; j < len(t); j++ {
		if t[j] == ':' && (j+1 == len(t) || t[j+1] == ' ') {
			if j == 0 {
				return nil, nil, false
			}
			return t[:j], t[j+1:], true
		}
		if t[j] == '#' && j > 0 && t[j-1] == ' ' {
			return nil, nil, false
		}
	}
	return nil, nil, false
}

// ClosingQuote returns the index of the quote closing the scalar at t[0].
func ClosingQuote(t []byte) int {
	q := t[0]
	for j := 1; j < len(t); j++ {
		switch {
		case q == '"' && t[j] == '\\':
			j++
		case t[j] == q:
			if q == '\'' && j+1 < len(t) && t[j+1] == '\'' {
				j++
				continue
			}
			return j
		}
	}
	return -1
}

func (p *fastYAML) mapping(indent int) *tree.Node {
	p.enter(p.i)
	m := p.newNode(tree.Node{Kind: tree.MappingNode, Tag: "!!map"})
	base := len(p.stack)
	for {
		t, off := p.lineContent()
		line := p.i
		keyText, rest, ok := SplitKey(t)
		if !ok || len(keyText) > 1000 {
			panic(bail{}) // YAML limits implicit keys to 1024 characters
		}
		key := p.scalarToken(keyText, line, off)
		if m.Line == 0 {
			m.Line, m.Column = key.Line, key.Column
		}
		p.start = -1
		value := p.value(rest, line, off+len(keyText)+1, indent)
		p.stack = append(p.stack, key, value)
		// A sequence item at the mapping's indent belongs to an enclosing
		// sequence.
		if !p.more(indent) || IsSeqItem(p.text(p.i)[indent:]) {
			break
		}
	}
	m.Content = p.children(base)
	p.depth--
	return m
}

// more skips blank lines and reports whether the block collection at indent
// goes on at the next line: one at the same indent, before the end and any
// document marker. A line indented further bails.
func (p *fastYAML) more(indent int) bool {
	p.skipBlank()
	if p.i >= len(p.lines) || p.isDocMarker(p.i) {
		return false
	}
	next := p.lines[p.i].indent
	if next > indent {
		panic(bail{})
	}
	return next == indent
}

func (p *fastYAML) sequence(indent int) *tree.Node {
	p.enter(p.i)
	s := p.newNode(tree.Node{Kind: tree.SequenceNode, Tag: "!!seq"})
	base := len(p.stack)
	for {
		t, off := p.lineContent()
		if !IsSeqItem(t) {
			panic(bail{})
		}
		line := p.i
		if s.Line == 0 {
			s.Line, s.Column = p.lineNo(line), p.col(line, off)
		}
		rest := t[1:]
		p.start = -1
		item := p.item(rest, line, off+1, indent)
		p.stack = append(p.stack, item)
		// A key at the sequence's indent belongs to the enclosing mapping.
		if !p.more(indent) || !IsSeqItem(p.text(p.i)[indent:]) {
			break
		}
	}
	s.Content = p.children(base)
	p.depth--
	return s
}

// item parses what follows "-" on line (rest starts at byte off).
func (p *fastYAML) item(rest []byte, line, off, seqIndent int) *tree.Node {
	trimmed := bytes.TrimLeft(rest, " ")
	if len(trimmed) == 0 {
		return p.nested(line, seqIndent, true)
	}
	contentOff := off + len(rest) - len(trimmed)
	if IsSeqItem(trimmed) {
		panic(bail{}) // "- - x"
	}
	if _, _, ok := SplitKey(trimmed); ok {
		// A compact mapping: its keys sit at the column after "- ".
		p.start = contentOff
		return p.mapping(contentOff)
	}
	return p.inlineValue(trimmed, line, contentOff, seqIndent)
}

// value parses what follows "key:" (rest starts at byte off of line).
func (p *fastYAML) value(rest []byte, line, off, mapIndent int) *tree.Node {
	trimmed := bytes.TrimLeft(rest, " ")
	if len(trimmed) == 0 {
		return p.nested(line, mapIndent, false)
	}
	contentOff := off + len(rest) - len(trimmed)
	return p.inlineValue(trimmed, line, contentOff, mapIndent)
}

// nested parses a value that starts on a later line. In a mapping, a
// sequence may sit at the key's own indentation.
func (p *fastYAML) nested(line, parentIndent int, inSeq bool) *tree.Node {
	p.i = line + 1
	p.skipBlank()
	if p.i >= len(p.lines) || p.isDocMarker(p.i) {
		panic(bail{}) // an empty value: yaml.v3 positions it in ways not worth copying
	}
	next := p.lines[p.i].indent
	t := p.text(p.i)[next:]
	if next > parentIndent || (!inSeq && next == parentIndent && IsSeqItem(t)) {
		return p.node(next, false)
	}
	panic(bail{})
}

// inlineValue parses a scalar (or empty flow collection, or block scalar)
// that starts on line at byte off; indent is the enclosing block's.
func (p *fastYAML) inlineValue(t []byte, line, off, indent int) *tree.Node {
	switch t[0] {
	case '|':
		return p.literal(t, line, off, indent)
	case '{', '[':
		if string(t) == "{}" {
			p.i = line + 1
			return p.newNode(tree.Node{Kind: tree.MappingNode, Tag: "!!map", Style: tree.FlowStyle, Line: p.lineNo(line), Column: p.col(line, off)})
		}
		if string(t) == "[]" {
			p.i = line + 1
			return p.newNode(tree.Node{Kind: tree.SequenceNode, Tag: "!!seq", Style: tree.FlowStyle, Line: p.lineNo(line), Column: p.col(line, off)})
		}
		panic(bail{})
	case '"', '\'':
		if ClosingQuote(t) < 0 {
			return p.quotedLines(line, off, indent)
		}
		n := p.scalarToken(t, line, off)
		p.i = line + 1
		return n
	}
	n := p.plain(t, line, off, indent)
	return n
}

// quotedLines parses a quoted scalar that spans lines, folding line breaks
// as YAML does: one break becomes a space, each further (empty) line a
// newline, and the whitespace around breaks goes; in double quotes a
// backslash at the end of a line joins the lines without a space.
func (p *fastYAML) quotedLines(line, off, indent int) *tree.Node {
	start := p.lines[line].start + off
	q := p.data[start]
	end := -1
	for j := start + 1; j < len(p.data); j++ {
		c := p.data[j]
		if q == '"' && c == '\\' {
			j++
			continue
		}
		if c == q {
			if q == '\'' && j+1 < len(p.data) && p.data[j+1] == '\'' {
				j++
				continue
			}
			end = j
			break
		}
	}
	if end < 0 {
		panic(bail{})
	}
	if end-start-1 > tree.MaxScalar {
		p.limit(line, off, tree.ScalarMessage())
	}
	segs := bytes.Split(p.data[start+1:end], []byte("\n"))
	last := line + len(segs) - 1
	// Continuation lines must be indented past the enclosing block, and
	// nothing may follow the closing quote.
	for k := line + 1; k <= last; k++ {
		if ls := p.lines[k]; ls.indent >= 0 && ls.indent <= indent {
			panic(bail{})
		}
	}
	if tail := p.data[end+1 : p.lines[last].end]; len(bytes.TrimLeft(tail, " ")) > 0 {
		panic(bail{})
	}
	var b []byte
	breaks := 0
	for k, seg := range segs {
		joined := false
		if k > 0 {
			seg = bytes.TrimLeft(seg, " \t")
		}
		if k < len(segs)-1 {
			trimmed := bytes.TrimRight(seg, " \t")
			if len(trimmed) < len(seg) && len(trimmed) > 0 && trimmed[len(trimmed)-1] == '\\' {
				panic(bail{}) // an escaped space before the break
			}
			seg = trimmed
			if q == '"' && endsWithOddBackslashes(seg) {
				seg = seg[:len(seg)-1]
				joined = true
			}
		}
		if len(seg) == 0 && (joined || joinedPrev(b)) {
			panic(bail{}) // escaped breaks next to empty lines: rare, and subtle
		}
		if k > 0 && len(seg) == 0 && k < len(segs)-1 {
			breaks++
			continue
		}
		if k > 0 {
			switch {
			case breaks > 0:
				b = append(b, bytes.Repeat([]byte("\n"), breaks)...)
			case !joinedPrev(b):
				b = append(b, ' ')
			}
		}
		breaks = 0
		b = append(b, seg...)
		if joined {
			b = append(b, 0) // marks "join without a space"; removed below
		}
	}
	b = bytes.ReplaceAll(b, []byte{0}, nil)
	n := p.newNode(tree.Node{Kind: tree.ScalarNode, Tag: "!!str", Line: p.lineNo(line), Column: p.col(line, off)})
	if q == '"' {
		n.Style = tree.DoubleQuotedStyle
		n.Value = unquoteDouble(b)
	} else {
		n.Style = tree.SingleQuotedStyle
		n.Value = strings.ReplaceAll(string(b), "''", "'")
	}
	p.i = last + 1
	return n
}

func joinedPrev(b []byte) bool { return len(b) > 0 && b[len(b)-1] == 0 }

func endsWithOddBackslashes(b []byte) bool {
	n := 0
	for j := len(b) - 1; j >= 0 && b[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
}

// scalarToken parses a complete one-line scalar (a key, or a quoted value).
func (p *fastYAML) scalarToken(t []byte, line, off int) *tree.Node {
	if len(t) > tree.MaxScalar {
		p.limit(line, off, tree.ScalarMessage())
	}
	n := p.newNode(tree.Node{Kind: tree.ScalarNode, Line: p.lineNo(line), Column: p.col(line, off)})
	switch t[0] {
	case '"':
		end := ClosingQuote(t)
		if end != len(t)-1 {
			panic(bail{})
		}
		n.Value = unquoteDouble(t[1:end])
		n.Tag, n.Style = "!!str", tree.DoubleQuotedStyle
	case '\'':
		end := ClosingQuote(t)
		if end != len(t)-1 {
			panic(bail{})
		}
		n.Value = strings.ReplaceAll(string(t[1:end]), "''", "'")
		n.Tag, n.Style = "!!str", tree.SingleQuotedStyle
	default:
		checkPlain(t)
		n.Value = string(t)
		n.Tag = plainTag(n)
	}
	return n
}

// plainTag is the tag YAML's core schema resolves a plain scalar to, as
// yaml.v3's ShortTag does. Most values of a catalog (names, images,
// descriptions) start with a letter that can start no other kind of value,
// or are one of the few words that are not strings; those are told here,
// where yaml.v3 boxes every value it resolves (an allocation per scalar).
// Values that could be numbers, timestamps or floats go to yaml.v3.
func plainTag(n *tree.Node) string {
	v := n.Value
	if v == "" {
		return resolve(v)
	}
	switch c := v[0]; {
	case c == '+' || c == '-' || c == '.' || '0' <= c && c <= '9':
		return resolve(v)
	case strings.IndexByte("yYnNtTfFoO~<", c) >= 0:
		switch v {
		case "true", "True", "TRUE", "false", "False", "FALSE":
			return "!!bool"
		case "~", "null", "Null", "NULL":
			return "!!null"
		case "<<":
			return "!!merge"
		}
	}
	return "!!str"
}

// checkPlain bails on plain scalars whose meaning depends on rules the fast
// path does not implement.
func checkPlain(t []byte) {
	switch t[0] {
	case '&', '*', '!', '|', '>', '%', '@', '`', '#', ',', '[', ']', '{', '}', '"', '\'':
		panic(bail{})
	case '-', '?', ':':
		if len(t) == 1 || t[1] == ' ' {
			panic(bail{})
		}
	}
	if t[len(t)-1] == ' ' || t[len(t)-1] == ':' {
		panic(bail{})
	}
	if bytes.Contains(t, []byte(": ")) || bytes.Contains(t, []byte(" #")) {
		panic(bail{})
	}
	if string(t) == "<<" {
		panic(bail{})
	}
}

// checkContinuation bails on continuation lines of a plain scalar that a
// comment or a mapping value could end. Indicators at the start of a
// continuation line are content in block context: "- e.g" more indented than
// the enclosing block continues the scalar, as YAML 1.2 (ns-plain-char) and
// libyaml read it, and is no sequence item.
func checkContinuation(t []byte) {
	if t[0] == '#' || t[len(t)-1] == ' ' || t[len(t)-1] == ':' ||
		bytes.Contains(t, []byte(": ")) || bytes.Contains(t, []byte(" #")) {
		panic(bail{})
	}
}

// plain parses a plain scalar, folding continuation lines (more indented than
// the enclosing block) as YAML does.
func (p *fastYAML) plain(t []byte, line, off, indent int) *tree.Node {
	if len(t) > tree.MaxScalar {
		p.limit(line, off, tree.ScalarMessage())
	}
	checkPlain(t)
	n := p.newNode(tree.Node{Kind: tree.ScalarNode, Line: p.lineNo(line), Column: p.col(line, off)})
	p.i = line + 1
	var b []byte
	blanks := 0
	for j := p.i; j < len(p.lines); j++ {
		ls := p.lines[j]
		if ls.indent < 0 {
			blanks++
			continue
		}
		if ls.indent <= indent || p.isDocMarker(j) {
			break
		}
		cont := p.text(j)[ls.indent:]
		checkContinuation(cont)
		if b == nil {
			b = append(b, t...)
		}
		if blanks == 0 {
			b = append(b, ' ')
		}
		for ; blanks > 0; blanks-- {
			b = append(b, '\n')
		}
		b = append(b, cont...)
		if len(b) > tree.MaxScalar {
			p.limit(line, off, tree.ScalarMessage())
		}
		p.i = j + 1
	}
	if b != nil {
		n.Value = string(b)
	} else {
		n.Value = borrow.String(t, p.borrow)
	}
	n.Tag = plainTag(n)
	return n
}

// blockHeader reads a literal block scalar's header: "|", then a chomping
// indicator ('-' strip, '+' keep) and an indentation indicator (1-9), each
// optional, in either order ("|2-", "|-2"). Anything else (trailing
// comments, "|0", two digits) bails.
func blockHeader(h []byte) (chomp byte, explicit int) {
	h = h[1:]
	for len(h) > 0 {
		switch c := h[0]; {
		case (c == '-' || c == '+') && chomp == 0:
			chomp = c
		case c >= '1' && c <= '9' && explicit == 0:
			explicit = int(c - '0')
		default:
			panic(bail{})
		}
		h = h[1:]
	}
	return chomp, explicit
}

// literal parses a "|" block scalar with clip, strip or keep chomping and an
// optional indentation indicator.
func (p *fastYAML) literal(header []byte, line, off, indent int) *tree.Node {
	chomp, explicit := blockHeader(header)
	n := p.newNode(tree.Node{Kind: tree.ScalarNode, Tag: "!!str", Style: tree.LiteralStyle, Line: p.lineNo(line), Column: p.col(line, off)})
	// The block's indentation is the enclosing block's plus the indicator
	// (libyaml's parser.indent + increment: indent is the column of the
	// mapping's keys or of the sequence's dashes), or without one that of
	// its first non-blank line; then leading blank lines must be truly empty
	// (whitespace-only ones have subtle rules). With an indicator, blank
	// lines of at most blockIndent spaces are empty lines, and longer ones
	// (content) bail below.
	first := line + 1
	for first < len(p.lines) && p.lines[first].indent < 0 {
		if explicit == 0 && p.lines[first].end > p.lines[first].start {
			panic(bail{})
		}
		first++
	}
	blockIndent := indent + explicit
	if explicit == 0 {
		if first < len(p.lines) {
			blockIndent = p.lines[first].indent
		}
		if blockIndent <= indent {
			panic(bail{}) // an empty block scalar
		}
	}
	if first >= len(p.lines) || p.lines[first].indent < blockIndent || p.isDocMarker(first) {
		panic(bail{}) // an empty block scalar
	}
	var b strings.Builder
	last := first // last content line
	for k := line + 1; k < len(p.lines); k++ {
		ls := p.lines[k]
		if ls.indent < 0 {
			if ls.end-ls.start > blockIndent {
				panic(bail{}) // spaces beyond the indentation on a blank line are content
			}
			continue
		}
		if ls.indent < blockIndent || p.isDocMarker(k) {
			break
		}
		last = k
	}
	// Line breaks after the last content line: its own, and those of the
	// blank lines that follow it inside the block (a final newline of the
	// file does not start another line).
	trailing := 0
	for k := last; k < len(p.lines) && (k == last || p.lines[k].indent < 0); k++ {
		if p.lines[k].end < len(p.data) {
			trailing++
		}
	}
	size := trailing
	for k := line + 1; k <= last; k++ {
		size++
		if ls := p.lines[k]; ls.indent >= 0 {
			size += ls.end - ls.start - blockIndent
		}
	}
	if size > tree.MaxScalar {
		p.limit(line, off, tree.ScalarMessage())
	}
	b.Grow(size) // the text is copied once, not grown by doubling
	for k := line + 1; k <= last; k++ {
		if k > line+1 {
			b.WriteByte('\n')
		}
		if ls := p.lines[k]; ls.indent >= 0 {
			b.Write(p.data[ls.start+blockIndent : ls.end])
		}
	}
	switch chomp {
	case '+':
		b.WriteString(strings.Repeat("\n", trailing))
	case 0:
		if trailing > 0 {
			b.WriteByte('\n')
		}
	}
	n.Value = b.String()
	p.i = last + 1
	return n
}

// unquoteDouble decodes a one-line double-quoted scalar's escapes.
func unquoteDouble(t []byte) string {
	if bytes.IndexByte(t, '\\') < 0 {
		return string(t)
	}
	var b strings.Builder
	for j := 0; j < len(t); j++ {
		c := t[j]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		j++
		if j >= len(t) {
			panic(bail{})
		}
		switch t[j] {
		case '\\', '"':
			b.WriteByte(t[j])
		case 'n':
			b.WriteByte('\n')
		case 't', '\t':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case '0':
			b.WriteByte(0)
		case 'a':
			b.WriteByte('\a')
		case 'v':
			b.WriteByte('\v')
		case 'e':
			b.WriteByte(0x1b)
		case ' ':
			b.WriteByte(' ')
		case 'x', 'u', 'U':
			width := map[byte]int{'x': 2, 'u': 4, 'U': 8}[t[j]]
			if j+1+width > len(t) {
				panic(bail{})
			}
			v, err := strconv.ParseUint(string(t[j+1:j+1+width]), 16, 32)
			if err != nil || v > utf8.MaxRune || (v >= 0xD800 && v <= 0xDFFF) {
				panic(bail{})
			}
			b.WriteRune(rune(v))
			j += width
		default:
			panic(bail{})
		}
	}
	return b.String()
}
