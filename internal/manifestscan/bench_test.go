package manifestscan_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/manifestscan"
	"github.com/fbc-project/fbc/internal/sharedtest"
)

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
		scan func([]byte) (manifestscan.Manifest, error)
	}{
		{"manifestscan", manifestscan.Scan},
		{"encoding-json", unmarshal},
		{"json.Valid", func(data []byte) (manifestscan.Manifest, error) {
			if !json.Valid(data) {
				return manifestscan.Manifest{}, errors.New("invalid JSON")
			}
			return manifestscan.Manifest{}, nil
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
func unmarshal(data []byte) (manifestscan.Manifest, error) {
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
	return manifestscan.Manifest{APIVersion: obj.APIVersion, Kind: obj.Kind, Name: obj.Metadata.Name, Version: obj.Spec.Version}, err
}

// bundleObjects reads the decoded olm.bundle.object manifests of a catalog
// of YAML files (the corpus's certified catalogs are all YAML) with
// declcfg's loader, which uses this package: the benchmark is an external
// test, outside the cycle.
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
