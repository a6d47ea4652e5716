package manifestscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/sharedtest"
)

// FuzzScan checks the one-pass scanner against encoding/json: the same
// documents are valid, and the same identity is read.
//
//	go test ./internal/manifestscan -run '^$' -fuzz FuzzScan -fuzztime 30s
func FuzzScan(f *testing.F) {
	for _, seed := range []string{
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}`,
		`{"apiVersion":"operators.coreos.com/v1alpha1","kind":"ClusterServiceVersion","metadata":{"name":"a.v1","annotations":{"k":"v"}},"spec":{"version":"1.0.0","x":[1,2.5e3,-0.1,true,false,null]}}`,
		` {"kind":"K\u0041","metadata":{"name":"a\"b"},"metadata":{}} `,
		`{"kind":1,"kind":"late"}`,
		`[1,2]`, `"text"`, `{`, `{"a":}`, `{"a":01}`, `{"a":1.}`, `{"a":"\x"}`, `{"a":"\u12"}`, `{} {}`, `nul`, "{\"a\":\"\x01\"}",
		`{"spec":{"version":"1"},"spec":5}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Scan(data)
		valid := json.Valid(data)
		if !valid {
			if err == nil {
				t.Fatalf("Scan accepted invalid JSON %q", data)
			}
			return
		}
		var v any
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber() // 2e400 is valid JSON, but no float64
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("encoding/json: %v", err)
		}
		obj, isObject := v.(map[string]any)
		if !isObject {
			if !errors.Is(err, ErrNotObject) {
				t.Fatalf("%q: got %v, want ErrNotObject", data, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("Scan rejected valid JSON %q: %v", data, err)
		}
		str := func(v any) string { s, _ := v.(string); return s }
		sub := func(k string) map[string]any { o, _ := obj[k].(map[string]any); return o }
		want := Manifest{APIVersion: str(obj["apiVersion"]), Kind: str(obj["kind"]), Name: str(sub("metadata")["name"]), Version: str(sub("spec")["version"])}
		for _, s := range []string{m.APIVersion, m.Kind, m.Name, m.Version} {
			if !utf8.ValidString(s) {
				return // encoding/json replaces invalid UTF-8; the scanner keeps bytes
			}
		}
		if m != want {
			t.Fatalf("%q: got %+v, want %+v", data, m, want)
		}
	})
}

// BenchmarkScan compares Scan with encoding/json doing the same job
// (checking the whole document and decoding the identity into a struct) on
// the olm.bundle.object manifests of certified-operators v4.16 from the
// shared corpus (379 bundles, their CSVs, CRDs and other objects):
//
//	go test ./internal/manifestscan -run '^$' -bench Scan -benchtime 5x -count 3
//
// json.Valid alone, which checks without decoding, is shown for scale.
func BenchmarkScan(b *testing.B) {
	objs, size := bundleObjects(b, filepath.Join(sharedtest.Corpus(b), "certified-operators", "catalogs", "v4.16"))
	b.Logf("%d manifests, %d bytes", len(objs), size)
	for _, c := range []struct {
		name string
		scan func([]byte) (Manifest, error)
	}{
		{"manifestscan", Scan},
		{"encoding-json", unmarshal},
		{"json.Valid", func(data []byte) (Manifest, error) {
			if !json.Valid(data) {
				return Manifest{}, errors.New("invalid JSON")
			}
			return Manifest{}, nil
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(size))
			for range b.N {
				for _, o := range objs {
					if _, err := c.scan(o); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// unmarshal is what Scan does, done with encoding/json.
func unmarshal(data []byte) (Manifest, error) {
	var obj struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Spec struct {
			Version string `json:"version"`
		} `json:"spec"`
	}
	err := json.Unmarshal(data, &obj)
	return Manifest{APIVersion: obj.APIVersion, Kind: obj.Kind, Name: obj.Metadata.Name, Version: obj.Spec.Version}, err
}

// bundleObjects reads the decoded olm.bundle.object manifests of a catalog
// of YAML files (the corpus's certified catalogs are all YAML), reading the
// files with the YAML library so that this package depends on nothing of
// fbc's.
func bundleObjects(b *testing.B, dir string) ([][]byte, int) {
	var objs [][]byte
	size := 0
	err := filepath.WalkDir(dir, func(path string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || filepath.Ext(path) != ".yaml" {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		cfg, err := declcfg.LoadBytes(path, data)
		if err != nil {
			return err
		}
		for _, bundle := range cfg.Bundles {
			for _, p := range bundle.Properties {
				if p.Type != declcfg.PropertyBundleObject {
					continue
				}
				var v struct {
					Data []byte `json:"data"`
				}
				if err := json.Unmarshal(p.Value, &v); err != nil {
					return err
				}
				objs = append(objs, v.Data)
				size += len(v.Data)
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	if len(objs) == 0 {
		b.Fatalf("no olm.bundle.object manifests in %s", dir)
	}
	return objs, size
}
