package model

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/blang/semver/v4"

	"github.com/fbc-project/fbc/declcfg"
)

func TestBundleFacts(t *testing.T) {
	cat := load(t, okPackage+`schema: olm.channel
package: p
name: stable
entries: [{name: p.a}, {name: p.b, replaces: p.a}]
---
schema: olm.channel
package: p
name: fast
entries: [{name: p.b}]
---
schema: olm.bundle
package: p
name: p.a
image: quay.io/p/p:a
properties:
- {type: olm.package, value: {packageName: p, version: 1.0.0, release: 2}}
- {type: olm.gvk, value: {group: g, version: v1, kind: K}}
- {type: olm.label, value: {label: l}}
- {type: olm.gvk.required, value: {group: g, version: v1, kind: Other}}
- {type: olm.package.required, value: {packageName: q, versionRange: '>=1.0.0'}}
- {type: olm.label.required, value: {label: m}}
- {type: olm.constraint, value: {failureMessage: f, any: {constraints: [{gvk: {group: g, version: v1, kind: K}}]}}}
- {type: olm.package.required, value: {packageName: q, versionRange: 'not a range'}}
- {type: olm.gvk.required, value: 5}
- {type: olm.deprecated, value: {}}
---
schema: olm.bundle
package: p
name: p.b
image: quay.io/p/p:b
properties:
- {type: olm.package, value: {packageName: p, version: v1.1}}
---
schema: olm.bundle
package: p
name: p.c
properties:
- {type: olm.package, value: {packageName: p, version: 1.2.0, release: '01'}}
- {type: olm.package, value: {packageName: p, version: 1.3.0}}
`)
	p := cat.Package("p")
	a, b, c := p.Bundle("p.a"), p.Bundle("p.b"), p.Bundle("p.c")
	if !a.HasVersion() || a.SemVer.String() != "1.0.0" || a.Version != "1.0.0" || a.Release != "2" || a.ReleaseErr != nil {
		t.Errorf("p.a version: %+v", a)
	}
	if b.HasVersion() || b.Version != "v1.1" || !strings.Contains(b.VersionErr.Error(), `invalid version "v1.1"`) {
		t.Errorf("p.b version: %q %v", b.Version, b.VersionErr)
	}
	if c.HasVersion() || !strings.Contains(c.VersionErr.Error(), `must have exactly 1 "olm.package" property, found 2`) {
		t.Errorf("p.c version: %v", c.VersionErr)
	}
	if !slices.Equal(a.Provides(), []declcfg.GVK{{Group: "g", Version: "v1", Kind: "K"}}) || !slices.Equal(a.Labels(), []string{"l"}) || !a.LegacyDeprecated {
		t.Errorf("p.a provides %v, labels %v, legacy deprecated %v", a.Provides(), a.Labels(), a.LegacyDeprecated)
	}
	var kinds []string
	for _, r := range a.Requires() {
		switch {
		case r.Err != nil:
			kinds = append(kinds, r.Type+":error")
		case r.GVK != nil:
			kinds = append(kinds, r.Type+":"+r.GVK.Kind)
		case r.Package != nil:
			k := r.Type + ":" + r.Package.Name
			if r.Package.RangeErr != nil {
				k += ":bad-range"
			} else if !r.Package.Range(semver.MustParse("1.5.0")) {
				k += ":range-wrong"
			}
			kinds = append(kinds, k)
		case r.Constraint != nil:
			kinds = append(kinds, r.Type+":"+r.Constraint.FailureMessage+fmt.Sprint(len(r.Constraint.Any.Constraints)))
		default:
			kinds = append(kinds, r.Type+":"+r.Label)
		}
		if !r.Pos.IsValid() {
			t.Errorf("requirement without a position: %+v", r)
		}
	}
	want := []string{"olm.gvk.required:Other", "olm.package.required:q", "olm.label.required:m", "olm.constraint:f1", "olm.package.required:q:bad-range", "olm.gvk.required:error"}
	if !slices.Equal(kinds, want) {
		t.Errorf("requires %q, want %q", kinds, want)
	}
	var in []string
	for _, e := range p.Bundle("p.b").Entries {
		in = append(in, e.Channel.Name)
	}
	if !slices.Equal(in, []string{"stable", "fast"}) {
		t.Errorf("p.b's entries are in %v", in)
	}
	if p.Default() != p.Channel("stable") || p.Channel("fast").Head().Bundle != b {
		t.Errorf("default %v, fast head %v", p.Default(), p.Channel("fast").Head())
	}
	if !slices.Equal(p.ChannelNames(), []string{"fast", "stable"}) || !slices.Equal(cat.PackageNames(), []string{"p"}) || len(cat.Bundles()) != 3 {
		t.Errorf("names %v %v %d", p.ChannelNames(), cat.PackageNames(), len(cat.Bundles()))
	}
}

func TestNameVersion(t *testing.T) {
	for name, want := range map[string]string{
		"foo.v1.2.3":              "1.2.3",
		"foo-operator.v0.1.0-rc1": "0.1.0-rc1",
		"foo.1.2.3":               "1.2.3",
		"foo-v1.2.3-2":            "1.2.3-2",
		"foo":                     "",
		"foo.v1.2":                "",
	} {
		v, ok := NameVersion(name)
		got := ""
		if ok {
			got = v.String()
		}
		if got != want {
			t.Errorf("%s: got %q, want %q", name, got, want)
		}
	}
}

func TestDeprecations(t *testing.T) {
	cat := load(t, okPackage+`schema: olm.channel
package: p
name: stable
entries: [{name: p.a}]
`+bundles("p.a")+`---
schema: olm.deprecations
package: p
entries:
- {reference: {schema: olm.package}, message: package gone}
- {reference: {schema: olm.channel, name: stable}, message: channel gone}
- {reference: {schema: olm.bundle, name: p.a}, message: bundle gone}
- {reference: {schema: olm.bundle, name: p.a}, message: later}
---
schema: olm.deprecations
package: p
entries:
- {reference: {schema: olm.channel, name: stable}, message: second blob}
`)
	p := cat.Package("p")
	got := []string{p.Deprecation.Message, p.Channel("stable").Deprecation.Message, p.Bundle("p.a").Deprecation.Message}
	if !slices.Equal(got, []string{"package gone", "channel gone", "bundle gone"}) {
		t.Errorf("deprecations %q", got)
	}
	if pos := p.Bundle("p.a").Deprecation.Pos; pos.Line != 22 {
		t.Errorf("bundle deprecation at %v", pos)
	}
}

func TestEdges(t *testing.T) {
	cat := load(t, okPackage+`schema: olm.channel
package: p
name: stable
entries:
- {name: p.a}
- {name: p.b, replaces: p.a, skips: [p.gone]}
- {name: p.c, replaces: p.b, skipRange: '<1.2.0'}
`+bundles("p.a", "p.b", "p.c"))
	var got []string
	for _, e := range cat.Package("p").Channel("stable").Edges() {
		s := fmt.Sprintf("%s %s->%s", e.Kind, e.From, e.To.Name)
		if e.FromBundle == nil {
			s += " (no bundle)"
		}
		if e.FromEntry == nil {
			s += " (no entry)"
		}
		got = append(got, s)
	}
	want := []string{"replaces p.a->p.b", "skips p.gone->p.b (no bundle) (no entry)", "replaces p.b->p.c", "skipRange p.a->p.c", "skipRange p.b->p.c"}
	if !slices.Equal(got, want) {
		t.Errorf("edges:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestCatalogIndexes(t *testing.T) {
	cat := load(t, okPackage+`schema: olm.channel
package: p
name: stable
entries:
- {name: p.a}
- {name: p.b, replaces: p.a, skips: [p.a, p.x]}
---
schema: olm.channel
package: p
name: fast
entries:
- {name: p.c, skips: [p.a]}
---
schema: olm.bundle
package: p
name: p.a
properties:
- {type: olm.gvk, value: {group: g, version: v1, kind: K}}
- {type: olm.gvk, value: {group: g, version: v1, kind: K}}
---
schema: olm.bundle
package: p
name: p.b
properties:
- {type: olm.gvk.required, value: {group: g, version: v1, kind: K}}
- {type: olm.gvk, value: {group: g, version: v1, kind: K}}
`)
	k := declcfg.GVK{Group: "g", Version: "v1", Kind: "K"}
	names := func(bs []*Bundle) string {
		var out []string
		for _, b := range bs {
			out = append(out, b.Name)
		}
		return strings.Join(out, " ")
	}
	if got := names(cat.ProvidedBy(k)); got != "p.a p.b" {
		t.Errorf("ProvidedBy = %q", got)
	}
	if got := names(cat.RequiredBy(k)); got != "p.b" {
		t.Errorf("RequiredBy = %q", got)
	}
	var got []string
	for _, e := range cat.Replacing("p.a") {
		got = append(got, e.Channel.Name+"/"+e.Name)
	}
	if !slices.Equal(got, []string{"stable/p.b", "fast/p.c"}) {
		t.Errorf("Replacing(p.a) = %v", got)
	}
	if len(cat.Replacing("p.x")) != 1 || cat.Replacing("p.none") != nil {
		t.Errorf("Replacing(p.x) = %v", cat.Replacing("p.x"))
	}
}

// bruteCover is the definition the edge index must agree with: every
// entry, in order, whose replaces, skips or skipRange covers the bundle.
func bruteCover(entries []*Entry, name string, v semver.Version) []int {
	var out []int
	for i, e := range entries {
		if e.Replaces == name || slices.Contains(e.Skips, name) || e.InRange(v) {
			out = append(out, i)
		}
	}
	return out
}

// TestEdgeIndexMatchesScan compares the index with a plain scan over
// random channels whose skipRanges mix every form blang accepts.
func TestEdgeIndexMatchesScan(t *testing.T) {
	ranges := []string{">=1.0.0 <2.0.0", "<1.2.0", ">1.1.0", "1.x", ">=1.2.x", "<=1.3.x", "!=1.2.x", "1.2.3", "==1.1.0",
		">=0.9.0 <1.1.0 || >=1.4.0 <1.5.0", "< 1.3.0 !1.0.0", "! 1.2.0", "1.0.0 - 2.0.0", ">=1.1.0-rc.1 <1.1.0",
		"<2.0.0-alpha", ">=1.0.0+build <=1.0.0", "<1.0.0||>=2.0.0", ">=1.0.0, <2.0.0", ""}
	rng := rand.New(rand.NewPCG(1, 2))
	version := func() string {
		v := fmt.Sprintf("%d.%d.%d", rng.IntN(3), rng.IntN(6), rng.IntN(4))
		switch rng.IntN(6) {
		case 0:
			v += "-rc.1"
		case 1:
			v += "+2"
		}
		return v
	}
	for round := 0; round < 300; round++ {
		n := 1 + rng.IntN(40)
		ch := declcfg.Channel{Schema: "olm.channel", Package: "p", Name: "c"}
		names := make([]string, n)
		for i := range names {
			names[i] = fmt.Sprintf("p.v%d", i)
		}
		for i := 0; i < n; i++ {
			e := declcfg.ChannelEntry{Name: names[i]}
			if rng.IntN(2) == 0 {
				e.Replaces = names[rng.IntN(n)]
			}
			for range rng.IntN(3) {
				e.Skips = append(e.Skips, names[rng.IntN(n)])
			}
			if rng.IntN(2) == 0 {
				e.SkipRange = ranges[rng.IntN(len(ranges))]
			}
			ch.Entries = append(ch.Entries, e)
		}
		cat := New(&declcfg.DeclarativeConfig{Channels: []declcfg.Channel{ch}})
		entries := cat.Package("p").Channel("c").Entries
		ix := NewEdgeIndex(entries)
		for q := 0; q < 20; q++ {
			name := names[rng.IntN(n)]
			v := semver.MustParse(version())
			var got []int
			for _, c := range ix.Cover(name, &v) {
				got = append(got, c.Index)
				if c.Entry != entries[c.Index] {
					t.Fatalf("coverage %d names entry %s", c.Index, c.Entry.Name)
				}
				if slices.Contains(c.Kinds, EdgeSkipRange) && !c.Entry.InRange(v) {
					t.Fatalf("skipRange edge %q does not contain %s", c.Entry.SkipRange, v)
				}
			}
			if want := bruteCover(entries, name, v); !slices.Equal(got, want) {
				var desc []string
				for _, e := range entries {
					desc = append(desc, fmt.Sprintf("%s{r=%s s=%v sr=%q}", e.Name, e.Replaces, e.Skips, e.SkipRange))
				}
				t.Fatalf("Cover(%s, %s) = %v, scan says %v\n%s", name, v, got, want, strings.Join(desc, "\n"))
			}
		}
	}
}

func TestBuilderOrder(t *testing.T) {
	// The first blob of a name wins and the package is first named where
	// the first blob naming it is, whatever its schema.
	b := NewBuilder()
	b.Add(declcfg.Blob{Bundle: &declcfg.Bundle{Package: "q", Name: "q.a", Pos: declcfg.Pos{File: "b.yaml", Line: 1}}})
	b.Add(declcfg.Blob{Channel: &declcfg.Channel{Package: "q", Name: "s", Pos: declcfg.Pos{File: "a.yaml", Line: 1}, Entries: []declcfg.ChannelEntry{{Name: "q.a"}}}})
	b.Add(declcfg.Blob{Bundle: &declcfg.Bundle{Package: "q", Name: "q.a", Image: "second", Pos: declcfg.Pos{File: "c.yaml", Line: 1}}})
	b.Add(declcfg.Blob{Channel: &declcfg.Channel{Name: "nameless package"}})
	b.Add(declcfg.Blob{Meta: &declcfg.Meta{Schema: "x", Package: "r"}})
	cat := b.Build()
	if len(cat.Packages) != 1 {
		t.Fatalf("packages %v", cat.PackageNames())
	}
	ps := cat.Problems()
	if len(ps) != 2 || ps[0].Rule != RuleUnknownPackage || ps[0].Pos.File != "b.yaml" || ps[1].Rule != RuleDuplicateBundle || ps[1].Pos.File != "c.yaml" {
		t.Errorf("problems %v", ps)
	}
	if _, chans, bs := cat.Package("q").Duplicates(); len(chans) != 0 || len(bs) != 1 || bs[0].Image != "second" {
		t.Errorf("duplicates: %v %v", chans, bs)
	}
	if cat.Package("q").Bundle("q.a").Image != "" {
		t.Errorf("the second bundle won")
	}
}

func TestAllEntries(t *testing.T) {
	cat := New(&declcfg.DeclarativeConfig{Channels: []declcfg.Channel{{Schema: "olm.channel", Package: "p", Name: "c", Entries: entries("a b<a c<b b!x d")}}})
	ch := cat.Package("p").Channel("c")
	var got []string
	for _, e := range ch.AllEntries() {
		got = append(got, fmt.Sprintf("%s:%d", e.Name, e.Index))
		if ch.Entries[e.Index].Name != e.Name {
			t.Errorf("%s has index %d", e.Name, e.Index)
		}
	}
	if strings.Join(got, " ") != "a:0 b:1 c:2 b:1 d:3" || len(ch.Entries) != 4 {
		t.Errorf("all entries %v", got)
	}
	if ch.AllEntries()[3].Skips[0] != "x" || ch.Entry("b").Replaces != "a" {
		t.Errorf("the repeat is not the later entry")
	}
	single := New(&declcfg.DeclarativeConfig{Channels: []declcfg.Channel{{Schema: "olm.channel", Package: "p", Name: "c", Entries: entries("a b<a")}}})
	if ch := single.Package("p").Channel("c"); len(ch.AllEntries()) != 2 || &ch.AllEntries()[0] != &ch.Entries[0] {
		t.Errorf("without repeats AllEntries is Entries")
	}
}
