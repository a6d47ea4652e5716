package page

import (
	"context"
	"fmt"
	"testing"

	"github.com/fbc-project/fbc/graph"
	"github.com/fbc-project/fbc/graph/graphtest"
)

// BenchmarkBuildLongChannel times the page's data for a package whose one
// channel has n entries: a path from every bundle, in two views, under
// both OLMs. Time per entry staying flat as n grows is what "linear in the
// channel" means.
func BenchmarkBuildLongChannel(b *testing.B) {
	for _, n := range []int{300, 1000, 3000} {
		cat := graph.New(graphtest.SyntheticChannel(n), nil)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := Build(context.Background(), cat, Options{Package: "p", Catalog: "c"}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/entry")
		})
	}
}
