// Package jsonstream parses a stream of JSON values (opm's JSON catalogs:
// objects one after another, not YAML) into declcfg's nodes, one
// value at a time, so that JSON and YAML files share one decoding path and
// every value keeps its line and column. Errors carry the line and column
// of the offending byte and say what was expected there.
//
// It earns its place: on the JSON catalogs of the shared corpus
// (securesign-fbc's rhtas-operator catalog.json files, 5.8 MB), BenchmarkParse
// measured the library declcfg would otherwise use, yaml.v3 decoding each
// value into a yaml.Node (the values cut apart beforehand, untimed), at 55-65
// MB/s and the Parser at 264-322 MB/s, 4.3-5.2 times as fast, in six runs on
// a shared 2-core machine; encoding/json's Decoder into any, which builds no
// nodes and keeps no positions, ran at 114-142 MB/s:
//
//	go test ./declcfg/internal/jsonstream -run '^$' -bench . -benchtime 3x -count 3
//
// FuzzJSONStream holds it to encoding/json: every value it accepts,
// encoding/json decodes to the same value, and each node's position is that
// of its first byte (its column counting characters).
package jsonstream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/fbc-project/fbc/declcfg/internal/tree"

	"github.com/fbc-project/fbc/internal/borrow"
	"github.com/fbc-project/fbc/internal/textscan"
)

// MaxDepth is how deeply values may nest (tree.MaxDepth); a string may be
// no longer than tree.MaxScalar, and a value of the stream no longer than
// tree.MaxDocument.
const MaxDepth = tree.MaxDepth

// SyntaxError is a syntax error at a position within the data: Line and Col
// (in bytes) are 1-based.
type SyntaxError struct {
	Line, Col int
	Msg       string
}

func (e *SyntaxError) Error() string { return e.Msg }

// Parser parses a stream of JSON values into yaml nodes, one value at a
// time.
type Parser struct {
	data      []byte
	borrow    bool // long strings share data's memory (borrow.String)
	off       int
	line      int
	lineStart int

	// Columns count characters, as YAML's do: colChars characters lie
	// between lineStart and colOff, so that each column is counted on
	// from the last one asked (the parser only moves forward).
	colOff, colChars int

	// The value being read started at docStart (docLine, docCol); when
	// what is left of the data could hold more than tree.MaxDocument
	// (bigDoc), its collections check their length as they go.
	docStart, docLine, docCol int
	bigDoc                    bool
}

// NewParser returns a parser at the start of data. With borrow, long strings
// without escapes share data's memory (borrow.String).
func NewParser(data []byte, borrow bool) *Parser {
	return &Parser{data: data, borrow: borrow, line: 1}
}

// More skips white space and reports whether anything follows: a value, or
// what Value reports as an error.
func (p *Parser) More() bool {
	p.skipSpace()
	return p.off < len(p.data)
}

// Offset is the parser's byte offset in data; after More, where the next
// value starts.
func (p *Parser) Offset() int { return p.off }

// Line is the parser's 1-based line.
func (p *Parser) Line() int { return p.line }

// Seek moves the parser to off, which must start line (1-based): where
// reading resumes after a value that did not parse.
func (p *Parser) Seek(off, line int) { p.off, p.line, p.lineStart = off, line, off }

// Value parses the next value. Its nodes carry their line and column (in
// characters, from 1, as yaml.v3 counts them); an error is a *SyntaxError
// at the offending byte.
func (p *Parser) Value() (*tree.Node, error) {
	p.skipSpace()
	p.docStart, p.bigDoc = p.off, len(p.data)-p.off > tree.MaxDocument
	if p.bigDoc {
		p.docLine, p.docCol = p.line, p.col()
	}
	return p.value(0)
}

// docTooLong is the error of a value of the stream that has run past
// tree.MaxDocument, at its start; nil while it has not.
func (p *Parser) docTooLong() error {
	if !p.bigDoc || p.off-p.docStart <= tree.MaxDocument {
		return nil
	}
	return &SyntaxError{Line: p.docLine, Col: p.docCol, Msg: tree.DocumentMessage()}
}

func (p *Parser) col() int {
	if p.colOff < p.lineStart || p.colOff > p.off {
		p.colOff, p.colChars = p.lineStart, 0
	}
	p.colChars += textscan.Chars(p.data[p.colOff:p.off])
	p.colOff = p.off
	return p.colChars + 1
}

func (p *Parser) errorf(format string, args ...any) error {
	return &SyntaxError{Line: p.line, Col: p.col(), Msg: fmt.Sprintf(format, args...)}
}

func (p *Parser) skipSpace() {
	for p.off < len(p.data) {
		switch p.data[p.off] {
		case '\n':
			p.off++
			p.line++
			p.lineStart = p.off
		case ' ', '\t', '\r':
			p.off++
		default:
			return
		}
	}
}

func (p *Parser) describe() string {
	if p.off >= len(p.data) {
		return "end of file"
	}
	c := p.data[p.off]
	if c == '-' && bytes.HasPrefix(p.data[p.off:], []byte("---")) {
		return "'---' (a YAML document separator; this file is read as a JSON stream because it starts with '{')"
	}
	if c < 0x20 || c >= 0x7f {
		return fmt.Sprintf("byte 0x%02x", c)
	}
	return fmt.Sprintf("%q", rune(c))
}

func (p *Parser) value(depth int) (*tree.Node, error) {
	p.skipSpace()
	if p.off >= len(p.data) {
		return nil, p.errorf("unexpected end of file: a value was expected")
	}
	line, col := p.line, p.col()
	switch c := p.data[p.off]; {
	case (c == '{' || c == '[') && depth >= MaxDepth:
		// A collection inside MaxDepth others.
		return nil, p.errorf("%s", tree.DepthMessage())
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return &tree.Node{Kind: tree.ScalarNode, Tag: "!!str", Value: s, Style: tree.DoubleQuotedStyle, Line: line, Column: col}, nil
	case c == 't':
		return p.literal("true", "!!bool", line, col)
	case c == 'f':
		return p.literal("false", "!!bool", line, col)
	case c == 'n':
		return p.literal("null", "!!null", line, col)
	case c == '-' && bytes.HasPrefix(p.data[p.off:], []byte("---")):
		return nil, p.errorf("unexpected %s", p.describe())
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number(line, col)
	default:
		return nil, p.errorf("unexpected %s: a JSON value was expected", p.describe())
	}
}

func (p *Parser) literal(word, tag string, line, col int) (*tree.Node, error) {
	if !bytes.HasPrefix(p.data[p.off:], []byte(word)) {
		return nil, p.errorf("unexpected %s: a JSON value was expected", p.describe())
	}
	p.off += len(word)
	return &tree.Node{Kind: tree.ScalarNode, Tag: tag, Value: word, Line: line, Column: col}, nil
}

func (p *Parser) number(line, col int) (*tree.Node, error) {
	start := p.off
	isFloat := false
	for p.off < len(p.data) {
		c := p.data[p.off]
		if (c >= '0' && c <= '9') || c == '-' || c == '+' {
			p.off++
			continue
		}
		if c == '.' || c == 'e' || c == 'E' {
			isFloat = true
			p.off++
			continue
		}
		break
	}
	if p.off-start > tree.MaxScalar {
		p.off = start
		return nil, p.errorf("%s", tree.ScalarMessage())
	}
	lit := string(p.data[start:p.off])
	if !json.Valid([]byte(lit)) {
		p.off = start
		return nil, p.errorf("invalid number %q", lit)
	}
	tag := "!!int"
	if isFloat {
		tag = "!!float"
	}
	return &tree.Node{Kind: tree.ScalarNode, Tag: tag, Value: lit, Line: line, Column: col}, nil
}

// str parses a JSON string at p.off. Strings without escapes (base64 data,
// names) are sliced directly; the scan keeps its index in a local so that long
// values run at memory speed.
func (p *Parser) str() (string, error) {
	start := p.off
	data := p.data
	i := start + 1
	escaped := false
	for i < len(data) {
		if i += textscan.JSONSafe(data[i:]); i == len(data) {
			break
		}
		if i-start-1 > tree.MaxScalar {
			// Refused without reading it to its end.
			return "", p.errorf("%s", tree.ScalarMessage())
		}
		c := data[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			i++
			continue
		}
		switch c {
		case '"':
			if i-start-1 > tree.MaxScalar {
				return "", p.errorf("%s", tree.ScalarMessage())
			}
			p.off = i + 1
			raw := data[start:p.off]
			if !escaped && utf8.Valid(raw) {
				return borrow.String(raw[1:len(raw)-1], p.borrow), nil
			}
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				p.off = start
				return "", p.errorf("invalid string: %v", err)
			}
			return s, nil
		case '\\':
			escaped = true
			i += 2
		default:
			p.off = i
			// A backslash before a line break (no valid escape, but the
			// scan steps over what follows a backslash) took the scan past
			// it: count the line.
			if nl := bytes.LastIndexByte(data[start:i], '\n'); nl >= 0 {
				p.line += bytes.Count(data[start:i], []byte("\n"))
				p.lineStart = start + nl + 1
			}
			return "", p.errorf("invalid control character %s in string", p.describe())
		}
	}
	return "", p.errorf("unterminated string")
}

func (p *Parser) object(depth int) (*tree.Node, error) {
	n := &tree.Node{Kind: tree.MappingNode, Tag: "!!map", Line: p.line, Column: p.col(), Style: tree.FlowStyle}
	p.off++
	p.skipSpace()
	if p.off < len(p.data) && p.data[p.off] == '}' {
		p.off++
		return n, nil
	}
	for {
		p.skipSpace()
		if p.off >= len(p.data) || p.data[p.off] != '"' {
			return nil, p.errorf("unexpected %s: an object key (a string) was expected", p.describe())
		}
		line, col := p.line, p.col()
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		p.skipSpace()
		if p.off >= len(p.data) || p.data[p.off] != ':' {
			return nil, p.errorf("unexpected %s: ':' was expected after object key %q", p.describe(), k)
		}
		p.off++
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		n.Content = append(n.Content, &tree.Node{Kind: tree.ScalarNode, Tag: "!!str", Value: k, Style: tree.DoubleQuotedStyle, Line: line, Column: col}, v)
		if err := p.docTooLong(); err != nil {
			return nil, err
		}
		p.skipSpace()
		if p.off >= len(p.data) {
			return nil, p.errorf("unexpected end of file: ',' or '}' was expected")
		}
		switch p.data[p.off] {
		case ',':
			p.off++
		case '}':
			p.off++
			return n, nil
		case '"':
			return nil, p.errorf("unexpected %s: ',' or '}' was expected; is a ',' missing before this key?", p.describe())
		default:
			return nil, p.errorf("unexpected %s: ',' or '}' was expected", p.describe())
		}
	}
}

func (p *Parser) array(depth int) (*tree.Node, error) {
	n := &tree.Node{Kind: tree.SequenceNode, Tag: "!!seq", Line: p.line, Column: p.col(), Style: tree.FlowStyle}
	p.off++
	p.skipSpace()
	if p.off < len(p.data) && p.data[p.off] == ']' {
		p.off++
		return n, nil
	}
	for {
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		n.Content = append(n.Content, v)
		if err := p.docTooLong(); err != nil {
			return nil, err
		}
		p.skipSpace()
		if p.off >= len(p.data) {
			return nil, p.errorf("unexpected end of file: ',' or ']' was expected")
		}
		switch p.data[p.off] {
		case ',':
			p.off++
		case ']':
			p.off++
			return n, nil
		case '{', '[', '"':
			return nil, p.errorf("unexpected %s: ',' or ']' was expected; is a ',' missing before this value?", p.describe())
		default:
			return nil, p.errorf("unexpected %s: ',' or ']' was expected", p.describe())
		}
	}
}
