package fastyaml_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"github.com/fbc-project/fbc/declcfg/internal/fastyaml"
	"github.com/fbc-project/fbc/declcfg/internal/fastyaml/fastyamltest"
	"github.com/fbc-project/fbc/declcfg/internal/tree"
	"github.com/fbc-project/fbc/internal/sharedtest"
)

// decodeV3 parses a stream with yaml.v3, the library fastyaml stands in for.
func decodeV3(data []byte) ([]fastyaml.Doc, error) {
	var docs []fastyaml.Doc
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		docs = append(docs, fastyaml.DocOf(&doc))
	}
}

// compareFast parses data both ways; fastOK tells whether the fast path took
// it. A difference is an error.
func compareFast(data []byte) (fastOK bool, err error) {
	fast, ok := fastyaml.Parse(data, false)
	if !ok {
		return false, nil
	}
	// Borrowing long scalars from data changes where values live, never
	// what they are.
	if borrowed, ok := fastyaml.Parse(data, true); !ok {
		return true, fmt.Errorf("the fast path took the input only without borrowing")
	} else if err := fastyamltest.SameDocs(borrowed, fast); err != nil {
		return true, fmt.Errorf("borrowing: %v", err)
	}
	// A text parsed as starting further down its file has the same trees,
	// each line moved by as much.
	if at, ok := fastyaml.ParseAt(data, false, 41); !ok {
		return true, fmt.Errorf("the fast path took the input only at line 1")
	} else if err := fastyamltest.SameDocs(at, shifted(fast, 40)); err != nil {
		return true, fmt.Errorf("parsed at line 41: %v", err)
	}
	slow, err := decodeV3(data)
	if err != nil {
		return true, fmt.Errorf("fast path accepted input yaml.v3 rejects: %v", err)
	}
	return true, fastyamltest.SameDocs(fast, slow)
}

// shifted copies documents n lines further down.
func shifted(docs []fastyaml.Doc, n int) []fastyaml.Doc {
	var shift func(t *tree.Node) *tree.Node
	shift = func(t *tree.Node) *tree.Node {
		if t == nil {
			return nil
		}
		c := *t
		c.Line += n
		c.Content = nil
		for _, k := range t.Content {
			c.Content = append(c.Content, shift(k))
		}
		return &c
	}
	out := make([]fastyaml.Doc, len(docs))
	for i, d := range docs {
		out[i] = fastyaml.Doc{Node: shift(d.Node), Line: d.Line + n, Empty: d.Empty}
	}
	return out
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
	root := sharedtest.Corpus(t)
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
	fastyamltest.AddSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		if _, err := compareFast(data); err != nil {
			t.Fatalf("%v\ninput: %q", err, data)
		}
	})
}
