package ctxio

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
)

// countingWriter records the size of each write it gets.
type countingWriter struct {
	sizes []int
	after func()
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.sizes = append(c.sizes, len(p))
	if c.after != nil {
		c.after()
	}
	return len(p), nil
}

// A large write goes out in pieces, and stops at the first piece after the
// context ends: what was written is reported, with the context's error.
func TestWriterStopsBetweenPieces(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cw := &countingWriter{}
	calls := 0
	cw.after = func() {
		calls++
		if calls == 2 {
			cancel()
		}
	}
	n, err := Writer(ctx, cw).Write(make([]byte, 5*chunk+10))
	if !errors.Is(err, context.Canceled) || n != 2*chunk {
		t.Fatalf("Write = %d, %v; want %d, context.Canceled", n, err, 2*chunk)
	}
	if len(cw.sizes) != 2 || cw.sizes[0] != chunk {
		t.Errorf("pieces %v", cw.sizes)
	}
	if n, err := Writer(ctx, io.Discard).Write([]byte("x")); n != 0 || !errors.Is(err, context.Canceled) {
		t.Errorf("after the end: %d, %v", n, err)
	}

	var buf bytes.Buffer
	w := Writer(context.Background(), &buf)
	if n, err := w.Write([]byte("whole")); n != 5 || err != nil || buf.String() != "whole" {
		t.Errorf("Write = %d, %v, %q", n, err, buf.String())
	}
	if w.(interface{ Unwrap() io.Writer }).Unwrap() != &buf {
		t.Error("Unwrap does not return the writer underneath")
	}
}

func TestReaderStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	r := Reader(ctx, strings.NewReader("abcdef"))
	p := make([]byte, 3)
	if n, err := r.Read(p); n != 3 || err != nil {
		t.Fatalf("Read = %d, %v", n, err)
	}
	cancel()
	if n, err := r.Read(p); n != 0 || !errors.Is(err, context.Canceled) {
		t.Errorf("Read after the end = %d, %v", n, err)
	}
}
