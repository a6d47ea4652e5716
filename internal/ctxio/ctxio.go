// Package ctxio makes long reads and writes stop when their context ends:
// an interrupted command stops copying and streaming within one chunk,
// instead of writing its whole output first.
package ctxio

import (
	"context"
	"io"
)

// chunk bounds one write to the underlying writer, so that a large write
// (a whole report in one buffer) notices an interrupt part way.
const chunk = 256 << 10

type writer struct {
	ctx context.Context
	w   io.Writer
}

// Writer returns a writer that writes to w until ctx ends, then fails with
// ctx's error; large writes go to w in pieces, ctx checked before each.
func Writer(ctx context.Context, w io.Writer) io.Writer { return &writer{ctx: ctx, w: w} }

func (c *writer) Write(p []byte) (int, error) {
	written := 0
	for len(p) > 0 {
		if err := c.ctx.Err(); err != nil {
			return written, err
		}
		n, err := c.w.Write(p[:min(len(p), chunk)])
		written += n
		if err != nil {
			return written, err
		}
		p = p[n:]
	}
	return written, nil
}

// Unwrap returns the writer underneath (for checks such as "is it a
// terminal").
func (c *writer) Unwrap() io.Writer { return c.w }

type reader struct {
	ctx context.Context
	r   io.Reader
}

// Reader returns a reader that reads r until ctx ends, then fails with
// ctx's error.
func Reader(ctx context.Context, r io.Reader) io.Reader { return &reader{ctx: ctx, r: r} }

func (c *reader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
