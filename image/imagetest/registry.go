package imagetest

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
)

// Corruption is how Faults damages a blob it serves.
type Corruption int

const (
	// Flip changes the blob's last byte: same size, wrong digest.
	Flip Corruption = iota + 1
	// Truncate sends half the blob after promising all of it, then closes
	// the connection.
	Truncate
	// Stall sends half the blob, then nothing until the client gives up
	// (or 30 seconds pass).
	Stall
)

// Faults wraps a registry's handler: it records requests, can demand basic
// auth, fail the next N requests with a status, and corrupt chosen blobs.
type Faults struct {
	next http.Handler

	mu            sync.Mutex
	requests      []string
	user, pass    string
	failRemaining int
	failStatus    int
	failMethod    string
	stallLeft     int
	corrupt       map[string]damage
	redirect      bool
	trickle       time.Duration
}

// damage is how a blob is corrupted, and for how many more serves (-1:
// always).
type damage struct {
	how  Corruption
	left int
}

// NewFaults wraps next, passing everything through until told otherwise.
func NewFaults(next http.Handler) *Faults {
	return &Faults{next: next, corrupt: map[string]damage{}}
}

// RequireAuth makes every request need these basic-auth credentials.
func (f *Faults) RequireAuth(user, pass string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.user, f.pass = user, pass
}

// FailNext answers the next n requests with status (e.g. 500).
func (f *Faults) FailNext(n, status int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failRemaining, f.failStatus, f.failMethod = n, status, ""
}

// FailNextMethod answers the next n requests with this method (e.g. PUT)
// with status; other requests pass.
func (f *Faults) FailNextMethod(n int, method string, status int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failRemaining, f.failStatus, f.failMethod = n, status, method
}

// StallNext makes the next n requests hang, answering nothing until the
// client gives up (or 30 seconds pass, when they are served as usual): a
// registry that stops responding in the middle of a run.
func (f *Faults) StallNext(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stallLeft = n
}

// RedirectManifests makes every manifest request redirect to itself (307,
// the same URL): a registry stuck in a redirect loop.
func (f *Faults) RedirectManifests() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.redirect = true
}

// TrickleManifests makes every manifest GET send its answer a byte each
// interval: a registry never quiet long enough to time out, that never
// finishes either.
func (f *Faults) TrickleManifests(interval time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.trickle = interval
}

// Corrupt damages the blob with this digest ("sha256:...") whenever it is
// served.
func (f *Faults) Corrupt(digest string, how Corruption) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.corrupt[digest] = damage{how: how, left: -1}
}

// CorruptNext damages the next n serves of the blob with this digest, then
// serves it whole.
func (f *Faults) CorruptNext(n int, digest string, how Corruption) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.corrupt[digest] = damage{how: how, left: n}
}

// Requests returns the requests seen ("GET /v2/..."), oldest first.
func (f *Faults) Requests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.requests...)
}

// Reset forgets the requests seen so far.
func (f *Faults) Reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = nil
}

func writeRegistryError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"errors":[{"code":%q,"message":%q}]}`, code, msg)
}

func (f *Faults) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, r.Method+" "+r.URL.Path)
	user, pass := f.user, f.pass
	fail := f.failRemaining > 0 && (f.failMethod == "" || f.failMethod == r.Method)
	if fail {
		f.failRemaining--
	}
	status := f.failStatus
	stall := !fail && f.stallLeft > 0
	if stall {
		f.stallLeft--
	}
	manifest := strings.Contains(r.URL.Path, "/manifests/")
	redirect := manifest && f.redirect
	trickle := time.Duration(0)
	if manifest && r.Method == http.MethodGet {
		trickle = f.trickle
	}
	var how Corruption
	if i := strings.LastIndex(r.URL.Path, "/blobs/"); i >= 0 && r.Method == http.MethodGet {
		d := r.URL.Path[i+len("/blobs/"):]
		if dm := f.corrupt[d]; dm.left != 0 {
			how = dm.how
			if dm.left > 0 {
				dm.left--
				f.corrupt[d] = dm
			}
		}
	}
	f.mu.Unlock()

	if user != "" {
		u, p, ok := r.BasicAuth()
		if !ok || u != user || p != pass {
			w.Header().Set("WWW-Authenticate", `Basic realm="imagetest"`)
			writeRegistryError(w, http.StatusUnauthorized, "UNAUTHORIZED", "authentication required")
			return
		}
	}
	if fail {
		writeRegistryError(w, status, "UNKNOWN", "injected failure")
		return
	}
	if stall {
		select {
		case <-r.Context().Done():
			return
		case <-time.After(30 * time.Second):
		}
	}
	if redirect {
		http.Redirect(w, r, r.URL.String(), http.StatusTemporaryRedirect)
		return
	}
	if trickle > 0 {
		serveTrickle(w, r, f.next, trickle)
		return
	}
	if how == 0 {
		f.next.ServeHTTP(w, r)
		return
	}
	rec := httptest.NewRecorder()
	f.next.ServeHTTP(rec, r)
	body := rec.Body.Bytes()
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	if rec.Code != http.StatusOK || len(body) == 0 {
		w.WriteHeader(rec.Code)
		w.Write(body)
		return
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	switch how {
	case Flip:
		body = bytes.Clone(body)
		body[len(body)-1] ^= 0xff
		w.Write(body)
	case Truncate:
		w.Write(body[:len(body)/2])
		// Less than the promised Content-Length: the server closes the
		// connection and the client sees an unexpected EOF.
	case Stall:
		w.Write(body[:len(body)/2])
		if fl, ok := w.(http.Flusher); ok {
			fl.Flush()
		}
		select {
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
	}
}

// serveTrickle serves next's answer a byte each interval, until it is all
// sent or the client leaves.
func serveTrickle(w http.ResponseWriter, r *http.Request, next http.Handler, interval time.Duration) {
	rec := httptest.NewRecorder()
	next.ServeHTTP(rec, r)
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	body := rec.Body.Bytes()
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(rec.Code)
	fl, _ := w.(http.Flusher)
	for i := range body {
		select {
		case <-r.Context().Done():
			return
		case <-time.After(interval):
		}
		if _, err := w.Write(body[i : i+1]); err != nil {
			return
		}
		if fl != nil {
			fl.Flush()
		}
	}
}

// Registry is an in-process registry (go-containerregistry's pkg/registry)
// on 127.0.0.1 behind Faults.
type Registry struct {
	*Faults
	Server *httptest.Server
	// Host is host:port, for references: Host + "/repo:tag".
	Host string
	user string
	pass string
}

// NewRegistry starts a registry that is closed when the test ends.
func NewRegistry(t testing.TB) *Registry {
	t.Helper()
	f := NewFaults(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return &Registry{Faults: f, Server: srv, Host: strings.TrimPrefix(srv.URL, "http://")}
}

// RequireAuth makes the registry demand these credentials (Push keeps
// working).
func (r *Registry) RequireAuth(user, pass string) {
	r.Faults.RequireAuth(user, pass)
	r.user, r.pass = user, pass
}

// Push writes an image or index to Host/repo (repo includes :tag).
func (r *Registry) Push(t testing.TB, repo string, img any) string {
	t.Helper()
	ref := r.Host + "/" + repo
	if err := Push(ref, img, r.user, r.pass); err != nil {
		t.Fatalf("pushing %s: %v", ref, err)
	}
	return ref
}
