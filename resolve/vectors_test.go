package resolve

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/resolve/resolvetest"
)

func blobsToConfig(t *testing.T, blobs []json.RawMessage) *declcfg.DeclarativeConfig {
	t.Helper()
	cfg, err := declcfg.LoadBytes("catalog.json", resolvetest.JSONStream(blobs))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestVectors resolves every scenario through the library, with the
// scenarios' conventions: main catalog "catalog" in namespace "ns", global
// namespace "olm", Subscriptions named PACKAGE-CHANNEL.
func TestVectors(t *testing.T) {
	for _, v := range resolvetest.Load(t) {
		t.Run(v.Name, func(t *testing.T) {
			ns := &Namespace{Name: resolvetest.Namespace, GlobalNamespace: resolvetest.GlobalNamespace}
			main := CatalogKey{resolvetest.Namespace, resolvetest.MainCatalog}
			ns.Catalogs = append(ns.Catalogs, NewCatalog(main, 0, blobsToConfig(t, v.Catalog)))
			for i, x := range v.ExtraCatalogs {
				ns.Catalogs = append(ns.Catalogs, NewCatalog(CatalogKey{v.ExtraNamespace(i), x.Name}, x.Priority, blobsToConfig(t, x.Catalog)))
			}
			for _, name := range v.Installed {
				in, ok := InstalledFrom(name, ns.Catalogs)
				if !ok {
					t.Fatalf("installed %s is in no catalog", name)
				}
				ns.Installed = append(ns.Installed, in)
			}
			for i, s := range v.Subscriptions {
				ns.Subscriptions = append(ns.Subscriptions, Subscription{Name: v.SubscriptionName(i), Namespace: resolvetest.Namespace, Package: s.Package,
					Channel: s.Channel, Catalog: main, StartingCSV: s.StartingCSV, InstalledCSV: s.InstalledCSV})
			}
			res, err := Resolve(context.Background(), ns)
			if err != nil {
				t.Fatal(err)
			}
			want := v.Expect
			if want.ErrorContains != "" {
				if res.Err == nil {
					t.Fatalf("resolved to %v, want error %q", names(res.Install), want.ErrorContains)
				}
				for _, s := range append([]string{want.ErrorContains}, want.ErrorContainsAll...) {
					if !strings.Contains(res.Err.Error(), s) {
						t.Errorf("error %q\nlacks %q", res.Err, s)
					}
				}
				return
			}
			if res.Err != nil {
				t.Fatalf("error: %v", res.Err)
			}
			if want.InstalledBundlesOneOf != nil {
				var got [][]string
				for _, o := range res.Outcomes {
					got = append(got, sorted(names(o.Install)))
				}
				var exp [][]string
				for _, o := range want.InstalledBundlesOneOf {
					exp = append(exp, sorted(o))
				}
				slices.SortFunc(got, slices.Compare)
				slices.SortFunc(exp, slices.Compare)
				if !slices.EqualFunc(got, exp, slices.Equal) {
					t.Errorf("outcomes %v, want %v", got, exp)
				}
				return
			}
			if len(res.Outcomes) > 0 {
				t.Errorf("random outcomes %v, want one", res.Outcomes)
			}
			if got := sorted(names(res.Install)); !slices.Equal(got, sorted(want.InstalledBundles)) {
				t.Errorf("installs %v, want %v", got, sorted(want.InstalledBundles))
			}
			for _, in := range res.Install {
				if ch, ok := want.Channels[in.Name]; ok && ch != in.Channel {
					t.Errorf("%s from channel %s, want %s", in.Name, in.Channel, ch)
				}
				if c, ok := want.Catalogs[in.Name]; ok && c != in.Catalog.Name {
					t.Errorf("%s from catalog %s, want %s", in.Name, in.Catalog.Name, c)
				}
			}
		})
	}
}

func names(ins []Install) []string {
	out := []string{}
	for _, in := range ins {
		out = append(out, in.Name)
	}
	return out
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	if s == nil {
		s = []string{}
	}
	return s
}
