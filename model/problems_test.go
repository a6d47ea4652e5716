package model

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/fbc-project/fbc/declcfg"
)

// load builds the model of a YAML catalog, with positions in "c.yaml".
func load(t *testing.T, text string) *Catalog {
	t.Helper()
	cfg, err := declcfg.LoadBytes("c.yaml", []byte(text))
	if err != nil {
		t.Fatalf("loading the test catalog: %v", err)
	}
	return New(cfg)
}

const okPackage = `schema: olm.package
name: p
defaultChannel: stable
---
`

func bundles(names ...string) string {
	var b strings.Builder
	for i, n := range names {
		fmt.Fprintf(&b, "---\nschema: olm.bundle\npackage: p\nname: %s\nimage: quay.io/p/p:%d\nproperties:\n- {type: olm.package, value: {packageName: p, version: 1.%d.0}}\n", n, i, i)
	}
	return b.String()
}

// TestProblems runs each rule on a catalog that breaks it and one that
// does not; want lists "rule line:col", in the order the model reports.
func TestProblems(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string
		message    string // a part of the first problem's message
	}{
		{"valid", okPackage + "schema: olm.channel\npackage: p\nname: stable\nentries: [{name: p.a}, {name: p.b, replaces: p.a}]\n" + bundles("p.a", "p.b"), nil, ""},
		{"unknown package, at its first use (New adds channels before bundles)", "schema: olm.bundle\npackage: q\nname: q.a\n---\nschema: olm.channel\npackage: q\nname: s\nentries: [{name: q.a}]\n",
			[]string{"unknown-package 5:1"}, `package "q" has no olm.package blob, but 1 channel and 1 bundle refer to it`},
		{"duplicate package", okPackage + okPackage + "schema: olm.channel\npackage: p\nname: stable\nentries: [{name: p.a}]\n" + bundles("p.a"),
			[]string{"duplicate-package 5:1"}, `package "p" is declared twice: here and at c.yaml:1:1`},
		{"empty package", okPackage, []string{"empty-package 1:1"}, `package "p" has no channels`},
		{"default channel unset, at the blob", "schema: olm.package\nname: p\n---\nschema: olm.channel\npackage: p\nname: stable\nentries: [{name: p.a}]\n" + bundles("p.a"),
			[]string{"default-channel 1:1"}, `package "p" has no defaultChannel; set it to one of its channels: stable`},
		{"default channel null, at the value", "schema: olm.package\nname: p\ndefaultChannel: null\n---\nschema: olm.channel\npackage: p\nname: stable\nentries: [{name: p.a}]\n" + bundles("p.a"),
			[]string{"default-channel 3:17"}, `has no defaultChannel`},
		{"default channel typo", "schema: olm.package\nname: p\ndefaultChannel: stabel\n---\nschema: olm.channel\npackage: p\nname: stable\nentries: [{name: p.a}]\n" + bundles("p.a"),
			[]string{"default-channel 3:17"}, `defaultChannel "stabel" is not a channel of package "p"; did you mean "stable"?`},
		{"duplicate channel", okPackage + "schema: olm.channel\npackage: p\nname: stable\nentries: [{name: p.a}]\n---\nschema: olm.channel\npackage: p\nname: stable\nentries: [{name: p.b}]\n" + bundles("p.a", "p.b"),
			[]string{"duplicate-channel 10:1"}, `channel "stable" of package "p" is declared twice: here and at c.yaml:5:1`},
		{"duplicate bundle", okPackage + "schema: olm.channel\npackage: p\nname: stable\nentries: [{name: p.a}]\n" + bundles("p.a", "p.a"),
			[]string{"duplicate-bundle 17:1"}, `bundle "p.a" of package "p" is declared twice`},
		{"empty channel", okPackage + "schema: olm.channel\npackage: p\nname: stable\nentries: []\n", []string{"empty-channel 5:1"}, `channel "stable" has no entries`},
		{"entries without names are not an empty channel", okPackage + "schema: olm.channel\npackage: p\nname: stable\nentries: [{replaces: x}]\n", nil, ""},
		{"duplicate entry", okPackage + "schema: olm.channel\npackage: p\nname: stable\nentries:\n- name: p.a\n- name: p.a\n" + bundles("p.a"),
			[]string{"duplicate-entry 10:3"}, `channel "stable" lists bundle "p.a" twice (first at c.yaml:9:3)`},
		{"missing bundle", okPackage + "schema: olm.channel\npackage: p\nname: stable\nentries:\n- name: p.a\n- {name: p.b, replaces: p.a}\n" + bundles("p.a"),
			[]string{"missing-bundle 10:3"}, `channel "stable" lists bundle "p.b", but package "p" has no olm.bundle blob of that name`},
		{"two heads", okPackage + "schema: olm.channel\npackage: p\nname: stable\nentries: [{name: p.b}, {name: p.a}]\n" + bundles("p.a", "p.b"),
			[]string{"channel-head 5:1"}, `channel "stable" has 2 heads (p.a, p.b)`},
		{"no head", okPackage + "schema: olm.channel\npackage: p\nname: stable\nentries: [{name: p.a, replaces: p.b}, {name: p.b, replaces: p.a}]\n" + bundles("p.a", "p.b"),
			[]string{"channel-head 5:1"}, `channel "stable" has no head`},
		{"replaces cycle", okPackage + "schema: olm.channel\npackage: p\nname: stable\nentries: [{name: p.a, replaces: p.b}, {name: p.b, replaces: p.a}, {name: p.c, replaces: p.a}]\n" + bundles("p.a", "p.b", "p.c"),
			[]string{"replaces-cycle 5:1"}, `channel "stable": the replaces chain from head "p.c" loops: p.a -> p.b -> p.a`},
		{"stranded", okPackage + "schema: olm.channel\npackage: p\nname: stable\nentries:\n- name: p.a\n- {name: p.b, replaces: p.a, skips: [p.b]}\n- {name: p.c, replaces: p.b}\n" + bundles("p.a", "p.b", "p.c"),
			[]string{"stranded-bundle 9:3"}, `entry "p.a" of channel "stable" is stranded: it is not on the replaces chain from head "p.c"`},
		{"skipRange that does not parse, at the value", okPackage + "schema: olm.channel\npackage: p\nname: stable\nentries:\n- {name: p.a, skipRange: bogus}\n" + bundles("p.a"),
			[]string{"skip-range 9:26"}, `entry "p.a": invalid skipRange "bogus": `},
		{"skipRange with an empty alternative", okPackage + "schema: olm.channel\npackage: p\nname: stable\nentries:\n- {name: p.a, skipRange: '<1.0.0 || || >2.0.0'}\n" + bundles("p.a"),
			[]string{"skip-range 9:26"}, `remove the empty alternative`},
		{"orphan", okPackage + "schema: olm.channel\npackage: p\nname: stable\nentries: [{name: p.a}]\n" + bundles("p.a", "p.b"),
			[]string{"orphan-bundle 17:1"}, `bundle "p.b" is not in any channel of package "p"`},
		{"a duplicate channel's entries are not orphans", okPackage + "schema: olm.channel\npackage: p\nname: stable\nentries: [{name: p.a}]\n---\nschema: olm.channel\npackage: p\nname: stable\nentries: [{name: p.b}]\n" + bundles("p.a", "p.b"),
			[]string{"duplicate-channel 10:1"}, ""},
		{"duplicate version", okPackage + "schema: olm.channel\npackage: p\nname: stable\nentries: [{name: p.a}, {name: p.b, replaces: p.a}]\n" + bundles("p.a") +
			"---\nschema: olm.bundle\npackage: p\nname: p.b\nimage: quay.io/p/p:b\nproperties:\n- {type: olm.package, value: {packageName: p, version: 1.0.0}}\n",
			[]string{"duplicate-version 17:1"}, `bundles "p.a" and "p.b" of package "p" both have version 1.0.0`},
		{"a release tells versions apart", okPackage + "schema: olm.channel\npackage: p\nname: stable\nentries: [{name: p.a}, {name: p-v1.0.0-2, replaces: p.a}]\n" + bundles("p.a") +
			"---\nschema: olm.bundle\npackage: p\nname: p-v1.0.0-2\nimage: quay.io/p/p:b\nproperties:\n- {type: olm.package, value: {packageName: p, version: 1.0.0, release: '2'}}\n",
			nil, ""},
		{"edge target typo", okPackage + "schema: olm.channel\npackage: p\nname: stable\nentries:\n- name: p.v1.0.0\n- {name: p.v1.1.0, replaces: p.v1.0.0, skips: [p-v1.0.0]}\n" +
			"---\nschema: olm.bundle\npackage: p\nname: p.v1.0.0\nimage: quay.io/p/p:a\nproperties:\n- {type: olm.package, value: {packageName: p, version: 1.0.0}}\n" +
			"---\nschema: olm.bundle\npackage: p\nname: p.v1.1.0\nimage: quay.io/p/p:b\nproperties:\n- {type: olm.package, value: {packageName: p, version: 1.1.0}}\n",
			[]string{"edge-target 10:3"}, `entry "p.v1.1.0" skips "p-v1.0.0", which is not a bundle of package "p", but bundle "p.v1.0.0" has that version; did you mean "p.v1.0.0"?`},
		{"deprecations", okPackage + "schema: olm.channel\npackage: p\nname: stable\nentries: [{name: p.a}]\n" + bundles("p.a") +
			"---\nschema: olm.deprecations\npackage: p\nentries:\n- {reference: {schema: olm.channel, name: stabel}, message: m}\n- {reference: {schema: olm.bundle, name: p.x}, message: m}\n- {reference: {schema: olm.package, name: p}, message: m}\n- {reference: {schema: olm.bundle, name: p.x}, message: m}\n" +
			"---\nschema: olm.deprecations\npackage: p\nentries: []\n",
			[]string{"duplicate-deprecation 25:1", "deprecation-reference 20:43", "deprecation-reference 21:42", "deprecation-reference 22:43", "duplicate-deprecation 23:3"},
			`package "p" has a second olm.deprecations blob (the first is at c.yaml:17:1)`},
		{"deprecated default channel", okPackage + "schema: olm.channel\npackage: p\nname: stable\nentries: [{name: p.a}]\n" + bundles("p.a") +
			"---\nschema: olm.deprecations\npackage: p\nentries:\n- {reference: {schema: olm.channel, name: stable}, message: m}\n",
			[]string{"deprecated-default 3:17"}, `defaultChannel "stable" is deprecated (at c.yaml:20:3) but package "p" is not`},
		{"deprecated default head", okPackage + "schema: olm.channel\npackage: p\nname: stable\nentries: [{name: p.a}]\n" + bundles("p.a") +
			"---\nschema: olm.deprecations\npackage: p\nentries:\n- {reference: {schema: olm.bundle, name: p.a}, message: m}\n",
			[]string{"deprecated-default 3:17"}, `the head of defaultChannel "stable", bundle "p.a", is deprecated (at c.yaml:20:3)`},
		{"the advice reads a second deprecations blob too", okPackage + "schema: olm.channel\npackage: p\nname: stable\nentries: [{name: p.a}]\n" + bundles("p.a") +
			"---\nschema: olm.deprecations\npackage: p\nentries:\n- {reference: {schema: olm.bundle, name: p.a}, message: m}\n---\nschema: olm.deprecations\npackage: p\nentries:\n- {reference: {schema: olm.package}, message: m}\n",
			[]string{"duplicate-deprecation 22:1"}, "a second olm.deprecations blob"},
		{"a deprecated package may have a deprecated default", okPackage + "schema: olm.channel\npackage: p\nname: stable\nentries: [{name: p.a}]\n" + bundles("p.a") +
			"---\nschema: olm.deprecations\npackage: p\nentries:\n- {reference: {schema: olm.bundle, name: p.a}, message: m}\n- {reference: {schema: olm.package}, message: m}\n",
			nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cat := load(t, tc.text)
			ps := cat.Problems()
			var got []string
			for _, p := range ps {
				got = append(got, fmt.Sprintf("%s %d:%d", p.Rule, p.Pos.Line, p.Pos.Col))
				if p.Package != "p" && p.Package != "q" {
					t.Errorf("problem without its package: %+v", p)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("got %q, want %q\n%v", got, tc.want, ps)
			}
			if tc.message != "" && !strings.Contains(ps[0].Message, tc.message) {
				t.Errorf("message %q does not say %q", ps[0].Message, tc.message)
			}
		})
	}
}

// TestProblemsInMemory checks that blobs built in memory, which have no
// positions, get none, and that warnings are marked.
func TestProblemsInMemory(t *testing.T) {
	cfg := &declcfg.DeclarativeConfig{
		Packages: []declcfg.Package{{Schema: "olm.package", Name: "p", DefaultChannel: "stable"}},
		Channels: []declcfg.Channel{{Schema: "olm.channel", Package: "p", Name: "stable", Entries: []declcfg.ChannelEntry{
			{Name: "p.v1.0.0"}, {Name: "p.v1.1.0", Replaces: "p.v1.0.0", Skips: []string{"p-v1.0.0"}, SkipRange: "bogus"}, {Name: "p.v1.2.0"}}}},
		Bundles: []declcfg.Bundle{
			{Schema: "olm.bundle", Package: "p", Name: "p.v1.0.0", Properties: []declcfg.Property{declcfg.MustProperty("olm.package", declcfg.PackageProperty{PackageName: "p", Version: "1.0.0"})}},
			{Schema: "olm.bundle", Package: "p", Name: "p.v1.1.0", Properties: []declcfg.Property{declcfg.MustProperty("olm.package", declcfg.PackageProperty{PackageName: "p", Version: "1.1.0"})}},
		},
	}
	var got []string
	for _, p := range New(cfg).Problems() {
		got = append(got, fmt.Sprintf("%s %v", p.Rule, p.IsWarning()))
		if p.Pos.IsValid() {
			t.Errorf("in-memory blob got a position: %+v", p)
		}
	}
	want := []string{"skip-range false", "missing-bundle false", "channel-head false", "edge-target true"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestLostDocuments: a document the loader skipped for a syntax error
// silences the problems its absence causes in its package, and only those.
func TestLostDocuments(t *testing.T) {
	build := func(text string) []string {
		t.Helper()
		cfg, err := declcfg.LoadBytes("c.yaml", []byte(text))
		var les declcfg.LoadErrors
		if !errors.As(err, &les) {
			t.Fatalf("the test catalog must have a syntax error: %v", err)
		}
		b := NewBuilder()
		for i := range cfg.Packages {
			b.Add(declcfg.Blob{Package: &cfg.Packages[i]})
		}
		for i := range cfg.Channels {
			b.Add(declcfg.Blob{Channel: &cfg.Channels[i]})
		}
		for i := range cfg.Bundles {
			b.Add(declcfg.Blob{Bundle: &cfg.Bundles[i]})
		}
		for _, le := range les {
			if le.Lost != nil {
				b.AddLost(*le.Lost)
			}
		}
		var got []string
		for _, p := range b.Build().Problems() {
			got = append(got, fmt.Sprintf("%s %s", p.Rule, p.Package))
		}
		return got
	}
	broken := "  - name: p.b\n     replaces: p.a\n"
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"a lost channel: p has channels and its bundles are in one; q has none",
			okPackage + "schema: olm.package\nname: q\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: p\nname: stable\nentries:\n  - name: p.a\n" + broken + bundles("p.a", "p.b"),
			[]string{"empty-package q"}},
		{"a lost bundle: the entry has its bundle",
			okPackage + "schema: olm.channel\npackage: p\nname: stable\nentries: [{name: p.a}, {name: p.b, replaces: p.a}]\n---\nschema: olm.bundle\npackage: p\nname: p.b\nproperties:\n  - type: t\n   value: 1\n" + bundles("p.a"),
			nil},
		{"a lost package blob",
			"schema: olm.package\nname: p\n  defaultChannel: stable\n---\nschema: olm.channel\npackage: p\nname: stable\nentries: [{name: p.a}]\n" + bundles("p.a"),
			nil},
		{"a lost bundle does not hide a channel's problems",
			okPackage + "schema: olm.channel\npackage: p\nname: stable\nentries: [{name: p.a}, {name: p.b}]\n---\nschema: olm.bundle\npackage: p\nname: p.c\nproperties:\n  - type: t\n   value: 1\n" + bundles("p.a", "p.b"),
			[]string{"channel-head p"}},
		{"a lost document whose package the text does not say counts for the file's packages",
			okPackage + "schema: olm.channel\npackage: [p\nname: stable\n" + bundles("p.a"),
			nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := build(tc.text); !slices.Equal(got, tc.want) {
				t.Errorf("problems %q, want %q", got, tc.want)
			}
		})
	}
}
