package declcfg

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fbc-project/fbc/declcfg/internal/fastyaml"
	"github.com/fbc-project/fbc/declcfg/internal/fastyaml/fastyamltest"
	"github.com/fbc-project/fbc/internal/sharedtest"
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
		if got, want := yamlChunks(data), chunksLineByLine(data); !slices.Equal(got, want) {
			t.Fatalf("chunks %v, line by line %v\ninput: %q", got, want, data)
		}
	})
}

// yamlChunk is where a SplitYAML chunk starts and ends.
type yamlChunk struct{ start, end, line int }

// yamlChunks is SplitDocuments(data, SplitYAML), where its chunks start
// and end.
func yamlChunks(data []byte) []yamlChunk {
	var out []yamlChunk
	for _, c := range SplitDocuments(data, SplitYAML).Chunks {
		out = append(out, yamlChunk{c.Start, c.End, c.Line})
	}
	return out
}

// chunksLineByLine is SplitYAML's splitting as first written, looking at
// every line: the reference for the one that skips to the next "---" once
// a part has content.
func chunksLineByLine(data []byte) []yamlChunk {
	var chunks []yamlChunk
	cur := yamlChunk{line: 1}
	content := false
	off, line := 0, 1
	for raw := range bytes.Lines(data) {
		l := bytes.TrimSuffix(raw, []byte("\n"))
		if isDocStart(l) && content {
			cur.end = off
			chunks = append(chunks, cur)
			cur = yamlChunk{start: off, line: line}
			content = false
		}
		switch t := bytes.TrimSpace(l); {
		case isDocStart(l):
			content = content || hasContentAfterMarker(l)
		case len(t) == 0, t[0] == '#', l[0] == '%':
		default:
			content = true
		}
		off += len(raw)
		line++
	}
	cur.end = len(data)
	return append(chunks, cur)
}

// TestYAMLChunks: the chunks of tricky streams and of every YAML file of
// the corpus catalogs are those a line-by-line reading finds.
func TestYAMLChunks(t *testing.T) {
	for _, src := range []string{"", "---", "---\n", "a: 1\n---\nb: 2\n", "a: 1\n----\n---x\n--- # c\n---\tb: 1\n",
		"# c\n---\n%YAML 1.2\n---\na: 1\n--- b\n", "a: |\n  ---\n---\r\nb: 1\r\n---", "\n\n---\n\n---\na\n---"} {
		if got, want := yamlChunks([]byte(src)), chunksLineByLine([]byte(src)); !slices.Equal(got, want) {
			t.Errorf("%q: chunks %v, line by line %v", src, got, want)
		}
	}
	if testing.Short() {
		return
	}
	root := sharedtest.Corpus(t)
	files := 0
	_ = filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(path, ".yaml") || files >= 400 {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		files++
		if got, want := yamlChunks(data), chunksLineByLine(data); !slices.Equal(got, want) {
			t.Errorf("%s: %d chunks, line by line %d", path, len(got), len(want))
		}
		return nil
	})
	if files == 0 {
		t.Fatal("no YAML file in the corpus")
	}
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
	docs, ok, _ := parseYAMLDocs(src, false)
	if !ok || len(docs) != 3 || docs[2].Node.Content[0].Line != 7 || docs[1].Node.Content[1].Line != 4 || docs[1].Node.Content[1].Column != 4 {
		t.Fatalf("parseYAMLDocs: ok %v, %d documents", ok, len(docs))
	}
}

// TestParseYAMLStreamAt: a text that starts further down its file gives its
// documents the file's lines, on each path: the fast one, the per-document
// one, and yaml.v3 whole (a directive makes a stream unsplittable).
func TestParseYAMLStreamAt(t *testing.T) {
	for name, src := range map[string]string{ // the last document on the text's line 3
		"fast":         "a: 1\n---\nb: 2\n",
		"per document": "a: 1\n---\nb: {c: 2}\n",
		"yaml.v3":      "%YAML 1.1\n---\nb: 2\n",
	} {
		var docs []yamlDoc
		if err := parseYAMLStreamAt([]byte(src), false, 10, func(d yamlDoc) error { docs = append(docs, d); return nil }); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		last := docs[len(docs)-1]
		if last.Line != 12 || last.Node.Line != 12 || last.Node.Content[0].Line != 12 {
			t.Errorf("%s: last document at line %d, its node at %d, want 12", name, last.Line, last.Node.Line)
		}
	}
}
