package graph

import (
	"regexp"
	"slices"
	"testing"

	"github.com/fbc-project/fbc/declcfg"
)

func TestDiffFragmentAndPruning(t *testing.T) {
	base := map[string][]declcfg.ChannelEntry{
		"stable":    {{Name: "p.v1.0.0"}, {Name: "p.v1.1.0", Replaces: "p.v1.0.0"}},
		"candidate": {{Name: "p.v1.0.0"}, {Name: "p.v1.1.0", Replaces: "p.v1.0.0"}, {Name: "p.v1.2.0-rc.1", Replaces: "p.v1.1.0"}},
	}
	prune := regexp.MustCompile(DefaultPrunableChannels)
	for _, tc := range []struct {
		name     string
		new      map[string][]declcfg.ChannelEntry
		prune    *regexp.Regexp
		errors   []string // error rules, in order
		warnings []string
	}{
		{"unchanged", base, prune, nil, nil},
		{"stable entry dropped behind a skipRange: safe for OLM, but pruned", map[string][]declcfg.ChannelEntry{
			"stable":    {{Name: "p.v1.1.0", SkipRange: "<1.1.0"}},
			"candidate": base["candidate"],
		}, prune, []string{"entry-pruned"}, nil},
		{"the same without the pruning rule", map[string][]declcfg.ChannelEntry{
			"stable":    {{Name: "p.v1.1.0", SkipRange: "<1.1.0"}},
			"candidate": base["candidate"],
		}, nil, nil, nil},
		{"a release candidate pruned from candidate only", map[string][]declcfg.ChannelEntry{
			"stable":    base["stable"],
			"candidate": {{Name: "p.v1.0.0"}, {Name: "p.v1.1.0", Replaces: "p.v1.0.0"}},
		}, prune, nil, []string{"removed-without-edge", "head-downgrade"}},
		{"the same with stable-only pruning: an error again", map[string][]declcfg.ChannelEntry{
			"stable":    base["stable"],
			"candidate": {{Name: "p.v1.0.0"}, {Name: "p.v1.1.0", Replaces: "p.v1.0.0"}},
		}, regexp.MustCompile("^stable$"), []string{"removed-without-edge", "head-downgrade", "entry-pruned"}, nil},
		{"the candidate channel removed", map[string][]declcfg.ChannelEntry{"stable": base["stable"]}, prune,
			nil, []string{"removed-without-edge", "channel-removed"}},
		{"the stable channel removed", map[string][]declcfg.ChannelEntry{"candidate": base["candidate"]}, prune,
			[]string{"channel-removed"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := DiffWith(catalogOf(t, base), catalogOf(t, tc.new), DiffOptions{Semantics: []Semantics{Classic, V1}, Prune: tc.prune})
			if err != nil {
				t.Fatal(err)
			}
			var errs, warns []string
			for _, f := range d.Findings {
				if f.Severity == declcfg.SeverityError {
					errs = append(errs, f.Rule)
				} else {
					warns = append(warns, f.Rule)
				}
			}
			warns = slices.DeleteFunc(warns, func(r string) bool { return r == "stranded" || r == "dead-end" })
			if !slices.Equal(errs, tc.errors) || !slices.Equal(warns, tc.warnings) {
				t.Errorf("errors %v, warnings %v; want %v, %v\n%+v", errs, warns, tc.errors, tc.warnings, d.Findings)
			}
		})
	}
}

func TestDiffFragmentScope(t *testing.T) {
	two := New(&declcfg.DeclarativeConfig{
		Packages: []declcfg.Package{{Name: "a", DefaultChannel: "s"}, {Name: "b", DefaultChannel: "s"}},
		Channels: []declcfg.Channel{{Package: "a", Name: "s", Entries: []declcfg.ChannelEntry{{Name: "a.v1.0.0"}}},
			{Package: "b", Name: "s", Entries: []declcfg.ChannelEntry{{Name: "b.v1.0.0"}}}},
		Bundles: []declcfg.Bundle{
			{Package: "a", Name: "a.v1.0.0", Properties: []declcfg.Property{declcfg.MustProperty("olm.package", declcfg.PackageProperty{PackageName: "a", Version: "1.0.0"})}},
			{Package: "b", Name: "b.v1.0.0", Properties: []declcfg.Property{declcfg.MustProperty("olm.package", declcfg.PackageProperty{PackageName: "b", Version: "1.0.0"})}},
		},
	}, nil)
	one := catalogOf(t, map[string][]declcfg.ChannelEntry{"stable": {{Name: "p.v1.0.0"}}})
	d, err := DiffWith(two, one, DiffOptions{Semantics: []Semantics{Classic}, Fragment: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.OutOfScope, []string{"a", "b"}) || !d.Safe() || len(d.Changes) != 1 || d.Changes[0].Kind != "package-added" {
		t.Errorf("out of scope %v, safe %v, changes %+v", d.OutOfScope, d.Safe(), d.Changes)
	}
	if _, err := DiffWith(two, one, DiffOptions{}); err == nil {
		t.Error("no semantics: no error")
	}
}
