package profile

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"encoding/base64"
	"io"
	"slices"
	"sync"
)

// The bundle size OLM can stage: operator-framework/api's BundleValidator
// sums, over the bundle's files, the length of base64(gzip(file)), and
// errors above 1 MiB, warns above 85% of it.
const (
	maxBundleSize  = 1 << 20
	warnBundleSize = maxBundleSize * 85 / 100
)

// bundleSize returns the bundle's size and compressed size as the
// BundleValidator counts them: the files of a bundle directory or image,
// or the manifests of a catalog bundle.
//
// Compressing is the costly part, and most bundles are far below the
// limit: as long as the compressed size counted so far plus, for the parts
// not compressed yet, what even incompressible data (stored deflate
// blocks) could become stays at or below the warning size, that sum
// stands in for the compressed size, since the validator then reports
// nothing either way. Parts are compressed largest first, so that the
// fewest do, and each distinct part once per run (sizes): the bundles of
// a package ship the same CRDs again and again.
func bundleSize(b *bundle, sizes *sizeCache) (size, compressed int64) {
	var parts [][]byte
	if len(b.in.Files) > 0 {
		for _, f := range b.in.Files {
			parts = append(parts, f.Data)
		}
	} else {
		for _, o := range b.in.Objects {
			parts = append(parts, o.JSON)
		}
	}
	var bound int64
	for _, p := range parts {
		size += int64(len(p))
		bound += compressedBound(len(p))
	}
	slices.SortStableFunc(parts, func(x, y []byte) int { return cmp.Compare(len(y), len(x)) })
	for _, p := range parts {
		if bound <= warnBundleSize {
			break
		}
		bound += sizes.gzipBase64Len(p) - compressedBound(len(p))
	}
	return size, bound
}

// sizeCache remembers the compressed size of each distinct part.
type sizeCache struct {
	mu    sync.Mutex
	sizes map[contentKey]int64
}

func (c *sizeCache) gzipBase64Len(data []byte) int64 {
	k := keyOf(data)
	c.mu.Lock()
	n, ok := c.sizes[k]
	c.mu.Unlock()
	if ok {
		return n
	}
	n = gzipBase64Len(data)
	c.mu.Lock()
	if c.sizes == nil {
		c.sizes = map[contentKey]int64{}
	}
	c.sizes[k] = n
	c.mu.Unlock()
	return n
}

// compressedBound is more than base64(gzip(n bytes)) can be: gzip's header
// and trailer, stored blocks with 5 bytes of header each (Go's deflate
// stores at most 16 KiB per block; the bound allows one per 4 KiB), a final
// empty block, then base64's 4 bytes per 3.
func compressedBound(n int) int64 {
	deflated := int64(n) + 5*(int64(n)/4096+2) + 18 + 64
	return (deflated + 2) / 3 * 4
}

// gzipBase64Len is len(base64(gzip(data))) with Go's default compression,
// which is what the validator measures.
func gzipBase64Len(data []byte) int64 {
	var n countingWriter
	enc := base64.NewEncoder(base64.StdEncoding, &n)
	zw := gzip.NewWriter(enc)
	_, _ = io.Copy(zw, bytes.NewReader(data))
	_ = zw.Close()
	_ = enc.Close()
	return int64(n)
}

type countingWriter int64

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}
