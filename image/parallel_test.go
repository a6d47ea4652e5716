package image

import (
	"bytes"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// lockedBuffer is written by the progress goroutine while the test reads.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitFor polls until the buffer holds s (bounded: the machine may be busy).
func waitFor(t *testing.T, b *lockedBuffer, s string) {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if strings.Contains(b.String(), s) {
			return
		}
	}
	t.Fatalf("never drew %q: %q", s, b.String())
}

func TestProgressLine(t *testing.T) {
	var buf lockedBuffer
	var done, running atomic.Int64
	running.Store(2)
	stop := drawProgress(&buf, 5, &done, &running, time.Millisecond)
	waitFor(t, &buf, "0/5 done, 2 running")
	done.Store(5)
	running.Store(0)
	waitFor(t, &buf, "5/5 done, 0 running")
	stop()
	out := buf.String()
	for _, want := range []string{"\r\x1b[Kpulling images: 0/5 done, 2 running", "\r\x1b[Kpulling images: 5/5 done, 0 running"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in %q", want, out)
		}
	}
	if !strings.HasSuffix(out, "\r\x1b[K") {
		t.Errorf("line not erased at the end: %q", out)
	}
	if strings.Contains(out, "\n") {
		t.Errorf("progress must stay on one line: %q", out)
	}
	// Unchanged state is not redrawn.
	if n := strings.Count(out, "0/5 done, 2 running"); n != 1 {
		t.Errorf("redrew the same line %d times", n)
	}
	// Not a terminal: nothing at all.
	var quiet bytes.Buffer
	c := &Client{opts: Options{Progress: &quiet}}
	c.progress(5, &done, &running)()
	if quiet.Len() != 0 {
		t.Errorf("wrote %q to a non-terminal", quiet.String())
	}
}
