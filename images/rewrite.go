package images

import (
	"bytes"
	"fmt"
	"slices"
	"unicode/utf8"
)

// Edit replaces the scalar at Line:Col of a file (1-based; the column
// counts characters, as declcfg's positions do) whose value is Old with
// New. Quoted is how the scalar is written: 0 for plain, or its quote
// character (a double or a single quote).
type Edit struct {
	Line, Col int
	Quoted    byte
	Old, New  string
}

// Rewrite applies edits to a file's bytes, changing nothing else: layout,
// comments, quoting and every other value stay as they are. Each edit is
// checked against the text: the scalar must be written exactly as its
// value (quoted references never need escapes, so one that has them is
// refused rather than guessed at), and New must read back as itself in
// the same style. A YAML anchor or tag written before the scalar stays,
// and so the scalar's aliases read the new value. The edits must not
// overlap.
func Rewrite(data []byte, edits []Edit) ([]byte, error) {
	type span struct {
		start, end int
		text       string
	}
	spans := make([]span, 0, len(edits))
	lines := lineStarts(data)
	for _, e := range edits {
		if e.Line < 1 || e.Line > len(lines) || e.Col < 1 {
			return nil, fmt.Errorf("%d:%d: no such position", e.Line, e.Col)
		}
		off := lines[e.Line-1]
		for c := 1; c < e.Col; c++ {
			if off >= len(data) || data[off] == '\n' {
				return nil, fmt.Errorf("%d:%d: no such position", e.Line, e.Col)
			}
			_, size := utf8.DecodeRune(data[off:])
			off += size
		}
		// A YAML anchor (&name) or tag (!tag) before the value: the
		// value's text follows it, and the anchor stays.
		off = skipProperties(data, off)
		start, end := off, off+len(e.Old)
		switch e.Quoted {
		case 0:
		case '"', '\'':
			if off >= len(data) || data[off] != e.Quoted {
				return nil, fmt.Errorf("%d:%d: the value %q is not written there", e.Line, e.Col, e.Old)
			}
			start, end = off+1, off+1+len(e.Old)
			if end >= len(data) || data[end] != e.Quoted {
				return nil, fmt.Errorf("%d:%d: the value %q is written with escapes; write it plainly to have it rewritten", e.Line, e.Col, e.Old)
			}
		default:
			return nil, fmt.Errorf("%d:%d: the value %q is a block scalar; write it on one line to have it rewritten", e.Line, e.Col, e.Old)
		}
		if end > len(data) || string(data[start:end]) != e.Old {
			return nil, fmt.Errorf("%d:%d: the value %q is not written there as it reads (escapes or line breaks); write it plainly to have it rewritten", e.Line, e.Col, e.Old)
		}
		if err := checkNew(e); err != nil {
			return nil, fmt.Errorf("%d:%d: %w", e.Line, e.Col, err)
		}
		spans = append(spans, span{start, end, e.New})
	}
	slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })
	var out bytes.Buffer
	out.Grow(len(data) + 80*len(spans))
	last := 0
	for i, s := range spans {
		if i > 0 && s.start < spans[i-1].end {
			return nil, fmt.Errorf("overlapping edits")
		}
		out.Write(data[last:s.start])
		out.WriteString(s.text)
		last = s.end
	}
	out.Write(data[last:])
	return out.Bytes(), nil
}

// skipProperties skips the YAML node properties that start at off, an
// anchor (&name) and a tag (!tag), in either order, and the white space
// after each, to the value's first byte. Without properties it returns off.
func skipProperties(data []byte, off int) int {
	for range 2 {
		if off >= len(data) || (data[off] != '&' && data[off] != '!') {
			return off
		}
		for off < len(data) && bytes.IndexByte([]byte(" \t\r\n,[]{}"), data[off]) < 0 {
			off++
		}
		for off < len(data) && bytes.IndexByte([]byte(" \t\r\n"), data[off]) >= 0 {
			off++
		}
	}
	return off
}

// checkNew refuses a replacement that would not read back as itself where
// it goes: references are made of [A-Za-z0-9._:/@+-], which need no quoting
// or escapes in YAML or JSON, and are refused if they hold anything else.
func checkNew(e Edit) error {
	if e.New == "" {
		return fmt.Errorf("empty replacement for %q", e.Old)
	}
	for i := 0; i < len(e.New); i++ {
		c := e.New[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || bytes.IndexByte([]byte("._:/@+-"), c) >= 0) {
			return fmt.Errorf("replacement %q holds %q, which is not part of an image reference", e.New, c)
		}
	}
	if e.Quoted == 0 && bytes.IndexByte([]byte("-:@"), e.New[0]) >= 0 {
		return fmt.Errorf("replacement %q cannot start a plain scalar", e.New)
	}
	return nil
}

// lineStarts returns the byte offset of each line's first byte.
func lineStarts(data []byte) []int {
	starts := []int{0}
	for i, c := range data {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}
