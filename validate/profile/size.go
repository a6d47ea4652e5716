package profile

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"io"
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
// limit: when even incompressible data (stored deflate blocks) could not
// reach the warning size, the bound stands in for the compressed size,
// since the validator then reports nothing either way.
func bundleSize(b *bundle) (size, compressed int64) {
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
	if bound <= warnBundleSize {
		return size, bound
	}
	for _, p := range parts {
		compressed += gzipBase64Len(p)
	}
	return size, compressed
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
