package jsonstream_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/fbc-project/fbc/declcfg/internal/tree"

	"github.com/fbc-project/fbc/declcfg/internal/jsonstream"
)

// toValue converts a parsed tree to what encoding/json decodes the same
// JSON to, with UseNumber: numbers stay their literal text.
func toValue(n *tree.Node) any {
	switch n.Kind {
	case tree.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			m[n.Content[i].Value] = toValue(n.Content[i+1]) // the last of a repeated key wins, as in encoding/json
		}
		return m
	case tree.SequenceNode:
		s := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			s = append(s, toValue(c))
		}
		return s
	}
	switch n.Tag {
	case "!!null":
		return nil
	case "!!bool":
		return n.Value == "true"
	case "!!int", "!!float":
		return json.Number(n.Value)
	}
	return n.Value
}

// lineStarts returns the byte offset of each line of data.
func lineStarts(data []byte) []int {
	starts := []int{0}
	for i, c := range data {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// offset turns a 1-based line and character column into a byte offset of
// data; -1 when they are not in it. A column counts the bytes that do not
// continue a UTF-8 sequence (code points, in valid text), as the Parser's do.
func offset(data []byte, starts []int, line, col int) int {
	if line < 1 || line > len(starts) || col < 1 {
		return -1
	}
	end := len(data)
	if line < len(starts) {
		end = starts[line] - 1
	}
	chars := 0
	for off := starts[line-1]; off <= end; off++ {
		if off < len(data) && data[off]&0xc0 == 0x80 {
			continue
		}
		if chars++; chars == col {
			return off
		}
	}
	return -1
}

// checkPositions reports a node whose line and column do not point at its
// first byte.
func checkPositions(data []byte, starts []int, n *tree.Node) error {
	off := offset(data, starts, n.Line, n.Column)
	if off < 0 || off >= len(data) {
		return fmt.Errorf("node %q at %d:%d: outside the data", n.Value, n.Line, n.Column)
	}
	first := map[tree.Kind]byte{tree.MappingNode: '{', tree.SequenceNode: '['}[n.Kind]
	switch {
	case first == 0 && n.Tag == "!!str":
		first = '"'
	case first == 0:
		first = n.Value[0]
	}
	if data[off] != first {
		return fmt.Errorf("node %q at %d:%d: the byte there is %q", n.Value, n.Line, n.Column, data[off])
	}
	for _, c := range n.Content {
		if err := checkPositions(data, starts, c); err != nil {
			return err
		}
	}
	return nil
}

// compareJSON parses data with the Parser and with encoding/json's Decoder:
// every value the Parser accepts, encoding/json decodes to the same value
// (so whatever encoding/json rejects, the Parser rejects), at the position
// the Parser gives it; an error is a *SyntaxError at a place in data.
func compareJSON(data []byte, borrow bool) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	starts := lineStarts(data)
	p := jsonstream.NewParser(data, borrow)
	for p.More() {
		start := p.Offset()
		n, err := p.Value()
		if err != nil {
			var se *jsonstream.SyntaxError
			if !errors.As(err, &se) {
				return fmt.Errorf("error %v (%T) is no *SyntaxError", err, err)
			}
			if offset(data, starts, se.Line, se.Col) < 0 {
				return fmt.Errorf("error %q at %d:%d, outside the data", se.Msg, se.Line, se.Col)
			}
			return nil
		}
		var want any
		if err := dec.Decode(&want); err != nil {
			return fmt.Errorf("accepted %q, which encoding/json rejects: %v", data[start:p.Offset()], err)
		}
		if got := toValue(n); !reflect.DeepEqual(got, want) {
			return fmt.Errorf("value %#v, encoding/json %#v", got, want)
		}
		if err := checkPositions(data, starts, n); err != nil {
			return err
		}
	}
	var extra any
	if err := dec.Decode(&extra); err != io.EOF {
		return fmt.Errorf("the stream ended, encoding/json found more: %v, %v", extra, err)
	}
	return nil
}

var seeds = []string{
	`{"schema":"olm.package","name":"a","defaultChannel":"s","icon":{"base64data":"aGk=","mediatype":"image/png"}}`,
	"{\n    \"schema\": \"olm.channel\",\n    \"entries\": [\n        {\"name\": \"a.v1\", \"skips\": [\"x\"]}\n    ]\n}\n{\"schema\": \"olm.bundle\"}\n",
	`[1, -2.5e3, 0, -0, 1E+2, true, false, null, "", {}, []]`,
	`"esc\"aped\\ \/ \b\f\n\r\t \u00e9 \ud83d\ude00"`,
	"{\"k\": \"\xff\xfe invalid UTF-8\"}",
	`{"a": 1 "b": 2}`,
	`{"a": [1 2]}`,
	"{\"a\": 1}\n---\n{\"b\": 2}",
	`01 1.e5 .5 -`,
	"true false null 1 \"s\" {} []",
	`{"a": "` + strings.Repeat("QUJD", 300) + `"}`,
	"{\"ctl\": \"a\tb\"}",
	`{"a": tru}`,
	strings.Repeat("[", 1000) + strings.Repeat("]", 1000),
	strings.Repeat("[", 1001) + strings.Repeat("]", 1001),
	`{"a": ` + strings.Repeat(`{"b": `, 1000) + `1` + strings.Repeat("}", 1001),
}

// FuzzJSONStream holds the Parser to encoding/json (compareJSON), with and
// without borrowing.
func FuzzJSONStream(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		for _, borrow := range []bool{false, true} {
			if err := compareJSON(data, borrow); err != nil {
				t.Fatalf("borrow %v: %v\ninput: %q", borrow, err, data)
			}
		}
	})
}

func TestMatchesEncodingJSON(t *testing.T) {
	for _, s := range seeds {
		if err := compareJSON([]byte(s), false); err != nil {
			t.Errorf("%v\ninput: %.80q", err, s)
		}
	}
}

// TestErrors pins the messages and positions declcfg reports for JSON
// syntax errors.
func TestErrors(t *testing.T) {
	for in, want := range map[string]string{
		"{\"a\": 1\n \"b\": 2}":          `2:2 unexpected '"': ',' or '}' was expected; is a ',' missing before this key?`,
		"[1,\n{}\n{}]":                   `3:1 unexpected '{': ',' or ']' was expected; is a ',' missing before this value?`,
		"{\"a\": 1,":                     `1:9 unexpected end of file: an object key (a string) was expected`,
		"{\"a\"\n---\n":                  `2:1 unexpected '---' (a YAML document separator; this file is read as a JSON stream because it starts with '{'): ':' was expected after object key "a"`,
		"{\"a\": 01}":                    `1:7 invalid number "01"`,
		"{\"a\": \"x\ty\"}":              `1:9 invalid control character byte 0x09 in string`,
		"{\"a\": \"\\q\"}":               `1:7 invalid string: invalid character 'q' in string escape code`,
		"{\"a\": \"x":                    `1:7 unterminated string`,
		"{\"a\": \"x\\\n\ty\"}":          `2:1 invalid control character byte 0x09 in string`,
		"{\"a\": nul}":                   `1:7 unexpected 'n': a JSON value was expected`,
		"{\"a\": \xc3\xa9}":              `1:7 unexpected byte 0xc3: a JSON value was expected`,
		"{\"é€😀\": x}":                   `1:9 unexpected 'x': a JSON value was expected`,
		"{\"é\": 1,\n\"ü\": 1, \"b\" 2}": `2:13 unexpected '2': ':' was expected after object key "b"`,
		strings.Repeat("[", 1001):        `1:1001 nesting deeper than 1000 levels, the limit fbc reads`,
		// The limits: a string or number past tree.MaxScalar, at its start,
		// and a value of the stream past tree.MaxDocument, at its start.
		"{\"a\": 1}\n{\"b\": \"" + strings.Repeat("x", 16<<20+1) + "\"}":                  `2:7 a value longer than 16 MiB, the limit of one value`,
		"{\"b\": " + strings.Repeat("1", 16<<20+1) + "}":                                  `1:7 a value longer than 16 MiB, the limit of one value`,
		"\n [" + strings.Repeat(`"`+strings.Repeat("y", 8<<20)+`",`, 9) + `"z"]` + "\n{}": `2:2 a document longer than 64 MiB, the limit of one document (a file may hold any number of documents)`,
	} {
		p := jsonstream.NewParser([]byte(in), false)
		var err error
		for p.More() && err == nil {
			_, err = p.Value()
		}
		var se *jsonstream.SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%.80q: error %v", in, err)
			continue
		}
		if got := fmt.Sprintf("%d:%d %s", se.Line, se.Col, se.Msg); got != want {
			t.Errorf("%.80q:\n got %s\nwant %s", in, got, want)
		}
	}
}
