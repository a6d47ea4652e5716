package image

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestVerifier(t *testing.T) {
	content := []byte("layer bytes")
	d := sha256Of(content)
	open := func(data []byte, size int64) (*verifier, *[]string) {
		v, err := verified(io.NopCloser(bytes.NewReader(data)), d, size, "test")
		if err != nil {
			t.Fatal(err)
		}
		var calls []string
		v.done = func() error { calls = append(calls, "done"); return nil }
		v.fail = func() { calls = append(calls, "fail") }
		v.incomplete = func() { calls = append(calls, "incomplete") }
		return v, &calls
	}

	// Reading exactly the promised size verifies, without a further read.
	v, calls := open(content, int64(len(content)))
	if _, err := io.ReadFull(v, make([]byte, len(content))); err != nil {
		t.Fatal(err)
	}
	v.Close()
	if strings.Join(*calls, ",") != "done" {
		t.Errorf("exact read: %v", *calls)
	}

	// Closing early is neither success nor proof of damage.
	v, calls = open(content, int64(len(content)))
	v.Read(make([]byte, 4))
	v.Close()
	if strings.Join(*calls, ",") != "incomplete" {
		t.Errorf("early close: %v", *calls)
	}

	for _, tt := range []struct {
		name string
		data []byte
		size int64
		want string
	}{
		{"flipped", append(bytes.Clone(content[:len(content)-1]), 'X'), int64(len(content)), "digest mismatch"},
		{"short", content[:5], int64(len(content)), "truncated: got 5 of 11 bytes"},
		{"long", append(bytes.Clone(content), 'X'), int64(len(content)), "longer than the 11 bytes"},
		{"longer than size", content, 5, "longer than the 5 bytes"},
		{"unknown size, flipped", append(bytes.Clone(content[:len(content)-1]), 'X'), -1, "digest mismatch"},
	} {
		v, calls := open(tt.data, tt.size)
		_, err := io.ReadAll(v)
		v.Close()
		var be *BlobError
		if !errors.As(err, &be) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
		if strings.Join(*calls, ",") != "fail" {
			t.Errorf("%s: calls %v", tt.name, *calls)
		}
	}
}
