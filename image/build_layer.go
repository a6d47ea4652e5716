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
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// catalogLayer is the one layer fbc adds to a catalog image: the catalog
// directory at /configs, as a gzipped tar kept in a temporary file. Its
// digests are computed while it is written, so nothing reads it twice to
// learn them.
type catalogLayer struct {
	file      string
	digest    v1.Hash // of the compressed blob
	diffID    v1.Hash // of the uncompressed tar
	size      int64   // compressed
	mediaType types.MediaType
}

var _ v1.Layer = (*catalogLayer)(nil)

func (l *catalogLayer) Digest() (v1.Hash, error)             { return l.digest, nil }
func (l *catalogLayer) DiffID() (v1.Hash, error)             { return l.diffID, nil }
func (l *catalogLayer) Size() (int64, error)                 { return l.size, nil }
func (l *catalogLayer) MediaType() (types.MediaType, error)  { return l.mediaType, nil }
func (l *catalogLayer) Compressed() (io.ReadCloser, error)   { return os.Open(l.file) }
func (l *catalogLayer) Uncompressed() (io.ReadCloser, error) { return l.uncompressed() }

func (l *catalogLayer) uncompressed() (io.ReadCloser, error) {
	f, err := os.Open(l.file)
	if err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	return readCloser(zr, zr, f), nil
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

func (l *catalogLayer) remove() error { return os.Remove(l.file) }

// Permissions and ownership of everything in the catalog layer: the image
// must not depend on who built it or on their umask.
const (
	layerDirMode  = 0o755
	layerFileMode = 0o644
)

// buildCatalogLayer writes the tree at dir into a reproducible layer under
// /configs: entries in walk order (parents first, names sorted), every mtime
// set to mtime, uid/gid 0 with no user names, 0755 directories and 0644
// files, no extended attributes. A symbolic link to a file is stored as the
// file it points to (what fbc validated is what ships); links to
// directories, dangling links and special files are errors naming the path.
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
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = cerr
		}
		if err != nil {
			os.Remove(f.Name())
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
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, werr error) error {
		if werr != nil {
			return werr
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		name := path.Join(root, filepath.ToSlash(rel))
		return addEntry(tw, p, name, d, mtime)
	})
	if err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	if err := f.Sync(); err != nil {
		return nil, err
	}
	return &catalogLayer{
		file:      f.Name(),
		digest:    sha256Hash(compressedHash),
		diffID:    sha256Hash(uncompressedHash),
		size:      counter.n,
		mediaType: mediaType,
	}, nil
}

func addEntry(tw *tar.Writer, p, name string, d fs.DirEntry, mtime time.Time) error {
	hdr := &tar.Header{Name: name, ModTime: mtime, Uid: 0, Gid: 0}
	mode := d.Type()
	if mode&fs.ModeSymlink != 0 {
		st, err := os.Stat(p)
		switch {
		case err != nil:
			return fmt.Errorf("%s: symbolic link cannot be followed: %w", p, err)
		case st.IsDir():
			return fmt.Errorf("%s: symbolic link to a directory; catalogs cannot contain them: copy the directory instead", p)
		}
		mode = st.Mode().Type()
	}
	switch {
	case mode.IsDir():
		hdr.Typeflag = tar.TypeDir
		hdr.Name += "/"
		hdr.Mode = layerDirMode
		return tw.WriteHeader(hdr)
	case mode.IsRegular():
		return addFile(tw, p, hdr)
	default:
		return fmt.Errorf("%s: not a regular file or directory (%s); remove it from the catalog directory", p, mode)
	}
}

func addFile(tw *tar.Writer, p string, hdr *tar.Header) error {
	f, err := os.Open(p)
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
	n, err := io.Copy(tw, io.LimitReader(f, hdr.Size))
	if err != nil {
		return fmt.Errorf("reading %s: %w", p, err)
	}
	if n != hdr.Size {
		return fmt.Errorf("reading %s: the file changed size while it was read", p)
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
