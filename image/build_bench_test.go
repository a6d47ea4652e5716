package image

import (
	"compress/gzip"
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/fbc-project/fbc/internal/sharedtest"
)

// benchCatalog is the heaviest real catalog of the shared corpus (53 MB,
// olm.bundle.object everywhere).
func benchCatalog(b *testing.B) (string, int64) {
	dir := sharedtest.Path(b, "corpus", "certified-operators", "catalogs", "v4.16")
	var size int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			info, ierr := d.Info()
			if ierr == nil {
				size += info.Size()
			}
		}
		return err
	})
	if err != nil {
		sharedtest.Missing(b, "corpus catalog not available: %v", err)
	}
	return dir, size
}

// BenchmarkCatalogLayer measures packing a real catalog into the catalog
// layer against a baseline in the same run: gzipping the same files'
// bytes with nothing else (no tar, no hashing, no normalising). The ratio
// of the two is the cost of what makes the layer reproducible and
// addressable.
func BenchmarkCatalogLayer(b *testing.B) {
	dir, size := benchCatalog(b)
	b.Run("fbc-layer", func(b *testing.B) {
		b.SetBytes(size)
		tmp := b.TempDir()
		for b.Loop() {
			l, err := buildCatalogLayer(context.Background(), dir, time.Unix(0, 0), types.OCILayer, tmp)
			if err != nil {
				b.Fatal(err)
			}
			l.remove()
		}
	})
	b.Run("baseline-gzip-files", func(b *testing.B) {
		b.SetBytes(size)
		tmp := b.TempDir()
		for b.Loop() {
			f, err := os.CreateTemp(tmp, "baseline-*")
			if err != nil {
				b.Fatal(err)
			}
			zw := gzip.NewWriter(f)
			err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err != nil || !d.Type().IsRegular() {
					return err
				}
				in, err := os.Open(p)
				if err != nil {
					return err
				}
				defer in.Close()
				_, err = io.Copy(zw, in)
				return err
			})
			if err != nil {
				b.Fatal(err)
			}
			zw.Close()
			f.Close()
			os.Remove(f.Name())
		}
	})
}
