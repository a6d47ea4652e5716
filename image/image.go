// Package image owns everything container-image in fbc: image references
// (registries, OCI layouts, OCI and docker archives), pulling with
// credentials, TLS choices, retries and a content-addressed blob cache, and
// reading selected paths of an image's file tree into memory without ever
// extracting a layer to disk. It is the only package that imports
// go-containerregistry.
package image

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/fbc-project/fbc/internal/fault"
)

// Labels that tell bundle and catalog images apart and say where their
// content lives.
const (
	LabelBundlePackage   = "operators.operatorframework.io.bundle.package.v1"
	LabelBundleManifests = "operators.operatorframework.io.bundle.manifests.v1"
	LabelBundleMetadata  = "operators.operatorframework.io.bundle.metadata.v1"
	LabelCatalogConfigs  = "operators.operatorframework.io.index.configs.v1"
)

// DefaultPlatform is the platform picked from a multi-platform image index
// when Options.Platform is empty.
const DefaultPlatform = "linux/amd64"

// Options say how images are reached. The zero value pulls over HTTPS with
// the Docker credentials of the user, three retries and the default cache.
type Options struct {
	// UseHTTP allows plain HTTP to registries (HTTPS is still tried first).
	UseHTTP bool
	// SkipTLSVerify accepts any TLS certificate and also allows plain HTTP,
	// as opm's flag of that name does. Exclusive with UseHTTP, like opm.
	SkipTLSVerify bool
	// Offline never connects: images come from the cache or local files, and
	// anything missing is an error naming it.
	Offline bool
	// CacheDir holds pulled manifests and blobs by digest. Empty means
	// DefaultCacheDir(); NoCache turns caching off.
	CacheDir string
	NoCache  bool
	// Platform (os/arch[/variant]) chosen from an image index; default
	// linux/amd64.
	Platform string
	// Keychain finds registry credentials; default authn.DefaultKeychain
	// (the Docker config file and its credential helpers).
	Keychain authn.Keychain
	// Retries is how many times a transient registry failure (5xx, 408, 429,
	// a reset or timed-out connection, a body cut short) is retried; default
	// 3, negative means none.
	Retries int
	// RetryDelay is the first backoff delay, doubled at each retry; default
	// 500ms.
	RetryDelay time.Duration
	// Timeout bounds how long a registry may keep fbc waiting, for the
	// answer to a request or for the next bytes of a download; default 60s.
	// A timed-out request is retried like other transient failures.
	Timeout time.Duration
	// Deadline bounds one registry request as a whole, from sending it to
	// the last byte of its answer, retries and resumed downloads
	// included, so that a registry that trickles its answer (a byte every
	// few seconds, never quiet for Timeout) cannot hold fbc: default 2
	// minutes, and for a blob download another second per
	// MinDownloadRate bytes it declares. A request past its deadline is
	// not retried, and the registry counts as unreachable.
	Deadline time.Duration
	// Warn receives warnings (retries, an unusable default cache); nil
	// drops them.
	Warn fault.Warn
	// Transport replaces the HTTP transport under authentication (for
	// proxies, custom CAs, or counting requests); TLS settings are then the
	// transport's own.
	Transport http.RoundTripper
}

// Client pulls and reads images with one set of Options. It keeps registry
// connections and tokens between images and is safe for concurrent use.
type Client struct {
	opts     Options
	platform v1.Platform
	cache    *blobCache // nil: no cache
	policy   *retryPolicy
	// transport is registryTransport over Options.Transport or a default
	// HTTP transport, for pulls and pushes.
	transport http.RoundTripper
	puller    *remote.Puller
}

// NewClient checks opts and prepares the cache directory.
func NewClient(opts Options) (*Client, error) {
	if opts.UseHTTP && opts.SkipTLSVerify {
		return nil, errors.New("use-http and skip-tls-verify cannot both be set: skip-tls-verify already allows plain HTTP")
	}
	if opts.Keychain == nil {
		opts.Keychain = authn.DefaultKeychain
	}
	if opts.Retries == 0 {
		opts.Retries = 3
	} else if opts.Retries < 0 {
		opts.Retries = 0
	}
	if opts.RetryDelay <= 0 {
		opts.RetryDelay = 500 * time.Millisecond
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 60 * time.Second
	}
	if opts.Deadline <= 0 {
		opts.Deadline = DefaultDeadline
	}
	if opts.Platform == "" {
		opts.Platform = DefaultPlatform
	}
	p, err := parsePlatform(opts.Platform)
	if err != nil {
		return nil, err
	}
	c := &Client{opts: opts, platform: p}
	c.policy = &retryPolicy{retries: opts.Retries, delay: opts.RetryDelay, warnf: c.warnf}
	if !opts.NoCache {
		dir, explicit := opts.CacheDir, opts.CacheDir != ""
		if !explicit {
			dir, err = DefaultCacheDir()
		}
		if err == nil {
			c.cache, err = openBlobCache(dir)
		}
		switch {
		case err != nil && explicit:
			return nil, fmt.Errorf("cache directory: %w", err)
		case err != nil:
			c.warnf("not caching images: %v", err)
		}
	}
	base := opts.Transport
	if base == nil {
		t := remote.DefaultTransport.(*http.Transport).Clone()
		// Uploads are timed from the end of the request body; other
		// requests by registryTransport, from their start.
		t.ResponseHeaderTimeout = opts.Timeout
		if opts.SkipTLSVerify {
			t.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // the user asked for it
		}
		base = t
	}
	c.transport = &registryTransport{next: base, policy: c.policy, timeout: opts.Timeout, deadline: opts.Deadline}
	// Callers bound how many images are pulled at once; the puller's own
	// bound on concurrent blob downloads is set out of their way.
	c.puller, err = remote.NewPuller(append(c.remoteOptions(), remote.WithJobs(1024))...)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// remoteOptions are go-containerregistry's options for pulls and pushes:
// the user's credentials and fbc's transport, whose retry policy is the only
// one (go-containerregistry's own retries are turned off).
func (c *Client) remoteOptions() []remote.Option {
	return []remote.Option{
		remote.WithAuthFromKeychain(c.opts.Keychain),
		remote.WithTransport(c.transport),
		remote.WithRetryStatusCodes(),
		remote.WithRetryPredicate(func(error) bool { return false }),
	}
}

// CheckPlatform checks an os/arch[/variant] platform as Options.Platform
// takes it, so that a command can refuse a bad flag before it has an image
// to read.
func CheckPlatform(s string) error {
	_, err := parsePlatform(s)
	return err
}

func parsePlatform(s string) (v1.Platform, error) {
	p, err := v1.ParsePlatform(s)
	if err != nil || p.OS == "" || p.Architecture == "" || strings.Count(s, "/") > 2 {
		return v1.Platform{}, fmt.Errorf("invalid platform %q: want os/arch[/variant], e.g. linux/arm64", s)
	}
	return *p, nil
}

func (c *Client) warnf(format string, args ...any) { c.opts.Warn.Printf(format, args...) }

// Image is an opened image: its manifest and config are read, its layers are
// read only by ReadFiles.
type Image struct {
	ref    Reference
	digest v1.Hash
	config *v1.ConfigFile
	layers []layer
	client *Client
}

// layer is one layer of an image, in base-to-top order.
type layer struct {
	// digest names the layer in errors and verifies its content: the blob
	// digest of a compressed layer, or the diff ID of a layer that open
	// returns uncompressed.
	digest v1.Hash
	size   int64 // -1 when unknown
	// open returns the layer's bytes, verified against digest (and size)
	// when read to the end; uncompressed says they are a plain tar (else
	// the compression is sniffed).
	open         func(ctx context.Context) (io.ReadCloser, error)
	uncompressed bool
}

// Open opens the image ref names, resolving an image index to the chosen
// platform. It reads the manifest and config; layers are read by ReadFiles.
func Open(ctx context.Context, ref string, opts Options) (*Image, error) {
	c, err := NewClient(opts)
	if err != nil {
		return nil, err
	}
	return c.Open(ctx, ref)
}

// Open opens the image ref names; see the package-level Open.
func (c *Client) Open(ctx context.Context, ref string) (*Image, error) {
	r, err := parseReference(ref, c.opts)
	if err != nil {
		return nil, err
	}
	var img *Image
	switch r.Kind {
	case KindRegistry:
		img, err = c.openRemote(ctx, r)
	case KindOCILayout:
		img, err = c.openLayout(ctx, r)
	case KindOCIArchive:
		img, err = c.openOCIArchive(ctx, r)
	case KindDockerArchive:
		img, err = c.openDockerArchive(ctx, r)
	}
	if err != nil {
		return nil, fmt.Errorf("pulling %s: %w", ref, err)
	}
	img.ref, img.client = r, c
	return img, nil
}

// Ref is the reference the image was opened by.
func (img *Image) Ref() string { return img.ref.raw }

// Reference is the parsed reference the image was opened by.
func (img *Image) Reference() Reference { return img.ref }

// Digest is the image's manifest digest (for a docker archive, which has no
// manifest, the config digest: Docker's image ID).
func (img *Image) Digest() string { return img.digest.String() }

// Labels are the image config's labels (never nil).
func (img *Image) Labels() map[string]string {
	out := map[string]string{}
	for k, v := range img.config.Config.Labels {
		out[k] = v
	}
	return out
}

// Command is what a container of the image runs: the config's Entrypoint
// followed by its Cmd.
func (img *Image) Command() []string {
	return append(append([]string(nil), img.config.Config.Entrypoint...), img.config.Config.Cmd...)
}

// Platform is the os/arch[/variant] of the image config.
func (img *Image) Platform() string {
	return v1.Platform{OS: img.config.OS, Architecture: img.config.Architecture, Variant: img.config.Variant}.String()
}

func platformString(p *v1.Platform) string {
	if p == nil {
		return "unknown"
	}
	return p.String()
}

// listOrNone lists names for a message.
func listOrNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}
