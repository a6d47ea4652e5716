package validate_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/declcfg/declcfgtest"
	"github.com/fbc-project/fbc/internal/sharedtest"
	"github.com/fbc-project/fbc/validate"
)

// BenchmarkValidate measures fbc validate against two bare decodes of the
// same files, in one run:
//
//	go test ./validate -run '^$' -bench Validate -benchtime 3x
//
// The "decode" baseline is fbc's own loader parsing every file and decoding
// every document into its typed blob, which validate must do before checking
// anything (the strict baseline). The "yaml-v3" baseline reads every file and
// decodes each document into a yaml.Node tree with go.yaml.in/yaml/v3, on the
// same number of workers and doing nothing else: what a bare decode costs
// with the usual YAML library.
//
// validate/<catalog> reports x-decode and x-yaml-v3, its time as a multiple
// of each baseline's. The catalogs are certified-operators v4.16 (51 MB,
// olm.bundle.object), v4.18 (20 MB, olm.csv.metadata) and
// community-operators v4.22 (8 MB, olm.csv.metadata) from the shared corpus,
// and the v4.16 10x copy from `make bench-data` (504 MB).
func BenchmarkValidate(b *testing.B) {
	catalogs := benchCatalogs(b)
	decodeTime := timeEach(b, "decode", catalogs, decode, nil)
	yamlTime := timeEach(b, "yaml-v3", catalogs, func(b *testing.B, path string) {
		declcfgtest.DecodeYAMLNodes(b, path, runtime.GOMAXPROCS(0))
	}, nil)
	timeEach(b, "validate", catalogs, func(b *testing.B, path string) {
		res, err := validate.Validate(context.Background(), []string{path}, validate.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if !res.Valid() {
			b.Fatalf("%s is not valid: %v", path, res.Diagnostics[0])
		}
	}, func(b *testing.B, name string, per time.Duration) {
		if d := decodeTime[name]; d > 0 {
			b.ReportMetric(float64(per)/float64(d), "x-decode")
		}
		if d := yamlTime[name]; d > 0 {
			b.ReportMetric(float64(per)/float64(d), "x-yaml-v3")
		}
	})
}

// timeEach runs one sub-benchmark per catalog under name, hands each one's
// time per op to report when it is set (inside the sub-benchmark, so it can
// report metrics) and returns them all.
func timeEach(b *testing.B, name string, catalogs []benchCatalog, run func(*testing.B, string), report func(*testing.B, string, time.Duration)) map[string]time.Duration {
	times := map[string]time.Duration{}
	b.Run(name, func(b *testing.B) {
		for _, c := range catalogs {
			b.Run(c.name, func(b *testing.B) {
				if c.path == "" {
					b.Skip(c.skip)
				}
				start := time.Now()
				for range b.N {
					run(b, c.path)
				}
				times[c.name] = time.Since(start) / time.Duration(b.N)
				if report != nil {
					report(b, c.name, times[c.name])
				}
			})
		}
	})
	return times
}

type benchCatalog struct{ name, path, skip string }

func benchCatalogs(b *testing.B) []benchCatalog {
	shared := sharedtest.Dir(b)
	out := []benchCatalog{
		{name: "v4.16", path: filepath.Join(shared, "corpus", "certified-operators", "catalogs", "v4.16")},
		{name: "v4.18", path: filepath.Join(shared, "corpus", "certified-operators", "catalogs", "v4.18")},
		{name: "community-v4.22", path: filepath.Join(shared, "corpus", "community-operators-prod", "catalogs", "v4.22")},
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
