package image

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// OpenAll opens each of refs, at most Options.Jobs at a time, and calls fn
// with each image (fn runs concurrently; i is the ref's index). Errors come
// back joined in the order of refs. A failure to reach a registry (refused
// or timed-out connections, 5xx after retries) stops the images not yet
// started, so an unreachable registry is reported once per image in flight
// rather than once per image; problems of one image (its content, a 404, a
// 401) do not stop the others.
func (c *Client) OpenAll(ctx context.Context, refs []string, fn func(ctx context.Context, i int, img *Image) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, len(refs))
	var done, running atomic.Int64
	stopProgress := c.progress(len(refs), &done, &running)
	defer stopProgress()

	sem := make(chan struct{}, c.opts.Jobs)
	var wg sync.WaitGroup
	for i, ref := range refs {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			running.Add(1)
			defer running.Add(-1)
			defer done.Add(1)
			img, err := c.Open(ctx, ref)
			if err == nil {
				err = fn(ctx, i, img)
			}
			if err != nil {
				errs[i] = err
				if !contentProblem(err) {
					cancel()
				}
			}
		}()
	}
	wg.Wait()
	var out []error
	for _, err := range errs {
		if err != nil && !(errors.Is(err, context.Canceled) && ctx.Err() != nil) {
			out = append(out, err)
		}
	}
	if len(out) == 0 && ctx.Err() != nil {
		return ctx.Err()
	}
	return errors.Join(out...)
}

// contentProblem tells problems of one image (its content, or a registry's
// answer about it such as 404) from failures to reach a registry at all.
func contentProblem(err error) bool {
	var ce *ContentError
	var be *BlobError
	var re *RegistryError
	return errors.As(err, &ce) || errors.As(err, &be) || (errors.As(err, &re) && !transientStatus(re.Status))
}

// progress draws "pulling images: D/N done, R running" on a terminal,
// redrawn in place at most ten times a second and erased at the end.
func (c *Client) progress(total int, done, running *atomic.Int64) (stop func()) {
	w := c.opts.Progress
	if w == nil || !isTerminal(w) || total < 2 {
		return func() {}
	}
	return drawProgress(w, total, done, running, 100*time.Millisecond)
}

func drawProgress(w io.Writer, total int, done, running *atomic.Int64, every time.Duration) (stop func()) {
	quit := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(every)
		defer t.Stop()
		last := ""
		for {
			line := fmt.Sprintf("pulling images: %d/%d done, %d running", done.Load(), total, running.Load())
			if line != last {
				fmt.Fprintf(w, "\r\x1b[K%s", line)
				last = line
			}
			select {
			case <-quit:
				fmt.Fprint(w, "\r\x1b[K")
				return
			case <-t.C:
			}
		}
	}()
	return func() {
		close(quit)
		<-finished
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
