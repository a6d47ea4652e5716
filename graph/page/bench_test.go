package page

import (
	"context"
	"fmt"
	"testing"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/graph"
)

// longChannel is one package with one channel of n entries shaped like a
// long-lived real one: each entry replaces the one before, and the first
// of every minor has a skipRange over the minor before.
func longChannel(n int) *declcfg.DeclarativeConfig {
	cfg := &declcfg.DeclarativeConfig{Packages: []declcfg.Package{{Schema: "olm.package", Name: "p", DefaultChannel: "stable"}}}
	ch := declcfg.Channel{Schema: "olm.channel", Package: "p", Name: "stable"}
	version := func(i int) string { return fmt.Sprintf("1.%d.%d", i/10, i%10) }
	for i := range n {
		e := declcfg.ChannelEntry{Name: "p.v" + version(i)}
		if i > 0 {
			e.Replaces = "p.v" + version(i-1)
		}
		if i%10 == 0 && i > 0 {
			e.SkipRange = fmt.Sprintf(">=1.%d.0 <1.%d.0", i/10-1, i/10)
		}
		ch.Entries = append(ch.Entries, e)
		cfg.Bundles = append(cfg.Bundles, declcfg.Bundle{Schema: "olm.bundle", Package: "p", Name: e.Name,
			Properties: []declcfg.Property{declcfg.MustProperty("olm.package", declcfg.PackageProperty{PackageName: "p", Version: version(i)})}})
	}
	cfg.Channels = append(cfg.Channels, ch)
	return cfg
}

// BenchmarkBuildLongChannel times the page's data for a package whose one
// channel has n entries: a path from every bundle, in two views, under
// both OLMs. Time per entry staying flat as n grows is what "linear in the
// channel" means.
func BenchmarkBuildLongChannel(b *testing.B) {
	for _, n := range []int{300, 1000, 3000} {
		cat := graph.New(longChannel(n))
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
