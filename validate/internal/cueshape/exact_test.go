package cueshape

import (
	"testing"
	"testing/fstest"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/validate/internal/shape"
)

// WalkExact reads a file as a JSON schema validator reads YAML: keys as
// written, null a value of its own. Walk, on the same document, reads it as
// opm does.
func TestWalkExact(t *testing.T) {
	fsys := fstest.MapFS{"s/s.cue": {Data: []byte(`package s
files: "f": #F
#F: {
	name!: string
	enabled?: bool
	items?: [...string]
	sub?: {a?: string}
}
`)}}
	rt := NewRuntime()
	v, err := rt.Load(fsys, "s", "s")
	if err != nil {
		t.Fatal(err)
	}
	var c Compiler
	table, err := c.Table(v, "schemas", "properties", "files")
	if err != nil {
		t.Fatal(err)
	}
	m, err := shape.Build(table)
	if err != nil {
		t.Fatal(err)
	}
	sh := m.Files["f"]
	for _, tc := range []struct {
		doc          string
		walk, strict []string
	}{
		{doc: "name: x\nenabled: yes\nitems: [a]\n"},
		{doc: "name: x\nenabled:\n", strict: []string{"field-type enabled"}},
		{doc: "name:\n", walk: []string{"missing-field name"}, strict: []string{"field-type name"}},
		{doc: "Name: x\n", walk: []string{"key-case Name"}, strict: []string{"unknown-field Name", "missing-field name"}},
		{doc: "name: x\nsub: {A: z}\n", walk: []string{"key-case sub.A"}, strict: []string{"unknown-field sub.A"}},
		{doc: "name: x\nitems: [a, ~]\n", walk: []string{"field-type items[1]"}, strict: []string{"field-type items[1]"}},
	} {
		docs, err := declcfg.ParseYAML([]byte(tc.doc))
		if err != nil {
			t.Fatal(err)
		}
		for _, mode := range []struct {
			name string
			walk func(*declcfg.Node, *shape.Path, shape.Report)
			want []string
		}{{"Walk", sh.Walk, tc.walk}, {"WalkExact", sh.WalkExact, tc.strict}} {
			var got []string
			mode.walk(docs[0].Node, nil, func(rule string, _ *declcfg.Node, p *shape.Path, _ string) {
				got = append(got, rule+" "+p.String())
			})
			if len(got) != len(mode.want) {
				t.Errorf("%s of %q: got %q, want %q", mode.name, tc.doc, got, mode.want)
				continue
			}
			for i := range got {
				if got[i] != mode.want[i] {
					t.Errorf("%s of %q: got %q, want %q", mode.name, tc.doc, got, mode.want)
					break
				}
			}
		}
	}
}
