package declcfg

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/fbc-project/fbc/declcfg/internal/fastyaml"
)

// YAMLText is one YAML document being edited in place, for files people
// write and tools amend (catalog templates): each change is spliced into
// the text, so that everything it does not touch (comments, layout,
// quoting, long lines) stays byte for byte. A splice is checked by parsing
// the new text again; where the text cannot take one faithfully (inside a
// flow collection, a literal block ending in blank lines), the document is
// written again by yaml.v3, which keeps comments but not layout.
type YAMLText struct {
	name string
	data []byte
	doc  *yaml.Node // the document; nil for a text without one
	root *Node
	// nodes maps the nodes of root to the document's.
	nodes map[*Node]*yaml.Node
	// Rewritten is set once a change could not be spliced and the
	// document was written again as a whole.
	Rewritten bool
}

// EditYAML opens the YAML text data, named name in errors, for editing. It
// must hold at most one document; one holding none (empty, only comments)
// has a nil Root.
func EditYAML(name string, data []byte) (*YAMLText, error) {
	t := &YAMLText{name: name}
	if err := t.load(data); err != nil {
		return nil, err
	}
	return t, nil
}

func (t *YAMLText) load(data []byte) error {
	if pe := checkYAMLText(data); pe != nil {
		return &LoadError{Pos: Pos{File: t.name, Line: pe.Line, Col: pe.Col}, Rule: RuleSyntax, Msg: pe.Msg}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	err := dec.Decode(&doc)
	t.data, t.doc, t.root, t.nodes = data, nil, nil, nil
	if errors.Is(err, io.EOF) {
		return nil
	}
	if err != nil {
		line, msg := yamlErrorPos(err)
		return &LoadError{Pos: Pos{File: t.name, Line: yamlErrorLine(data, line, msg)}, Msg: msg}
	}
	var more yaml.Node
	if err := dec.Decode(&more); err == nil {
		return &LoadError{Pos: Pos{File: t.name, Line: more.Line}, Msg: "holds more than one YAML document"}
	} else if !errors.Is(err, io.EOF) {
		line, msg := yamlErrorPos(err)
		return &LoadError{Pos: Pos{File: t.name, Line: yamlErrorLine(data, line, msg)}, Msg: msg}
	}
	if len(doc.Content) == 0 {
		return nil
	}
	root := fastyaml.FromYAML(doc.Content[0])
	if pe := checkTree(root); pe != nil {
		return &LoadError{Pos: Pos{File: t.name, Line: pe.Line, Col: pe.Col}, Rule: RuleSyntax, Msg: pe.Msg}
	}
	t.doc = &doc
	t.root = root
	t.nodes = map[*Node]*yaml.Node{}
	pairNodes(t.nodes, t.root, doc.Content[0])
	return nil
}

// pairNodes maps a converted tree onto the yaml.v3 tree it came from.
func pairNodes(m map[*Node]*yaml.Node, n *Node, y *yaml.Node) {
	if _, done := m[n]; done {
		return
	}
	m[n] = y
	if y.Kind == yaml.AliasNode || len(n.Content) != len(y.Content) {
		return
	}
	for i := range n.Content {
		pairNodes(m, n.Content[i], y.Content[i])
	}
}

// Root is the document's root node, with the current text's positions;
// nil for a text without a document. Each change makes a new tree: nodes
// of an earlier one cannot be edited.
func (t *YAMLText) Root() *Node { return t.root }

// Bytes is the current text.
func (t *YAMLText) Bytes() []byte { return t.data }

// Append adds item at the end of the sequence seq (a node of Root()).
func (t *YAMLText) Append(seq *Node, item *Node) error {
	y, err := t.target(seq, yaml.SequenceNode, "a list")
	if err != nil {
		return err
	}
	style := t.style()
	added := toYAML(item)
	var text []byte
	switch {
	case y.Style&yaml.FlowStyle == 0:
		text = t.spliceBlock(y.Line, y.Column-1, false, itemText(added, style, y.Column-1))
	case len(y.Content) == 0:
		text = t.spliceEmptyFlow(y, "[", "]", func(col int) string { return itemText(added, style, col) }, style)
	}
	y.Content = append(y.Content, added)
	y.Style &^= yaml.FlowStyle
	return t.commit(text, style)
}

// AddKey adds key: value at the end of the mapping m (a node of Root()).
func (t *YAMLText) AddKey(m *Node, key string, value *Node) error {
	y, err := t.target(m, yaml.MappingNode, "a mapping")
	if err != nil {
		return err
	}
	style := t.style()
	k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}
	v := toYAML(value)
	var text []byte
	switch {
	case y.Style&yaml.FlowStyle == 0:
		text = t.spliceBlock(y.Line, y.Column-1, true, pairText(k, v, style, y.Column-1))
	case len(y.Content) == 0:
		text = t.spliceEmptyFlow(y, "{", "}", func(col int) string { return pairText(k, v, style, col) }, style)
	}
	y.Content = append(y.Content, k, v)
	y.Style &^= yaml.FlowStyle
	return t.commit(text, style)
}

func (t *YAMLText) target(n *Node, kind yaml.Kind, what string) (*yaml.Node, error) {
	y, ok := t.nodes[Deref(n)]
	if !ok {
		return nil, fmt.Errorf("%s: editing a node that is not in the current text", t.name)
	}
	if y.Kind == yaml.AliasNode {
		y = y.Alias
	}
	if y.Kind != kind {
		return nil, fmt.Errorf("%s:%d:%d: %s is not %s", t.name, y.Line, y.Column, KindName(n), what)
	}
	return y, nil
}

// commit takes the spliced text when it parses back to the edited
// document, and writes the document again otherwise.
func (t *YAMLText) commit(text []byte, style yamlStyle) error {
	want := t.doc
	if text != nil {
		if err := t.load(text); err == nil && t.doc != nil && sameYAML(t.doc, want, 0) {
			return nil
		}
	}
	out, err := encodeYAML(want, style, hasDocStart(t.data))
	if err != nil {
		return fmt.Errorf("%s: %w", t.name, err)
	}
	t.Rewritten = true
	return t.load(out)
}

// yamlStyle is how a file lays out its block collections, so that what is
// added looks like what is there.
type yamlStyle struct {
	indent  int  // spaces a nested mapping is indented by
	compact bool // a list under a key starts at the key's column
}

// style reads the layout of the first nested mapping and the first list
// under a key; the defaults are those of the release bot's writer (two
// spaces, compact lists).
func (t *YAMLText) style() yamlStyle {
	s := yamlStyle{indent: 2, compact: true}
	var seenMap, seenSeq bool
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		if depth > 64 || seenMap && seenSeq {
			return
		}
		if n.Kind == yaml.MappingNode && n.Style&yaml.FlowStyle == 0 {
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				if v.Style&yaml.FlowStyle != 0 || v.Line <= k.Line {
					continue
				}
				switch {
				case v.Kind == yaml.MappingNode && !seenMap && v.Column > k.Column:
					s.indent, seenMap = v.Column-k.Column, true
				case v.Kind == yaml.SequenceNode && !seenSeq:
					s.compact, seenSeq = v.Column == k.Column, true
					if !s.compact && !seenMap && v.Column > k.Column {
						s.indent = v.Column - k.Column
					}
				}
			}
		}
		for _, c := range n.Content {
			walk(c, depth+1)
		}
	}
	if t.doc != nil {
		walk(t.doc, 0)
	}
	if s.indent < 2 || s.indent > 9 {
		s.indent = 2
	}
	return s
}

// lines splits the text into lines, each with its end of line.
func (t *YAMLText) lines() [][]byte {
	return bytes.SplitAfter(t.data, []byte("\n"))
}

// spliceBlock inserts block after the last line of the block collection
// that starts at line start (1-based) with its items or keys at column col
// (0-based). A mapping's text runs on while lines are blank, comments or
// indented at least to col; a list's while they are blank, comments,
// indented deeper than col or items ("- ") at col. A document marker ends
// either.
func (t *YAMLText) spliceBlock(start, col int, mapping bool, block string) []byte {
	lines := t.lines()
	if start < 1 || start > len(lines) || loneCR(t.data) {
		return nil
	}
	block = t.lineEnds(block)
	last := start
	for l := start + 1; l <= len(lines); l++ {
		line := strings.TrimRight(string(lines[l-1]), "\r\n")
		trimmed := strings.TrimLeft(line, " ")
		if trimmed == "" || trimmed[0] == '#' {
			continue
		}
		if isDocMarker(line) {
			break
		}
		ind := len(line) - len(trimmed)
		if ind > col || ind == col && (mapping || trimmed == "-" || strings.HasPrefix(trimmed, "- ")) {
			last = l
			continue
		}
		break
	}
	var out bytes.Buffer
	for _, l := range lines[:last] {
		out.Write(l)
	}
	if !bytes.HasSuffix(out.Bytes(), []byte("\n")) {
		out.WriteString(t.lineEnds("\n"))
	}
	out.WriteString(block)
	for _, l := range lines[last:] {
		out.Write(l)
	}
	return out.Bytes()
}

// loneCR reports whether the text breaks lines with a bare carriage
// return, which YAML counts as a line break and splicing does not.
func loneCR(data []byte) bool {
	for i, c := range data {
		if c == '\r' && (i+1 == len(data) || data[i+1] != '\n') {
			return true
		}
	}
	return false
}

// lineEnds gives added text the text's line ends (CRLF or LF).
func (t *YAMLText) lineEnds(s string) string {
	if bytes.Contains(t.data, []byte("\r\n")) {
		return strings.ReplaceAll(s, "\n", "\r\n")
	}
	return s
}

func isDocMarker(line string) bool {
	if !strings.HasPrefix(line, "---") && !strings.HasPrefix(line, "...") {
		return false
	}
	return len(line) == 3 || line[3] == ' ' || line[3] == '\t'
}

// spliceEmptyFlow replaces an empty flow collection written as the value
// of a key on the key's line ("entries: []") with a block one. nil when it
// is written some other way.
func (t *YAMLText) spliceEmptyFlow(y *yaml.Node, open, close string, block func(col int) string, style yamlStyle) []byte {
	key := parentKey(t.doc, y)
	if key == nil || key.Line != y.Line {
		return nil
	}
	lines := t.lines()
	if y.Line < 1 || y.Line > len(lines) || loneCR(t.data) {
		return nil
	}
	line := string(lines[y.Line-1])
	body := strings.TrimRight(line, "\r\n")
	// The collection is the line's last non-comment text: "[" spaces "]".
	i := strings.Index(body, open)
	if i < 0 {
		return nil
	}
	rest := strings.TrimLeft(body[i+1:], " ")
	if !strings.HasPrefix(rest, close) {
		return nil
	}
	after := strings.TrimLeft(rest[1:], " ")
	if after != "" && after[0] != '#' {
		return nil
	}
	col := key.Column - 1
	if y.Kind == yaml.MappingNode || !style.compact {
		col += style.indent
	}
	head := strings.TrimRight(body[:i], " ")
	if after != "" {
		head += " " + after
	}
	var out bytes.Buffer
	for _, l := range lines[:y.Line-1] {
		out.Write(l)
	}
	out.WriteString(t.lineEnds(head + "\n" + block(col)))
	for _, l := range lines[y.Line:] {
		out.Write(l)
	}
	return out.Bytes()
}

// parentKey finds the key whose value is n.
func parentKey(doc, n *yaml.Node) *yaml.Node {
	var found *yaml.Node
	var walk func(p *yaml.Node, depth int)
	walk = func(p *yaml.Node, depth int) {
		if found != nil || depth > 256 || p.Kind == yaml.AliasNode {
			return
		}
		if p.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(p.Content); i += 2 {
				if p.Content[i+1] == n {
					found = p.Content[i]
					return
				}
			}
		}
		for _, c := range p.Content {
			walk(c, depth+1)
		}
	}
	walk(doc, 0)
	return found
}

// itemText is a list item at column col: "- " and the item's block.
func itemText(item *yaml.Node, style yamlStyle, col int) string {
	body := encodeBlock(item, style)
	pad := strings.Repeat(" ", col)
	var b strings.Builder
	for i, l := range strings.SplitAfter(body, "\n") {
		switch {
		case l == "":
		case i == 0:
			b.WriteString(pad + "- " + l)
		case l == "\n":
			b.WriteString(l)
		default:
			b.WriteString(pad + "  " + l)
		}
	}
	return b.String()
}

// pairText is "key: value" as a block at column col.
func pairText(k, v *yaml.Node, style yamlStyle, col int) string {
	body := encodeBlock(&yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{k, v}}, style)
	pad := strings.Repeat(" ", col)
	var b strings.Builder
	for _, l := range strings.SplitAfter(body, "\n") {
		if l != "" && l != "\n" {
			b.WriteString(pad)
		}
		b.WriteString(l)
	}
	return b.String()
}

func encodeBlock(n *yaml.Node, style yamlStyle) string {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(style.indent)
	if style.compact {
		enc.CompactSeqIndent()
	}
	if err := enc.Encode(n); err != nil {
		// The nodes are made here from a tree: they always encode.
		panic(fmt.Sprintf("declcfg: encoding YAML: %v", err))
	}
	enc.Close()
	return buf.String()
}

// encodeYAML writes a whole document in style, with "---" first when the
// text it replaces began with one.
func encodeYAML(doc *yaml.Node, style yamlStyle, docStart bool) ([]byte, error) {
	var buf bytes.Buffer
	if docStart {
		buf.WriteString("---\n")
	}
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(style.indent)
	if style.compact {
		enc.CompactSeqIndent()
	}
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("writing YAML: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("writing YAML: %w", err)
	}
	return buf.Bytes(), nil
}

// hasDocStart reports whether the text's first line that is not blank or
// a comment is "---".
func hasDocStart(data []byte) bool {
	for _, l := range bytes.Split(data, []byte("\n")) {
		s := strings.TrimSpace(string(l))
		if s == "" || s[0] == '#' || s[0] == '%' {
			continue
		}
		return s == "---" || strings.HasPrefix(s, "--- ")
	}
	return false
}

// EncodeYAML writes a tree as a new YAML file in the release bot's layout:
// "---" first, two-space indentation, lists under a key at the key's
// column, long lines kept whole.
func EncodeYAML(root *Node) ([]byte, error) {
	doc := &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{toYAML(root)}}
	return encodeYAML(doc, yamlStyle{indent: 2, compact: true}, true)
}

// toYAML converts a tree to yaml.v3 nodes for writing: scalars keep their
// tag and quoting, collections are written in block style.
func toYAML(n *Node) *yaml.Node {
	n = Deref(n)
	if n == nil {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
	}
	y := &yaml.Node{Kind: yaml.Kind(n.Kind), Value: n.Value}
	switch n.Kind {
	case ScalarNode:
		y.Style = yaml.Style(n.Style) &^ yaml.FlowStyle
		y.Tag = n.Tag
		if y.Tag == "!!null" && y.Value == "" {
			y.Value = "null"
		}
	case MappingNode, SequenceNode:
		y.Content = make([]*yaml.Node, len(n.Content))
		for i, c := range n.Content {
			y.Content[i] = toYAML(c)
		}
	}
	return y
}

// sameYAML compares two documents as data: kinds, resolved tags, scalar
// values, keys and items in order; styles, positions and comments aside.
// Aliases are followed up to a budget of nodes (maxAliasExpansion), past
// which the documents count as different: an alias bomb is written again
// rather than compared for ever.
func sameYAML(a, b *yaml.Node, depth int) bool {
	budget := maxAliasExpansion
	return sameYAMLWithin(a, b, depth, &budget)
}

func sameYAMLWithin(a, b *yaml.Node, depth int, budget *int) bool {
	if *budget--; depth > 512 || *budget < 0 {
		return false
	}
	if a.Kind == yaml.AliasNode {
		a = a.Alias
	}
	if b.Kind == yaml.AliasNode {
		b = b.Alias
	}
	if a == nil || b == nil || a.Kind != b.Kind {
		return false
	}
	if a.Kind == yaml.ScalarNode {
		return a.ShortTag() == b.ShortTag() && scalarText(a) == scalarText(b)
	}
	if len(a.Content) != len(b.Content) {
		return false
	}
	for i := range a.Content {
		if !sameYAMLWithin(a.Content[i], b.Content[i], depth+1, budget) {
			return false
		}
	}
	return true
}

// scalarText is a scalar's value for comparison: nulls are all alike.
func scalarText(n *yaml.Node) string {
	if n.ShortTag() == "!!null" {
		return ""
	}
	return n.Value
}

// Tree constructors for what an edit adds.

// StringNode is a string scalar.
func StringNode(s string) *Node { return &Node{Kind: ScalarNode, Tag: "!!str", Value: s} }

// BoolNode is a boolean scalar.
func BoolNode(v bool) *Node {
	return &Node{Kind: ScalarNode, Tag: "!!bool", Value: fmt.Sprint(v)}
}

// MappingOf is a mapping of keys and values, alternating.
func MappingOf(kv ...*Node) *Node { return &Node{Kind: MappingNode, Tag: "!!map", Content: kv} }

// SequenceOf is a list.
func SequenceOf(items ...*Node) *Node { return &Node{Kind: SequenceNode, Tag: "!!seq", Content: items} }
