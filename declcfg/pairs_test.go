package declcfg

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/fbc-project/fbc/internal/sharedtest"
)

// samePlainEntries compares the two readings of every mapping under n.
func samePlainEntries(t *testing.T, n *Node, depth int) {
	if n == nil || depth > 100 {
		return
	}
	if n.Kind == MappingNode && !hasMergeKey(n) {
		// Appended after entries already there, which stay as they are.
		prefix := []MapEntry{{Key: "before"}}
		all, gerr := AppendMappingEntries(prefix, n)
		got := all[1:]
		want, werr := pairEntries(n)
		if werr != nil {
			got = nil
		}
		if fmt.Sprint(gerr) != fmt.Sprint(werr) || !reflect.DeepEqual(got, want) || all[0].Key != "before" || (gerr != nil && len(all) != 1) {
			t.Fatalf("mapping at %d:%d: %v %v, through pairs %v %v", n.Line, n.Column, all, gerr, want, werr)
		}
		one, err := MappingEntries(n)
		if fmt.Sprint(err) != fmt.Sprint(werr) || !reflect.DeepEqual(one, want) {
			t.Fatalf("mapping at %d:%d: MappingEntries %v %v, through pairs %v %v", n.Line, n.Column, one, err, want, werr)
		}
	}
	for _, c := range n.Content {
		samePlainEntries(t, c, depth+1)
	}
}

// TestPlainEntries: mappings without merge keys are read in one pass as
// mappingPairs reads them, problems included, by MappingEntries and by
// AppendMappingEntries.
func TestPlainEntries(t *testing.T) {
	for _, src := range []string{
		"a: 1\nb: 2\n", "a: 1\na: 2\n", "{a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7, h: 8, i: 9, a: 10}\n",
		"? [x]\n: 1\n", "{}\n", "a: &x {b: 1}\nc: *x\n",
	} {
		docs, err := ParseYAML([]byte(src))
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range docs {
			samePlainEntries(t, d.Node, 0)
		}
	}
	if testing.Short() {
		return
	}
	path := filepath.Join(sharedtest.Corpus(t), "certified-operators/catalogs/v4.18")
	err := WalkPath(context.Background(), path, nil, WalkOptions{}, func(f *File) error {
		for _, d := range f.Docs {
			samePlainEntries(t, d.Node, 0)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
