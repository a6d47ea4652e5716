package graph

import (
	"testing"

	"github.com/fbc-project/fbc/graph/graphtest"
)

// A resolver that remembers its steps gives every path the resolver that
// does not gives: on a synthetic channel with replaces, skips and
// skipRanges, under both semantics, from every bundle and for a fresh
// install.
func TestRememberGivesTheSamePaths(t *testing.T) {
	cat := New(graphtest.SyntheticChannel(60), nil)
	p := cat.Package("p")
	for _, opts := range []Options{
		{Semantics: Classic, Channels: []string{"stable"}},
		{Semantics: Classic},
		{Semantics: V1},
		{Semantics: V1, Channels: []string{"stable"}},
	} {
		plain, err := NewResolver(p, opts)
		if err != nil {
			t.Fatal(err)
		}
		memo, _ := NewResolver(p, opts)
		memo.Remember()
		froms := []*Installed{nil}
		for _, b := range p.Bundles {
			froms = append(froms, &Installed{Name: b.Name, Version: b.Version})
		}
		// Twice: the second round reads only remembered steps.
		for range 2 {
			for _, from := range froms {
				want, got := plain.Path(from), memo.Path(from)
				if want.Line() != got.Line() || len(want.Steps) != len(got.Steps) {
					t.Fatalf("%+v from %v: remembered %q (%d steps), want %q (%d steps)", opts, from, got.Line(), len(got.Steps), want.Line(), len(want.Steps))
				}
				for i := range want.Steps {
					if want.Steps[i].Reason != got.Steps[i].Reason {
						t.Fatalf("%+v from %v step %d: reason %q, want %q", opts, from, i, got.Steps[i].Reason, want.Steps[i].Reason)
					}
				}
			}
		}
	}
}
