package declcfg

import (
	"context"
	"testing"

	"github.com/fbc-project/fbc/declcfg/declcfgtest"
	"github.com/fbc-project/fbc/internal/sharedtest"
)

// benchCatalog is the heaviest real catalog in the shared corpus (51 MB of
// YAML with olm.bundle.object properties).
func benchCatalog(b *testing.B) string {
	return sharedtest.Path(b, "corpus", "certified-operators", "catalogs", "v4.16")
}

// BenchmarkLoad compares Load with a bare decode of the same files, in one
// run: the ratio metric is load time / bare decode time.
func BenchmarkLoad(b *testing.B) {
	dir := benchCatalog(b)
	var bare, load float64
	b.Run("bare-decode", func(b *testing.B) {
		for b.Loop() {
			declcfgtest.DecodeYAMLNodes(b, dir, WalkOptions{}.withDefaults().Concurrency)
		}
		bare = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	})
	b.Run("load", func(b *testing.B) {
		for b.Loop() {
			if _, err := Load(context.Background(), []string{dir}, LoadOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		load = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
		if bare > 0 {
			b.ReportMetric(load/bare, "x-bare-decode")
		}
	})
}
