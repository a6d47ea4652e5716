package image

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// registryStore reads one repository's manifests and blobs with
// go-containerregistry's puller, through the cache when there is one: what
// the cache holds is never asked of the registry.
type registryStore struct {
	c    *Client
	repo name.Repository
}

// ErrOffline is in the chain of every error that Options.Offline caused:
// something the cache does not hold, which a registry would have given.
var ErrOffline = errors.New("offline")

func (s *registryStore) offlineError(what string, d v1.Hash) error {
	if s.c.cache == nil {
		return fmt.Errorf("%w: %s %s is not cached (no cache directory in use)", ErrOffline, what, d)
	}
	return fmt.Errorf("%w: %s %s is not in the cache %s", ErrOffline, what, d, s.c.cache.dir)
}

// get fetches a manifest by tag or digest (go-containerregistry checks a
// digest) and caches it.
func (s *registryStore) get(ctx context.Context, ref name.Reference) ([]byte, types.MediaType, v1.Hash, error) {
	desc, err := s.c.puller.Get(ctx, ref)
	if err != nil {
		return nil, "", v1.Hash{}, explain(err, s.repo.RegistryStr())
	}
	if s.c.cache != nil {
		if err := s.c.cache.put(desc.Digest, desc.Manifest); err != nil {
			s.c.warnf("caching manifest %s: %v", desc.Digest, err)
		}
	}
	mt, _, _ := strings.Cut(string(desc.MediaType), ";")
	return desc.Manifest, types.MediaType(strings.TrimSpace(mt)), desc.Digest, nil
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
	raw, _, _, err := s.get(ctx, s.repo.Digest(d.String()))
	return raw, err
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
	l, err := s.c.puller.Layer(ctx, s.repo.Digest(desc.Digest.String()))
	if err != nil {
		return nil, explain(err, s.repo.RegistryStr())
	}
	rc, err := l.Compressed()
	if err != nil {
		return nil, explain(err, s.repo.RegistryStr())
	}
	var w *cacheWriter
	if s.c.cache != nil {
		if w, err = s.c.cache.writer(desc.Digest); err != nil {
			s.c.warnf("caching blob %s: %v", desc.Digest, err)
			w = nil
		} else {
			rc = struct {
				io.Reader
				io.Closer
			}{io.TeeReader(rc, w), rc}
		}
	}
	where := s.repo.Scheme() + "://" + s.repo.RegistryStr() + "/v2/" + s.repo.RepositoryStr() + "/blobs/" + desc.Digest.String()
	v, err := verified(rc, desc.Digest, desc.Size, where)
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

// openRemote resolves a registry reference to an image. A digest is read
// from the cache when it is there; a tag is asked of the registry (tags
// move) and the digest it names recorded for offline use.
func (c *Client) openRemote(ctx context.Context, r Reference) (*Image, error) {
	ctx = withOperation(ctx, "pulling "+r.raw)
	s := &registryStore{c: c, repo: r.name.Context()}
	var d v1.Hash
	var raw []byte
	var mt types.MediaType
	var err error
	switch {
	case r.Digest != "":
		if d, err = v1.NewHash(r.Digest); err != nil {
			return nil, err
		}
		raw, err = s.manifest(ctx, d)
	case c.opts.Offline && c.cache == nil:
		return nil, fmt.Errorf("%w: tag %s cannot be resolved without a cache; pin the image by digest", ErrOffline, r.Tag)
	case c.opts.Offline:
		var ok bool
		if d, ok = c.cache.tag(r.name.Name()); !ok {
			return nil, fmt.Errorf("%w: no cached digest for %s in %s: pull it once online or pin it by digest", ErrOffline, r.name.Name(), c.cache.dir)
		}
		raw, err = s.manifest(ctx, d)
	default:
		raw, mt, d, err = s.get(ctx, r.name)
		if err == nil && c.cache != nil {
			if err := c.cache.putTag(r.name.Name(), d); err != nil {
				c.warnf("caching tag %s: %v", r.name.Name(), err)
			}
		}
	}
	if err != nil {
		return nil, err
	}
	return c.resolveImage(ctx, s, d, raw, mt)
}
