package serve

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/fbc-project/fbc/internal/sharedtest"
)

// BenchmarkLoad loads the benchmark catalog (certified v4.16, 51 MB of
// bundle manifests) the way fbc serve does at startup.
func BenchmarkLoad(b *testing.B) {
	dir := filepath.Join(sharedtest.Corpus(b), "certified-operators", "catalogs", "v4.16")
	tmp := b.TempDir()
	b.ReportAllocs()
	for b.Loop() {
		c, err := Load(context.Background(), dirSource(dir), LoadOptions{TempDir: tmp})
		if err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
}
