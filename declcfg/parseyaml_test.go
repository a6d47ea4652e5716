package declcfg

import (
	"testing"
)

// TestParseYAML: the documents of a text with their lines, empty ones
// without a node, JSON read as YAML (columns in characters), and a syntax
// error as "line N: ..." (an unclosed flow sequence names its own line).
func TestParseYAML(t *testing.T) {
	docs, err := ParseYAML([]byte("# head\na: 1\n---\n---\nb: [x, {c: 2}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 3 {
		t.Fatalf("%d documents, want 3", len(docs))
	}
	if n := docs[0].Node; n == nil || n.Kind != MappingNode || docs[0].Pos.Line != 2 || n.Content[1].Tag != "!!int" {
		t.Errorf("first document %+v", docs[0])
	}
	if docs[1].Node != nil {
		t.Errorf("the empty document has a node: %+v", docs[1].Node)
	}
	if n := docs[2].Node; n == nil || docs[2].Pos.Line != 5 || n.Content[1].Kind != SequenceNode || n.Content[1].Content[1].Column != 8 {
		t.Errorf("third document %+v", docs[2])
	}

	docs, err = ParseYAML([]byte(`{"a": "é", "b": true}`))
	if err != nil || len(docs) != 1 || docs[0].Node.Content[3].Tag != "!!bool" || docs[0].Node.Content[2].Column != 12 {
		t.Errorf("JSON: %v %+v", err, docs)
	}

	if docs, err := ParseYAML(nil); err != nil || len(docs) != 0 {
		t.Errorf("no text: %v %+v", err, docs)
	}

	_, err = ParseYAML([]byte("a: 1\nb: [\nc: 2\n"))
	if err == nil || err.Error() != "line 2: did not find expected ',' or ']'" {
		t.Errorf("syntax error: %v", err)
	}
}
