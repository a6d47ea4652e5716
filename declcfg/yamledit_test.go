package declcfg

import (
	"strings"
	"testing"
)

// key returns the value of key in mapping m.
func key(t *testing.T, m *Node, k string) *Node {
	t.Helper()
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == k {
			return m.Content[i+1]
		}
	}
	t.Fatalf("no key %q", k)
	return nil
}

func entry(name, replaces string) *Node {
	n := MappingOf(StringNode("name"), StringNode(name))
	if replaces != "" {
		n.Content = append(n.Content, StringNode("replaces"), StringNode(replaces))
	}
	return n
}

func TestYAMLTextSplices(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		in   string
		edit func(t *testing.T, y *YAMLText) error
		want string
		// rewritten: the splice cannot keep the layout.
		rewritten bool
	}{{
		name: "channel entry and bundle, compact lists, comments kept",
		in: `---
# the package
entries:
- schema: olm.package
  name: op   # inline
- schema: olm.channel
  name: stable
  package: op
  entries:
  - name: op.v1.0.0
  - name: op.v1.1.0
    replaces: op.v1.0.0
    skips:
    - op.v1.0.1
  # about the channel
- schema: olm.bundle
  image: "quay.io/op:1.0.0"

# trailing
schema: olm.template.basic
`,
		edit: func(t *testing.T, y *YAMLText) error {
			ch := key(t, key(t, y.Root(), "entries").Content[1], "entries")
			if err := y.Append(ch, entry("op.v1.2.0", "op.v1.1.0")); err != nil {
				return err
			}
			return y.Append(key(t, y.Root(), "entries"), MappingOf(StringNode("schema"), StringNode("olm.bundle"), StringNode("image"), StringNode("quay.io/op:1.2.0")))
		},
		want: `---
# the package
entries:
- schema: olm.package
  name: op   # inline
- schema: olm.channel
  name: stable
  package: op
  entries:
  - name: op.v1.0.0
  - name: op.v1.1.0
    replaces: op.v1.0.0
    skips:
    - op.v1.0.1
  - name: op.v1.2.0
    replaces: op.v1.1.0
  # about the channel
- schema: olm.bundle
  image: "quay.io/op:1.0.0"
- schema: olm.bundle
  image: quay.io/op:1.2.0

# trailing
schema: olm.template.basic
`,
	}, {
		name: "indented lists and four-space mappings",
		in: `schema: olm.template.basic
entries:
    -   schema: olm.channel
        name: stable
        entries:
            -   name: op.v1.0.0
    -   schema: olm.bundle
        image: quay.io/op:1.0.0
`,
		edit: func(t *testing.T, y *YAMLText) error {
			ch := key(t, key(t, y.Root(), "entries").Content[0], "entries")
			e := entry("op.v1.1.0", "op.v1.0.0")
			e.Content = append(e.Content, StringNode("skips"), SequenceOf(StringNode("a")))
			return y.Append(ch, e)
		},
		want: `schema: olm.template.basic
entries:
    -   schema: olm.channel
        name: stable
        entries:
            -   name: op.v1.0.0
            - name: op.v1.1.0
              replaces: op.v1.0.0
              skips:
                  - a
    -   schema: olm.bundle
        image: quay.io/op:1.0.0
`,
	}, {
		name: "semver channel at the end, no final newline",
		in:   "---\nSchema: olm.semver\nGenerateMajorChannels: true\nGenerateMinorChannels: false",
		edit: func(t *testing.T, y *YAMLText) error {
			return y.AddKey(y.Root(), "Stable", MappingOf(StringNode("Bundles"), SequenceOf(MappingOf(StringNode("Image"), StringNode("quay.io/op:0.0.27")))))
		},
		want: "---\nSchema: olm.semver\nGenerateMajorChannels: true\nGenerateMinorChannels: false\nStable:\n  Bundles:\n  - Image: quay.io/op:0.0.27\n",
	}, {
		name: "semver bundle after a compact list, before a later key",
		in:   "Schema: olm.semver\nStable:\n  Bundles:\n  - Image: a # first\n  - Image: b\nCandidate:\n  Bundles: []\n",
		edit: func(t *testing.T, y *YAMLText) error {
			if err := y.Append(key(t, key(t, y.Root(), "Stable"), "Bundles"), MappingOf(StringNode("Image"), StringNode("c"))); err != nil {
				return err
			}
			return y.Append(key(t, key(t, y.Root(), "Candidate"), "Bundles"), MappingOf(StringNode("Image"), StringNode("c")))
		},
		want: "Schema: olm.semver\nStable:\n  Bundles:\n  - Image: a # first\n  - Image: b\n  - Image: c\nCandidate:\n  Bundles:\n  - Image: c\n",
	}, {
		name: "an empty flow list with a comment",
		in:   "entries:\n- schema: olm.channel\n  name: fast\n  entries: [ ]  # none yet\n  package: op\n",
		edit: func(t *testing.T, y *YAMLText) error {
			return y.Append(key(t, key(t, y.Root(), "entries").Content[0], "entries"), entry("op.v1", ""))
		},
		want: "entries:\n- schema: olm.channel\n  name: fast\n  entries: # none yet\n  - name: op.v1\n  package: op\n",
	}, {
		name: "a document end marker",
		in:   "a:\n- 1\n...\n",
		edit: func(t *testing.T, y *YAMLText) error {
			return y.Append(key(t, y.Root(), "a"), &Node{Kind: ScalarNode, Tag: "!!int", Value: "2"})
		},
		want: "a:\n- 1\n- 2\n...\n",
	}, {
		name: "strings that need quotes keep being strings",
		in:   "channels:\n- stable\n",
		edit: func(t *testing.T, y *YAMLText) error {
			if err := y.Append(key(t, y.Root(), "channels"), StringNode("1.24")); err != nil {
				return err
			}
			return y.Append(key(t, y.Root(), "channels"), &Node{Kind: ScalarNode, Tag: "!!str", Value: "yes", Style: SingleQuotedStyle})
		},
		want: "channels:\n- stable\n- \"1.24\"\n- 'yes'\n",
	}, {
		name:      "a flow list with items is written again",
		in:        "# keep me\nentries: [a, b]\nother: 1\n",
		edit:      func(t *testing.T, y *YAMLText) error { return y.Append(key(t, y.Root(), "entries"), StringNode("c")) },
		want:      "# keep me\nentries:\n- a\n- b\n- c\nother: 1\n",
		rewritten: true,
	}, {
		name: "a literal block keeping its blank lines is written again",
		in:   "a:\n- |+\n  text\n\nb: 1\n",
		edit: func(t *testing.T, y *YAMLText) error {
			return y.Append(key(t, y.Root(), "a"), StringNode("x"))
		},
		want:      "a:\n- |+\n  text\n\n- x\nb: 1\n",
		rewritten: true,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			y, err := EditYAML("t.yaml", []byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if err := tc.edit(t, y); err != nil {
				t.Fatal(err)
			}
			if got := string(y.Bytes()); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			if y.Rewritten != tc.rewritten {
				t.Errorf("Rewritten = %v, want %v", y.Rewritten, tc.rewritten)
			}
		})
	}
}

func TestYAMLTextErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"a: [\n", "t.yaml:2: did not find expected node content"},
		{"a: 1\n---\nb: 2\n", "t.yaml:2: holds more than one YAML document"},
	} {
		_, err := EditYAML("t.yaml", []byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("EditYAML(%q) = %v, want %q", tc.in, err, tc.want)
		}
	}
	y, err := EditYAML("t.yaml", []byte("# only a comment\n"))
	if err != nil || y.Root() != nil {
		t.Errorf("a comment-only text: %v, %v", y.Root(), err)
	}
	y, _ = EditYAML("t.yaml", []byte("a: 1\nb: [x]\n"))
	old := y.Root()
	if err := y.Append(key(t, old, "a"), StringNode("x")); err == nil || !strings.Contains(err.Error(), "t.yaml:1:4: a number is not a list") {
		t.Errorf("appending to a scalar: %v", err)
	}
	if err := y.Append(key(t, old, "b"), StringNode("y")); err != nil {
		t.Fatal(err)
	}
	if err := y.Append(key(t, old, "b"), StringNode("z")); err == nil {
		t.Error("a node of an earlier tree was edited")
	}
}

func TestEncodeYAML(t *testing.T) {
	t.Parallel()
	out, err := EncodeYAML(MappingOf(
		StringNode("schema"), StringNode("olm.template.basic"),
		StringNode("entries"), SequenceOf(
			MappingOf(StringNode("schema"), StringNode("olm.package"), StringNode("name"), StringNode("op"), StringNode("defaultChannel"), StringNode("1.24")),
			MappingOf(StringNode("schema"), StringNode("olm.channel"), StringNode("entries"), SequenceOf(entry("op.v1", ""))),
		)))
	if err != nil {
		t.Fatal(err)
	}
	want := `---
schema: olm.template.basic
entries:
- schema: olm.package
  name: op
  defaultChannel: "1.24"
- schema: olm.channel
  entries:
  - name: op.v1
`
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

// FuzzYAMLTextEdit holds splicing to its promise on any YAML: the text
// after an edit parses to the document with the edit made, whether the
// edit was spliced or the document written again.
func FuzzYAMLTextEdit(f *testing.F) {
	for _, s := range []string{
		"entries:\n- a\n- b: 1\n  c:\n  - d\nx: 1\n",
		"a:\n  b: [ ]\n  c: {}\n",
		"- |+\n  keep\n\n",
		"k: 'x\n\n  y'\nl:\n  - 1\n  # c\n",
		"a: &x [1]\nb: *x\n",
		"---\n# c\nSchema: olm.semver\nStable:\n  Bundles:\n  - Image: a\n...\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(fuzzBody)
}

func fuzzBody(t *testing.T, data []byte) {
	{
		if len(data) > 4096 {
			return
		}
		y, err := EditYAML("f.yaml", data)
		if err != nil || y.Root() == nil {
			return
		}
		// The first list and the first mapping found, depth first.
		var seq, m *Node
		var walk func(n *Node, depth int)
		walk = func(n *Node, depth int) {
			if n == nil || depth > 32 || n.Kind == AliasNode {
				return
			}
			if n.Kind == SequenceNode && seq == nil {
				seq = n
			}
			if n.Kind == MappingNode && m == nil {
				m = n
			}
			for _, c := range n.Content {
				walk(c, depth+1)
			}
		}
		walk(y.Root(), 0)
		added := MappingOf(StringNode("name"), StringNode("x.v1"), StringNode("skips"), SequenceOf(StringNode("1.0")))
		switch {
		case seq != nil:
			if err := y.Append(seq, added); err != nil {
				t.Fatalf("Append: %v", err)
			}
		case m != nil:
			if err := y.AddKey(m, "fuzz-added", added); err != nil {
				t.Fatalf("AddKey: %v", err)
			}
		default:
			return
		}
		again, err := EditYAML("f.yaml", y.Bytes())
		if err != nil {
			t.Fatalf("the edited text does not parse: %v\n%s", err, y.Bytes())
		}
		if !sameYAML(again.doc, y.doc, 0) {
			t.Fatalf("the edited text is not the edited document:\n%s", y.Bytes())
		}
	}
}
