package fastyaml_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fbc-project/fbc/internal/fastyaml"
	"github.com/fbc-project/fbc/internal/sharedtest"
)

// benchFiles reads the catalog.yaml files of the certified v4.16 (bundle
// manifests as base64 olm.bundle.object) and v4.18 (olm.csv.metadata)
// catalogs of the shared corpus.
func benchFiles(b *testing.B) ([][]byte, int64) {
	corpus := sharedtest.Corpus(b)
	var files [][]byte
	var size int64
	for _, v := range []string{"v4.16", "v4.18"} {
		matches, err := filepath.Glob(filepath.Join(corpus, "certified-operators", "catalogs", v, "*", "catalog.yaml"))
		if err != nil || len(matches) == 0 {
			b.Skipf("no catalog.yaml under certified-operators/catalogs/%s: %v", v, err)
		}
		for _, m := range matches {
			data, err := os.ReadFile(m)
			if err != nil {
				b.Fatal(err)
			}
			files = append(files, data)
			size += int64(len(data))
		}
	}
	return files, size
}

// BenchmarkParse parses the same real catalogs with Parse and with the
// library it stands in for (a yaml.v3 Decoder loop into yaml.Node); the
// ratio metric of the fastyaml run is the yaml.v3 time over its own.
func BenchmarkParse(b *testing.B) {
	files, size := benchFiles(b)
	var library float64
	b.Run("yaml.v3", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			for _, data := range files {
				if _, err := decodeV3(data); err != nil {
					b.Fatal(err)
				}
			}
		}
		library = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	})
	for _, borrow := range []bool{false, true} {
		name := "fastyaml"
		if borrow {
			name += "-borrow"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(size)
			for b.Loop() {
				for _, data := range files {
					if _, ok := fastyaml.Parse(data, borrow); !ok {
						b.Fatal("a corpus catalog left the fast path")
					}
				}
			}
			if library > 0 {
				b.ReportMetric(library/(float64(b.Elapsed().Nanoseconds())/float64(b.N)), "x-yaml.v3")
			}
		})
	}
}
