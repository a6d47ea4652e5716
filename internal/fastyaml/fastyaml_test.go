package declcfg

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// sameTree reports the first difference between two node trees, comparing
// what the rest of fbc reads: kind, resolved tag, value, style and position.
func sameTree(a, b *yaml.Node, path string) error {
	if a == nil || b == nil {
		if a != b {
			return fmt.Errorf("%s: one side is nil", path)
		}
		return nil
	}
	style := func(n *yaml.Node) yaml.Style { return n.Style &^ (yaml.TaggedStyle) }
	if a.Kind != b.Kind || a.ShortTag() != b.ShortTag() || a.Value != b.Value || style(a) != style(b) ||
		a.Line != b.Line || a.Column != b.Column || len(a.Content) != len(b.Content) {
		return fmt.Errorf("%s: fast {kind %d tag %s style %d %d:%d len %d %.60q} != yaml.v3 {kind %d tag %s style %d %d:%d len %d %.60q}", path,
			a.Kind, a.ShortTag(), a.Style, a.Line, a.Column, len(a.Content), a.Value,
			b.Kind, b.ShortTag(), b.Style, b.Line, b.Column, len(b.Content), b.Value)
	}
	for i := range a.Content {
		if err := sameTree(a.Content[i], b.Content[i], fmt.Sprintf("%s/%d", path, i)); err != nil {
			return err
		}
	}
	return nil
}

// compareFast parses data both ways; fastOK tells whether the fast path took
// it. A difference is an error.
func compareFast(data []byte) (fastOK bool, err error) {
	fast, ok := fastParseYAML(data, false)
	if !ok {
		return false, nil
	}
	// Borrowing long scalars from data changes where values live, never
	// what they are.
	if borrowed, ok := fastParseYAML(data, true); !ok {
		return true, fmt.Errorf("the fast path took the input only without borrowing")
	} else if err := sameDocs(borrowed, fast); err != nil {
		return true, fmt.Errorf("borrowing: %v", err)
	}
	var slow []yamlDoc
	if err := parseYAMLv3(data, func(d yamlDoc) error { slow = append(slow, d); return nil }); err != nil {
		return true, fmt.Errorf("fast path accepted input yaml.v3 rejects: %v", err)
	}
	return true, sameDocs(fast, slow)
}

// sameDocs reports the first difference between two parses of a stream:
// the documents, which are empty, and each other's line and tree.
func sameDocs(got, want []yamlDoc) error {
	if len(got) != len(want) {
		return fmt.Errorf("found %d documents, yaml.v3 %d", len(got), len(want))
	}
	for i := range got {
		if got[i].Empty != want[i].Empty {
			return fmt.Errorf("document %d: empty %v/%v", i, got[i].Empty, want[i].Empty)
		}
		if got[i].Empty {
			continue
		}
		if got[i].Line != want[i].Line {
			return fmt.Errorf("document %d: line %d/%d", i, got[i].Line, want[i].Line)
		}
		if err := sameTree(got[i].Node, want[i].Node, fmt.Sprintf("doc%d", i)); err != nil {
			return err
		}
	}
	return nil
}

func TestFastYAMLMatchesYAMLv3(t *testing.T) {
	cases := map[string]string{
		"opm style":        "---\nschema: olm.channel\nname: s\npackage: p\nentries:\n- name: a\n  replaces: b\n  skips:\n  - c\n  - d\n- name: e\n",
		"nested":           "a:\n  b:\n    - x\n    - y: 1\n      z: []\n",
		"literal":          "a: |\n  line one\n\n  line three\n    indented\nb: |-\n  strip\n\nc: |+\n  keep\n\n\nd: x\n",
		"plain fold":       "description: this is a long\n  plain scalar folded\n\n  with a paragraph\nnext: 1\n",
		"quoted":           "a: \"x\\ty\\u00e9\\\"q\\\"\"\nb: 'it''s'\n\"c d\": e\n",
		"scalars":          "a: 1\nb: 1.5\nc: true\nd: null\ne: ~\nf: 0x1F\ng: 2021-01-01\nh: .inf\ni: 1.0.0\nj: -3\n",
		"empties":          "a: {}\nb: []\n",
		"docs":             "---\na: 1\n---\n---\nb: 2\n",
		"no final newline": "a: |\n  x",
		"unicode":          "é: ü\nk: \"é\": x\n",
		"seq of seq":       "- - a\n",
		"comment":          "# c\na: 1\n",
		"anchor":           "a: &x 1\nb: *x\n",
		"flow":             "a: {b: 1}\n",
		"folded":           "a: >\n  x\n",
		"sq lines":         "- description: 'version of the\n    drivers, it''s\n\n    here'\n  x: 1\n",
		"dq lines":         "a: \"one \\\n  two\n  three\\ttab\n\n\n  four\"\nb: 2\n",
		"plain quote cont": "a: the default\n  \"10000 ms\" is used.\n",
		// dell-csm-operator-certified (certified v4.18): a continuation line
		// that starts with "- " is content, not a sequence item.
		"plain dash cont": "- description: CSIDriverType is the CSI Driver type for Dell Technologies\n    - e.g, powermax, powerflex,...\n  displayName: CSI Driver Type\n",
		"plain dash only": "a: x\n  -\n  - y\n  [z] {w} &v *u !t |s >r 'q \"p %o @n `m ?l\nb: 1\n",
		"plain dash seq":  "k:\n- x\n  - y\n- z\n",
		// kubecost-operator and stackgres-community: indentation indicators.
		"literal 2-":      "spec:\n  install:\n    description: |2-\n        indented\n      text\n\n    next: 1\n",
		"literal 2":       "a: |2\n    x\n  y\n\n\nb: 1\n",
		"literal -2 +1":   "- a: |-2\n      x\n    y\n  b: |+1\n    z\n\n- |2\n   w\n",
		"literal blank 2": "a: |2\n  \n \n  x\nb: 1\n",
		"literal 1 seq":   "k:\n- |1\n  x\n y\n",
	}
	// These are outside the fast path's subset; everything else must take it.
	slowOnly := map[string]bool{"seq of seq": true, "comment": true, "anchor": true, "flow": true, "folded": true, "unicode": true}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			ok, err := compareFast([]byte(src))
			if err != nil {
				t.Fatal(err)
			}
			if ok == slowOnly[name] {
				t.Errorf("fast path taken = %v, want %v", ok, !slowOnly[name])
			}
		})
	}
}

// TestFastYAMLCorpus holds the fast path to yaml.v3 on every YAML file of the
// shared corpus (catalogs, templates, bundle manifests) and reports how many
// it takes.
func TestFastYAMLCorpus(t *testing.T) {
	// Files that once left the fast path (a plain scalar's continuation
	// starting with "- ", indentation indicators): they must stay on it.
	mustBeFast := []string{
		"certified-operators/catalogs/v4.18/dell-csm-operator-certified/catalog.yaml",
		"certified-operators/catalogs/v4.18/kubecost-operator/catalog.yaml",
		"community-operators-prod/catalogs/v4.22/stackgres-community/catalog.yaml",
	}
	root := filepath.Join("..", "..", "shared", "corpus")
	if d := os.Getenv("FBC_SHARED"); d != "" {
		root = filepath.Join(d, "corpus")
	}
	if _, err := os.Stat(root); err != nil {
		t.Skipf("corpus not available: %v", err)
	}
	var files, fast, catalogs, catalogsFast int
	var fastBytes, allBytes int64
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files++
		allBytes += int64(len(data))
		ok, cerr := compareFast(data)
		if cerr != nil {
			t.Errorf("%s: %v", p, cerr)
		}
		isCatalog := strings.Contains(p, "/catalogs/")
		if isCatalog {
			catalogs++
		}
		if ok {
			fast++
			fastBytes += int64(len(data))
			if isCatalog {
				catalogsFast++
			}
		} else if isCatalog {
			t.Logf("catalog file not on the fast path: %s", p)
			for _, f := range mustBeFast {
				if strings.HasSuffix(p, f) {
					t.Errorf("%s: not on the fast path", p)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("fast path: %d of %d YAML files (%d of %d MB); catalogs: %d of %d", fast, files, fastBytes>>20, allBytes>>20, catalogsFast, catalogs)
}

// FuzzFastYAML: whatever the fast path accepts, yaml.v3 must parse to the
// same trees.
func FuzzFastYAML(f *testing.F) {
	for _, s := range []string{
		"---\nschema: olm.channel\nentries:\n- name: a\n  skips:\n  - b\n",
		"a: |\n  x\n\n  y\nb: |-\n  z\n",
		"a: 'x\n  y'\nb: \"p\\\n  q\"\n",
		"a: plain\n  folded\n\n  more\n",
		"k: {}\nl: []\nm: 1.0\nn: ~\n",
		"- a\n- b: c\n  d: e\n",
		"- description: type\n    - e.g, a, b,...\n  x: 1\n",
		"a: |2-\n    x\n  y\nb: |+1\n  z\n\n",
		"k:\n- |-2\n   x\n",
		"a: x\n---\nb: &y 1\nc: *y\n---\nd: 2\n",
		"a: " + strings.Repeat("QUJD", 300) + "\nb: |\n  " + strings.Repeat("x", 1100) + "\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		if _, err := compareFast(data); err != nil {
			t.Fatalf("%v\ninput: %q", err, data)
		}
		if err := compareStream(data); err != nil {
			t.Fatalf("%v\ninput: %q", err, data)
		}
	})
}

// compareStream holds parseYAMLStream (the fast path, document by document
// where it does not take the whole stream) to yaml.v3 on the whole stream:
// the same documents, or the same error.
func compareStream(data []byte) error {
	var got, want []yamlDoc
	gerr := parseYAMLStream(data, false, func(d yamlDoc) error { got = append(got, d); return nil })
	werr := parseYAMLv3(data, func(d yamlDoc) error { want = append(want, d); return nil })
	if gerr != nil || werr != nil {
		if gerr == nil || werr == nil || gerr.Error() != werr.Error() || *asParseError(gerr) != *asParseError(werr) {
			return fmt.Errorf("stream error %v, yaml.v3 %v", gerr, werr)
		}
		return nil
	}
	return sameDocs(got, want)
}

// TestParseYAMLStreamPerDocument: a document the fast path cannot read costs
// only itself; the others stay on the fast path, and everything keeps its
// line and column in the file.
func TestParseYAMLStreamPerDocument(t *testing.T) {
	for name, src := range map[string]string{
		"folded in the middle": "---\na: 1\n---\nb: >\n  folded\n  text\nc: [x, y]\n---\nd: |\n  lit\n",
		"comment first":        "# head\n---\na: 1\n---\nb: 2 # c\n",
		"anchors":              "a: &x 1\n---\nb: &x 2\nc: *x\n---\nd: 3\n",
		"directive":            "a: 1\n---\nb: &x 2\n...\n%YAML 1.2\n---\nc: 3\n",
		"error":                "a: 1\n---\nb: [\n---\nc: 3\n",
		"unknown alias":        "a: &x 1\n---\nb: *x\n",
	} {
		t.Run(name, func(t *testing.T) {
			if err := compareStream([]byte(src)); err != nil {
				t.Fatal(err)
			}
		})
	}
	// The document the fast path cannot read is the only one yaml.v3 reads.
	src := []byte("---\na: 1\n---\nb: >\n  x\n---\nc: 2\n")
	if _, ok := fastParseYAML(src, false); ok {
		t.Fatal("the fast path took a folded scalar")
	}
	docs, ok := parseYAMLDocs(src, false)
	if !ok || len(docs) != 3 || docs[2].Node.Content[0].Line != 7 || docs[1].Node.Content[1].Line != 4 || docs[1].Node.Content[1].Column != 4 {
		t.Fatalf("parseYAMLDocs: ok %v, %d documents", ok, len(docs))
	}
}
