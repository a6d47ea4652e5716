package declcfg

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/fbc-project/fbc/declcfg/declcfgtest"
)

// benchCatalog is the heaviest real catalog in the shared corpus (51 MB of
// YAML with olm.bundle.object properties).
func benchCatalog(b *testing.B) string {
	dir := filepath.Join("..", "..", "shared", "corpus", "certified-operators", "catalogs", "v4.16")
	if d := os.Getenv("FBC_SHARED"); d != "" {
		dir = filepath.Join(d, "corpus", "certified-operators", "catalogs", "v4.16")
	}
	if _, err := os.Stat(dir); err != nil {
		b.Skipf("corpus not available: %v", err)
	}
	return dir
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
