package image

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Size limits for the small blobs read whole into memory.
const (
	maxManifestSize = 8 << 20
	maxConfigSize   = 16 << 20
)

// blobStore is where a manifest-based image (registry, OCI layout, OCI
// archive) keeps its manifests and blobs. Both methods return content
// verified against the digest (streams: once read to the end).
type blobStore interface {
	manifest(ctx context.Context, d v1.Hash) ([]byte, error)
	blob(ctx context.Context, desc v1.Descriptor) (io.ReadCloser, error)
}

// manifestHead is the part of a manifest or index that says which it is.
type manifestHead struct {
	SchemaVersion int             `json:"schemaVersion"`
	MediaType     types.MediaType `json:"mediaType"`
	Manifests     json.RawMessage `json:"manifests"`
	Layers        json.RawMessage `json:"layers"`
	FSLayers      json.RawMessage `json:"fsLayers"`
}

// isIndex tells an image index from an image manifest: by media type, or by
// shape when the (optional, in OCI) media type is missing.
func isIndex(raw []byte, mt types.MediaType) (bool, error) {
	var h manifestHead
	if err := json.Unmarshal(raw, &h); err != nil {
		return false, fmt.Errorf("manifest is not valid JSON: %v", err)
	}
	if h.MediaType == "" {
		h.MediaType = mt
	}
	switch {
	case h.MediaType.IsIndex():
		return true, nil
	case h.MediaType.IsImage():
		return false, nil
	case h.MediaType.IsSchema1(), h.SchemaVersion == 1, h.FSLayers != nil:
		return false, fmt.Errorf("docker schema 1 manifests are not supported: re-push the image with a current client")
	case h.Manifests != nil:
		return true, nil
	case h.Layers != nil:
		return false, nil
	}
	return false, fmt.Errorf("not an image manifest or index (media type %q)", h.MediaType)
}

// resolveImage turns the manifest or index raw (digest d) into an Image,
// picking the client's platform from an index.
func (c *Client) resolveImage(ctx context.Context, store blobStore, d v1.Hash, raw []byte, mt types.MediaType) (*Image, error) {
	for depth := 0; ; depth++ {
		idx, err := isIndex(raw, mt)
		if err != nil {
			return nil, fmt.Errorf("manifest %s: %w", d, err)
		}
		if !idx {
			break
		}
		if depth == 2 {
			return nil, fmt.Errorf("index %s: indexes nested more than twice", d)
		}
		var index v1.IndexManifest
		if err := json.Unmarshal(raw, &index); err != nil {
			return nil, fmt.Errorf("index %s: %v", d, err)
		}
		child, err := c.pickPlatform(&index)
		if err != nil {
			return nil, fmt.Errorf("index %s: %w", d, err)
		}
		if raw, err = store.manifest(ctx, child.Digest); err != nil {
			return nil, err
		}
		d, mt = child.Digest, child.MediaType
	}
	var m v1.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("manifest %s: %v", d, err)
	}
	switch m.Config.MediaType {
	case types.DockerConfigJSON, types.OCIConfigJSON, "":
	default:
		return nil, fmt.Errorf("manifest %s: not a container image (config media type %s)", d, m.Config.MediaType)
	}
	readConfig := func() ([]byte, error) {
		rc, err := store.blob(ctx, m.Config)
		if err != nil {
			return nil, err
		}
		return readVerified(rc, m.Config.Digest, m.Config.Size, maxConfigSize, "")
	}
	cfgRaw, err := readConfig()
	if c.refetch(err) {
		cfgRaw, err = readConfig()
	}
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", m.Config.Digest, err)
	}
	cfg, err := v1.ParseConfigFile(strings.NewReader(string(cfgRaw)))
	if err != nil {
		return nil, fmt.Errorf("config %s: %v", m.Config.Digest, err)
	}
	img := &Image{digest: d, config: cfg}
	for _, l := range m.Layers {
		l := l
		img.layers = append(img.layers, layer{
			digest: l.Digest,
			size:   l.Size,
			open:   func(ctx context.Context) (io.ReadCloser, error) { return store.blob(ctx, l) },
		})
	}
	return img, nil
}

// pickPlatform chooses the index entry for the client's platform. An index
// whose only image entry says no platform is taken as it is (OCI layouts
// written by some tools look like that).
func (c *Client) pickPlatform(index *v1.IndexManifest) (v1.Descriptor, error) {
	var have []string
	images := imageEntries(index)
	for _, m := range images {
		// OS and architecture equal, and the variant when one is asked for.
		if m.Platform != nil && m.Platform.Satisfies(c.platform) {
			return m, nil
		}
		have = append(have, platformString(m.Platform))
	}
	if len(images) == 1 && images[0].Platform == nil {
		return images[0], nil
	}
	return v1.Descriptor{}, fmt.Errorf("no image for platform %s (the index has: %s)", platformString(&c.platform), listOrNone(have))
}
