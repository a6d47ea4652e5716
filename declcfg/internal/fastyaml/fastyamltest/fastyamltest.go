// Package fastyamltest compares YAML node trees for the tests of
// declcfg/internal/fastyaml and of declcfg, which hold the fast reader and the
// stream parser built on it to yaml.v3. Production code never imports it.
package fastyamltest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/fbc-project/fbc/declcfg/internal/fastyaml"
	"github.com/fbc-project/fbc/declcfg/internal/tree"
)

// AddSeeds adds fuzz seeds in and just outside the fast reader's subset.
func AddSeeds(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
}

var seeds = []string{
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
}

// SameTree reports the first difference between two node trees, comparing
// what the rest of fbc reads: kind, resolved tag, value, style and position.
func SameTree(a, b *tree.Node, path string) error {
	if a == nil || b == nil {
		if a != b {
			return fmt.Errorf("%s: one side is nil", path)
		}
		return nil
	}
	style := func(n *tree.Node) tree.Style { return n.Style &^ (tree.TaggedStyle) }
	if a.Kind != b.Kind || a.Tag != b.Tag || a.Value != b.Value || style(a) != style(b) ||
		a.Line != b.Line || a.Column != b.Column || len(a.Content) != len(b.Content) {
		return fmt.Errorf("%s: fast {kind %d tag %s style %d %d:%d len %d %.60q} != yaml.v3 {kind %d tag %s style %d %d:%d len %d %.60q}", path,
			a.Kind, a.Tag, a.Style, a.Line, a.Column, len(a.Content), a.Value,
			b.Kind, b.Tag, b.Style, b.Line, b.Column, len(b.Content), b.Value)
	}
	for i := range a.Content {
		if err := SameTree(a.Content[i], b.Content[i], fmt.Sprintf("%s/%d", path, i)); err != nil {
			return err
		}
	}
	return nil
}

// SameDocs reports the first difference between two parses of a stream:
// the documents, which are empty, and each other's line and tree.
func SameDocs(got, want []fastyaml.Doc) error {
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
		if err := SameTree(got[i].Node, want[i].Node, fmt.Sprintf("doc%d", i)); err != nil {
			return err
		}
	}
	return nil
}
