package graph

import (
	"context"
	"fmt"
	"testing"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/graph/graphtest"
	"github.com/fbc-project/fbc/internal/procstat"
	"github.com/fbc-project/fbc/internal/sharedtest"
)

// BenchmarkPathSynthetic times a full upgrade path from the oldest entry
// of an n-entry channel to its head ("path"), and building the graph and
// resolver it runs on ("setup"). ns/step staying flat as n grows is what
// "near-linear in channel size" means.
func BenchmarkPathSynthetic(b *testing.B) {
	for _, sem := range []Semantics{Classic, V1} {
		for _, n := range []int{1000, 2500, 5000, 10000} {
			cfg := graphtest.SyntheticChannel(n)
			opts := Options{Semantics: sem, Channels: []string{"stable"}}
			b.Run(fmt.Sprintf("%s/setup/n=%d", sem, n), func(b *testing.B) {
				start := procstat.CPUTime()
				for b.Loop() {
					if _, err := NewResolver(New(cfg, nil).Package("p"), opts); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64((procstat.CPUTime()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
			})
			b.Run(fmt.Sprintf("%s/path/n=%d", sem, n), func(b *testing.B) {
				r, err := NewResolver(New(cfg, nil).Package("p"), opts)
				if err != nil {
					b.Fatal(err)
				}
				steps := 0
				start := procstat.CPUTime()
				for b.Loop() {
					p := r.Path(&Installed{Name: "p.v1.0.0", Version: "1.0.0"})
					if p.Err != nil || p.Steps[len(p.Steps)-1].From.Name != fmt.Sprintf("p.v%s", lastVersion(n)) {
						b.Fatalf("path does not reach the head: %v %v", p.Bundles(), p.Err)
					}
					steps = len(p.Steps)
				}
				cpu := float64((procstat.CPUTime() - start).Nanoseconds()) / float64(b.N)
				b.ReportMetric(cpu, "cpu-ns/op")
				b.ReportMetric(float64(steps), "steps/op")
				b.ReportMetric(cpu/float64(steps), "cpu-ns/step")
			})
		}
	}
}

func lastVersion(n int) string { return fmt.Sprintf("1.%d.%d", (n-1)/10, (n-1)%10) }

// BenchmarkSurveySynthetic is `upgrade-path --all` on an n-entry channel:
// every entry simulated as the installed one.
func BenchmarkSurveySynthetic(b *testing.B) {
	for _, sem := range []Semantics{Classic, V1} {
		for _, n := range []int{1000, 10000} {
			cfg := graphtest.SyntheticChannel(n)
			b.Run(fmt.Sprintf("%s/n=%d", sem, n), func(b *testing.B) {
				start := procstat.CPUTime()
				defer func() { b.ReportMetric(float64((procstat.CPUTime()-start).Nanoseconds())/float64(b.N), "cpu-ns/op") }()
				for b.Loop() {
					s, err := SurveyUpgrades(New(cfg, nil), UpgradeQuery{Package: "p", Options: Options{Semantics: sem}})
					if err != nil {
						b.Fatal(err)
					}
					if dead, failed := s.Counts(); dead+failed > 0 {
						b.Fatalf("%d dead ends, %d failures in the synthetic channel", dead, failed)
					}
				}
			})
		}
	}
}

// BenchmarkSurveyCorpus is `upgrade-path --all` under both semantics for
// every package of the certified-operators v4.18 catalog (739 bundles).
// "load+survey" includes reading the catalog; "survey" starts from the
// loaded blobs.
func BenchmarkSurveyCorpus(b *testing.B) {
	dir := sharedtest.Path(b, "corpus", "certified-operators", "catalogs", "v4.18")
	load := func() *declcfg.DeclarativeConfig {
		cfg, err := declcfg.Load(context.Background(), []string{dir}, declcfg.LoadOptions{})
		if err != nil {
			sharedtest.Missing(b, "corpus catalog not available: %v", err)
		}
		return cfg
	}
	cfg := load()
	surveyAll := func(cfg *declcfg.DeclarativeConfig) (bundles int) {
		cat := New(cfg, nil)
		for _, pkg := range cat.PackageNames() {
			for _, sem := range []Semantics{Classic, V1} {
				s, err := SurveyUpgrades(cat, UpgradeQuery{Package: pkg, Options: Options{Semantics: sem}})
				if err != nil {
					b.Fatal(err)
				}
				for _, sel := range s.Selections {
					bundles += sel.Bundles
				}
			}
		}
		return bundles
	}
	b.Run("survey", func(b *testing.B) {
		start := procstat.CPUTime()
		bundles := 0
		for b.Loop() {
			bundles = surveyAll(cfg)
		}
		b.ReportMetric(float64((procstat.CPUTime()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
		b.ReportMetric(float64(bundles), "simulated/op")
	})
	b.Run("load+survey", func(b *testing.B) {
		start := procstat.CPUTime()
		for b.Loop() {
			surveyAll(load())
		}
		b.ReportMetric(float64((procstat.CPUTime()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
	})
}
