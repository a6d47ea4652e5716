package image

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// BlobError says a blob's content is not what its digest promises: it was
// cut short, is longer than its descriptor says, or hashes differently.
type BlobError struct {
	Digest v1.Hash
	// Where is where the bytes came from: a URL, a cache or layout file.
	Where string
	Msg   string
	// Cached marks a bad blob read from the cache (it has been removed).
	Cached bool
}

func (e *BlobError) Error() string {
	s := fmt.Sprintf("blob %s", e.Digest)
	if e.Where != "" {
		s += " (" + e.Where + ")"
	}
	return s + ": " + e.Msg
}

// verifier checks a stream against a digest and (when known) a size as it
// is read. The check happens at the end of the stream (or once the promised
// size is read): a reader must be drained to be trusted. done, if set, runs
// once the content is verified (the cache uses it to keep a download); fail
// runs when the content is proven bad or the stream breaks; incomplete runs
// when the stream is closed before it was verified.
type verifier struct {
	r     io.Reader
	h     hash.Hash
	want  v1.Hash
	size  int64 // -1: unknown
	n     int64
	where string
	// cached marks a stream read from the cache, so a bad one is refetched.
	cached     bool
	done       func() error
	fail       func()
	incomplete func()
	err        error
	close      func() error
}

// verified wraps rc so that reading it to the end checks digest and size.
// Only sha256 digests are accepted: that is what registries and layouts use.
func verified(rc io.ReadCloser, want v1.Hash, size int64, where string) (*verifier, error) {
	if want.Algorithm != "sha256" {
		rc.Close()
		return nil, &BlobError{Digest: want, Where: where, Msg: "unsupported digest algorithm " + want.Algorithm}
	}
	return &verifier{r: rc, h: sha256.New(), want: want, size: size, where: where, close: rc.Close}, nil
}

func (v *verifier) Read(p []byte) (int, error) {
	if v.err != nil {
		return 0, v.err
	}
	if v.size >= 0 && int64(len(p)) > v.size-v.n+1 {
		// Never read more than one byte past the promised size.
		p = p[:v.size-v.n+1]
	}
	n, err := v.r.Read(p)
	v.n += int64(n)
	v.h.Write(p[:n])
	switch {
	case v.size >= 0 && v.n > v.size:
		return n, v.failed(fmt.Sprintf("longer than the %d bytes its descriptor says", v.size))
	case v.size >= 0 && v.n == v.size:
		// All promised bytes are in: check now, so a reader that stops at
		// the size (io.CopyN, a tar reader) still gets verified content.
		return n, v.finish()
	case err == io.EOF:
		if v.size >= 0 {
			return n, v.failed(fmt.Sprintf("truncated: got %d of %d bytes", v.n, v.size))
		}
		return n, v.finish()
	case errors.Is(err, io.ErrUnexpectedEOF):
		msg := fmt.Sprintf("truncated after %d bytes", v.n)
		if v.size >= 0 {
			msg = fmt.Sprintf("truncated: got %d of %d bytes", v.n, v.size)
		}
		v.failed(msg)
		// Keep the transport error visible to retry logic.
		v.err = fmt.Errorf("%w: %w", v.err, err)
		return n, v.err
	case err != nil:
		v.err = err
		v.broken()
	}
	return n, err
}

// finish checks the digest of a complete stream and ends it with io.EOF.
func (v *verifier) finish() error {
	got := v1.Hash{Algorithm: "sha256", Hex: fmt.Sprintf("%x", v.h.Sum(nil))}
	if got != v.want {
		return v.failed(fmt.Sprintf("digest mismatch: content hashes to %s", got))
	}
	v.fail, v.incomplete = nil, nil
	if v.done != nil {
		done := v.done
		v.done = nil
		if err := done(); err != nil {
			v.err = err
			return err
		}
	}
	v.err = io.EOF
	return io.EOF
}

func (v *verifier) failed(msg string) error {
	v.err = &BlobError{Digest: v.want, Where: v.where, Msg: msg, Cached: v.cached}
	v.broken()
	return v.err
}

// broken runs fail once; the stream is over, so incomplete no longer applies.
func (v *verifier) broken() {
	if v.fail != nil {
		v.fail()
	}
	v.fail, v.incomplete = nil, nil
}

// Close releases the stream; a download not verified by then is discarded.
func (v *verifier) Close() error {
	if v.incomplete != nil && v.err != io.EOF {
		v.incomplete()
		v.incomplete = nil
	}
	return v.close()
}

// readVerified reads a whole small blob (manifest, config) and checks it.
func readVerified(rc io.ReadCloser, want v1.Hash, size int64, max int64, where string) ([]byte, error) {
	if size > max {
		rc.Close()
		return nil, &BlobError{Digest: want, Where: where, Msg: fmt.Sprintf("%d bytes, over the %d-byte limit for this kind of blob", size, max)}
	}
	v, err := verified(rc, want, size, where)
	if err != nil {
		return nil, err
	}
	defer v.Close()
	data, err := io.ReadAll(io.LimitReader(v, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, &BlobError{Digest: want, Where: where, Msg: fmt.Sprintf("over the %d-byte limit for this kind of blob", max)}
	}
	return data, nil
}

func sha256Of(data []byte) v1.Hash {
	return v1.Hash{Algorithm: "sha256", Hex: fmt.Sprintf("%x", sha256.Sum256(data))}
}
