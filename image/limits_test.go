package image

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
)

// limitsClient is a Client for a registry on loopback, with no cache, no
// credentials and no retries.
func limitsClient(t *testing.T, deadline time.Duration) *Client {
	t.Helper()
	c, err := NewClient(Options{NoCache: true, Keychain: authn.NewMultiKeychain(), Retries: -1, Deadline: deadline})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A registry that redirects a manifest to itself: go-containerregistry's
// redirect checks set no limit, so fbc's transport stops the chain after
// MaxRedirects, as Go's HTTP client does by default.
func TestRedirectLoopStops(t *testing.T) {
	var manifests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v2/" {
			return
		}
		manifests.Add(1)
		http.Redirect(w, r, r.URL.String(), http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	c := limitsClient(t, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, try := range []func() error{
		func() error { _, err := c.Resolve(ctx, host+"/loop:v1", false); return err },
		func() error { _, err := c.Open(ctx, host+"/loop:v1"); return err },
	} {
		manifests.Store(0)
		err := try()
		var re *RedirectError
		if !errors.As(err, &re) {
			t.Fatalf("err = %v, want a *RedirectError", err)
		}
		if !strings.Contains(err.Error(), "stopped after 10 redirects") || !Unreachable(err) {
			t.Errorf("err = %v (unreachable %t)", err, Unreachable(err))
		}
		if n := manifests.Load(); n > MaxRedirects+1 {
			t.Errorf("%d manifest requests, want at most %d", n, MaxRedirects+1)
		}
	}
}

// A registry that trickles its answer, a byte now and then, is never quiet
// for the stall timeout; the request's deadline ends it, and it is not
// retried.
func TestTrickleMeetsDeadline(t *testing.T) {
	stop := make(chan struct{})
	var manifests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v2/" {
			return
		}
		manifests.Add(1)
		w.Header().Set("Content-Type", "application/vnd.oci.image.manifest.v1+json")
		w.Header().Set("Content-Length", "100000")
		if r.Method == http.MethodHead {
			return
		}
		w.WriteHeader(http.StatusOK)
		for {
			select {
			case <-stop:
				return
			case <-r.Context().Done():
				return
			case <-time.After(20 * time.Millisecond):
				w.Write([]byte(" "))
				w.(http.Flusher).Flush()
			}
		}
	}))
	defer srv.Close()
	defer close(stop)
	host := strings.TrimPrefix(srv.URL, "http://")
	c := limitsClient(t, 300*time.Millisecond)
	start := time.Now()
	_, err := c.Open(context.Background(), host+"/slow:v1")
	var de *DeadlineError
	if !errors.As(err, &de) {
		t.Fatalf("err = %v, want a *DeadlineError", err)
	}
	if !strings.Contains(err.Error(), "no complete answer within 300ms") || !Unreachable(err) {
		t.Errorf("err = %v (unreachable %t)", err, Unreachable(err))
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("took %v", took)
	}
	if n := manifests.Load(); n > 2 {
		t.Errorf("%d manifest requests: a request past its deadline is not retried", n)
	}
}

// A blob download gets a second per MinDownloadRate bytes it declares
// beyond the deadline, so that a large layer on a slow link is not cut.
func TestDeadlineGrowsWithBlobSize(t *testing.T) {
	d, _ := newRequestDeadline(httptest.NewRequest(http.MethodGet, "http://r/v2/x/blobs/sha256:a", nil), time.Minute)
	defer d.stop()
	d.extend(10 * MinDownloadRate)
	if d.limit != time.Minute+10*time.Second {
		t.Errorf("limit %v", d.limit)
	}
}
