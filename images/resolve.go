package images

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/fbc-project/fbc/image"
	"github.com/fbc-project/fbc/internal/imageref"
)

// resolver asks registries about references, through mirrors, and
// remembers the registries it found unreachable so that it stops asking
// them.
type resolver struct {
	client  *image.Client
	mirrors *MirrorSets

	mu   sync.Mutex
	down map[string]error // host -> the failure that showed it unreachable
}

func newResolver(c *image.Client, ms *MirrorSets) *resolver {
	return &resolver{client: c, mirrors: ms, down: map[string]error{}}
}

// LookupError is a reference that could not be resolved: each place it was
// looked for (mirrors, then the source) and the answer there.
type LookupError struct {
	Ref      string
	Attempts []Attempt
}

// Attempt is one place a reference was looked for.
type Attempt struct {
	Pull string
	Err  error
}

func (e *LookupError) Error() string {
	if len(e.Attempts) == 1 {
		return e.Attempts[0].Err.Error()
	}
	parts := make([]string, len(e.Attempts))
	for i, a := range e.Attempts {
		parts[i] = a.Err.Error()
	}
	return fmt.Sprintf("%s: not found at any of its %d locations: %s", e.Ref, len(e.Attempts), strings.Join(parts, "; "))
}

// Unreachable reports whether no place could be asked at all: every
// registry was down (as opposed to one answering that the image is not
// there).
func (e *LookupError) Unreachable() bool {
	for _, a := range e.Attempts {
		if !image.Unreachable(a.Err) && !errors.Is(a.Err, errSkipped) {
			return false
		}
	}
	return len(e.Attempts) > 0
}

// Refused reports whether a registry refused access (401, 403): the
// credentials, not the reference, are to fix.
func (e *LookupError) Refused() bool {
	for _, a := range e.Attempts {
		var re *image.RegistryError
		if errors.As(a.Err, &re) && (re.Status == http.StatusUnauthorized || re.Status == http.StatusForbidden) {
			return true
		}
	}
	return false
}

// Offline reports whether the cache lacked what offline work needed.
func (e *LookupError) Offline() bool {
	for _, a := range e.Attempts {
		if errors.Is(a.Err, image.ErrOffline) {
			return true
		}
	}
	return false
}

// errSkipped marks an attempt not made because its registry was found
// unreachable earlier.
var errSkipped = errors.New("not asked")

func hostOf(ref string) string {
	if r, err := imageref.Parse(ref); err == nil {
		return r.Domain
	}
	return ""
}

// lookup asks about ref where a cluster would pull it from. It returns the
// answer and the reference that gave it.
func (r *resolver) lookup(ctx context.Context, ref string, platforms bool) (*image.ManifestInfo, string, error) {
	return r.lookupAt(ctx, ref, r.mirrors.Pulls(ref), platforms)
}

// lookupAt tries pulls in order.
func (r *resolver) lookupAt(ctx context.Context, ref string, pulls []string, platforms bool) (*image.ManifestInfo, string, error) {
	le := &LookupError{Ref: ref}
	for _, p := range pulls {
		if err := ctx.Err(); err != nil {
			return nil, "", err
		}
		host := hostOf(p)
		r.mu.Lock()
		downErr := r.down[host]
		r.mu.Unlock()
		if downErr != nil {
			le.Attempts = append(le.Attempts, Attempt{Pull: p, Err: fmt.Errorf("%s: %w: registry %s did not answer earlier (%v)", p, errSkipped, host, downErr)})
			continue
		}
		info, err := r.client.Resolve(ctx, p, platforms)
		if err == nil {
			return info, p, nil
		}
		if ctx.Err() != nil {
			return nil, "", ctx.Err()
		}
		if image.Unreachable(err) {
			r.mu.Lock()
			if r.down[host] == nil {
				r.down[host] = err
			}
			r.mu.Unlock()
		}
		le.Attempts = append(le.Attempts, Attempt{Pull: p, Err: err})
	}
	return nil, "", le
}

// forEach runs fn for each of n items, jobs at a time, stopping early when
// ctx ends.
func forEach(ctx context.Context, n, jobs int, fn func(i int)) error {
	if jobs <= 0 {
		jobs = 16
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(jobs, n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				fn(i)
			}
		}()
	}
feed:
	for i := 0; i < n; i++ {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	return ctx.Err()
}
