package declcfg

import (
	"context"
	"os"
	"path/filepath"
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

// BenchmarkPropertyValues measures writing a bundle's property values as
// JSON the way the loader keeps them (keys sorted, as opm's reading leaves
// them) against keeping the file's order, in one run, for values written
// sorted (what opm writes) and not (securesign's catalogs): the metrics
// are sorted time / file-order time.
func BenchmarkPropertyValues(b *testing.B) {
	for _, tc := range []struct{ name, file string }{
		{"opm-sorted", filepath.Join("certified-operators", "catalogs", "v4.18", "crunchy-postgres-operator", "catalog.yaml")},
		{"unsorted", filepath.Join("securesign-fbc", "v4.18", "rhtas-operator", "catalog", "rhtas-operator", "catalog.json")},
	} {
		data, err := os.ReadFile(sharedtest.Path(b, "corpus", tc.file))
		if err != nil {
			b.Fatal(err)
		}
		f := ParseFile(tc.file, data)
		if len(f.Errors) > 0 {
			b.Fatal(f.Errors[0])
		}
		var values []*Node
		for _, d := range f.Docs {
			props := CatalogKeys.Value(d.Node, "properties")
			if props == nil {
				continue
			}
			for _, p := range props.Content {
				if v := CatalogKeys.Value(p, "value"); v != nil {
					values = append(values, v)
				}
			}
		}
		var asWritten float64
		for _, sorted := range []bool{false, true} {
			name := tc.name + "/file-order"
			if sorted {
				name = tc.name + "/sorted"
			}
			b.Run(name, func(b *testing.B) {
				for b.Loop() {
					for _, v := range values {
						if _, err := NodeToJSON(v, sorted); err != nil {
							b.Fatal(err)
						}
					}
				}
				ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
				if !sorted {
					asWritten = ns
				} else if asWritten > 0 {
					b.ReportMetric(ns/asWritten, "x-file-order")
				}
			})
		}
	}
}
