package declcfg

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"

	"github.com/fbc-project/fbc/declcfg/internal/fastyaml"
	"github.com/fbc-project/fbc/declcfg/internal/jsonstream"
	"github.com/fbc-project/fbc/declcfg/internal/tree"
	"github.com/fbc-project/fbc/internal/textscan"
)

// Both JSON and YAML files are parsed into yaml.v3 nodes, so that one code
// path decodes blobs and every value keeps its line and column. JSON streams
// (concatenated objects, which are not YAML) get their own parser
// (internal/jsonstream); YAML goes to internal/fastyaml, and what it does not
// take to yaml.v3.

const maxNestingDepth = jsonstream.MaxDepth

// maxAliasExpansion bounds the nodes visited when converting a document that
// uses YAML aliases, so that an alias bomb is an error, not an OOM.
const maxAliasExpansion = 1_000_000

// parseError is a syntax error at a position within a file.
type parseError struct {
	Line, Col int
	Msg       string
	// limit marks a text past one of the limits (limits.go).
	limit bool
}

func (e *parseError) Error() string { return e.Msg }

// isJSONStream applies opm's rule: a file whose first non-space byte within
// its first 4096 bytes is '{' is a JSON stream; anything else is YAML.
func isJSONStream(data []byte) bool {
	n := min(len(data), 4096)
	for _, c := range data[:n] {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '{':
			return true
		default:
			return false
		}
	}
	return false
}

// yamlLineRE-free extraction of "yaml: line N: msg".
func yamlErrorPos(err error) (int, string) {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "yaml: ")
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if i := strings.Index(rest, ":"); i > 0 {
			if n, err := strconv.Atoi(rest[:i]); err == nil {
				return n, strings.TrimSpace(rest[i+1:])
			}
		}
	}
	return 0, msg
}

// yamlParserProblems are the problems libyaml's parser (as opposed to its
// scanner) reports. yaml.v3 prints a parser error's 0-based mark as its line,
// one too low, and leaves the line out when that mark is 0.
var yamlParserProblems = []string{
	"did not find expected ',' or ']'",
	"did not find expected ',' or '}'",
	"did not find expected '-' indicator",
	"did not find expected <document start>",
	"did not find expected <stream-start>",
	"did not find expected key",
	"did not find expected node content",
	"found duplicate %TAG directive",
	"found duplicate %YAML directive",
	"found incompatible YAML document",
	"found undefined tag handle",
}

// yamlComposerProblems have no position at all: leave them without a line
// rather than invent one.
var yamlComposerProblems = []string{"unknown anchor", "anchor '", "document contains excessive aliasing"}

// yamlTabProblems are scanner errors yaml.v3 prints at the line of the
// scalar it was reading (its context), not at the line of the tab: opm's
// YAML reader (yaml.v2) names the tab's line.
var yamlTabProblems = []string{
	"found a tab character that violates indentation",
	"found a tab character where an indentation space is expected",
}

// yamlErrorLine turns the line yaml.v3 printed for the YAML text data into
// the 1-based line of the problem.
func yamlErrorLine(data []byte, line int, msg string) int {
	if slices.Contains(yamlTabProblems, msg) {
		if tab := indentTabLine(data, max(line, 1)); tab > 0 {
			return tab
		}
	}
	for _, p := range yamlComposerProblems {
		if strings.HasPrefix(msg, p) {
			return line
		}
	}
	if slices.Contains(yamlParserProblems, msg) {
		return line + 1
	}
	if line == 0 {
		return 1 // a scanner error on the first line
	}
	return line
}

// indentTabLine is the first line of data, from line from on, whose
// indentation holds a tab; 0 if there is none.
func indentTabLine(data []byte, from int) int {
	n := 1
	for len(data) > 0 {
		l := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if n >= from {
			indent := l[:len(l)-len(bytes.TrimLeft(l, " \t"))]
			if bytes.IndexByte(indent, '\t') >= 0 {
				return n
			}
		}
		n++
	}
	return 0
}

// yamlDoc is one document of a YAML stream. Empty is set for documents with
// no content (ParseFile finds comment-only ones in the text).
type yamlDoc = fastyaml.Doc

func parseYAMLStream(data []byte, borrow bool, each func(d yamlDoc) error) error {
	return parseYAMLStreamAt(data, borrow, 1, each)
}

// parseYAMLStreamAt is parseYAMLStream for a text that starts at line first
// of its file: the documents carry the file's lines (a syntax error's line
// stays the text's).
func parseYAMLStreamAt(data []byte, borrow bool, first int, each func(d yamlDoc) error) error {
	_, err := parseYAMLStreamIn(data, borrow, first, nil, nil, each)
	return err
}

// parseYAMLStreamIn is parseYAMLStreamAt with the memory the fast path
// parses in (fastyaml.ParseIn); fast says whether it read the text, so that
// the documents' nodes come from arena.
func parseYAMLStreamIn(data []byte, borrow bool, first int, scratch *fastyaml.Scratch, arena *tree.Arena, each func(d yamlDoc) error) (fast bool, err error) {
	docs, ok, lerr := fastyaml.ParseIn(data, borrow, first, scratch, arena)
	if lerr != nil {
		return false, fastLimit(lerr, first)
	}
	fast = ok
	if !ok {
		var perr *parseError
		docs, ok, perr = parseYAMLDocs(data, borrow)
		if perr != nil {
			return false, perr
		}
		shiftDocs(docs, first-1)
	}
	if !ok {
		return false, parseYAMLv3(data, func(d yamlDoc) error {
			shiftDoc(&d, first-1)
			return each(d)
		})
	}
	for _, d := range docs {
		if err := each(d); err != nil {
			return fast, err
		}
	}
	return fast, nil
}

// ParseYAML parses a YAML text (JSON is YAML too) into its documents, each
// with its root node and line; an empty document has no node. A syntax error
// fails the whole text, as "line N: problem". Catalog files are read by
// WalkPath and ParseFile; this is for the other YAML files fbc reads
// (configs, bundle manifests), so that they too are parsed into Nodes.
func ParseYAML(data []byte) ([]Document, error) {
	var docs []Document
	err := parseYAMLStream(data, false, func(d yamlDoc) error {
		doc := Document{Pos: Pos{Line: d.Line}}
		if !d.Empty {
			doc.Node = d.Node
		}
		docs = append(docs, doc)
		return nil
	})
	var pe *parseError
	if errors.As(err, &pe) && pe.limit {
		return nil, &LimitError{Line: pe.Line, Col: pe.Col, Msg: pe.Msg}
	}
	if errors.As(err, &pe) && pe.Line > 0 {
		return nil, fmt.Errorf("line %d: %s", pe.Line, pe.Msg)
	}
	if err != nil {
		return nil, err
	}
	return docs, nil
}

// DocumentStart is the line of the "---" that starts the document whose
// first line is line (a Document's Pos.Line): the last such line at or
// before it ("---" alone or before a space or tab, as YAML marks a document
// start), or line itself when there is none. Errors about a document as a
// whole (one too many) point there.
func DocumentStart(data []byte, line int) int {
	lines := bytes.SplitN(data, []byte("\n"), line+1)
	for i := min(line, len(lines)) - 1; i >= 0; i-- {
		if isDocStart(lines[i]) {
			return i + 1
		}
	}
	return line
}

// shiftDocs moves documents down by n lines.
func shiftDocs(docs []yamlDoc, n int) {
	for i := range docs {
		shiftDoc(&docs[i], n)
	}
}

// shiftDoc moves a document, its line and its nodes', down by n lines.
func shiftDoc(d *yamlDoc, n int) {
	if n == 0 {
		return
	}
	d.Line += n
	if d.Node != nil {
		shiftLines(d.Node, n)
	}
}

// parseYAMLDocs parses a stream the fast path did not take a document at a
// time, split at its "---" lines (SplitYAML): the fast path takes the
// documents it can, yaml.v3 the others, and lines are shifted to the file's.
// A document start line ends any node (libyaml checks for it in plain
// scalars, refuses it in quoted ones and flow collections, and block scalars
// are indented), so the documents are those of the whole stream; what could
// tie documents together (directives, "..." markers, line breaks other than
// \n, a byte order mark after the start) sends the stream to yaml.v3 whole,
// as does any document yaml.v3 refuses, so that errors stay those of the
// whole stream.
func parseYAMLDocs(data []byte, borrow bool) ([]yamlDoc, bool, *parseError) {
	if !splittable(data) {
		return nil, false, nil
	}
	var docs []yamlDoc
	for _, c := range SplitDocuments(data, SplitYAML).Chunks {
		text := data[c.Start:c.End]
		got, ok, lerr := fastyaml.ParseIn(text, borrow, c.Line, nil, nil)
		if lerr != nil {
			// A limit is the stream's error, in its lines.
			return nil, false, fastLimit(lerr, 1)
		}
		if !ok {
			got = got[:0]
			if err := parseYAMLv3(text, func(d yamlDoc) error { got = append(got, d); return nil }); err != nil {
				var pe *parseError
				if errors.As(err, &pe) && pe.limit {
					pe.Line += c.Line - 1
					return nil, false, pe
				}
				return nil, false, nil
			}
			shiftDocs(got, c.Line-1)
		}
		docs = append(docs, got...)
	}
	return docs, true, nil
}

// fastLimit is the fast path's limit error as a parse error in the lines of
// a text that starts at line first of its file (the fast path counts the
// file's).
func fastLimit(err error, first int) *parseError {
	var le *tree.LimitError
	if !errors.As(err, &le) {
		return &parseError{Msg: err.Error()}
	}
	return limitError(le.Line-(first-1), le.Col, le.Msg)
}

// splittable reports whether a stream's documents can be parsed apart: no
// directive or "..." line, no line break but \n, UTF-8 with no byte order
// mark but a leading one.
func splittable(data []byte) bool {
	if bytes.HasPrefix(data, []byte("\xff\xfe")) || bytes.HasPrefix(data, []byte("\xfe\xff")) {
		return false // UTF-16
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if bytes.IndexByte(data, '\r') >= 0 || bytes.Contains(data, []byte("\xef\xbb\xbf")) ||
		bytes.Contains(data, []byte("\u0085")) || bytes.Contains(data, []byte("\u2028")) || bytes.Contains(data, []byte("\u2029")) {
		return false
	}
	for off := 0; off < len(data); {
		if data[off] == '%' || bytes.HasPrefix(data[off:], []byte("...")) {
			return false
		}
		nl := bytes.IndexByte(data[off:], '\n')
		if nl < 0 {
			break
		}
		off += nl + 1
	}
	return true
}

// parseYAMLv3 parses any YAML with yaml.v3.
func parseYAMLv3(data []byte, each func(d yamlDoc) error) error {
	if pe := checkYAMLText(data); pe != nil {
		return pe
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			line, msg := yamlErrorPos(err)
			line = yamlErrorLine(data, line, msg)
			// Problems found at the end of the input sit on the line after
			// a final newline: name the last line instead.
			if last := bytes.Count(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) + 1; line > last {
				line = last
			}
			if msg == "exceeded max depth of 10000" {
				// Nesting by indentation, which the look at the text
				// before does not measure.
				return limitError(line, 0, tree.DepthMessage())
			}
			return &parseError{Line: line, Msg: msg}
		}
		d := fastyaml.DocOf(&doc)
		if d.Node != nil {
			if pe := checkTree(d.Node); pe != nil {
				return pe
			}
		}
		if err := each(d); err != nil {
			return err
		}
	}
}

// nodeWriter converts yaml nodes to JSON with YAML 1.2 core scalar semantics.
// With check, it finds the problems writing would find without writing the
// strings, which cannot have any (checkJSON).
type nodeWriter struct {
	sortKeys bool
	check    bool
	visited  int
}

// NodeToJSON encodes a node as compact JSON. Mapping keys keep their order
// unless sortKeys is set, as opm's reading of a catalog leaves them (it
// decodes every document into a map and encodes it again): for blobs of
// unknown schemas, and property values.
func NodeToJSON(n *Node, sortKeys bool) ([]byte, error) {
	// The JSON is written into a buffer kept for the next call and copied
	// out once its size is known: growing a fresh buffer by doubling
	// allocated about twice the output.
	buf := jsonBuffers.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= maxPooledBuffer {
			buf.Reset()
			jsonBuffers.Put(buf)
		}
	}()
	w := &nodeWriter{sortKeys: sortKeys}
	if err := w.write(buf, n, 0); err != nil {
		return nil, err
	}
	return bytes.Clone(buf.Bytes()), nil
}

// checkJSON returns the error NodeToJSON would return for n, without
// encoding it: for the values a caller does not keep (DecodeOptions.Values),
// which must still be reported when they cannot be JSON.
func checkJSON(n *Node) error {
	buf := jsonBuffers.Get().(*bytes.Buffer)
	defer func() {
		buf.Reset()
		jsonBuffers.Put(buf)
	}()
	w := &nodeWriter{check: true}
	return w.write(buf, n, 0)
}

var jsonBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledBuffer bounds the buffers kept for NodeToJSON: most values are
// small, a CSV's metadata a few hundred KB; a bundle object's base64 (MBs)
// gets a buffer of its own rather than keeping one that large.
const maxPooledBuffer = 512 << 10

func nodeError(n *Node, format string, args ...any) error {
	return &parseError{Line: n.Line, Col: n.Column, Msg: fmt.Sprintf(format, args...)}
}

func (w *nodeWriter) write(buf *bytes.Buffer, n *Node, depth int) error {
	w.visited++
	if w.visited > maxAliasExpansion {
		return nodeError(n, "document expands to more than %d values (YAML alias bomb?)", maxAliasExpansion)
	}
	if depth > maxNestingDepth {
		return nodeError(n, "nesting deeper than %d levels", maxNestingDepth)
	}
	switch n.Kind {
	case DocumentNode:
		if len(n.Content) == 0 {
			buf.WriteString("null")
			return nil
		}
		return w.write(buf, n.Content[0], depth)
	case AliasNode:
		if n.Alias == nil {
			return nodeError(n, "unknown alias %q", n.Value)
		}
		return w.write(buf, n.Alias, depth+1)
	case SequenceNode:
		buf.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := w.write(buf, c, depth+1); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
		return nil
	case MappingNode:
		if !hasMergeKey(n) {
			if w.sortKeys && !keysInOrder(n) {
				return w.writeSortedMapping(buf, n, depth)
			}
			return w.writeMapping(buf, n, depth)
		}
		pairs, err := mappingPairs(n)
		if err != nil {
			return err
		}
		if w.sortKeys {
			slices.SortStableFunc(pairs, func(a, b pair) int { return strings.Compare(a.key, b.key) })
		}
		buf.WriteByte('{')
		for i, p := range pairs {
			if i > 0 {
				buf.WriteByte(',')
			}
			if !w.check {
				writeJSONString(buf, p.key)
			}
			buf.WriteByte(':')
			if err := w.write(buf, p.value, depth+1); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
		return nil
	case ScalarNode:
		if w.check {
			switch n.Tag {
			case "!!null", "!!bool", "!!int", "!!float":
			default:
				return nil // a string: nothing to find
			}
			buf.Reset()
		}
		return writeScalar(buf, n)
	}
	return nodeError(n, "unsupported YAML node")
}

type pair struct {
	key     string
	keyNode *Node
	value   *Node
}

// mappingPairs returns a mapping's key/value pairs, resolving YAML merge keys
// and rejecting duplicate keys (which JSON decoders would silently collapse).
// hasMergeKey reports whether a mapping has a "<<" merge key.
func hasMergeKey(n *Node) bool {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; k.Kind == ScalarNode && k.Tag == "!!merge" {
			return true
		}
	}
	return false
}

// writeSortedMapping is writeMapping with the keys in sorted order: the
// same checks, in file order, then the pairs written by an index sorted
// by key (on the stack for the small mappings property values are).
func (w *nodeWriter) writeSortedMapping(buf *bytes.Buffer, n *Node, depth int) error {
	keys := newKeySet(n)
	var small [16]int32
	order := small[:0]
	for i := 0; i+1 < len(n.Content); i += 2 {
		if err := keys.add(i); err != nil {
			return err
		}
		order = append(order, int32(i))
	}
	slices.SortStableFunc(order, func(a, b int32) int { return strings.Compare(n.Content[a].Value, n.Content[b].Value) })
	buf.WriteByte('{')
	for j, i := range order {
		if j > 0 {
			buf.WriteByte(',')
		}
		if !w.check {
			writeJSONString(buf, n.Content[i].Value)
		}
		buf.WriteByte(':')
		if err := w.write(buf, n.Content[i+1], depth+1); err != nil {
			return err
		}
	}
	buf.WriteByte('}')
	return nil
}

// keysInOrder reports whether a mapping's keys are scalars in strictly
// increasing order, as sorting would leave them: what opm wrote (sorted
// keys) is written again without gathering and sorting its pairs.
func keysInOrder(n *Node) bool {
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if k.Kind != ScalarNode || i > 0 && n.Content[i-2].Value >= k.Value {
			return false
		}
	}
	return true
}

// writeMapping writes a mapping without merge keys in its own key order,
// refusing duplicate keys as mappingPairs does, without gathering pairs.
func (w *nodeWriter) writeMapping(buf *bytes.Buffer, n *Node, depth int) error {
	keys := newKeySet(n)
	buf.WriteByte('{')
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if err := keys.add(i); err != nil {
			return err
		}
		if i > 0 {
			buf.WriteByte(',')
		}
		if !w.check {
			writeJSONString(buf, k.Value)
		}
		buf.WriteByte(':')
		if err := w.write(buf, v, depth+1); err != nil {
			return err
		}
	}
	buf.WriteByte('}')
	return nil
}

// keySet refuses the keys of a mapping without merge keys that are not
// scalars or that repeat one before them: through a map in large mappings,
// by comparing with the keys before in small ones.
type keySet struct {
	n    *Node
	seen map[string]*Node
}

func newKeySet(n *Node) keySet {
	s := keySet{n: n}
	if len(n.Content) > 32 {
		s.seen = make(map[string]*Node, len(n.Content)/2)
	}
	return s
}

// add checks the key at index i of the mapping's Content, the keys before
// it having been added.
func (s *keySet) add(i int) error {
	k := s.n.Content[i]
	if k.Kind != ScalarNode {
		return nodeError(k, "mapping keys must be scalars")
	}
	if s.seen != nil {
		if prev, ok := s.seen[k.Value]; ok {
			return nodeError(k, "duplicate key %q (first defined at line %d)", k.Value, prev.Line)
		}
		s.seen[k.Value] = k
		return nil
	}
	for j := 0; j < i; j += 2 {
		if prev := s.n.Content[j]; prev.Value == k.Value {
			return nodeError(k, "duplicate key %q (first defined at line %d)", k.Value, prev.Line)
		}
	}
	return nil
}

func mappingPairs(n *Node) ([]pair, error) {
	pairs := make([]pair, 0, len(n.Content)/2)
	var seen map[string]*Node
	if len(n.Content) > 16 {
		seen = make(map[string]*Node, len(n.Content)/2)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == ScalarNode && k.Tag == "!!merge" {
			// "<<: *anchor" copies the anchor's keys that are not set here.
			src := v
			if src.Kind == AliasNode && src.Alias != nil {
				src = src.Alias
			}
			if src.Kind != MappingNode {
				return nil, nodeError(k, "merge key '<<' must refer to a mapping")
			}
			merged, err := mappingPairs(src)
			if err != nil {
				return nil, err
			}
			for _, mp := range merged {
				if !hasKey(n, mp.key) {
					pairs = append(pairs, mp)
				}
			}
			continue
		}
		if k.Kind != ScalarNode {
			return nil, nodeError(k, "mapping keys must be scalars")
		}
		key := k.Value
		if seen != nil {
			if prev, ok := seen[key]; ok {
				return nil, nodeError(k, "duplicate key %q (first defined at line %d)", key, prev.Line)
			}
			seen[key] = k
		} else {
			for _, p := range pairs {
				if p.key == key && p.keyNode != nil {
					return nil, nodeError(k, "duplicate key %q (first defined at line %d)", key, p.keyNode.Line)
				}
			}
		}
		pairs = append(pairs, pair{key: key, keyNode: k, value: v})
	}
	return pairs, nil
}

func hasKey(n *Node, key string) bool {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Tag != "!!merge" && n.Content[i].Value == key {
			return true
		}
	}
	return false
}

func writeScalar(buf *bytes.Buffer, n *Node) error {
	switch n.Tag {
	case "!!null":
		buf.WriteString("null")
	case "!!bool":
		b, ok := parseBool(n.Value)
		if !ok {
			return nodeError(n, "invalid boolean %q", n.Value)
		}
		buf.WriteString(strconv.FormatBool(b))
	case "!!int":
		if json.Valid([]byte(n.Value)) && !strings.HasPrefix(n.Value, "+") {
			buf.WriteString(n.Value)
			return nil
		}
		v := strings.ReplaceAll(n.Value, "_", "")
		if i, err := strconv.ParseInt(v, 0, 64); err == nil {
			buf.WriteString(strconv.FormatInt(i, 10))
			return nil
		}
		if u, err := strconv.ParseUint(v, 0, 64); err == nil {
			buf.WriteString(strconv.FormatUint(u, 10))
			return nil
		}
		return nodeError(n, "integer %q does not fit in 64 bits", n.Value)
	case "!!float":
		f, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
		if err != nil {
			switch strings.ToLower(n.Value) {
			case ".inf", "+.inf", "-.inf", ".nan":
				return nodeError(n, "%s cannot be represented in JSON; quote it if it is meant as a string", n.Value)
			}
			return nodeError(n, "invalid number %q", n.Value)
		}
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return nodeError(n, "%s cannot be represented in JSON", n.Value)
		}
		b, _ := json.Marshal(f)
		buf.Write(b)
	default: // !!str, !!timestamp, !!binary and custom tags stay strings
		writeJSONString(buf, n.Value)
	}
	return nil
}

func parseBool(s string) (bool, bool) {
	switch s {
	case "true", "True", "TRUE":
		return true, true
	case "false", "False", "FALSE":
		return false, true
	}
	return false, false
}

// WriteJSONString writes s as a JSON string the way encoding/json does with
// HTML escaping off.
func WriteJSONString(buf *bytes.Buffer, s string) { writeJSONString(buf, s) }

// writeJSONString writes s as a JSON string without HTML escaping.
func writeJSONString(buf *bytes.Buffer, s string) {
	buf.WriteByte('"')
	start := 0
	for i := 0; i < len(s); {
		if i += textscan.JSONSafeString(s[i:]); i == len(s) {
			break
		}
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			buf.WriteString(s[start:i])
			switch c {
			case '"':
				buf.WriteString(`\"`)
			case '\\':
				buf.WriteString(`\\`)
			case '\n':
				buf.WriteString(`\n`)
			case '\r':
				buf.WriteString(`\r`)
			case '\t':
				buf.WriteString(`\t`)
			case '\b':
				buf.WriteString(`\b`)
			case '\f':
				buf.WriteString(`\f`)
			default:
				fmt.Fprintf(buf, `\u%04x`, c)
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf.WriteString(s[start:i])
			buf.WriteString(`\ufffd`)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			buf.WriteString(s[start:i])
			fmt.Fprintf(buf, `\u%04x`, r)
			i += size
			start = i
			continue
		}
		i += size
	}
	buf.WriteString(s[start:])
	buf.WriteByte('"')
}

// NodeToValue converts a node to plain Go values (map[string]any, []any,
// string, int64, float64, bool, nil) for schema engines.
func NodeToValue(n *Node) (any, error) {
	w := &nodeWriter{}
	return w.value(n, 0)
}

func (w *nodeWriter) value(n *Node, depth int) (any, error) {
	w.visited++
	if w.visited > maxAliasExpansion {
		return nil, nodeError(n, "document expands to more than %d values (YAML alias bomb?)", maxAliasExpansion)
	}
	if depth > maxNestingDepth {
		return nil, nodeError(n, "nesting deeper than %d levels", maxNestingDepth)
	}
	switch n.Kind {
	case DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return w.value(n.Content[0], depth)
	case AliasNode:
		if n.Alias == nil {
			return nil, nodeError(n, "unknown alias %q", n.Value)
		}
		return w.value(n.Alias, depth+1)
	case SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := w.value(c, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case MappingNode:
		pairs, err := mappingPairs(n)
		if err != nil {
			return nil, err
		}
		out := make(map[string]any, len(pairs))
		for _, p := range pairs {
			v, err := w.value(p.value, depth+1)
			if err != nil {
				return nil, err
			}
			out[p.key] = v
		}
		return out, nil
	case ScalarNode:
		switch n.Tag {
		case "!!null":
			return nil, nil
		case "!!bool":
			b, ok := parseBool(n.Value)
			if !ok {
				return nil, nodeError(n, "invalid boolean %q", n.Value)
			}
			return b, nil
		case "!!int", "!!float":
			var buf bytes.Buffer
			if err := writeScalar(&buf, n); err != nil {
				return nil, err
			}
			if i, err := strconv.ParseInt(buf.String(), 10, 64); err == nil {
				return i, nil
			}
			return strconv.ParseFloat(buf.String(), 64)
		default:
			return n.Value, nil
		}
	}
	return nil, nodeError(n, "unsupported YAML node")
}

// KindName names a node's kind the way users think of it.
func KindName(n *Node) string {
	if n == nil {
		return "nothing"
	}
	switch n.Kind {
	case MappingNode:
		return "an object"
	case SequenceNode:
		return "a list"
	case AliasNode:
		return KindName(n.Alias)
	case ScalarNode:
		switch n.Tag {
		case "!!str", "!!timestamp", "!!binary":
			return "a string"
		case "!!int", "!!float":
			return "a number"
		case "!!bool":
			return "a boolean"
		case "!!null":
			return "null"
		}
	}
	return "a value"
}
