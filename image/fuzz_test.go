package image

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"io/fs"
	"strings"
	"testing"
)

// fuzzTar writes a seed layer.
func fuzzTar(entries ...*tar.Header) []byte {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, h := range entries {
		body := []byte(h.Linkname + "content")
		if h.Typeflag == tar.TypeReg {
			h.Size = int64(len(body))
		}
		tw.WriteHeader(h)
		if h.Typeflag == tar.TypeReg {
			tw.Write(body)
		}
	}
	tw.Close()
	return buf.Bytes()
}

// FuzzReadFiles feeds arbitrary bytes as a layer: ReadFiles must never panic,
// and what it returns must be files under the requested path.
func FuzzReadFiles(f *testing.F) {
	plain := fuzzTar(
		&tar.Header{Name: "configs/", Typeflag: tar.TypeDir, Mode: 0o755},
		&tar.Header{Name: "configs/a.json", Typeflag: tar.TypeReg, Mode: 0o644},
		&tar.Header{Name: "configs/l", Typeflag: tar.TypeSymlink, Linkname: "a.json"},
		&tar.Header{Name: "configs/h", Typeflag: tar.TypeLink, Linkname: "configs/a.json"},
		&tar.Header{Name: "configs/.wh.x", Typeflag: tar.TypeReg},
		&tar.Header{Name: "configs/d/.wh..wh..opq", Typeflag: tar.TypeReg},
		&tar.Header{Name: "etc/passwd", Typeflag: tar.TypeReg},
	)
	f.Add(plain)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(plain)
	zw.Close()
	f.Add(gz.Bytes())
	f.Add(fuzzTar(&tar.Header{Name: "configs/../../x", Typeflag: tar.TypeReg}))
	f.Add(fuzzTar(&tar.Header{Name: "configs/x", Typeflag: tar.TypeSymlink, Linkname: "../../../etc"}))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<20 {
			return
		}
		d := sha256Of(data)
		img := &Image{
			ref:    Reference{raw: "fuzz"},
			client: &Client{},
			layers: []layer{{digest: d, size: int64(len(data)), open: func(context.Context) (io.ReadCloser, error) {
				return verified(io.NopCloser(bytes.NewReader(data)), d, int64(len(data)), "fuzz")
			}}},
		}
		fsys, err := img.ReadFiles(context.Background(), []string{"configs"}, Limits{MaxFileSize: 1 << 20, MaxTotalSize: 4 << 20, MaxEntries: 1000})
		if err != nil {
			return
		}
		err = fs.WalkDir(fsys, ".", func(p string, de fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if p != "." && p != "configs" && !strings.HasPrefix(p, "configs/") {
				t.Errorf("read %q outside configs", p)
			}
			if !de.IsDir() {
				if _, err := fs.ReadFile(fsys, p); err != nil {
					t.Errorf("%s: %v", p, err)
				}
			}
			return nil
		})
		if err != nil {
			t.Error(err)
		}
	})
}

// FuzzParseReference: no panic; a parsed reference prints as written.
func FuzzParseReference(f *testing.F) {
	for _, s := range []string{"quay.io/a/b:v1", "b@sha256:" + strings.Repeat("a", 64), "oci:dir:tag", "oci:d@sha256:" + strings.Repeat("b", 64),
		"oci-archive:x.tar", "docker-archive:x.tar:repo:tag", "localhost:5000/x", "", ":", "oci:", "@"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseReference(s)
		if err != nil {
			if !strings.Contains(err.Error(), "invalid image reference") {
				t.Errorf("error %q does not say what it is about", err)
			}
			return
		}
		if r.String() != s {
			t.Errorf("String() = %q, want %q", r.String(), s)
		}
		if (r.Kind == KindRegistry) != (r.name != nil) || (r.Kind != KindRegistry && r.Path == "") {
			t.Errorf("inconsistent %+v", r)
		}
	})
}
