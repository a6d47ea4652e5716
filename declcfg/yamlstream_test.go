package declcfg

import (
	"fmt"
	"testing"

	"github.com/fbc-project/fbc/declcfg/internal/fastyaml"
	"github.com/fbc-project/fbc/declcfg/internal/fastyaml/fastyamltest"
)

// The fast YAML reader's own tests live with it (declcfg/internal/fastyaml); these
// hold parseYAMLStream, which falls back to yaml.v3 a document at a time, to
// yaml.v3 on the whole stream.

var (
	sameTree = fastyamltest.SameTree
	sameDocs = fastyamltest.SameDocs
)

// FuzzYAMLStream: parseYAMLStream finds the documents, or the error, yaml.v3
// finds in the whole stream.
func FuzzYAMLStream(f *testing.F) {
	fastyamltest.AddSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
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
	if _, ok := fastyaml.Parse(src, false); ok {
		t.Fatal("the fast path took a folded scalar")
	}
	docs, ok := parseYAMLDocs(src, false)
	if !ok || len(docs) != 3 || docs[2].Node.Content[0].Line != 7 || docs[1].Node.Content[1].Line != 4 || docs[1].Node.Content[1].Column != 4 {
		t.Fatalf("parseYAMLDocs: ok %v, %d documents", ok, len(docs))
	}
}
