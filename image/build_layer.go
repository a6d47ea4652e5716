package image

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/fbc-project/fbc/internal/ctxio"
	"github.com/fbc-project/fbc/internal/safefs"
)

// catalogLayer is the one layer fbc adds to a catalog image: the catalog
// directory at /configs, as a gzipped tar kept in a temporary file that is
// unlinked at once, so that nothing is left behind however the process
// ends (SIGKILL included). Its digests are computed while it is written, so
// nothing reads it twice to learn them.
type catalogLayer struct {
	file      *os.File
	digest    v1.Hash // of the compressed blob
	diffID    v1.Hash // of the uncompressed tar
	size      int64   // compressed
	mediaType types.MediaType
}

var _ v1.Layer = (*catalogLayer)(nil)

func (l *catalogLayer) Digest() (v1.Hash, error)            { return l.digest, nil }
func (l *catalogLayer) DiffID() (v1.Hash, error)            { return l.diffID, nil }
func (l *catalogLayer) Size() (int64, error)                { return l.size, nil }
func (l *catalogLayer) MediaType() (types.MediaType, error) { return l.mediaType, nil }

// Compressed reads the blob from the start; readers may run at once (a
// push of several platforms), each with its own section of the file.
func (l *catalogLayer) Compressed() (io.ReadCloser, error) {
	return io.NopCloser(io.NewSectionReader(l.file, 0, l.size)), nil
}

func (l *catalogLayer) Uncompressed() (io.ReadCloser, error) {
	zr, err := gzip.NewReader(io.NewSectionReader(l.file, 0, l.size))
	if err != nil {
		return nil, err
	}
	return zr, nil
}

// readCloser reads from r and, on Close, closes cs in order.
func readCloser(r io.Reader, cs ...io.Closer) io.ReadCloser {
	return struct {
		io.Reader
		io.Closer
	}{r, closers(cs)}
}

type closers []io.Closer

func (cs closers) Close() error {
	var errs []error
	for _, c := range cs {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}

func (l *catalogLayer) remove() error { return l.file.Close() }

// Permissions and ownership of everything in the catalog layer: the image
// must not depend on who built it or on their umask.
const (
	layerDirMode  = 0o755
	layerFileMode = 0o644
)

// buildCatalogLayer writes the tree at dir into a reproducible layer under
// /configs: entries in walk order (parents first, names sorted), every mtime
// set to mtime, uid/gid 0 with no user names, 0755 directories and 0644
// files, no extended attributes. A symbolic link to a file inside dir is
// stored as the file it points to (what fbc validated is what ships); links
// that lead outside dir (even ones .indexignore hides: they would still be
// copied), links to directories, dangling links and special files are
// errors naming the path (safefs.WalkTree).
func buildCatalogLayer(ctx context.Context, dir string, mtime time.Time, mediaType types.MediaType, tmpDir string) (_ *catalogLayer, err error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("catalog directory: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	f, err := os.CreateTemp(tmpDir, "fbc-layer-*.tar.gz")
	if err != nil {
		return nil, fmt.Errorf("creating the layer file: %w", err)
	}
	// Unlinked at once: the layer lives as long as the open descriptor.
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, fmt.Errorf("creating the layer file: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
		}
	}()

	compressedHash, uncompressedHash := sha256.New(), sha256.New()
	counter := &countingWriter{w: io.MultiWriter(f, compressedHash)}
	zw, err := gzip.NewWriterLevel(counter, gzip.DefaultCompression)
	if err != nil {
		return nil, err
	}
	tw := tar.NewWriter(io.MultiWriter(zw, uncompressedHash))

	root := path.Base(ConfigsDir)
	err = safefs.WalkTree(ctx, dir, func(e safefs.Entry) error {
		return addEntry(ctx, tw, e, path.Join(root, e.Rel), mtime)
	})
	if err != nil {
		var nre *safefs.NotRegularError
		if errors.As(err, &nre) {
			return nil, fmt.Errorf("%w: remove it from the catalog directory", err)
		}
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return &catalogLayer{
		file:      f,
		digest:    sha256Hash(compressedHash),
		diffID:    sha256Hash(uncompressedHash),
		size:      counter.n,
		mediaType: mediaType,
	}, nil
}

func addEntry(ctx context.Context, tw *tar.Writer, e safefs.Entry, name string, mtime time.Time) error {
	hdr := &tar.Header{Name: name, ModTime: mtime, Uid: 0, Gid: 0}
	if e.Dir {
		hdr.Typeflag = tar.TypeDir
		hdr.Name += "/"
		hdr.Mode = layerDirMode
		return tw.WriteHeader(hdr)
	}
	f, err := e.Open()
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	hdr.Typeflag = tar.TypeReg
	hdr.Mode = layerFileMode
	hdr.Size = st.Size()
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	// A large file is copied in pieces, so that an interrupt stops it.
	n, err := io.Copy(tw, ctxio.Reader(ctx, io.LimitReader(f, hdr.Size)))
	if err != nil {
		return fmt.Errorf("reading %s: %w", e.Path, err)
	}
	if n != hdr.Size {
		return fmt.Errorf("reading %s: the file changed size while it was read", e.Path)
	}
	return nil
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func sha256Hash(h hash.Hash) v1.Hash {
	return v1.Hash{Algorithm: "sha256", Hex: hex.EncodeToString(h.Sum(nil))}
}
