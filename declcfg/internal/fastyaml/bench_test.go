package fastyaml_test

import (
	"testing"

	"github.com/fbc-project/fbc/declcfg/internal/fastyaml"
	"github.com/fbc-project/fbc/internal/sharedtest"
)

// BenchmarkParse parses the same real catalogs with Parse and with the
// library it stands in for (a yaml.v3 Decoder loop into yaml.Node); the
// ratio metric of the fastyaml run is the yaml.v3 time over its own.
func BenchmarkParse(b *testing.B) {
	// The certified v4.16 (bundle manifests as base64 olm.bundle.object) and
	// v4.18 (olm.csv.metadata) catalogs.
	files, size := sharedtest.ReadCorpus(b, "certified-operators/catalogs/v4.16/*/catalog.yaml", "certified-operators/catalogs/v4.18/*/catalog.yaml")
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
