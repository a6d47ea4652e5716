package declcfg

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"

	k8syaml "k8s.io/apimachinery/pkg/util/yaml"
)

// chunkOf is a chunk in a table: its text and what the splitter says of it.
type chunkOf struct {
	text          string
	line          int
	marker        bool
	content, cmnt int
}

func TestSplitDocuments(t *testing.T) {
	for _, tc := range []struct {
		name       string
		rule       SplitRule
		in         string
		want       []chunkOf
		separators int
		bad        []int
	}{
		{name: "yaml empty", rule: SplitYAML, in: "", want: []chunkOf{{text: "", line: 1}}},
		{name: "yaml one", rule: SplitYAML, in: "a: 1\n", want: []chunkOf{{text: "a: 1\n", line: 1, content: 1}}},
		{name: "yaml two", rule: SplitYAML, in: "a: 1\n---\nb: 2\n",
			want: []chunkOf{{text: "a: 1\n", line: 1, content: 1}, {text: "---\nb: 2\n", line: 2, marker: true, content: 3}}},
		{name: "yaml comments stay with the next part", rule: SplitYAML, in: "# c\n---\n%YAML 1.2\n---\na: 1\n",
			want: []chunkOf{{text: "# c\n---\n%YAML 1.2\n---\na: 1\n", line: 1, content: 5, cmnt: 1}}},
		{name: "yaml four dashes are content", rule: SplitYAML, in: "----\n---x\n--- a\n",
			want: []chunkOf{{text: "----\n---x\n", line: 1, content: 1}, {text: "--- a\n", line: 3, marker: true, content: 3}}},
		{name: "yaml marker before a tab and a CR", rule: SplitYAML, in: "a\n---\tb\n---\r\nc\n",
			want: []chunkOf{{text: "a\n", line: 1, content: 1}, {text: "---\tb\n", line: 2, marker: true, content: 2}, {text: "---\r\nc\n", line: 3, marker: true, content: 4}}},

		{name: "manifests empty", rule: SplitManifests, in: ""},
		{name: "manifests one", rule: SplitManifests, in: "kind: A", want: []chunkOf{{text: "kind: A", line: 1, content: 1}}},
		{name: "manifests separator between", rule: SplitManifests, in: "a: 1\n---\nb: 2\n", separators: 1,
			want: []chunkOf{{text: "a: 1\n", line: 1, content: 1}, {text: "b: 2\n", line: 3, content: 3}}},
		{name: "manifests leading separator opens", rule: SplitManifests, in: "--- # c\na: 1\n", separators: 1,
			want: []chunkOf{{text: "--- # c\na: 1\n", line: 1, marker: true, content: 2}}},
		{name: "manifests a separator right after one opens the next chunk", rule: SplitManifests, in: "a\n---\n---\nb\n---\n", separators: 3,
			want: []chunkOf{{text: "a\n", line: 1, content: 1}, {text: "---\nb\n", line: 3, marker: true, content: 4}}},
		{name: "manifests two leading separators make an empty chunk", rule: SplitManifests, in: "---\n---\nb\n", separators: 2,
			want: []chunkOf{{text: "---\n", line: 1, marker: true}, {text: "b\n", line: 3, content: 3}}},
		{name: "manifests lone separator", rule: SplitManifests, in: "---", separators: 1,
			want: []chunkOf{{text: "---", line: 1, marker: true}}},
		{name: "manifests comments, blanks and end markers hold nothing", rule: SplitManifests, in: "\n  # c\n...\n---\n\t\n",
			separators: 1, want: []chunkOf{{text: "\n  # c\n...\n", line: 1, cmnt: 2}, {text: "\t\n", line: 5}}},
		{name: "manifests any line starting with dashes", rule: SplitManifests, in: "a\n----\nb\n---x\nc\n", separators: 2, bad: []int{2, 4},
			want: []chunkOf{{text: "a\n", line: 1, content: 1}, {text: "b\n", line: 3, content: 3}, {text: "c\n", line: 5, content: 5}}},
		{name: "manifests bad separator opening a chunk is content", rule: SplitManifests, in: "--- a: 1\n", separators: 1, bad: []int{1},
			want: []chunkOf{{text: "--- a: 1\n", line: 1, marker: true, content: 1}}},
		{name: "manifests directive is content", rule: SplitManifests, in: "%YAML 1.2\n", want: []chunkOf{{text: "%YAML 1.2\n", line: 1, content: 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := []byte(tc.in)
			s := SplitDocuments(data, tc.rule)
			var got []chunkOf
			for _, c := range s.Chunks {
				got = append(got, chunkOf{text: string(data[c.Start:c.End]), line: c.Line, marker: c.Marker, content: c.Content, cmnt: c.Comment})
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("chunks\n got %+v\nwant %+v", got, tc.want)
			}
			var bad []int
			for _, b := range s.Bad {
				bad = append(bad, b.Line)
				if !bytes.HasPrefix(b.Text, docMarker) || bytes.ContainsRune(b.Text, '\n') {
					t.Errorf("bad separator text %q", b.Text)
				}
			}
			if s.Separators != tc.separators || !reflect.DeepEqual(bad, tc.bad) {
				t.Errorf("separators %d, bad %v; want %d, %v", s.Separators, bad, tc.separators, tc.bad)
			}
		})
	}
}

// FuzzSplitDocuments: SplitDocuments cuts as a reading of every line
// does, its chunks are in order and in bounds (under SplitYAML they cover
// the text), and under SplitManifests they are the documents Kubernetes'
// YAMLReader reads, up to the first bad separator, where it fails.
func FuzzSplitDocuments(f *testing.F) {
	for _, s := range []string{"", "a: 1\n---\nb: 2\n", "---\n---\na\n", "# c\n---\n...\n--- # d\n", "a\n----\n--- b\nc", "a\r\n---\r\nb\r\n",
		"---\tx\n---\r\n%YAML 1.2\n---\n", "\xef\xbb\xbf---\na"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		for _, rule := range []SplitRule{SplitYAML, SplitManifests} {
			s := SplitDocuments(data, rule)
			if by := splitByLine(data, rule); !reflect.DeepEqual(s, by) {
				t.Fatalf("rule %d: %+v, line by line %+v", rule, s, by)
			}
			end := 0
			for i, c := range s.Chunks {
				if c.Start < end || c.End < c.Start || c.End > len(data) || rule == SplitYAML && c.Start != end {
					t.Fatalf("rule %d: chunk %d is %d-%d after %d", rule, i, c.Start, c.End, end)
				}
				if want := 1 + bytes.Count(data[:c.Start], newline); c.Line != want {
					t.Fatalf("rule %d: chunk %d at line %d, want %d", rule, i, c.Line, want)
				}
				end = c.End
			}
			if rule == SplitYAML && end != len(data) {
				t.Fatalf("chunks end at %d of %d", end, len(data))
			}
		}
		compareYAMLReader(t, data, SplitDocuments(data, SplitManifests))
	})
}

// compareYAMLReader holds SplitManifests' chunks to Kubernetes' own
// reader, which sees each line with its line break normalized to "\n".
func compareYAMLReader(t *testing.T, data []byte, s Split) {
	t.Helper()
	var want [][]byte
	r := k8syaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	failed := false
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			failed = true
			break
		}
		want = append(want, bytes.Clone(doc))
	}
	var got [][]byte
	for _, c := range s.Chunks {
		if len(s.Bad) > 0 && c.End >= lineOffset(data, s.Bad[0].Line) {
			break // YAMLReader fails at the bad separator
		}
		got = append(got, normalizeLines(data[c.Start:c.End]))
	}
	if failed != (len(s.Bad) > 0) {
		t.Fatalf("YAMLReader failed %v, bad separators %v, in %q", failed, s.Bad, data)
	}
	if len(got) != len(want) {
		t.Fatalf("%d chunks, YAMLReader %d: %q vs %q, in %q", len(got), len(want), got, want, data)
	}
	for i := range got {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("chunk %d is %q, YAMLReader's %q, in %q", i, got[i], want[i], data)
		}
	}
}

// lineOffset is where line n (1-based) of data starts.
func lineOffset(data []byte, n int) int {
	off := 0
	for ; n > 1; n-- {
		off += bytes.IndexByte(data[off:], '\n') + 1
	}
	return off
}

// normalizeLines reads text a line at a time as YAMLReader's LineReader
// does: each line ends in "\n", "\r\n" read as "\n".
func normalizeLines(text []byte) []byte {
	var out []byte
	r := bufio.NewReader(bytes.NewReader(text))
	for {
		line, isPrefix, err := r.ReadLine()
		if err != nil {
			return out
		}
		out = append(out, line...)
		if !isPrefix {
			out = append(out, '\n')
		}
	}
}
