package graph

import (
	"slices"
	"strings"
	"testing"

	"github.com/fbc-project/fbc/declcfg"
)

func TestWorkflowCommandEscaping(t *testing.T) {
	for _, tc := range []struct{ in, data, prop string }{
		{"plain", "plain", "plain"},
		{"50% done", "50%25 done", "50%25 done"},
		{"a\nb\r\nc", "a%0Ab%0D%0Ac", "a%0Ab%0D%0Ac"},
		{"rule: pkg, ch", "rule: pkg, ch", "rule%3A pkg%2C ch"},
		{"%0A", "%250A", "%250A"},
	} {
		if got := escapeData(tc.in); got != tc.data {
			t.Errorf("escapeData(%q) = %q, want %q", tc.in, got, tc.data)
		}
		if got := escapeProperty(tc.in); got != tc.prop {
			t.Errorf("escapeProperty(%q) = %q, want %q", tc.in, got, tc.prop)
		}
	}
}

func TestGitHubAnnotationOnePerLine(t *testing.T) {
	d := &DiffReport{Old: "a", New: "b", Semantics: []Semantics{Classic}, Findings: []declcfg.Finding{{
		Severity: declcfg.SeverityError, Rule: "stranded", Package: "p", Channel: "c", Bundle: "x",
		Message: "first line\nsecond: line, 100%", Pos: declcfg.Pos{File: "dir,with:odd/catalog.yaml", Line: 3},
	}}}
	var out, summary strings.Builder
	if err := d.WriteGitHub(&out, &summary); err != nil {
		t.Fatal(err)
	}
	want := "::error file=dir%2Cwith%3Aodd/catalog.yaml,line=3,title=stranded%3A p/c x::first line%0Asecond: line, 100%25\nfbc diff: unsafe: 1 error, 0 warnings\n"
	if out.String() != want {
		t.Errorf("annotations:\n%s\nwant:\n%s", out.String(), want)
	}
	if !strings.Contains(summary.String(), "| error | stranded | any | p/c x | first line second: line, 100% |") {
		t.Errorf("summary table row missing or not escaped:\n%s", summary.String())
	}
}

// catalogOf builds a one-package catalog: channel name -> entries; every
// entry name "p.vX.Y.Z" gets a bundle of version X.Y.Z.
func catalogOf(t *testing.T, channels map[string][]declcfg.ChannelEntry) *Catalog {
	t.Helper()
	cfg := &declcfg.DeclarativeConfig{Packages: []declcfg.Package{{Schema: "olm.package", Name: "p", DefaultChannel: "stable"}}}
	seen := map[string]bool{}
	for name, entries := range channels {
		cfg.Channels = append(cfg.Channels, declcfg.Channel{Schema: "olm.channel", Package: "p", Name: name, Entries: entries})
		for _, e := range entries {
			if seen[e.Name] {
				continue
			}
			seen[e.Name] = true
			v := strings.TrimPrefix(e.Name, "p.v")
			cfg.Bundles = append(cfg.Bundles, declcfg.Bundle{Schema: "olm.bundle", Package: "p", Name: e.Name,
				Properties: []declcfg.Property{declcfg.MustProperty("olm.package", declcfg.PackageProperty{PackageName: "p", Version: v})}})
		}
	}
	return New(cfg, nil)
}

func TestDiffRules(t *testing.T) {
	base := map[string][]declcfg.ChannelEntry{"stable": {
		{Name: "p.v1.0.0"}, {Name: "p.v1.1.0", Replaces: "p.v1.0.0"}, {Name: "p.v1.2.0", Replaces: "p.v1.1.0"},
	}}
	for _, tc := range []struct {
		name  string
		new   map[string][]declcfg.ChannelEntry
		rules []string // error rules expected, in order
	}{
		{"unchanged", base, nil},
		{"new head replacing the old one", map[string][]declcfg.ChannelEntry{"stable": {
			{Name: "p.v1.0.0"}, {Name: "p.v1.1.0", Replaces: "p.v1.0.0"}, {Name: "p.v1.2.0", Replaces: "p.v1.1.0"}, {Name: "p.v1.3.0", Replaces: "p.v1.2.0"},
		}}, nil},
		{"old bundle pruned behind a skipRange", map[string][]declcfg.ChannelEntry{"stable": {
			{Name: "p.v1.1.0"}, {Name: "p.v1.2.0", Replaces: "p.v1.1.0", SkipRange: "<1.1.0"},
		}}, nil},
		{"old bundle pruned without an edge", map[string][]declcfg.ChannelEntry{"stable": {
			{Name: "p.v1.1.0"}, {Name: "p.v1.2.0", Replaces: "p.v1.1.0"},
		}}, []string{"removed-without-edge"}},
		{"new head without an edge from the old head", map[string][]declcfg.ChannelEntry{"stable": {
			{Name: "p.v1.0.0"}, {Name: "p.v1.1.0", Replaces: "p.v1.0.0"}, {Name: "p.v1.2.0", Replaces: "p.v1.1.0"}, {Name: "p.v2.0.0", SkipRange: "<1.2.0"},
		}}, []string{"resolution-fails", "stranded"}}, // classic: two replaces chains; v1: 1.2.0 has no successor
		{"head moved down", map[string][]declcfg.ChannelEntry{"stable": {
			{Name: "p.v1.0.0"}, {Name: "p.v1.1.0", Replaces: "p.v1.0.0"}, {Name: "p.v1.2.0", Replaces: "p.v1.1.0"}, {Name: "p.v0.9.0", Replaces: "p.v1.2.0"},
		}}, []string{"head-downgrade"}}, // classic only: v1 stays on the higher 1.2.0
		{"channel removed", map[string][]declcfg.ChannelEntry{"fast": base["stable"]}, []string{"channel-removed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := DiffWith(catalogOf(t, base), catalogOf(t, tc.new), DiffOptions{Semantics: []Semantics{Classic, V1}})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range d.Findings {
				if f.Severity == declcfg.SeverityError {
					got = append(got, f.Rule)
				}
			}
			if strings.Join(got, " ") != strings.Join(tc.rules, " ") {
				var msgs []string
				for _, f := range d.Findings {
					msgs = append(msgs, f.Rule+semanticsTag(f)+": "+f.Message)
				}
				t.Errorf("error rules = %v, want %v\n%s", got, tc.rules, strings.Join(msgs, "\n"))
			}
			if d.Safe() != (len(tc.rules) == 0) {
				t.Errorf("Safe() = %v with rules %v", d.Safe(), tc.rules)
			}
		})
	}
}

// A channel that lists a name twice (opm rejects it; OLM v1 reads both
// entries) is compared by the union of the entries' edges, so a catalog
// compared with itself shows no change.
func TestDiffDuplicateEntries(t *testing.T) {
	dup := map[string][]declcfg.ChannelEntry{"stable": {
		{Name: "p.v1.0.0"}, {Name: "p.v1.1.0", Replaces: "p.v1.0.0"}, {Name: "p.v1.1.0", SkipRange: "<1.1.0"},
	}}
	d, err := DiffWith(catalogOf(t, dup), catalogOf(t, dup), DiffOptions{Semantics: []Semantics{Classic, V1}})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Changes) != 0 {
		t.Errorf("changes between identical catalogs: %+v", d.Changes)
	}
	single := map[string][]declcfg.ChannelEntry{"stable": {{Name: "p.v1.0.0"}, {Name: "p.v1.1.0", Replaces: "p.v1.0.0"}}}
	d, err = DiffWith(catalogOf(t, dup), catalogOf(t, single), DiffOptions{Semantics: []Semantics{Classic, V1}})
	if err != nil {
		t.Fatal(err)
	}
	want := []Change{{Kind: "edge-removed", Package: "p", Channel: "stable", Bundle: "p.v1.1.0", Detail: `skipRange "<1.1.0"`}}
	if !slices.Equal(d.Changes, want) {
		t.Errorf("changes = %+v, want %+v", d.Changes, want)
	}
}
