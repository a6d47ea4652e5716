package image

import (
	"context"
	"fmt"
	"io"
	"sync"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Annotations recording the base of a built image, as the OCI image spec
// names them.
const (
	annotationBaseName   = "org.opencontainers.image.base.name"
	annotationBaseDigest = "org.opencontainers.image.base.digest"
)

// openBaseImage pulls the base of a catalog image with Open (so credentials,
// retries, the blob cache and local layouts all work as for rendering) and
// returns it as an OCI image whose layers are the base's blobs, unchanged.
// Layers are read only when the result is pushed or written.
func openBaseImage(ctx context.Context, ref string, opts Options) (v1.Image, error) {
	img, err := Open(ctx, ref, opts)
	if err != nil {
		return nil, err
	}
	diffIDs := img.config.RootFS.DiffIDs
	if len(diffIDs) != len(img.layers) {
		return nil, fmt.Errorf("base image %s: its config lists %d layers, its manifest %d", ref, len(diffIDs), len(img.layers))
	}
	adds := make([]mutate.Addendum, len(img.layers))
	for i, l := range img.layers {
		bl, err := newBaseLayer(ctx, l, diffIDs[i])
		if err != nil {
			return nil, fmt.Errorf("base image %s: layer %s: %w", ref, l.digest, err)
		}
		mt, err := bl.MediaType()
		if err != nil {
			return nil, fmt.Errorf("base image %s: layer %s: %w", ref, l.digest, err)
		}
		adds[i] = mutate.Addendum{Layer: bl, MediaType: mt}
	}
	out := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	out = mutate.ConfigMediaType(out, types.OCIConfigJSON)
	if len(adds) > 0 {
		if out, err = mutate.Append(out, adds...); err != nil {
			return nil, err
		}
	}
	// The base's own config (history, env, user, platform...) with its diff
	// IDs, which are those of the layers just appended.
	if out, err = mutate.ConfigFile(out, img.config.DeepCopy()); err != nil {
		return nil, err
	}
	annotated := mutate.Annotations(out, map[string]string{
		annotationBaseName:   ref,
		annotationBaseDigest: img.Digest(),
	})
	return annotated.(v1.Image), nil
}

// newBaseLayer wraps a layer of an opened image as a v1.Layer. Compressed
// blobs are passed through as they are; an uncompressed layer (from a
// docker archive) is gzipped, since registries and layouts want blobs.
func newBaseLayer(ctx context.Context, l layer, diffID v1.Hash) (v1.Layer, error) {
	open := func() (io.ReadCloser, error) { return l.open(ctx) }
	if l.uncompressed {
		return tarball.LayerFromOpener(open, tarball.WithMediaType(types.OCILayer))
	}
	return &baseLayer{open: open, digest: l.digest, size: l.size, diffID: diffID}, nil
}

// baseLayer is a compressed base layer. Its media type comes from the blob's
// first bytes (gzip or zstd), read once when first asked.
type baseLayer struct {
	open   func() (io.ReadCloser, error)
	digest v1.Hash
	size   int64
	diffID v1.Hash

	once sync.Once
	mt   types.MediaType
	err  error
}

func (l *baseLayer) Digest() (v1.Hash, error)           { return l.digest, nil }
func (l *baseLayer) DiffID() (v1.Hash, error)           { return l.diffID, nil }
func (l *baseLayer) Compressed() (io.ReadCloser, error) { return l.open() }

func (l *baseLayer) Size() (int64, error) {
	if l.size < 0 {
		return 0, fmt.Errorf("layer %s: size unknown", l.digest)
	}
	return l.size, nil
}

func (l *baseLayer) MediaType() (types.MediaType, error) {
	l.once.Do(func() {
		rc, err := l.open()
		if err != nil {
			l.err = err
			return
		}
		defer rc.Close()
		head := make([]byte, 4)
		n, _ := io.ReadFull(rc, head)
		if l.mt = compressionOf(head[:n]); l.mt == "" {
			l.err = fmt.Errorf("layer %s is neither gzip nor zstd compressed", l.digest)
		}
	})
	return l.mt, l.err
}

func (l *baseLayer) Uncompressed() (io.ReadCloser, error) {
	rc, err := l.open()
	if err != nil {
		return nil, err
	}
	r, mt, done, err := decompress(rc)
	if err == nil && mt == "" {
		err = fmt.Errorf("layer %s is neither gzip nor zstd compressed", l.digest)
	}
	if err != nil {
		rc.Close()
		return nil, err
	}
	return readCloser(r, closeFunc(done), rc), nil
}

// closeFunc is a Close that cannot fail.
type closeFunc func()

func (f closeFunc) Close() error { f(); return nil }
