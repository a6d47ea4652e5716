package image

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
)

// RegistryError is an HTTP error answer from a registry.
type RegistryError struct {
	Method, URL string
	Status      int
	// Detail is the registry's own explanation (its error codes and
	// messages), when it gave one.
	Detail string
	// Hint says what the user can do about it.
	Hint string
}

func (e *RegistryError) Error() string {
	s := fmt.Sprintf("%s %s: %d %s", e.Method, e.URL, e.Status, strings.ToLower(http.StatusText(e.Status)))
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	if e.Hint != "" {
		s += ": " + e.Hint
	}
	return s
}

// transientStatus are the answers worth retrying.
func transientStatus(code int) bool {
	switch code {
	case http.StatusRequestTimeout, http.StatusTooManyRequests, http.StatusInternalServerError,
		http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// fromTransportError gives go-containerregistry's reading of a registry's
// error answer fbc's shape, with a hint.
func fromTransportError(te *transport.Error, host string) *RegistryError {
	e := &RegistryError{Method: te.Request.Method, URL: te.Request.URL.String(), Status: te.StatusCode}
	switch te.StatusCode {
	case http.StatusUnauthorized, http.StatusForbidden:
		e.Hint = fmt.Sprintf("check credentials in ~/.docker/config.json (or $DOCKER_CONFIG) or run `docker login %s`", host)
	case http.StatusNotFound:
		e.Hint = "no such image, tag or blob in the registry"
	}
	var parts []string
	for _, d := range te.Errors {
		parts = append(parts, strings.TrimSpace(string(d.Code)+" "+d.Message))
	}
	e.Detail = strings.Join(parts, "; ")
	return e
}

// explain turns what go-containerregistry returns into fbc's errors: a
// registry's answer becomes a RegistryError, an error the retry policy gave
// up on keeps its own message (which names the URL), and a refused
// connection is said plainly.
func explain(err error, registry string) error {
	var re *RegistryError
	var done *retriedError
	var te *transport.Error
	var be *BlobError
	switch {
	case err == nil, errors.As(err, &be):
		return err
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("cannot connect to registry %s (is it running, and is the address right?): %w", registry, err)
	case errors.As(err, &done):
		return &retriedError{err: explain(done.err, registry), attempts: done.attempts}
	case errors.As(err, &re):
		return re
	case errors.As(err, &te) && te.Request != nil:
		return fromTransportError(te, registry)
	}
	return err
}

// Unreachable reports a failure to reach a registry at all (a refused or
// timed-out connection, a name that does not resolve, server errors after
// the retries), as opposed to a problem with one image (an unknown tag, a
// damaged blob, what an image holds). Commands stop asking a registry that
// is unreachable.
func Unreachable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	var ce *ContentError
	var be *BlobError
	var re *RegistryError
	switch {
	case errors.As(err, &ce), errors.As(err, &be):
		return false
	case errors.As(err, &re):
		return re.Status >= 500 || re.Status == http.StatusRequestTimeout || re.Status == http.StatusTooManyRequests
	}
	var de *DeadlineError
	var rde *RedirectError
	if errors.As(err, &de) || errors.As(err, &rde) {
		return true
	}
	var oe *net.OpError
	var dns *net.DNSError
	var ne net.Error
	return errors.Is(err, syscall.ECONNREFUSED) || (errors.As(err, &oe) && oe.Op == "dial") ||
		errors.As(err, &dns) || (errors.As(err, &ne) && ne.Timeout())
}

// retryPolicy is how a transient registry failure is retried, by pulls and
// pushes alike: Options.Retries more attempts, backing off exponentially
// (from Options.RetryDelay, with jitter), each announced on the log.
type retryPolicy struct {
	retries int
	delay   time.Duration
	warnf   func(format string, args ...any)
}

// operationKey labels a context with what its requests are for ("pulling
// REF"), which retry warnings name.
type operationKey struct{}

func withOperation(ctx context.Context, what string) context.Context {
	return context.WithValue(ctx, operationKey{}, what)
}

// again is asked after attempt number attempt failed with err: it reports
// whether to try once more, having waited the backoff.
func (p *retryPolicy) again(ctx context.Context, attempt int, err error) bool {
	if attempt > p.retries || !transient(ctx, err) {
		return false
	}
	delay := min(p.delay<<(attempt-1), 10*time.Second)
	wait := delay + time.Duration(rand.Int64N(int64(delay)/4+1))
	what, _ := ctx.Value(operationKey{}).(string)
	p.warnf("%s: %v; retrying in %v (attempt %d of %d)", what, err, wait.Round(time.Millisecond), attempt+1, p.retries+1)
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// giveUp is the error of a failure that is not tried again.
func (p *retryPolicy) giveUp(ctx context.Context, attempt int, err error) error {
	if attempt == 1 && !transient(ctx, err) {
		return err
	}
	return &retriedError{err: err, attempts: attempt}
}

// retry runs fn until it succeeds or fails for good, counting its attempts
// in *attempts (which may hold earlier ones).
func (p *retryPolicy) retry(ctx context.Context, attempts *int, fn func() error) error {
	for {
		*attempts++
		err := fn()
		if err == nil {
			return nil
		}
		if !p.again(ctx, *attempts, err) {
			return p.giveUp(ctx, *attempts, err)
		}
	}
}

// retriedError is a failure the retry policy has given up on; no outer
// loop retries it again.
type retriedError struct {
	err      error
	attempts int
}

func (e *retriedError) Error() string {
	if e.attempts < 2 {
		return e.err.Error()
	}
	return fmt.Sprintf("%v (after %d attempts)", e.err, e.attempts)
}

func (e *retriedError) Unwrap() error { return e.err }

// transient reports whether err is worth another attempt: a retryable
// status, a connection reset or timeout, a body cut short.
func transient(ctx context.Context, err error) bool {
	if err == nil || ctx.Err() != nil {
		return false
	}
	var done *retriedError
	var re *RegistryError
	var te *transport.Error
	var ne net.Error
	switch {
	case errors.As(err, &done):
		return false
	case errors.As(err, &re):
		return transientStatus(re.Status)
	case errors.As(err, &te):
		return transientStatus(te.StatusCode)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return true
	}
	return errors.As(err, &ne) && ne.Timeout()
}

// registryTransport is fbc's HTTP transport under go-containerregistry's
// authentication. GET and HEAD requests (pings, tokens, manifests, blobs)
// are retried by the retry policy: on a transient answer, a failed
// connection, no answer or no data for the timeout, and a download cut
// short, which resumes where it stopped. Uploads pass through: a push is
// retried whole (see CatalogImage.Push), never as a half-replayed request.
// Manifests, which go-containerregistry reads whole, are held to
// maxManifestSize.
type registryTransport struct {
	next     http.RoundTripper
	policy   *retryPolicy
	timeout  time.Duration
	deadline time.Duration
	pings    pingMemo
}

// Limits on one registry request (Options.Deadline).
const (
	// DefaultDeadline is how long one registry request may take, answer
	// and body, by default.
	DefaultDeadline = 2 * time.Minute
	// MinDownloadRate is the slowest a blob download may run: each
	// MinDownloadRate bytes a blob declares add a second to its deadline.
	MinDownloadRate = 64 << 10
	// MaxRedirects is how many redirects one request may follow, as Go's
	// HTTP client allows by default (go-containerregistry's redirect
	// checks drop that limit).
	MaxRedirects = 10
)

func (t *registryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if n := redirects(req); n >= MaxRedirects {
		return nil, &RedirectError{URL: req.URL.String(), Redirects: n}
	}
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		return t.next.RoundTrip(req)
	}
	if isPing(req) {
		return t.pings.roundTrip(req, t.exchange)
	}
	return t.exchange(req)
}

// redirects counts the redirects that led to req: the HTTP client sets the
// answer that redirected on the request it makes next.
func redirects(req *http.Request) int {
	n := 0
	for r := req; r.Response != nil && r.Response.Request != nil && n <= MaxRedirects; r = r.Response.Request {
		n++
	}
	return n
}

// RedirectError is a registry that keeps redirecting a request (to itself,
// or round a loop): fbc stops after MaxRedirects, as Go's HTTP client does.
type RedirectError struct {
	URL       string
	Redirects int
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("%s: stopped after %d redirects (the registry keeps redirecting the request)", e.URL, e.Redirects)
}

// DeadlineError is a registry request that took longer than its deadline
// as a whole (Options.Deadline), though data kept coming.
type DeadlineError struct {
	What  string // method and URL
	Limit time.Duration
}

func (e *DeadlineError) Error() string {
	return fmt.Sprintf("%s: no complete answer within %v (the registry is sending too slowly); fbc gives up on it", e.What, e.Limit)
}

// requestDeadline ends an exchange that takes too long: its context is
// cancelled when the time is up, and errors after that are a
// *DeadlineError.
type requestDeadline struct {
	what   string
	start  time.Time
	limit  time.Duration
	timer  *time.Timer
	cancel context.CancelFunc
	passed atomic.Bool
}

func newRequestDeadline(req *http.Request, limit time.Duration) (*requestDeadline, *http.Request) {
	ctx, cancel := context.WithCancel(req.Context())
	d := &requestDeadline{what: req.Method + " " + req.URL.String(), start: time.Now(), limit: limit, cancel: cancel}
	d.timer = time.AfterFunc(limit, d.expire)
	return d, req.WithContext(ctx)
}

func (d *requestDeadline) expire() {
	d.passed.Store(true)
	d.cancel()
}

// extend gives a download of size bytes its share of time: a second for
// each MinDownloadRate bytes, beyond the request's own deadline.
func (d *requestDeadline) extend(size int64) {
	d.limit += time.Duration(size) * time.Second / MinDownloadRate
	if d.timer.Stop() {
		d.timer.Reset(time.Until(d.start.Add(d.limit)))
	}
}

// explain turns an error after the deadline into a *DeadlineError.
func (d *requestDeadline) explain(err error) error {
	if err != nil && d.passed.Load() {
		return &DeadlineError{What: d.what, Limit: d.limit.Round(time.Millisecond)}
	}
	return err
}

func (d *requestDeadline) stop() {
	d.timer.Stop()
	d.cancel()
}

// deadlineBody is an answer's body read under its request's deadline.
type deadlineBody struct {
	body io.ReadCloser
	d    *requestDeadline
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.body.Read(p)
	if err != nil && err != io.EOF {
		err = b.d.explain(err)
	}
	return n, err
}

func (b *deadlineBody) Close() error {
	err := b.body.Close()
	b.d.stop()
	return err
}

func (t *registryTransport) exchange(req *http.Request) (*http.Response, error) {
	limit := t.deadline
	if limit <= 0 {
		limit = DefaultDeadline
	}
	d, req := newRequestDeadline(req, limit)
	resp, err := t.exchangeWithin(req, d)
	if err != nil {
		d.stop()
		return nil, d.explain(err)
	}
	resp.Body = &deadlineBody{body: resp.Body, d: d}
	return resp, nil
}

func (t *registryTransport) exchangeWithin(req *http.Request, d *requestDeadline) (*http.Response, error) {
	x := &exchange{t: t, req: req}
	resp, err := x.send(0)
	if err != nil {
		return nil, err
	}
	x.contentID = resp.Header.Get("Docker-Content-Digest")
	if resp.StatusCode != http.StatusOK || req.Method != http.MethodGet {
		return resp, nil
	}
	if strings.Contains(req.URL.Path, "/blobs/") && resp.ContentLength > 0 {
		d.extend(resp.ContentLength)
	}
	if x.contentID != "" || strings.Contains(req.URL.Path, "/blobs/") {
		resp.Body = &resumingBody{x: x, body: resp.Body}
	}
	if strings.Contains(req.URL.Path, "/manifests/") {
		if resp.ContentLength > maxManifestSize {
			resp.Body.Close()
			return nil, fmt.Errorf("GET %s: manifest of %d bytes is over the %d-byte limit", req.URL, resp.ContentLength, maxManifestSize)
		}
		resp.Body = &cappedBody{ReadCloser: resp.Body, left: maxManifestSize, url: req.URL.String()}
	}
	return resp, nil
}

// exchange is one request and its attempts, resumptions included.
type exchange struct {
	t         *registryTransport
	req       *http.Request
	attempt   int
	contentID string // Docker-Content-Digest of the first answer
}

// send tries the request until an answer comes that is not transient; a
// resumed download skips the bytes it already delivered.
func (x *exchange) send(skip int64) (resp *http.Response, err error) {
	err = x.t.policy.retry(x.req.Context(), &x.attempt, func() (err error) {
		resp, err = x.once(skip)
		return err
	})
	return resp, err
}

func (x *exchange) once(skip int64) (*http.Response, error) {
	ctx, cancel := context.WithCancel(x.req.Context())
	g := &stallGuard{idle: x.t.timeout, cancel: cancel, what: x.req.Method + " " + x.req.URL.String()}
	g.timer = time.AfterFunc(g.idle, func() {
		g.stalled.Store(true)
		cancel()
	})
	resp, err := x.t.next.RoundTrip(x.req.WithContext(ctx))
	if err != nil {
		g.timer.Stop()
		cancel()
		if g.stalled.Load() {
			return nil, g.err()
		}
		return nil, err
	}
	resp.Body = &guardedBody{body: resp.Body, g: g}
	switch {
	case transientStatus(resp.StatusCode), skip > 0 && resp.StatusCode != http.StatusOK:
		defer resp.Body.Close()
		return nil, explain(transport.CheckError(resp, http.StatusOK), x.req.URL.Host)
	case skip > 0 && x.contentID != "" && resp.Header.Get("Docker-Content-Digest") != x.contentID:
		resp.Body.Close()
		return nil, fmt.Errorf("%s: the content changed while it was being downloaded", g.what)
	case skip > 0:
		if _, err := io.CopyN(io.Discard, resp.Body, skip); err != nil {
			resp.Body.Close()
			return nil, err
		}
	}
	return resp, nil
}

// resumingBody is a download that continues after a transient failure: the
// request is sent again and what was already read is skipped, so that the
// reader sees one stream (whose digest is checked above, as always).
type resumingBody struct {
	x    *exchange
	body io.ReadCloser
	n    int64
	err  error
}

func (b *resumingBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.body.Read(p)
	b.n += int64(n)
	if err == nil || err == io.EOF {
		return n, err
	}
	b.body.Close()
	b.body = http.NoBody
	if se := (*stallError)(nil); !errors.As(err, &se) {
		err = fmt.Errorf("GET %s: %w", b.x.req.URL, err)
	}
	ctx := b.x.req.Context()
	if !b.x.t.policy.again(ctx, b.x.attempt, err) {
		b.err = b.x.t.policy.giveUp(ctx, b.x.attempt, err)
		return n, b.err
	}
	resp, err := b.x.send(b.n)
	if err != nil {
		b.err = err
		return n, err
	}
	b.body = resp.Body
	return n, nil
}

func (b *resumingBody) Close() error { return b.body.Close() }

// stallGuard cancels an attempt that gets no answer, or no data, for the
// timeout; its reads then fail with a timeout, which is retried.
type stallGuard struct {
	timer   *time.Timer
	idle    time.Duration
	cancel  context.CancelFunc
	what    string
	stalled atomic.Bool
}

func (g *stallGuard) err() error { return &stallError{what: g.what, idle: g.idle} }

type guardedBody struct {
	body io.ReadCloser
	g    *stallGuard
}

func (b *guardedBody) Read(p []byte) (int, error) {
	n, err := b.body.Read(p)
	if err != nil && b.g.stalled.Load() {
		return n, b.g.err()
	}
	b.g.timer.Reset(b.g.idle)
	return n, err
}

func (b *guardedBody) Close() error {
	b.g.timer.Stop()
	err := b.body.Close()
	b.g.cancel()
	return err
}

// stallError is a registry that stopped answering or sending; it is a
// net.Error timeout so that it is retried.
type stallError struct {
	what string
	idle time.Duration
}

func (e *stallError) Error() string   { return fmt.Sprintf("%s: no data for %v", e.what, e.idle) }
func (e *stallError) Timeout() bool   { return true }
func (e *stallError) Temporary() bool { return true }

// cappedBody fails a body that runs past a limit.
type cappedBody struct {
	io.ReadCloser
	left int64
	url  string
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.ReadCloser.Read(p)
	if b.left -= int64(n); b.left < 0 {
		return 0, fmt.Errorf("GET %s: manifest larger than %d bytes", b.url, maxManifestSize)
	}
	return n, err
}

// isPing is go-containerregistry's probe of a registry: an anonymous GET
// /v2/, which it sends for every repository it opens (and, to a registry
// that may speak plain HTTP, over HTTPS and HTTP at once).
func isPing(req *http.Request) bool {
	return req.Method == http.MethodGet && req.URL.Path == "/v2/" && req.URL.RawQuery == "" && req.Header.Get("Authorization") == ""
}

// pingMemo keeps each registry's answer to the probe for the client's life:
// the answer (no authentication needed, or how to authenticate) is the
// registry's, not the repository's, so a check of 1,000 images in 100
// repositories asks it once, not 100 times (probes that come while it is
// asked wait for its answer), and a registry that answered over plain HTTP
// is not offered a TLS handshake again on the same port. Only answers are
// kept (200 and 401): after a failure, the next probe asks again.
type pingMemo struct {
	mu       sync.Mutex
	answers  map[string]*pingAnswer   // scheme://host
	inflight map[string]chan struct{} // closed when the probe is answered or failed
}

type pingAnswer struct {
	status int
	header http.Header
	body   []byte
}

// errPlainHTTP is net/http's error for a TLS request answered in plain HTTP.
var errPlainHTTP = errors.New("http: server gave HTTP response to HTTPS client")

func (m *pingMemo) roundTrip(req *http.Request, send func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	key := req.URL.Scheme + "://" + req.URL.Host
	m.mu.Lock()
	for {
		if a := m.answers[key]; a != nil {
			m.mu.Unlock()
			return a.response(req), nil
		}
		if req.URL.Scheme == "https" && m.answers["http://"+req.URL.Host] != nil {
			m.mu.Unlock()
			return nil, errPlainHTTP
		}
		wait := m.inflight[key]
		if wait == nil {
			break
		}
		m.mu.Unlock()
		select {
		case <-wait:
		case <-req.Context().Done():
			return nil, req.Context().Err()
		}
		m.mu.Lock()
	}
	done := make(chan struct{})
	if m.inflight == nil {
		m.inflight, m.answers = map[string]chan struct{}{}, map[string]*pingAnswer{}
	}
	m.inflight[key] = done
	m.mu.Unlock()
	a, resp, err := askPing(req, send)
	m.mu.Lock()
	if a != nil {
		m.answers[key] = a
	}
	delete(m.inflight, key)
	close(done)
	m.mu.Unlock()
	if a != nil {
		return a.response(req), nil
	}
	return resp, err
}

// askPing sends the probe: its answer when it is one to keep, or else the
// response or error to pass on.
func askPing(req *http.Request, send func(*http.Request) (*http.Response, error)) (*pingAnswer, *http.Response, error) {
	resp, err := send(req)
	if err != nil || resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusUnauthorized {
		return nil, resp, err
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if err != nil {
		return nil, nil, err
	}
	return &pingAnswer{status: resp.StatusCode, header: resp.Header.Clone(), body: body}, nil, nil
}

// response is the kept answer to req.
func (a *pingAnswer) response(req *http.Request) *http.Response {
	return &http.Response{Status: fmt.Sprintf("%d %s", a.status, http.StatusText(a.status)), StatusCode: a.status,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: a.header.Clone(),
		Body: io.NopCloser(bytes.NewReader(a.body)), ContentLength: int64(len(a.body)), Request: req}
}
