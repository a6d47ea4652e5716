package textout

import (
	"errors"
	"strings"
	"testing"
)

// failAfter accepts n writes, then fails every one.
type failAfter struct {
	n   int
	got strings.Builder
}

var errFull = errors.New("disk full")

func (f *failAfter) Write(p []byte) (int, error) {
	if f.n == 0 {
		return 0, errFull
	}
	f.n--
	return f.got.Write(p)
}

func TestWriterKeepsFirstError(t *testing.T) {
	f := &failAfter{n: 1}
	w := New(f)
	w.Printf("a %d\n", 1)
	if w.Err() != nil {
		t.Fatalf("Err after a good write: %v", w.Err())
	}
	w.Printf("b\n")
	f.n = 5 // the destination recovers; the report stays failed
	w.Printf("c\n")
	if !errors.Is(w.Err(), errFull) {
		t.Errorf("Err = %v, want the first failure", w.Err())
	}
	if f.got.String() != "a 1\n" {
		t.Errorf("wrote %q, want nothing after the failure", f.got.String())
	}
}
