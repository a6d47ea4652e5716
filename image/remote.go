package image

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// acceptManifests is what fbc asks a registry for: both manifest families,
// images and indexes.
var acceptManifests = strings.Join([]string{
	string(types.OCIImageIndex), string(types.OCIManifestSchema1),
	string(types.DockerManifestList), string(types.DockerManifestSchema2),
}, ", ")

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

func statusHint(code int, host string) string {
	switch code {
	case http.StatusUnauthorized, http.StatusForbidden:
		return fmt.Sprintf("check credentials in ~/.docker/config.json (or $DOCKER_CONFIG) or run `docker login %s`", host)
	case http.StatusNotFound:
		return "no such image, tag or blob in the registry"
	}
	return ""
}

// registryError reads a registry's error answer.
func registryError(resp *http.Response, host string) *RegistryError {
	e := &RegistryError{Method: resp.Request.Method, URL: resp.Request.URL.String(), Status: resp.StatusCode,
		Hint: statusHint(resp.StatusCode, host)}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var answer struct {
		Errors []struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"errors"`
	}
	if json.Unmarshal(body, &answer) == nil && len(answer.Errors) > 0 {
		var parts []string
		for _, x := range answer.Errors {
			parts = append(parts, strings.TrimSpace(x.Code+" "+x.Message))
		}
		e.Detail = strings.Join(parts, "; ")
	}
	return e
}

// fromTransportError rewrites go-containerregistry's error for the ping and
// token requests in the same shape, with a hint.
func fromTransportError(err error, host string) error {
	var te *transport.Error
	if !errors.As(err, &te) || te.Request == nil {
		return err
	}
	e := &RegistryError{Method: te.Request.Method, URL: te.Request.URL.String(), Status: te.StatusCode,
		Hint: statusHint(te.StatusCode, host)}
	var parts []string
	for _, d := range te.Errors {
		parts = append(parts, strings.TrimSpace(string(d.Code)+" "+d.Message))
	}
	e.Detail = strings.Join(parts, "; ")
	return e
}

// transient reports whether err is worth another attempt: a retryable
// status, a connection reset or timeout, a body cut short, or a bad blob in
// the cache (which has been removed, so the next attempt downloads it).
func transient(ctx context.Context, err error) bool {
	if err == nil || ctx.Err() != nil {
		return false
	}
	var re *RegistryError
	if errors.As(err, &re) {
		return transientStatus(re.Status)
	}
	var te *transport.Error
	if errors.As(err, &te) {
		return transientStatus(te.StatusCode)
	}
	var be *BlobError
	if errors.As(err, &be) && be.Cached {
		return true
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// retry runs fn until it succeeds, fails for good, or the retries are used
// up, backing off exponentially with jitter between attempts.
func (c *Client) retry(ctx context.Context, what string, fn func() error) error {
	delay := c.opts.RetryDelay
	for attempt := 1; ; attempt++ {
		err := fn()
		if err == nil || attempt > c.opts.Retries || !transient(ctx, err) {
			if err != nil && attempt > 1 {
				err = fmt.Errorf("%w (after %d attempts)", err, attempt)
			}
			return err
		}
		wait := delay + time.Duration(rand.Int64N(int64(delay)/4+1))
		c.warnf("%s: %v; retrying in %v (attempt %d of %d)", what, err, wait.Round(time.Millisecond), attempt+1, c.opts.Retries+1)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		if delay *= 2; delay > 10*time.Second {
			delay = 10 * time.Second
		}
	}
}

// repoTransport is an authenticated HTTP client for one repository.
type repoTransport struct {
	client *http.Client
}

// httpClient returns the authenticated client for repo, creating it (which
// pings the registry and may fetch a token) on first use. Failures are not
// kept, so a retry pings again.
func (c *Client) httpClient(ctx context.Context, repo name.Repository) (*http.Client, error) {
	key := repo.Name()
	c.mu.Lock()
	t, ok := c.transports[key]
	c.mu.Unlock()
	if ok {
		return t.client, nil
	}
	auth, err := authn.Resolve(ctx, c.opts.Keychain, repo)
	if err != nil {
		return nil, fmt.Errorf("looking up credentials for %s: %w", repo.RegistryStr(), err)
	}
	rt, err := transport.NewWithContext(ctx, repo.Registry, auth, c.base, []string{repo.Scope(transport.PullScope)})
	if errors.Is(err, syscall.ECONNREFUSED) {
		return nil, fmt.Errorf("cannot connect to registry %s (is it running, and is the address right?): %w", repo.RegistryStr(), err)
	}
	if err != nil {
		return nil, fromTransportError(err, repo.RegistryStr())
	}
	t = &repoTransport{client: &http.Client{
		Transport: rt,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 10 {
				return fmt.Errorf("%s: stopped after 10 redirects", via[0].URL)
			}
			return nil
		},
	}}
	c.mu.Lock()
	if old, ok := c.transports[key]; ok {
		t = old
	} else {
		c.transports[key] = t
	}
	c.mu.Unlock()
	return t.client, nil
}

// registryStore reads one repository's manifests and blobs, through the
// cache when there is one.
type registryStore struct {
	c    *Client
	ref  Reference
	repo name.Repository
}

func (s *registryStore) url(kind, id string) string {
	return fmt.Sprintf("%s://%s/v2/%s/%s/%s", s.repo.Registry.Scheme(), s.repo.RegistryStr(), s.repo.RepositoryStr(), kind, id)
}

// get sends one GET and returns the response if it is a 200.
func (s *registryStore) get(ctx context.Context, kind, id, accept string) (*http.Response, error) {
	client, err := s.c.httpClient(ctx, s.repo)
	if err != nil {
		return nil, err
	}
	reqCtx, cancel := context.WithCancel(ctx)
	req, err := http.NewRequestWithContext(reqCtx, http.MethodGet, s.url(kind, id), nil)
	if err != nil {
		cancel()
		return nil, err
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := client.Do(req)
	if err != nil {
		cancel()
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		defer cancel()
		defer resp.Body.Close()
		return nil, registryError(resp, s.repo.RegistryStr())
	}
	resp.Body = newStallGuard(resp.Body, s.c.opts.Timeout, cancel, resp.Request.URL.String())
	return resp, nil
}

// stallGuard ends a download that sends nothing for a while: the request
// is cancelled and the read fails with a timeout, which is retried.
type stallGuard struct {
	body    io.ReadCloser
	timer   *time.Timer
	idle    time.Duration
	cancel  context.CancelFunc
	url     string
	stalled atomic.Bool
}

func newStallGuard(body io.ReadCloser, idle time.Duration, cancel context.CancelFunc, url string) *stallGuard {
	g := &stallGuard{body: body, idle: idle, cancel: cancel, url: url}
	g.timer = time.AfterFunc(idle, func() {
		g.stalled.Store(true)
		cancel()
	})
	return g
}

func (g *stallGuard) Read(p []byte) (int, error) {
	n, err := g.body.Read(p)
	if err != nil && g.stalled.Load() {
		return n, &stallError{url: g.url, idle: g.idle}
	}
	g.timer.Reset(g.idle)
	return n, err
}

func (g *stallGuard) Close() error {
	g.timer.Stop()
	err := g.body.Close()
	g.cancel()
	return err
}

// stallError is a download that stopped sending; it is a net.Error timeout
// so that it is retried.
type stallError struct {
	url  string
	idle time.Duration
}

func (e *stallError) Error() string {
	return fmt.Sprintf("GET %s: no data for %v", e.url, e.idle)
}
func (e *stallError) Timeout() bool   { return true }
func (e *stallError) Temporary() bool { return true }

// fetchManifest GETs a manifest by tag or digest; a digest is verified.
func (s *registryStore) fetchManifest(ctx context.Context, id string, want *v1.Hash) ([]byte, types.MediaType, v1.Hash, error) {
	resp, err := s.get(ctx, "manifests", id, acceptManifests)
	if err != nil {
		return nil, "", v1.Hash{}, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxManifestSize+1))
	if err != nil {
		return nil, "", v1.Hash{}, fmt.Errorf("reading %s: %w", resp.Request.URL, err)
	}
	if len(raw) > maxManifestSize {
		return nil, "", v1.Hash{}, fmt.Errorf("%s: manifest larger than %d bytes", resp.Request.URL, maxManifestSize)
	}
	got := sha256Of(raw)
	if want != nil && got != *want {
		return nil, "", v1.Hash{}, &BlobError{Digest: *want, Where: resp.Request.URL.String(),
			Msg: fmt.Sprintf("digest mismatch: manifest hashes to %s", got)}
	}
	mt := types.MediaType(strings.TrimSpace(strings.Split(resp.Header.Get("Content-Type"), ";")[0]))
	return raw, mt, got, nil
}

func (s *registryStore) offlineError(what string, d v1.Hash) error {
	if s.c.cache == nil {
		return fmt.Errorf("offline: %s %s is not cached (no cache directory in use)", what, d)
	}
	return fmt.Errorf("offline: %s %s is not in the cache %s", what, d, s.c.cache.dir)
}

func (s *registryStore) manifest(ctx context.Context, d v1.Hash) ([]byte, error) {
	if s.c.cache != nil {
		if raw, ok := s.c.cache.readSmall(d, maxManifestSize); ok {
			return raw, nil
		}
	}
	if s.c.opts.Offline {
		return nil, s.offlineError("manifest", d)
	}
	raw, _, _, err := s.fetchManifest(ctx, d.String(), &d)
	if err != nil {
		return nil, err
	}
	if s.c.cache != nil {
		if err := s.c.cache.put(d, raw); err != nil {
			s.c.warnf("caching manifest %s: %v", d, err)
		}
	}
	return raw, nil
}

func (s *registryStore) blob(ctx context.Context, desc v1.Descriptor) (io.ReadCloser, error) {
	if s.c.cache != nil {
		if f, err := s.c.cache.open(desc.Digest); err == nil {
			v, err := verified(f, desc.Digest, desc.Size, "cache "+f.Name())
			if err != nil {
				return nil, err
			}
			v.cached = true
			v.fail = func() { s.c.cache.remove(desc.Digest) }
			return v, nil
		}
	}
	if s.c.opts.Offline {
		return nil, s.offlineError("blob", desc.Digest)
	}
	resp, err := s.get(ctx, "blobs", desc.Digest.String(), "")
	if err != nil {
		return nil, err
	}
	body := io.ReadCloser(resp.Body)
	var w *cacheWriter
	if s.c.cache != nil {
		if w, err = s.c.cache.writer(desc.Digest); err != nil {
			s.c.warnf("caching blob %s: %v", desc.Digest, err)
			w = nil
		} else {
			body = struct {
				io.Reader
				io.Closer
			}{io.TeeReader(resp.Body, w), resp.Body}
		}
	}
	v, err := verified(body, desc.Digest, desc.Size, resp.Request.URL.String())
	if err != nil {
		if w != nil {
			w.abort()
		}
		return nil, err
	}
	if w != nil {
		v.done = func() error {
			if err := w.commit(); err != nil {
				s.c.warnf("caching blob %s: %v", desc.Digest, err)
			}
			return nil
		}
		v.fail, v.incomplete = w.abort, w.abort
	}
	return v, nil
}

// openRemote resolves a registry reference to an image.
func (c *Client) openRemote(ctx context.Context, r Reference) (*Image, error) {
	s := &registryStore{c: c, ref: r, repo: r.name.Context()}
	var img *Image
	err := c.retry(ctx, "pulling "+r.raw, func() error {
		var d v1.Hash
		var raw []byte
		var mt types.MediaType
		var err error
		switch {
		case r.Digest != "":
			if d, err = v1.NewHash(r.Digest); err != nil {
				return err
			}
			if raw, err = s.manifest(ctx, d); err != nil {
				return err
			}
		case c.opts.Offline:
			if c.cache == nil {
				return fmt.Errorf("offline: tag %s cannot be resolved without a cache; pin the image by digest", r.Tag)
			}
			var ok bool
			if d, ok = c.cache.tag(r.name.Name()); !ok {
				return fmt.Errorf("offline: no cached digest for %s in %s: pull it once online or pin it by digest", r.name.Name(), c.cache.dir)
			}
			if raw, err = s.manifest(ctx, d); err != nil {
				return err
			}
		default:
			if raw, mt, d, err = s.fetchManifest(ctx, r.Tag, nil); err != nil {
				return err
			}
			if c.cache != nil {
				if err := c.cache.put(d, raw); err != nil {
					c.warnf("caching manifest %s: %v", d, err)
				} else if err := c.cache.putTag(r.name.Name(), d); err != nil {
					c.warnf("caching tag %s: %v", r.name.Name(), err)
				}
			}
		}
		img, err = c.resolveImage(ctx, s, d, raw, mt)
		return err
	})
	return img, err
}
