package serve

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/fbc-project/fbc/internal/sharedtest"
)

// BenchmarkLoad loads catalogs the way fbc serve does at startup (its walk
// options; the memory limit it keeps while loading is left out, so the
// benchmark measures the work rather than the collector's pacing):
// certified v4.16 (51 MB, bundle manifests in olm.bundle.object),
// certified v4.18 (20 MB, olm.csv.metadata, the format of 4.17 on) and
// community v4.22.
func BenchmarkLoad(b *testing.B) {
	for _, c := range []struct{ name, dir string }{
		{"certified-v4.16", "certified-operators/catalogs/v4.16"},
		{"certified-v4.18", "certified-operators/catalogs/v4.18"},
		{"community-v4.22", "community-operators-prod/catalogs/v4.22"},
	} {
		b.Run(c.name, func(b *testing.B) {
			dir := filepath.Join(sharedtest.Corpus(b), c.dir)
			tmp := b.TempDir()
			b.ReportAllocs()
			for b.Loop() {
				cat, err := Load(context.Background(), dirSource(dir), LoadOptions{TempDir: tmp})
				if err != nil {
					b.Fatal(err)
				}
				cat.Close()
			}
		})
	}
}
