package image

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/fbc-project/fbc/internal/atomicfile"

	"github.com/fbc-project/fbc/internal/safefs"
)

// DefaultCacheDir is where pulled images are cached unless Options.CacheDir
// says otherwise: fbc/images under the user's cache directory
// ($XDG_CACHE_HOME or ~/.cache on Linux).
func DefaultCacheDir() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "fbc", "images"), nil
}

// blobCache is a content-addressed store of manifests, configs and layers,
// laid out like an OCI layout's blobs/ directory (blobs/sha256/HEX), plus
// tags/ recording the digest each pulled tag last resolved to (used only
// offline). Files appear by rename, so readers never see a partial blob, and
// every read is verified against the digest, so a damaged file is noticed,
// removed and fetched again. Several processes may share one cache.
type blobCache struct {
	dir string
}

func openBlobCache(dir string) (*blobCache, error) {
	for _, sub := range []string{filepath.Join("blobs", "sha256"), "tags"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return nil, err
		}
	}
	return &blobCache{dir: dir}, nil
}

func (c *blobCache) path(d v1.Hash) (string, error) {
	if d.Algorithm != "sha256" || len(d.Hex) != 64 || strings.Trim(d.Hex, "0123456789abcdef") != "" {
		return "", fmt.Errorf("unsupported digest %q", d)
	}
	return filepath.Join(c.dir, "blobs", d.Algorithm, d.Hex), nil
}

func (c *blobCache) open(d v1.Hash) (*os.File, error) {
	p, err := c.path(d)
	if err != nil {
		return nil, err
	}
	return safefs.Open(p)
}

func (c *blobCache) remove(d v1.Hash) {
	if p, err := c.path(d); err == nil {
		os.Remove(p)
	}
}

// readSmall returns a cached manifest or config if it is there and intact;
// a damaged one is removed.
func (c *blobCache) readSmall(d v1.Hash, max int64) ([]byte, bool) {
	f, err := c.open(d)
	if err != nil {
		return nil, false
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	f.Close()
	if err != nil || int64(len(data)) > max || sha256Of(data) != d {
		c.remove(d)
		return nil, false
	}
	return data, true
}

// put stores a small blob the caller has verified.
func (c *blobCache) put(d v1.Hash, data []byte) error {
	w, err := c.writer(d)
	if err != nil {
		return err
	}
	if _, err := w.Write(data); err != nil {
		w.abort()
		return err
	}
	return w.commit()
}

// cacheWriter writes a blob under a temporary name that commit renames into
// place once the content is verified.
type cacheWriter struct {
	p      *atomicfile.Pending
	failed error
}

func (c *blobCache) writer(d v1.Hash) (*cacheWriter, error) {
	final, err := c.path(d)
	if err != nil {
		return nil, err
	}
	p, err := atomicfile.Create(final, 0o600)
	if err != nil {
		return nil, err
	}
	return &cacheWriter{p: p}, nil
}

// Write never fails the stream it is teed from: a cache that cannot be
// written only means the blob is not kept.
func (w *cacheWriter) Write(p []byte) (int, error) {
	if w.failed == nil {
		_, w.failed = w.p.Write(p)
	}
	return len(p), nil
}

// commit puts the blob in place. It is not synced to disk: every read of
// the cache checks the digest, so a blob a crash cut short is removed and
// fetched again, and an fsync per manifest would cost more than the
// requests it saves.
func (w *cacheWriter) commit() error {
	if w.failed != nil {
		w.p.Abort()
		return w.failed
	}
	return w.p.CommitUnsynced()
}

func (w *cacheWriter) abort() { w.p.Abort() }

// Tag records: one file per fully qualified tag reference, named by a hash
// of it (references may contain characters that are awkward in file names).
func (c *blobCache) tagPath(ref string) string {
	return filepath.Join(c.dir, "tags", sha256Of([]byte(ref)).Hex)
}

func (c *blobCache) tag(ref string) (v1.Hash, bool) {
	data, err := safefs.ReadFile(c.tagPath(ref))
	if err != nil {
		return v1.Hash{}, false
	}
	name, digest, ok := strings.Cut(strings.TrimSpace(string(data)), "\n")
	if !ok || name != ref {
		return v1.Hash{}, false
	}
	d, err := v1.NewHash(strings.TrimSpace(digest))
	return d, err == nil
}

func (c *blobCache) putTag(ref string, d v1.Hash) error {
	return atomicfile.WriteFile(c.tagPath(ref), []byte(ref+"\n"+d.String()+"\n"), 0o644)
}

// refetch reports whether err is a damaged blob read from the cache (which
// has removed it), so that reading once more fetches it again.
func (c *Client) refetch(err error) bool {
	var be *BlobError
	if !errors.As(err, &be) || !be.Cached {
		return false
	}
	c.warnf("%v; fetching it again", err)
	return true
}
