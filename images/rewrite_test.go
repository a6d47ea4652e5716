package images

import (
	"strings"
	"testing"

	"github.com/fbc-project/fbc/declcfg"
)

// editsFor makes an edit of every string scalar of data whose value
// contains old, replacing old in it by new.
func editsFor(t testing.TB, data []byte, old, new string) []Edit {
	f := declcfg.ParseFile("f", data)
	var edits []Edit
	var walk func(n *declcfg.Node)
	walk = func(n *declcfg.Node) {
		if n == nil {
			return
		}
		if n.Kind == declcfg.ScalarNode && n.Tag == "!!str" && strings.Contains(n.Value, old) {
			edits = append(edits, Edit{Line: n.Line, Col: n.Column, Quoted: quoteOf(n), Old: n.Value, New: strings.ReplaceAll(n.Value, old, new)})
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	for _, d := range f.Docs {
		walk(d.Node)
	}
	return edits
}

func TestRewrite(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, in, want, err string }{
		{"plain, quoted, flow, comments", `# c
a: q.io/x:v1 # tail
b: "q.io/x:v1"
c: 'q.io/x:v1'
d: [q.io/x:v1, "q.io/x:v1"]
e: {k: q.io/x:v1}
`, `# c
a: q.io/x@sha256:1 # tail
b: "q.io/x@sha256:1"
c: 'q.io/x@sha256:1'
d: [q.io/x@sha256:1, "q.io/x@sha256:1"]
e: {k: q.io/x@sha256:1}
`, ""},
		{"JSON, characters before", `{"é":"ü","a":"q.io/x:v1"}`, `{"é":"ü","a":"q.io/x@sha256:1"}`, ""},
		{"CRLF", "a: q.io/x:v1\r\nb: q.io/x:v1\r\n", "a: q.io/x@sha256:1\r\nb: q.io/x@sha256:1\r\n", ""},
		{"anchors and tags kept, aliases follow", "a: &x q.io/x:v1\nb: *x\nc: &y \"q.io/x:v1\"\nd: !!str &z q.io/x:v1\ne: [&w q.io/x:v1, *w]\nf: &v\n  q.io/x:v1\n",
			"a: &x q.io/x@sha256:1\nb: *x\nc: &y \"q.io/x@sha256:1\"\nd: !!str &z q.io/x@sha256:1\ne: [&w q.io/x@sha256:1, *w]\nf: &v\n  q.io/x@sha256:1\n", ""},
		{"escaped", `{"a":"q.io\/x:v1"}`, "", "escapes"},
		{"block", "a: |\n  q.io/x:v1\n", "", "block scalar"},
		{"folded over lines", "a: q.io/x:v1\n  more\n", "", "not written there as it reads"},
	} {
		t.Run(c.name, func(t *testing.T) {
			edits := editsFor(t, []byte(c.in), ":v1", "@sha256:1")
			if len(edits) == 0 {
				t.Fatal("no edits")
			}
			got, err := Rewrite([]byte(c.in), edits)
			switch {
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Errorf("error %v, want %q", err, c.err)
			case c.err == "" && err != nil:
				t.Error(err)
			case c.err == "" && string(got) != c.want:
				t.Errorf("got:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
	if _, err := Rewrite([]byte("a: b\n"), []Edit{{Line: 1, Col: 4, Old: "b", New: "x y"}}); err == nil {
		t.Error("a replacement that is not a reference was written")
	}
	if _, err := Rewrite([]byte("a: b\n"), []Edit{{Line: 3, Col: 1, Old: "b", New: "c"}}); err == nil {
		t.Error("a position past the end was accepted")
	}
}

// FuzzRewrite: rewriting the references of a document changes exactly
// those values: the document read back has the same tree with the new
// values, or Rewrite refuses (never a silent corruption).
func FuzzRewrite(f *testing.F) {
	for _, s := range []string{
		"a: q.io/x:v1 # c\nb: \"q.io/x:v1\"\nc: 'q.io/x:v1'\n",
		`{"image":"q.io/x:v1","relatedImages":[{"name":"","image":"q.io/x:v1"}]}`,
		"entries:\n- {schema: olm.bundle, image: q.io/x:v1}\n- image: >-\n    q.io/x:v1\n",
		"a: \"q.io/x:v1\\u0041\"\n",
		"a: &x q.io/x:v1\nb: *x\n",
		"---\na: q.io/x:v1\n---\nb: [q.io/x:v1]\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		before := declcfg.ParseFile("f", data)
		if len(before.Errors) > 0 {
			return
		}
		edits := editsFor(t, data, ":v1", "@sha256:1")
		out, err := Rewrite(data, dedupEdits(edits))
		if err != nil {
			return
		}
		after := declcfg.ParseFile("f", out)
		if len(after.Errors) > 0 || len(after.Docs) != len(before.Docs) {
			t.Fatalf("rewritten file no longer reads: %v\n%s", after.Errors, out)
		}
		for i := range before.Docs {
			want, _ := declcfg.NodeToJSON(before.Docs[i].Node, true)
			got, _ := declcfg.NodeToJSON(after.Docs[i].Node, true)
			if string(got) != strings.ReplaceAll(string(want), ":v1", "@sha256:1") {
				t.Fatalf("document %d:\n got %s\nwant %s (from %s)", i, got, want, out)
			}
		}
	})
}

// dedupEdits drops edits of the same position (an alias read twice).
func dedupEdits(edits []Edit) []Edit {
	seen := map[[2]int]bool{}
	var out []Edit
	for _, e := range edits {
		k := [2]int{e.Line, e.Col}
		if !seen[k] {
			seen[k] = true
			out = append(out, e)
		}
	}
	return out
}

// FuzzParseMirrorSets: any input parses or fails with a positioned error,
// never a panic; what parses gives pulls that end with the reference
// itself or a mirror's rewrite of it.
func FuzzParseMirrorSets(f *testing.F) {
	for _, s := range []string{
		"kind: ImageDigestMirrorSet\nspec:\n  imageDigestMirrors:\n  - source: q.io/a\n    mirrors: [m.io/b]\n",
		"kind: ImageTagMirrorSet\nspec:\n  imageTagMirrors:\n  - source: \"*.q.io\"\n    mirrors: [m.io]\n    mirrorSourcePolicy: NeverContactSource\n",
		"kind: List\nitems:\n- kind: ImageContentSourcePolicy\n  spec:\n    repositoryDigestMirrors:\n    - {source: q.io, mirrors: [m.io/x]}\n",
		"kind: Deployment\n",
		"",
	} {
		f.Add([]byte(s), "q.io/a/b:v1")
	}
	f.Fuzz(func(t *testing.T, data []byte, ref string) {
		if len(data) > 1<<16 {
			return
		}
		ms := &MirrorSets{}
		if err := ms.Parse("f", data); err != nil {
			if !strings.HasPrefix(err.Error(), "f") {
				t.Fatalf("error without the file: %v", err)
			}
			return
		}
		pulls := ms.Pulls(ref)
		if len(pulls) == 0 {
			t.Fatalf("no pulls for %q", ref)
		}
		if src, ok := ms.SourceOf(ref); ok && src == "" {
			t.Fatalf("empty source for %q", ref)
		}
	})
}
