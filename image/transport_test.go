package image

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestRegistryTransport pins what the transport does below
// go-containerregistry: which requests it retries, how it resumes a
// download, and what it refuses.
func TestRegistryTransport(t *testing.T) {
	blob := strings.Repeat("0123456789", 1000)
	tests := []struct {
		name     string
		method   string
		path     string
		serve    func(w http.ResponseWriter, n int) // n counts requests from 1
		want     string                             // body read
		err      string
		requests int
		timeout  time.Duration // the transport's stall timeout (10s unless set)
	}{
		{
			name: "a 5xx is retried, then the answer passes",
			path: "/v2/r/manifests/t",
			serve: func(w http.ResponseWriter, n int) {
				if n < 3 {
					w.WriteHeader(http.StatusBadGateway)
					return
				}
				io.WriteString(w, "{}")
			},
			want: "{}", requests: 3,
		},
		{
			name: "retries run out: the registry's answer, counted",
			path: "/v2/r/manifests/t",
			serve: func(w http.ResponseWriter, n int) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusServiceUnavailable)
				io.WriteString(w, `{"errors":[{"code":"UNAVAILABLE","message":"busy"}]}`)
			},
			err: "503 service unavailable: UNAVAILABLE busy (after 4 attempts)", requests: 4,
		},
		{
			name:     "a 404 is an answer, not retried",
			path:     "/v2/r/manifests/t",
			serve:    func(w http.ResponseWriter, n int) { w.WriteHeader(http.StatusNotFound) },
			want:     "",
			requests: 1,
		},
		{
			name:   "uploads are not retried here",
			method: http.MethodPatch,
			path:   "/v2/r/blobs/uploads/1",
			serve:  func(w http.ResponseWriter, n int) { w.WriteHeader(http.StatusInternalServerError) },
			want:   "", requests: 1,
		},
		{
			name: "a blob cut short resumes, skipping what was read",
			path: "/v2/r/blobs/sha256:x",
			serve: func(w http.ResponseWriter, n int) {
				w.Header().Set("Content-Length", strconv.Itoa(len(blob)))
				if n == 1 {
					io.WriteString(w, blob[:len(blob)/3])
					return // short of Content-Length: the client sees an unexpected EOF
				}
				io.WriteString(w, blob)
			},
			want: blob, requests: 2,
		},
		{
			name: "a manifest that changed while resuming is refused",
			path: "/v2/r/manifests/tag",
			serve: func(w http.ResponseWriter, n int) {
				w.Header().Set("Docker-Content-Digest", "sha256:"+strconv.Itoa(n))
				w.Header().Set("Content-Length", strconv.Itoa(len(blob)))
				if n == 1 {
					io.WriteString(w, blob[:10])
					return
				}
				io.WriteString(w, blob)
			},
			err: "the content changed while it was being downloaded", requests: 2,
		},
		{
			name:    "no answer within the timeout is retried",
			timeout: 100 * time.Millisecond,
			path:    "/v2/r/manifests/t",
			serve: func(w http.ResponseWriter, n int) {
				if n == 1 {
					time.Sleep(300 * time.Millisecond)
				}
				io.WriteString(w, "{}")
			},
			want: "{}", requests: 2,
		},
		{
			name: "a manifest over the limit",
			path: "/v2/r/manifests/big",
			serve: func(w http.ResponseWriter, n int) {
				w.Header().Set("Content-Length", strconv.Itoa(maxManifestSize+1))
				w.Write(make([]byte, maxManifestSize+1))
			},
			err: "manifest of 8388609 bytes is over the 8388608-byte limit", requests: 1,
		},
		{
			name: "a manifest over the limit, without a length",
			path: "/v2/r/manifests/big",
			serve: func(w http.ResponseWriter, n int) {
				w.Write(make([]byte, maxManifestSize+1))
			},
			err: "manifest larger than 8388608 bytes", requests: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var n atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				tt.serve(w, int(n.Add(1)))
			}))
			defer srv.Close()
			var log strings.Builder
			// Only the case about a stall needs a short timeout; the others
			// get a generous one so that a loaded machine does not turn a
			// slow write into a stall.
			timeout := tt.timeout
			if timeout == 0 {
				timeout = 10 * time.Second
			}
			policy := &retryPolicy{retries: 3, delay: time.Millisecond, warnf: func(string, ...any) { log.WriteString("retry\n") }}
			client := &http.Client{Transport: &registryTransport{next: http.DefaultTransport, policy: policy, timeout: timeout}}
			method := tt.method
			if method == "" {
				method = http.MethodGet
			}
			req, _ := http.NewRequest(method, srv.URL+tt.path, nil)
			resp, err := client.Do(req)
			var body []byte
			if err == nil {
				body, err = io.ReadAll(resp.Body)
				resp.Body.Close()
			}
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
			} else if err != nil || string(body) != tt.want {
				t.Fatalf("body %d bytes, err %v", len(body), err)
			}
			if got := int(n.Load()); got != tt.requests {
				t.Errorf("%d requests, want %d", got, tt.requests)
			}
			if retries := strings.Count(log.String(), "retry"); retries != max(0, tt.requests-1) && tt.method == "" {
				t.Errorf("%d retries logged for %d requests", retries, tt.requests)
			}
		})
	}
}

// TestRetriedErrorsAreNotRetriedAgain: an outer retry loop (a push) does
// not retry what the transport already gave up on.
func TestRetriedErrorsAreNotRetriedAgain(t *testing.T) {
	policy := &retryPolicy{retries: 3, delay: time.Millisecond, warnf: func(string, ...any) {}}
	calls := 0
	err := policy.retry(t.Context(), new(int), func() error {
		calls++
		return &retriedError{err: &RegistryError{Method: "GET", URL: "u", Status: 500}, attempts: 4}
	})
	var re *RegistryError
	if calls != 1 || !errors.As(err, &re) || !strings.HasSuffix(err.Error(), "(after 4 attempts)") {
		t.Errorf("calls %d, err %v", calls, err)
	}
}
