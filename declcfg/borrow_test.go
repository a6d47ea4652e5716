package declcfg

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/fbc-project/fbc/internal/borrow"
)

// within reports whether s's bytes lie inside data.
func within(s string, data []byte) bool {
	if len(s) == 0 || len(data) == 0 {
		return false
	}
	p, lo := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(unsafe.SliceData(data)))
	return p >= lo && p < lo+uintptr(len(data))
}

func scalarAt(t *testing.T, root *Node, key string) string {
	t.Helper()
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == key {
			return root.Content[i+1].Value
		}
	}
	t.Fatalf("no key %q", key)
	return ""
}

func TestBorrowedScalars(t *testing.T) {
	long := strings.Repeat("QUJD", borrow.Min/4+1)
	for name, src := range map[string]string{
		"yaml": "schema: olm.package\nname: p\ndescription: " + long + "\n",
		"json": `{"schema": "olm.package", "name": "p", "description": "` + long + `"}` + "\n",
	} {
		t.Run(name, func(t *testing.T) {
			for _, borrow := range []bool{false, true} {
				data := []byte(src)
				f := parseFile("f", data, borrow)
				if len(f.Errors) != 0 || len(f.Docs) != 1 {
					t.Fatalf("borrow %v: %d documents, errors %v", borrow, len(f.Docs), f.Errors)
				}
				root := f.Docs[0].Node
				desc, short := scalarAt(t, root, "description"), scalarAt(t, root, "name")
				if desc != long || short != "p" {
					t.Fatalf("borrow %v: values %.20q, %q", borrow, desc, short)
				}
				if within(desc, data) != borrow {
					t.Errorf("borrow %v: the long value shares the file's bytes: %v", borrow, within(desc, data))
				}
				if within(short, data) {
					t.Errorf("borrow %v: a short value shares the file's bytes", borrow)
				}
				// What DecodeDocument keeps is the blob's own, whatever
				// becomes of the file's bytes.
				blob, errs, ok := DecodeDocument(f.Docs[0])
				if !ok || len(errs) != 0 {
					t.Fatalf("decode: %v", errs)
				}
				for i := range data {
					data[i] = 'x'
				}
				if blob.Package.Description != long {
					t.Errorf("borrow %v: the blob's description changed with the file's bytes", borrow)
				}
			}
		})
	}
}

// TestWalkBorrow: walking with Borrow finds the same documents.
func TestWalkBorrow(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("eyJh", borrow.Min)
	files := map[string]string{
		"a.yaml": "schema: olm.package\nname: a\nicon:\n  base64data: " + long + "\n  mediatype: image/png\n---\nschema: olm.bundle\nname: a.v1\npackage: a\nimage: x\nproperties:\n- type: olm.bundle.object\n  value:\n    data: " + long + "\n",
		"b.json": `{"schema":"olm.bundle","name":"b.v1","package":"b","image":"y","properties":[{"type":"olm.bundle.object","value":{"data":"` + long + `"}}]}` + "\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	walk := func(borrow bool) []*File {
		var got []*File
		if err := WalkPath(context.Background(), dir, nil, WalkOptions{Borrow: borrow}, func(f *File) error {
			got = append(got, f)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return got
	}
	plain, borrowed := walk(false), walk(true)
	if len(plain) != 2 || len(borrowed) != 2 {
		t.Fatalf("%d and %d files", len(plain), len(borrowed))
	}
	for i := range plain {
		if len(plain[i].Docs) != len(borrowed[i].Docs) || len(plain[i].Errors)+len(borrowed[i].Errors) != 0 {
			t.Fatalf("%s: %d/%d documents, errors %v %v", plain[i].Path, len(plain[i].Docs), len(borrowed[i].Docs), plain[i].Errors, borrowed[i].Errors)
		}
		for j := range plain[i].Docs {
			a, err := NodeToJSON(plain[i].Docs[j].Node, false)
			if err != nil {
				t.Fatal(err)
			}
			b, err := NodeToJSON(borrowed[i].Docs[j].Node, false)
			if err != nil {
				t.Fatal(err)
			}
			if string(a) != string(b) {
				t.Errorf("%s document %d differs when borrowed", plain[i].Path, j)
			}
		}
	}
}

// TestWalkReuse: with Reuse, a later file is read into the buffer of one fn
// is done with, and every file still parses as it does without; streamed
// files too, when fn parses them before it returns.
func TestWalkReuse(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a.yaml": "schema: olm.package\nname: a\ndescription: " + strings.Repeat("long ", 400) + "\n",
		"b.yaml": "schema: olm.package\nname: b\n",
		"c.json": `{"schema":"olm.package","name":"c","description":"` + strings.Repeat("x", borrow.Min) + `"}` + "\n",
		"d.yaml": "schema: olm.channel\npackage: a\nname: stable\nentries:\n- name: a.v1\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	walk := func(opts WalkOptions) (out []string, bufs [][]byte) {
		if err := WalkPath(context.Background(), dir, nil, opts, func(f *File) error {
			var err error
			f.Each(func(d Document) {
				js, jerr := NodeToJSON(d.Node, true)
				if jerr != nil {
					err = jerr
				}
				out = append(out, f.Path+" "+string(js))
			})
			bufs = append(bufs, f.buf)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return out, bufs
	}
	want, _ := walk(WalkOptions{Concurrency: 1, Ahead: 1})
	for _, stream := range []bool{false, true} {
		got, bufs := walk(WalkOptions{Concurrency: 1, Ahead: 1, Borrow: true, Reuse: true, Stream: stream})
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("with Reuse (Stream %v):\n%s\nwithout:\n%s", stream, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		// a.yaml is the largest and read first: every later file fits in
		// its buffer, which comes round again and again.
		first := unsafe.SliceData(bufs[0])
		if first == nil {
			t.Fatalf("no buffer recorded for the first file (Stream %v)", stream)
		}
		for i, b := range bufs[1:] {
			if unsafe.SliceData(b) != first {
				t.Errorf("file %d was read into a new buffer (Stream %v)", i+2, stream)
			}
		}
	}
}
