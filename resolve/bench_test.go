package resolve

import (
	"cmp"
	"context"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/procstat"
	"github.com/fbc-project/fbc/internal/sharedtest"
	"github.com/fbc-project/fbc/model"
)

// corpusCatalogs are the certified and community v4.18 catalogs of the
// shared corpus (about 1,100 bundles in 2,000 channel entries), as
// CatalogSources of the global namespace.
var corpusCatalogs = []struct {
	name, dir string
	priority  int
}{
	{"certified-operators", "certified-operators/catalogs/v4.18", 0},
	{"community-operators", "community-operators-prod/catalogs/v4.18", -100},
}

func loadCorpusCatalogs(b *testing.B) []*declcfg.DeclarativeConfig {
	b.Helper()
	corpus := sharedtest.Corpus(b)
	var cfgs []*declcfg.DeclarativeConfig
	for _, c := range corpusCatalogs {
		cfg, err := declcfg.Load(context.Background(), []string{filepath.Join(corpus, filepath.FromSlash(c.dir))}, declcfg.LoadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		cfgs = append(cfgs, cfg)
	}
	return cfgs
}

// corpusNamespace makes a namespace that sees the corpus catalogs (built
// anew from the loaded blobs, as a run of fbc resolve builds them) and
// subscribes to n packages spread evenly over both, each to its default
// channel. With installed set, each Subscription starts from the entry
// below its channel's head, so resolution looks for upgrades. extra
// packages are subscribed to as well.
func corpusNamespace(b *testing.B, cfgs []*declcfg.DeclarativeConfig, n int, installed bool, extra ...string) *Namespace {
	b.Helper()
	ns := &Namespace{Name: "operators", GlobalNamespace: "openshift-marketplace"}
	type pkgRef struct {
		catalog CatalogKey
		pkg     *model.Package
	}
	var pkgs []pkgRef
	for i, c := range corpusCatalogs {
		key := CatalogKey{Namespace: "openshift-marketplace", Name: c.name}
		ns.Catalogs = append(ns.Catalogs, NewCatalog(key, c.priority, cfgs[i]))
		for _, p := range model.New(cfgs[i]).Packages {
			pkgs = append(pkgs, pkgRef{key, p})
		}
	}
	slices.SortStableFunc(pkgs, func(a, b pkgRef) int { return cmp.Compare(a.pkg.Name, b.pkg.Name) })
	chosen := make([]pkgRef, 0, n+len(extra))
	for i := range n {
		chosen = append(chosen, pkgs[i*len(pkgs)/n])
	}
	for _, name := range extra {
		i := slices.IndexFunc(pkgs, func(r pkgRef) bool { return r.pkg.Name == name })
		if i < 0 {
			b.Fatalf("no package %s", name)
		}
		chosen = append(chosen, pkgs[i])
	}
	for _, ref := range chosen {
		sub := Subscription{Name: ref.pkg.Name, Namespace: ns.Name, Package: ref.pkg.Name, Catalog: ref.catalog}
		if order, err := ref.pkg.Default().Order(); installed && err == nil && len(order) > 1 {
			csv, ok := InstalledFrom(order[1].Name, ns.Catalogs)
			if !ok {
				b.Fatalf("%s is in no catalog", order[1].Name)
			}
			ns.Installed = append(ns.Installed, csv)
			sub.InstalledCSV = csv.Name
		}
		ns.Subscriptions = append(ns.Subscriptions, sub)
	}
	return ns
}

// BenchmarkResolveCorpus resolves 20 Subscriptions against the certified
// and community v4.18 catalogs: fresh installs; upgrades from the entry
// below each head; and 19 fresh installs with edb-hcp-operator, whose
// every bundle needs cert-manager's Certificate API, which neither catalog
// has (so the search exhausts its candidates and gini names the conflict). An op is what fbc resolve does after loading: build the
// catalogs from the blobs (model and resolver entries), build every
// candidate and dependency, solve, and look for OLM's random outcomes.
// BenchmarkLoadCorpus is the baseline in the same run. cpu-ms/op is CPU
// time (the machine is shared, so wall time says more about the
// neighbours). heap-MB is what a resolution keeps live besides the loaded
// blobs: the catalogs as the resolver reads them and the namespace's
// variables (the catalogs' bundle properties, without the CSV metadata).
func BenchmarkResolveCorpus(b *testing.B) {
	cfgs := loadCorpusCatalogs(b)
	for _, tc := range []struct {
		name      string
		n         int
		installed bool
		extra     []string
	}{
		{"fresh", 20, false, nil},
		{"upgrade", 20, true, nil},
		{"unsatisfiable", 19, false, []string{"edb-hcp-operator"}},
	} {
		b.Run(tc.name+"/subscriptions=20", func(b *testing.B) {
			var res *Result
			cpu := procstat.CPUTime()
			b.ResetTimer()
			for range b.N {
				var err error
				res, err = Resolve(context.Background(), corpusNamespace(b, cfgs, tc.n, tc.installed, tc.extra...))
				if err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(procstat.CPUTime()-cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
			if wantErr := tc.extra != nil; (res.Err != nil) != wantErr {
				b.Fatalf("resolution error %v, want one: %v", res.Err, wantErr)
			}

			before := liveHeap()
			ns := corpusNamespace(b, cfgs, tc.n, tc.installed, tc.extra...)
			s := newScope(ns)
			if err := s.build(ns.Subscriptions); err != nil {
				b.Fatal(err)
			}
			if after := liveHeap(); after > before {
				b.ReportMetric(float64(after-before)/(1<<20), "heap-MB")
			}
			b.ReportMetric(float64(len(s.order)), "variables")
			runtime.KeepAlive(s)
		})
	}
}

// BenchmarkLoadCorpus loads the two catalogs BenchmarkResolveCorpus reads
// (declcfg.Load, as fbc resolve does before resolving): the baseline the
// resolution time compares with.
func BenchmarkLoadCorpus(b *testing.B) {
	sharedtest.Corpus(b)
	cpu := procstat.CPUTime()
	for range b.N {
		loadCorpusCatalogs(b)
	}
	b.ReportMetric(float64(procstat.CPUTime()-cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}

func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
