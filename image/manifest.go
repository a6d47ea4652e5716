package image

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// ManifestInfo is what the manifest a reference names says about the image,
// without any of its layers: whether it is there, its digest and, when asked
// for, the platforms it runs on.
type ManifestInfo struct {
	// Digest is the digest of the manifest or index the reference names.
	Digest string
	// Index is set for an image index (a multi-platform image).
	Index bool
	// Platforms are the os/arch[/variant] the image runs on: an index's
	// image entries in order (attestations and other artifacts left out),
	// or a single image's config. Empty unless asked for.
	Platforms []string
	// Images are the digests of an index's image entries, one per
	// platform, in the same order.
	Images []string
	// Cached says no registry was asked: the manifest came from the cache.
	Cached bool
}

// Resolve asks the registry about the image ref names (a registry
// reference, by tag or digest): a HEAD request for its manifest, or, when
// platforms are wanted, a GET (and for a single image, its config blob).
// The answer is the manifest's digest; every failure is a RegistryError,
// an ErrOffline error or a connection error, as for Open.
//
// A digest whose manifest is in the cache is answered from the cache,
// without a request; a tag is always asked of the registry (tags move) and
// the digest it names is recorded for offline use, where it answers the
// tag instead (Index is then unknown unless the manifest was cached too).
func (c *Client) Resolve(ctx context.Context, ref string, platforms bool) (*ManifestInfo, error) {
	r, err := parseReference(ref, c.opts)
	if err != nil {
		return nil, err
	}
	if r.Kind != KindRegistry {
		return nil, fmt.Errorf("%s is not an image in a registry", ref)
	}
	info, err := c.resolve(withOperation(ctx, "resolving "+ref), r, platforms)
	if err != nil {
		return nil, fmt.Errorf("resolving %s: %w", ref, err)
	}
	return info, nil
}

func (c *Client) resolve(ctx context.Context, r Reference, platforms bool) (*ManifestInfo, error) {
	s := &registryStore{c: c, repo: r.name.Context()}
	var d v1.Hash
	var err error
	switch {
	case r.Digest != "":
		if d, err = v1.NewHash(r.Digest); err != nil {
			return nil, err
		}
	case c.opts.Offline && c.cache == nil:
		return nil, fmt.Errorf("%w: tag %s cannot be resolved without a cache; pin the image by digest", ErrOffline, r.Tag)
	case c.opts.Offline:
		var ok bool
		if d, ok = c.cache.tag(r.name.Name()); !ok {
			return nil, fmt.Errorf("%w: no cached digest for %s in %s: resolve it once online or pin it by digest", ErrOffline, r.name.Name(), c.cache.dir)
		}
	}
	// What the cache holds needs no request.
	if d != (v1.Hash{}) && c.cache != nil {
		if raw, ok := c.cache.readSmall(d, maxManifestSize); ok {
			info, err := c.describe(ctx, s, d, raw, "", platforms)
			if err != nil {
				return nil, err
			}
			info.Cached = true
			return info, nil
		}
	}
	if c.opts.Offline {
		if r.Digest == "" && !platforms {
			// The tag's recorded digest is the answer; the manifest
			// need not be cached (a HEAD request does not fetch it).
			return &ManifestInfo{Digest: d.String(), Cached: true}, nil
		}
		return nil, s.offlineError("manifest", d)
	}
	target := r.name
	if d != (v1.Hash{}) {
		target = s.repo.Digest(d.String())
	}
	if platforms {
		raw, mt, got, err := s.get(ctx, target)
		if err != nil {
			return nil, err
		}
		c.recordTag(r, got)
		return c.describe(ctx, s, got, raw, mt, true)
	}
	desc, err := c.head(ctx, s, target)
	if err != nil {
		return nil, err
	}
	c.recordTag(r, desc.Digest)
	return &ManifestInfo{Digest: desc.Digest.String(), Index: desc.MediaType.IsIndex()}, nil
}

// head asks for a manifest's descriptor. A registry that answers HEAD
// without a digest is asked with GET; one that refuses the image is asked
// with GET too, once, for its own explanation (a HEAD answer has no body).
func (c *Client) head(ctx context.Context, s *registryStore, target name.Reference) (*v1.Descriptor, error) {
	desc, err := c.puller.Head(ctx, target)
	if err == nil {
		return desc, nil
	}
	herr := explain(err, s.repo.RegistryStr())
	var re *RegistryError
	switch {
	case errors.As(herr, &re) && re.Detail == "" && re.Status >= 400 && re.Status < 500 &&
		re.Status != http.StatusTooManyRequests && re.Status != http.StatusRequestTimeout:
	case !errors.As(herr, &re) && strings.Contains(err.Error(), "did not include"):
	default:
		return nil, herr
	}
	raw, mt, d, gerr := s.get(ctx, target)
	if gerr != nil {
		return nil, gerr
	}
	return &v1.Descriptor{Digest: d, MediaType: mt, Size: int64(len(raw))}, nil
}

func (c *Client) recordTag(r Reference, d v1.Hash) {
	if r.Digest != "" || c.cache == nil {
		return
	}
	if err := c.cache.putTag(r.name.Name(), d); err != nil {
		c.warnf("caching tag %s: %v", r.name.Name(), err)
	}
}

// describe reads a manifest or index: its platforms from the index, or
// from the config of a single image when they are wanted.
func (c *Client) describe(ctx context.Context, store blobStore, d v1.Hash, raw []byte, mt types.MediaType, platforms bool) (*ManifestInfo, error) {
	idx, err := isIndex(raw, mt)
	if err != nil {
		return nil, fmt.Errorf("manifest %s: %w", d, err)
	}
	info := &ManifestInfo{Digest: d.String(), Index: idx}
	if idx {
		var index v1.IndexManifest
		if err := json.Unmarshal(raw, &index); err != nil {
			return nil, fmt.Errorf("index %s: %v", d, err)
		}
		for _, m := range imageEntries(&index) {
			info.Platforms = append(info.Platforms, platformString(m.Platform))
			info.Images = append(info.Images, m.Digest.String())
		}
		return info, nil
	}
	if !platforms {
		return info, nil
	}
	var m v1.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("manifest %s: %v", d, err)
	}
	read := func() ([]byte, error) {
		rc, err := store.blob(ctx, m.Config)
		if err != nil {
			return nil, err
		}
		return readVerified(rc, m.Config.Digest, m.Config.Size, maxConfigSize, "")
	}
	cfgRaw, err := read()
	if c.refetch(err) {
		cfgRaw, err = read()
	}
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", m.Config.Digest, err)
	}
	var cfg struct {
		OS           string `json:"os"`
		Architecture string `json:"architecture"`
		Variant      string `json:"variant"`
	}
	if err := json.Unmarshal(cfgRaw, &cfg); err != nil {
		return nil, fmt.Errorf("config %s: %v", m.Config.Digest, err)
	}
	p := v1.Platform{OS: cfg.OS, Architecture: cfg.Architecture, Variant: cfg.Variant}
	if p.OS == "" || p.Architecture == "" {
		info.Platforms = []string{"unknown"}
	} else {
		info.Platforms = []string{p.String()}
	}
	return info, nil
}

// imageEntries are the entries of an index that are images or nested
// indexes, as pickPlatform sees them: attestations, signatures and other
// artifacts are left out.
func imageEntries(index *v1.IndexManifest) []v1.Descriptor {
	var out []v1.Descriptor
	for _, m := range index.Manifests {
		switch m.MediaType {
		case types.OCIManifestSchema1, types.DockerManifestSchema2, types.OCIImageIndex, types.DockerManifestList, "":
		default:
			continue
		}
		if m.Platform != nil && m.Platform.OS == "unknown" {
			continue
		}
		out = append(out, m)
	}
	return out
}
