// Package textout is for writers of text reports made of many small prints:
// a Writer keeps the first write error, so that a report prints freely and
// is checked once, at its end.
package textout

import (
	"fmt"
	"io"
	"strings"
)

// Writer prints to an io.Writer until a write fails; then it prints nothing
// more and Err says why.
type Writer struct {
	w   io.Writer
	err error
}

// New returns a Writer printing to w.
func New(w io.Writer) *Writer { return &Writer{w: w} }

// Printf prints like fmt.Fprintf unless an earlier write failed.
func (t *Writer) Printf(format string, args ...any) {
	if t.err == nil {
		_, t.err = fmt.Fprintf(t.w, format, args...)
	}
}

// Err is the first write error, or nil.
func (t *Writer) Err() error { return t.err }

// JoinAnd joins words as a sentence lists them: "a", "a and b", "a, b and
// c".
func JoinAnd(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}
