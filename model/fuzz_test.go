package model

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/blang/semver/v4"

	"github.com/fbc-project/fbc/declcfg"
)

// FuzzBuild feeds arbitrary files through the loader into the model: no
// blob may make the builder, the rules or any query panic or loop, and
// the problems must come out the same twice.
func FuzzBuild(f *testing.F) {
	f.Add([]byte(okPackage + "schema: olm.channel\npackage: p\nname: stable\nentries: [{name: p.a}, {name: p.b, replaces: p.a, skips: [p.a, p.x], skipRange: '<1.1.0'}]\n" + bundles("p.a", "p.b")))
	f.Add([]byte("schema: olm.channel\npackage: p\nname: c\nentries: [{name: a, replaces: b}, {name: b, replaces: a}, {name: c, replaces: a}, {name: a}]\n"))
	f.Add([]byte("schema: olm.channel\npackage: p\nname: c\nentries: [{name: a, replaces: a, skips: [a, '', ~]}, {skipRange: '< 1 || || >2'}]\n"))
	f.Add([]byte(okPackage + "schema: olm.deprecations\npackage: p\nentries: [{reference: {schema: olm.bundle, name: x}}, {reference: {schema: olm.package, name: p}}, {reference: {}}]\n---\nschema: olm.deprecations\npackage: p\n"))
	f.Add([]byte(`{"schema":"olm.bundle","package":"p","name":"p.a","properties":[{"type":"olm.package","value":{"packageName":"p","version":"1.0.0","release":"01"}},{"type":"olm.constraint","value":{"all":{"constraints":[{"package":{"packageName":"q","versionRange":"|| ||"}}]}}},{"type":"olm.gvk.required","value":null},{"type":"olm.bundle.object","value":{"data":"a2luZDogQ2x1c3RlclNlcnZpY2VWZXJzaW9u"}}]}`))
	f.Add([]byte("schema: olm.package\nname: p\ndefaultChannel: [x]\n---\nschema: olm.channel\npackage: p\nname: s\nentries: []\n"))
	f.Add([]byte(`{"Channels":[{"package":"p","name":"c","entries":[{"name":"a","replaces":"a","skips":["a"]},{"name":"a"}]}],"Bundles":[{"package":"p","name":"a","properties":[{"type":"olm.gvk","value":null},{"type":"olm.constraint","value":{"not":{}}}]}],"Deprecations":[{"package":"p","entries":[{"reference":{"schema":"olm.bundle","name":"a"}}]},{"package":"p"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		cfg, _ := declcfg.LoadBytes("f.yaml", data)
		cat := New(cfg)
		first := slices.Clone(cat.Problems())
		if again := New(cfg).Problems(); !slices.Equal(first, again) {
			t.Fatalf("two builds disagree:\n%v\n%v", first, again)
		}
		exercise(cat)
		// Blobs made in memory, which no loader checked: the same bytes as
		// a JSON DeclarativeConfig.
		var mem declcfg.DeclarativeConfig
		if json.Unmarshal(data, &mem) == nil {
			exercise(New(&mem))
		}
	})
}

// exercise runs every query of the model on every package, channel and
// bundle.
func exercise(cat *Catalog) {
	_ = cat.Problems()
	v := semver.MustParse("1.0.0")
	for _, p := range cat.Packages {
		_ = p.Default()
		for _, ch := range p.Channels {
			_ = ch.Head()
			_, _ = ch.Order()
			_ = ch.Stranded()
			_ = ch.Edges()
			ix := NewEdgeIndex(ch.AllEntries())
			for _, e := range ch.Entries {
				_ = ix.Cover(e.Name, &v)
				_ = cat.Replacing(e.Name)
			}
		}
		for _, b := range p.Bundles {
			for _, g := range b.Provides() {
				_ = cat.ProvidedBy(g)
			}
			_, _ = b.CSVJSON()
		}
	}
}
