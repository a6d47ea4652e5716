package validate_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/validate"
)

// BenchmarkValidate measures fbc validate against a bare decode of the same
// files (parse every file and decode every document into its typed blob,
// which is what any tool must do before checking anything), in one run:
//
//	go test ./validate -run '^$' -bench Validate -benchtime 3x
//
// validate/<catalog> reports x-decode, its time as a multiple of
// decode/<catalog>'s. The catalogs are certified-operators v4.16 from the
// shared corpus (51 MB) and its 10x copy from `make bench-data` (504 MB).
func BenchmarkValidate(b *testing.B) {
	catalogs := benchCatalogs(b)
	decodeTime := map[string]time.Duration{}
	b.Run("decode", func(b *testing.B) {
		for _, c := range catalogs {
			b.Run(c.name, func(b *testing.B) {
				if c.path == "" {
					b.Skip(c.skip)
				}
				start := time.Now()
				for range b.N {
					decode(b, c.path)
				}
				decodeTime[c.name] = time.Since(start) / time.Duration(b.N)
			})
		}
	})
	b.Run("validate", func(b *testing.B) {
		for _, c := range catalogs {
			b.Run(c.name, func(b *testing.B) {
				if c.path == "" {
					b.Skip(c.skip)
				}
				start := time.Now()
				for range b.N {
					res, err := validate.Validate(context.Background(), []string{c.path}, validate.Options{})
					if err != nil {
						b.Fatal(err)
					}
					if !res.Valid() {
						b.Fatalf("%s is not valid: %v", c.path, res.Diagnostics[0])
					}
				}
				per := time.Since(start) / time.Duration(b.N)
				if d := decodeTime[c.name]; d > 0 {
					b.ReportMetric(float64(per)/float64(d), "x-decode")
				}
			})
		}
	})
}

type benchCatalog struct{ name, path, skip string }

func benchCatalogs(b *testing.B) []benchCatalog {
	shared := os.Getenv("FBC_SHARED")
	if shared == "" {
		shared = filepath.Join("..", "..", "shared")
	}
	out := []benchCatalog{
		{name: "v4.16", path: filepath.Join(shared, "corpus", "certified-operators", "catalogs", "v4.16")},
		{name: "x10", path: filepath.Join("..", "testdata", "bench", "v4.16-x10")},
	}
	for i, c := range out {
		if _, err := os.Stat(c.path); err != nil {
			out[i].path, out[i].skip = "", c.path+" not found (make bench-data; FBC_SHARED names the shared folder)"
		}
	}
	return out
}

// decode parses every file and decodes every document, keeping nothing.
func decode(b *testing.B, path string) {
	err := declcfg.WalkPath(context.Background(), path, nil, declcfg.WalkOptions{}, func(f *declcfg.File) error {
		for _, doc := range f.Docs {
			if _, errs, ok := declcfg.DecodeDocument(doc); !ok || len(errs) > 0 {
				b.Fatalf("%s: decoding failed: %v", f.Path, errs)
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}
