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
			[]string{"channel-head 8:11"}, `entry "p.b" (1.1.0) replaces nothing, so nothing upgrades from "p.a" (1.0.0) and channel "stable" has 2 heads (p.a, p.b): make "p.b" replace "p.a"`},
		{"no head", okPackage + "schema: olm.channel\npackage: p\nname: stable\nentries: [{name: p.a, replaces: p.b}, {name: p.b, replaces: p.a}]\n" + bundles("p.a", "p.b"),
			[]string{"replaces-cycle 8:33"}, `entry "p.a" (1.0.0) replaces "p.b" (1.1.0), a newer version: channel "stable" has no head: its entries replace each other in a cycle (p.b replaces p.a, p.a replaces p.b)`},
		{"replaces cycle", okPackage + "schema: olm.channel\npackage: p\nname: stable\nentries: [{name: p.a, replaces: p.b}, {name: p.b, replaces: p.a}, {name: p.c, replaces: p.a}]\n" + bundles("p.a", "p.b", "p.c"),
			[]string{"replaces-cycle 8:33"}, `entry "p.a" (1.0.0) replaces "p.b" (1.1.0), a newer version: the replaces chain from head "p.c" of channel "stable" loops (p.a replaces p.b, p.b replaces p.a)`},
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

// channelOf is a one-channel package p whose entries are given as YAML
// lines (after "entries:", from line 9) and whose bundles have the given
// versions.
func channelOf(entries string, versions map[string]string) string {
	var b strings.Builder
	b.WriteString(okPackage + "schema: olm.channel\npackage: p\nname: stable\nentries:\n" + entries)
	names := make([]string, 0, len(versions))
	for n := range versions {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		fmt.Fprintf(&b, "---\nschema: olm.bundle\npackage: p\nname: %s\nimage: quay.io/p/%s\nproperties:\n- {type: olm.package, value: {packageName: p, version: %s}}\n", n, n, versions[n])
	}
	return b.String()
}

// TestHeadCauses: a channel with several heads, no head or a loop is
// reported at the entry to fix, saying what is wrong with it (issue 26,
// item 4).
func TestHeadCauses(t *testing.T) {
	infinispan := map[string]string{
		"infinispan-operator.v2.5.11": "2.5.11", "infinispan-operator.v2.5.12": "2.5.12", "infinispan-operator.v2.5.13": "2.5.13", "infinispan-operator.v2.5.14": "2.5.14",
	}
	for _, tc := range []struct {
		name, text string
		want       []string // "rule line:col bundle"
		messages   []string // a part of each problem's message
	}{
		{"a replaces typo leaves the bundle it meant a second head", channelOf(
			"- name: infinispan-operator.v2.5.11\n"+
				"- name: infinispan-operator.v2.5.12\n  replaces: infinispan-operator.v2.5.11\n"+
				"- name: infinispan-operator.v2.5.13\n  replaces: infinispan-operator.v2.5.l2\n"+
				"- name: infinispan-operator.v2.5.14\n  replaces: infinispan-operator.v2.5.13\n", infinispan),
			[]string{"channel-head 13:13 infinispan-operator.v2.5.13"},
			[]string{`entry "infinispan-operator.v2.5.13" replaces "infinispan-operator.v2.5.l2", which is not in channel "stable"; did you mean "infinispan-operator.v2.5.12" (2.5.12)? As written nothing replaces "infinispan-operator.v2.5.12", and channel "stable" has 2 heads (infinispan-operator.v2.5.12, infinispan-operator.v2.5.14)`}},
		{"the version in the target's name tells the head meant, not the letters", channelOf(
			"- name: p.v1.0.0\n- name: q-1.1.0\n  replaces: p.v1.0.0\n- name: p.v2.0.0\n  replaces: p.v1.1.0\n",
			map[string]string{"p.v1.0.0": "1.0.0", "q-1.1.0": "1.1.0", "p.v2.0.0": "2.0.0"}),
			[]string{"channel-head 13:13 p.v2.0.0"}, // and no edge-target warning for the same edge
			[]string{`entry "p.v2.0.0" replaces "p.v1.1.0", which is not in channel "stable"; did you mean "q-1.1.0" (1.1.0)?`}},
		{"a newer head is not what an older entry meant", channelOf(
			"- name: p.v1.0.0\n  replaces: p.v3.0.l\n- name: p.v3.0.0\n",
			map[string]string{"p.v1.0.0": "1.0.0", "p.v3.0.0": "3.0.0"}),
			[]string{"channel-head 11:3 p.v3.0.0"},
			[]string{`entry "p.v3.0.0" (3.0.0) replaces nothing, so nothing upgrades from "p.v1.0.0" (1.0.0)`}},
		{"a new entry that forgot its replaces", channelOf(
			"- name: p.v1\n- name: p.v2\n  replaces: p.v1\n- name: p.v3\n",
			map[string]string{"p.v1": "1.0.0", "p.v2": "2.0.0", "p.v3": "3.0.0"}),
			[]string{"channel-head 12:3 p.v3"},
			[]string{`entry "p.v3" (3.0.0) replaces nothing, so nothing upgrades from "p.v2" (2.0.0) and channel "stable" has 2 heads (p.v2, p.v3): make "p.v3" replace "p.v2"`}},
		{"three heads, one finding each but the newest", channelOf(
			"- name: p.v1\n- name: p.v2\n- name: p.v3\n",
			map[string]string{"p.v1": "1.0.0", "p.v2": "2.0.0", "p.v3": "3.0.0"}),
			[]string{"channel-head 10:3 p.v2", "channel-head 11:3 p.v3"},
			[]string{`entry "p.v2" (2.0.0) replaces nothing, so nothing upgrades from "p.v1" (1.0.0)`, `entry "p.v3" (3.0.0) replaces nothing, so nothing upgrades from "p.v2" (2.0.0)`}},
		{"without versions, the heads at the channel", channelOf(
			"- name: p.a\n- name: p.b\n", map[string]string{"p.a": "bad", "p.b": "bad"}),
			[]string{"channel-head 5:1 "},
			[]string{`channel "stable" has 2 heads (p.a, p.b); exactly one entry may be left unreplaced`}},
		{"an entry that replaces itself instead of the one before", channelOf(
			"- name: p.v1\n- name: p.v2\n  replaces: p.v2\n- name: p.v3\n  replaces: p.v2\n",
			map[string]string{"p.v1": "1.0.0", "p.v2": "2.0.0", "p.v3": "3.0.0"}),
			[]string{"replaces-cycle 11:13 p.v2"},
			[]string{`entry "p.v2" of channel "stable" replaces itself; an entry replaces an older one: did you mean "p.v1" (1.0.0), the newest entry below it that nothing replaces?`}},
		{"the newest entry replaces itself", channelOf(
			"- name: p.v1\n- name: p.v2\n  replaces: p.v2\n",
			map[string]string{"p.v1": "1.0.0", "p.v2": "2.0.0"}),
			[]string{"replaces-cycle 11:13 p.v2"},
			[]string{`entry "p.v2" of channel "stable" replaces itself`}},
		{"a self-replace another entry skips is harmless (opm accepts it)", channelOf(
			"- name: p.v1\n- name: p.v2\n  replaces: p.v2\n- name: p.v3\n  replaces: p.v1\n  skips: [p.v2]\n",
			map[string]string{"p.v1": "1.0.0", "p.v2": "2.0.0", "p.v3": "3.0.0"}),
			nil, nil},
		{"a loop below the head, at the edge that points up", channelOf(
			"- name: p.v1\n  replaces: p.v2\n- name: p.v2\n  replaces: p.v1\n- name: p.v3\n  replaces: p.v2\n",
			map[string]string{"p.v1": "1.0.0", "p.v2": "2.0.0", "p.v3": "3.0.0"}),
			[]string{"replaces-cycle 10:13 p.v1"},
			[]string{`entry "p.v1" (1.0.0) replaces "p.v2" (2.0.0), a newer version: the replaces chain from head "p.v3" of channel "stable" loops (p.v2 replaces p.v1, p.v1 replaces p.v2)`}},
		{"no head: skips in a circle", channelOf(
			"- name: p.v1\n  skips: [p.v3]\n- name: p.v2\n  replaces: p.v1\n- name: p.v3\n  replaces: p.v2\n",
			map[string]string{"p.v1": "1.0.0", "p.v2": "2.0.0", "p.v3": "3.0.0"}),
			[]string{"channel-head 9:3 p.v1"},
			[]string{`entry "p.v1" (1.0.0) skips "p.v3" (3.0.0), a newer version: channel "stable" has no head: its entries replace or skip each other in a cycle (p.v3 replaces p.v2, p.v2 replaces p.v1, p.v1 skips p.v3)`}},
		{"no head, versions that do not tell: at the edge that closes the circle", channelOf(
			"- name: p.a\n  replaces: p.b\n- name: p.b\n  replaces: p.a\n", map[string]string{"p.a": "1.0.0", "p.b": "1.0.0"}),
			[]string{"replaces-cycle 10:13 p.a", "duplicate-version 21:1 p.b"},
			[]string{`channel "stable" has no head: its entries replace each other in a cycle: p.b replaces p.a, p.a replaces p.b; break the cycle`, ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps := load(t, tc.text).Problems()
			var got []string
			for _, p := range ps {
				got = append(got, fmt.Sprintf("%s %d:%d %s", p.Rule, p.Pos.Line, p.Pos.Col, p.Bundle))
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("got %q, want %q\n%v", got, tc.want, ps)
			}
			for i, m := range tc.messages {
				if !strings.Contains(ps[i].Message, m) {
					t.Errorf("message %q does not say %q", ps[i].Message, m)
				}
			}
		})
	}
}

// TestDowngradeEdges: an edge to a higher version is a warning at the edge
// (issue 26, item 5); edges up, to a version the model cannot read, to
// nothing, and self-edges are not.
func TestDowngradeEdges(t *testing.T) {
	vs := map[string]string{"p.v1": "1.0.0", "p.v1.1": "1.1.0", "p.v1.1-1": "1.1.0-1", "p.v2": "2.0.0", "p.bad": "x"}
	for _, tc := range []struct {
		name, entries string
		want          []string // "line:col bundle"
		message       string
	}{
		{"a prerelease replacing its release", "- name: p.v1\n- name: p.v1.1\n  replaces: p.v1\n- name: p.v1.1-1\n  replaces: p.v1.1\n- name: p.v2\n  replaces: p.v1.1-1\n",
			[]string{"13:13 p.v1.1-1"}, `entry "p.v1.1-1" (1.1.0-1) replaces "p.v1.1" (1.1.0), a higher version (1.1.0-1 is a prerelease of 1.1.0, and a prerelease sorts below its release): OLM classic follows the edge, so clusters on 1.1.0 move down to 1.1.0-1 and on; OLM v1 never upgrades to a lower version, so clusters on 1.1.0 stay there`},
		{"skips down", "- name: p.v2\n- name: p.v1\n  skips: [p.v2]\n", []string{"10:3 p.v1"}, `entry "p.v1" (1.0.0) skips "p.v2" (2.0.0), a higher version:`},
		{"a skipRange over a newer entry", "- name: p.v2\n- name: p.v1\n  replaces: p.v2\n  skipRange: '<3.0.0'\n",
			[]string{"11:13 p.v1", "12:14 p.v1"}, `entry "p.v1" (1.0.0) replaces "p.v2" (2.0.0)`},
		{"edges up, to nothing, to no version, to itself", "- name: p.v1\n  replaces: p.bad\n- name: p.v2\n  replaces: p.v1\n  skips: [p.v0, p.v2]\n  skipRange: '<2.0.0'\n- name: p.bad\n", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps := load(t, channelOf(tc.entries, vs)).Problems()
			var got []string
			var msgs []string
			for _, p := range ps {
				if p.Rule != RuleDowngradeEdge {
					continue
				}
				if p.Severity != declcfg.SeverityWarning {
					t.Errorf("%v is not a warning", p)
				}
				got = append(got, fmt.Sprintf("%d:%d %s", p.Line, p.Col, p.Bundle))
				msgs = append(msgs, p.Message)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("got %q, want %q\n%v", got, tc.want, ps)
			}
			if tc.message != "" && !strings.Contains(msgs[0], tc.message) {
				t.Errorf("message %q does not say %q", msgs[0], tc.message)
			}
		})
	}
}
