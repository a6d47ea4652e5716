package declcfg

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/fbc-project/fbc/declcfg/internal/fastyaml"
	"github.com/fbc-project/fbc/declcfg/internal/jsonstream"
	"github.com/fbc-project/fbc/declcfg/internal/tree"
)

// A syntax error costs only the document it is in: the loader skips that
// document and reads on from the next one, the next "---" line of a YAML
// stream or the next line of a JSON stream that starts with '{'. The error
// says what was skipped, with a hint where the cause is clear, and carries
// what the skipped text says of its blob (LostDoc), so that the checks that
// would miss the blob (a package "without channels" whose channel was
// skipped) can stay quiet.

// LostDoc is a document a syntax error made the loader skip: where it is and
// what its text says of it. Schema, Package and Name are its top-level
// fields as far as they can be read; "" where the text does not say.
type LostDoc struct {
	// Pos is the document's first line; EndLine its last.
	Pos     Pos
	EndLine int
	Schema  string
	Package string
	Name    string
}

// PackageName is the package the document belongs to: its package field,
// or the name of an olm.package document; "" when the text does not say.
func (l *LostDoc) PackageName() string {
	switch {
	case l.Package != "":
		return l.Package
	case l.Schema == SchemaPackage || l.Schema == "":
		return l.Name
	}
	return ""
}

// skipped is the text a syntax error made a parser skip.
type skipped struct {
	err *parseError
	// text is the skipped document; first and last are its first and last
	// lines in the file (1-based).
	text        []byte
	first, last int
	// resumed is set when reading went on after the document.
	resumed bool
	// json marks a document of a JSON stream.
	json bool
	// whole is set when the document could not be told apart from the rest
	// of the stream: text is empty and nothing was read after the error.
	whole bool
}

// loadError is the problem a skip reports.
func (s skipped) loadError(name string) *LoadError {
	pos := Pos{File: name, Line: s.err.Line, Col: s.err.Col}
	msg := s.err.Msg
	if !s.whole && !s.json && !s.err.limit {
		if line, col, hint := yamlHint(s.text, s.first, s.err); hint != "" {
			pos.Line, pos.Col = line, col
			msg += ": " + hint
		}
	}
	le := &LoadError{Pos: pos, Rule: RuleSyntax, Msg: msg}
	if s.whole {
		return le
	}
	first := s.first + leadingNonContent(s.text, s.json)
	if s.resumed {
		lines := fmt.Sprintf("lines %d-%d", first, s.last)
		if first >= s.last {
			lines = fmt.Sprintf("line %d", s.last)
		}
		le.Msg += fmt.Sprintf(" (skipped the document on %s; the rest of the file was read)", lines)
	}
	lost := &LostDoc{Pos: Pos{File: name, Line: first}, EndLine: s.last}
	lost.Schema, lost.Package, lost.Name = topFields(s.text, s.json)
	le.Lost = lost
	return le
}

// leadingNonContent counts the lines before a document's content: blank
// lines, comments, directives and a bare "---".
func leadingNonContent(text []byte, isJSON bool) int {
	n := 0
	for len(text) > 0 {
		line, rest, _ := bytes.Cut(text, []byte("\n"))
		t := bytes.TrimSpace(line)
		switch {
		case len(t) == 0:
		case isJSON:
			return n
		case t[0] == '#', t[0] == '%' && len(line) > 0 && line[0] == '%', isDocStart(line) && !hasContentAfterMarker(line):
		default:
			return n
		}
		n++
		text = rest
	}
	return n
}

func asParseError(err error) *parseError {
	var pe *parseError
	if errors.As(err, &pe) {
		return pe
	}
	var se *jsonstream.SyntaxError
	if errors.As(err, &se) {
		return &parseError{Line: se.Line, Col: se.Col, Msg: se.Msg}
	}
	return &parseError{Msg: err.Error()}
}

// parseYAMLRecovering parses a YAML stream. When it does not parse, it is
// parsed again a document at a time, split at its "---" lines, so that a
// syntax error skips only its own document.
func parseYAMLRecovering(data []byte, borrow bool) ([]yamlDoc, []skipped) {
	var docs []yamlDoc
	err := parseYAMLStream(data, borrow, func(d yamlDoc) error { docs = append(docs, d); return nil })
	if err == nil {
		return docs, nil
	}
	var (
		split []yamlDoc
		skips []skipped
	)
	chunks := SplitDocuments(data, SplitYAML).Chunks
	for i, c := range chunks {
		got, _, skip := parseChunk(data, c, borrow, i < len(chunks)-1, nil, nil)
		if skip != nil {
			skips = append(skips, *skip)
		}
		split = append(split, got...)
	}
	if len(skips) == 0 {
		// Every document parses on its own, but not the stream (a
		// directive in the wrong place): report the stream's error, after
		// what was read before it.
		return docs, []skipped{{err: asParseError(err), whole: true}}
	}
	return split, skips
}

// parseChunk parses one part of a YAML stream (SplitYAML) on its own, with
// the lines of the whole stream; a part that does not parse is skipped
// (resumed says whether parts follow it). The fast path parses in scratch
// and arena (either may be nil); fast says whether it read the part.
func parseChunk(data []byte, c Chunk, borrow, resumed bool, scratch *fastyaml.Scratch, arena *tree.Arena) (got []yamlDoc, fast bool, skip *skipped) {
	text := data[c.Start:c.End]
	fast, err := parseYAMLStreamIn(text, borrow, c.Line, scratch, arena, func(d yamlDoc) error { got = append(got, d); return nil })
	if err != nil {
		pe := asParseError(err)
		if pe.Line > 0 {
			pe.Line += c.Line - 1
		}
		last := c.Line + bytes.Count(bytes.TrimRight(text, " \t\r\n"), []byte("\n"))
		return nil, false, &skipped{err: pe, text: text, first: c.Line, last: last, resumed: resumed}
	}
	return got, fast, nil
}

// parseYAMLEach parses a splittable YAML stream (see splittable) a document
// at a time, handing each to each as soon as it is read: what
// parseYAMLRecovering reads of the stream, without holding it whole. A part
// that does not parse is skipped, as there. The documents the fast path
// reads come with the arena their nodes were taken from (nil for others),
// which Document.Release gives back once each of them has been released.
func parseYAMLEach(data []byte, borrow bool, each func(n *Node, a *docArena)) []skipped {
	var skips []skipped
	scratch := scratches.Get().(*fastyaml.Scratch)
	defer scratches.Put(scratch)
	chunks := SplitDocuments(data, SplitYAML).Chunks
	for i, c := range chunks {
		a := &docArena{}
		got, fast, skip := parseChunk(data, c, borrow, i < len(chunks)-1, scratch, &a.arena)
		if skip != nil {
			skips = append(skips, *skip)
		}
		n := 0
		for _, d := range got {
			if !d.Empty {
				n++
			}
		}
		if !fast || n == 0 {
			a.arena.Release() // holds no document's nodes
			a = nil
		} else {
			a.refs.Store(int32(n))
		}
		for _, d := range got {
			if !d.Empty {
				each(d.Node, a)
			}
		}
	}
	return skips
}

// scratches keeps the fast parser's line index and node stack from file to
// file: a new one per file had been 4% of what validating certified v4.18
// allocated. ParseIn leaves no node in a scratch it is done with.
var scratches = sync.Pool{New: func() any { return new(fastyaml.Scratch) }}

// shiftLines moves every node of a tree down by lines.
func shiftLines(root *Node, lines int) {
	stack := []*Node{root}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n == nil {
			continue
		}
		n.Line += lines
		stack = append(stack, n.Content...)
	}
}

// parseJSONRecovering parses a JSON stream. A value that does not parse is
// skipped up to the next line that starts with '{' (after the line of the
// error), where reading resumes.
func parseJSONRecovering(data []byte, borrow bool, each func(n *Node)) []skipped {
	var skips []skipped
	p := jsonstream.NewParser(data, borrow)
	for p.More() {
		start, startLine := p.Offset(), p.Line()
		n, err := p.Value()
		if err == nil {
			each(n)
			continue
		}
		pe := asParseError(err)
		resume, resumeLine := jsonResume(data, start, startLine, pe)
		text := data[start:resume]
		last := startLine + bytes.Count(bytes.TrimRight(text, " \t\r\n"), []byte("\n"))
		skips = append(skips, skipped{err: pe, text: text, first: startLine, last: last, resumed: resume < len(data), json: true})
		p.Seek(resume, resumeLine)
	}
	return skips
}

// jsonResume finds where to read on after a value that failed at pe: the
// first line after the value's start that starts with '{' and is past the
// error (or is where the error is, when the error is that '{': the value
// before it was not closed).
func jsonResume(data []byte, start, line int, pe *parseError) (int, int) {
	off := start
	for {
		nl := bytes.IndexByte(data[off:], '\n')
		if nl < 0 {
			return len(data), line
		}
		off += nl + 1
		line++
		if off < len(data) && data[off] == '{' && (line > pe.Line || line == pe.Line && pe.Col == 1) {
			return off, line
		}
	}
}

// topFields reads a skipped document's schema, package and name from its
// text: the top-level keys of a YAML block mapping, or of a JSON object.
func topFields(text []byte, isJSON bool) (schema, pkg, name string) {
	set := func(key, value string) {
		switch key {
		case "schema":
			schema = cmp.Or(schema, value)
		case "package":
			pkg = cmp.Or(pkg, value)
		case "name":
			name = cmp.Or(name, value)
		}
	}
	if t := bytes.TrimSpace(text); isJSON || len(t) > 0 && t[0] == '{' {
		jsonTopFields(text, set)
	} else {
		yamlTopFields(text, set)
	}
	return schema, pkg, name
}

// yamlTopFields reads "key: value" lines at the left margin.
func yamlTopFields(text []byte, set func(key, value string)) {
	for len(text) > 0 {
		var line []byte
		line, text, _ = bytes.Cut(text, []byte("\n"))
		key, rest, ok := fastyaml.SplitKey(bytes.TrimRight(line, " \r"))
		if !ok || len(line) == 0 || line[0] == ' ' {
			continue
		}
		v := bytes.TrimSpace(rest)
		if len(v) == 0 || bytes.IndexByte([]byte("[{&*!|>%@`"), v[0]) >= 0 {
			continue // not a one-line string
		}
		if v[0] == '"' || v[0] == '\'' {
			if end := fastyaml.ClosingQuote(v); end > 0 {
				v = v[:end+1]
			}
		} else if i := bytes.Index(v, []byte(" #")); i >= 0 {
			v = bytes.TrimSpace(v[:i])
		}
		set(unquoteLoose(key), unquoteLoose(v))
	}
}

// unquoteLoose removes the quotes of a one-line YAML scalar, keeping the
// text as it is when it is not quoted properly.
func unquoteLoose(t []byte) string {
	if len(t) >= 2 && t[0] == '\'' && t[len(t)-1] == '\'' {
		return strings.ReplaceAll(string(t[1:len(t)-1]), "''", "'")
	}
	if len(t) >= 2 && t[0] == '"' && t[len(t)-1] == '"' {
		var s string
		if json.Unmarshal(t, &s) == nil {
			return s
		}
		return string(t[1 : len(t)-1])
	}
	return string(t)
}

// jsonTopFields reads the string members of the outermost object of text,
// which need not be valid JSON.
func jsonTopFields(text []byte, set func(key, value string)) {
	depth := 0
	var key, last []byte
	haveLast := false
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '{', '[':
			depth++
			key, haveLast = nil, false
		case '}', ']':
			depth--
			key, haveLast = nil, false
		case ':':
			if depth == 1 && haveLast {
				key = last
			}
			haveLast = false
		case ',', '\n':
			key, haveLast = nil, false
		case '"':
			j := i + 1
			for j < len(text) && text[j] != '"' && text[j] != '\n' {
				if text[j] == '\\' {
					j++
				}
				j++
			}
			end := min(j+1, len(text))
			s := text[i:end]
			i = end - 1
			if depth != 1 {
				continue
			}
			if key != nil {
				set(unquoteLoose(key), unquoteLoose(s))
				key = nil
				continue
			}
			last, haveLast = s, true
		}
	}
}

// yamlHint says what probably caused a YAML syntax error, and where: a line
// indented to no level of the blocks around it, or a tab in indentation.
// text is the skipped document, whose first line is line first of the file.
func yamlHint(text []byte, first int, pe *parseError) (line, col int, hint string) {
	if pe.Line < first {
		return 0, 0, ""
	}
	lines := strings.Split(string(text), "\n")
	if i := pe.Line - first; i < len(lines) {
		l := strings.TrimSuffix(lines[i], "\r")
		lead := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		if tab := strings.IndexByte(lead, '\t'); tab >= 0 {
			return pe.Line, tab + 1, "indent with spaces: YAML does not allow tabs in indentation"
		}
	}
	exact, ok := indentationProblems[pe.Msg]
	if !ok {
		return 0, 0, ""
	}
	if l, c, found := misindented(lines, first, pe.Line, exact); found {
		return l, c, "check the indentation of this line"
	}
	return 0, 0, ""
}

// indentationProblems are the yaml.v3 errors a line indented wrongly
// causes; the value says whether the error's line is exact (a scanner
// error) or may be that of the block around the problem (a parser error).
var indentationProblems = map[string]bool{
	"mapping values are not allowed in this context":         true,
	"block sequence entries are not allowed in this context": true,
	"did not find expected key":                              false,
	"did not find expected '-' indicator":                    false,
}

// indentBlock is an open block mapping or sequence and its column.
type indentBlock struct {
	col int
	seq bool
}

// misindented follows the block structure of lines (the first is line
// first of the file) and returns the first line, at or after from (exactly
// from when exact), that starts a key or a sequence item at an indentation
// no open block has. It gives up (found false) on what it does not follow:
// multi-line flow collections and quoted scalars, nested "- -" items.
func misindented(lines []string, first, from int, exact bool) (line, col int, found bool) {
	var stack []indentBlock
	opens := false    // the last line left a value to be given on the lines below
	blockScalar := -1 // inside a block scalar: lines indented more than this are its text
	for i, l := range lines {
		n := first + i
		if exact && n > from {
			break
		}
		l = strings.TrimSuffix(l, "\r")
		t := strings.TrimLeft(l, " ")
		indent := len(l) - len(t)
		if blockScalar >= 0 {
			if t == "" || indent > blockScalar {
				continue
			}
			blockScalar = -1
		}
		switch {
		case t == "" || t[0] == '#':
			continue
		case t[0] == '\t':
			return 0, 0, false
		case indent == 0 && (isDocStart([]byte(l)) || strings.HasPrefix(l, "...")):
			if hasContentAfterMarker([]byte(l)) {
				return 0, 0, false
			}
			stack, opens = nil, false
			continue
		}
		seq := fastyaml.IsSeqItem([]byte(t))
		_, _, isKey := fastyaml.SplitKey([]byte(t))
		if !seq && !isKey {
			opens = false // a scalar, or the continuation of one
			continue
		}
		for len(stack) > 0 && stack[len(stack)-1].col > indent {
			stack = stack[:len(stack)-1]
		}
		valid := true
		switch top := len(stack) - 1; {
		case top < 0:
			stack = append(stack, indentBlock{indent, seq})
		case stack[top].col == indent && stack[top].seq != seq:
			switch {
			case seq && opens:
				// "key:" followed by its list at the key's indentation.
				stack = append(stack, indentBlock{indent, true})
			case !seq && top > 0 && stack[top-1].col == indent:
				stack = stack[:top] // the next key after such a list
			default:
				valid = false
			}
		case stack[top].col < indent:
			if !opens {
				valid = false
			}
			stack = append(stack, indentBlock{indent, seq})
		}
		if !valid && n >= from {
			return n, indent + 1, true
		}
		// What the line leaves open for the lines below.
		col, rest := indent, t
		if seq {
			rest = strings.TrimLeft(t[1:], " ")
			col = indent + len(t) - len(rest)
			if rest == "" {
				opens = true
				continue
			}
			if fastyaml.IsSeqItem([]byte(rest)) {
				return 0, 0, false
			}
			if _, _, ok := fastyaml.SplitKey([]byte(rest)); !ok {
				opens = false
				if openScalar(rest) {
					return 0, 0, false
				}
				continue
			}
			stack = append(stack, indentBlock{col, false})
		}
		_, value, _ := fastyaml.SplitKey([]byte(rest))
		v := strings.TrimSpace(string(value))
		if j := strings.Index(v, " #"); j >= 0 && !strings.HasPrefix(v, "\"") && !strings.HasPrefix(v, "'") {
			v = strings.TrimSpace(v[:j])
		}
		for v != "" && (v[0] == '&' || v[0] == '!') { // an anchor or tag before the value
			_, after, _ := strings.Cut(v, " ")
			v = strings.TrimSpace(after)
		}
		switch {
		case v == "":
			opens = true
		case v[0] == '|' || v[0] == '>':
			opens, blockScalar = false, col
		case openScalar(v):
			return 0, 0, false
		default:
			opens = false
		}
	}
	return 0, 0, false
}

// openScalar reports whether a value goes on to the next line in a way
// misindented does not follow: an unclosed quote or flow collection.
func openScalar(v string) bool {
	switch v[0] {
	case '"', '\'':
		return fastyaml.ClosingQuote([]byte(v)) < 0
	case '[', '{':
		depth := 0
		for _, c := range v {
			switch c {
			case '[', '{':
				depth++
			case ']', '}':
				depth--
			}
		}
		return depth > 0
	}
	return false
}
