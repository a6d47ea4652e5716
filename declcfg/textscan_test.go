package declcfg

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// Two scans that run over every YAML file before it is parsed take
// shortcuts: SplitDocuments skips from a chunk's content to the next "---"
// line with one search instead of a call per line, and binaryOffset checks
// its window with utf8.Valid before it decodes rune by rune. These tests
// hold them to the plain reading, on random texts made of the lines and
// bytes that matter to them.

// splitByLine is SplitDocuments without its skip: every line read.
func splitByLine(data []byte, rule SplitRule) Split {
	s := NewSplitter(rule)
	for raw := range bytes.Lines(data) {
		s.Line(raw)
	}
	return s.Finish(len(data))
}

// binaryOffsetByRune is binaryOffset without its utf8.Valid shortcut.
func binaryOffsetByRune(data []byte) (int, bool) {
	head := data[:min(len(data), 64<<10)]
	if i := bytes.IndexByte(head, 0); i >= 0 {
		return i, true
	}
	off, bad := invalidRune(head, len(head) < len(data))
	if !bad || !hasControl(head) {
		return 0, false
	}
	return off, true
}

// randomText joins lines of the kinds the scans tell apart, each ending in
// a newline or not, so that texts with and without a last newline, empty
// lines and lines cut short all come up.
func randomText(r *rand.Rand) []byte {
	pieces := []string{
		"---", "--- ", "---  # a comment", "--- schema: olm.package", "----", "-- not one",
		"# a comment", "   # indented comment", "", "   ", "\t",
		"schema: olm.package", "name: a", "  - name: a.v1", "description: |", "    text",
		"%YAML 1.2", "%", "...", "....", " ...", "a%b", "x...",
		"caf\u00e9", "\u2028", "\u0085", "\xef\xbb\xbf", "\r", "a\rb",
	}
	var b strings.Builder
	if r.IntN(8) == 0 {
		b.WriteString("\xef\xbb\xbf")
	}
	for range r.IntN(12) {
		b.WriteString(pieces[r.IntN(len(pieces))])
		if r.IntN(6) != 0 {
			b.WriteByte('\n')
		}
	}
	return []byte(b.String())
}

func TestSplitSkipsAsLineByLine(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 50000 {
		data := randomText(r)
		for _, rule := range []SplitRule{SplitYAML, SplitManifests} {
			if got, want := SplitDocuments(data, rule), splitByLine(data, rule); !reflect.DeepEqual(got, want) {
				t.Fatalf("rule %d, %q:\ngot  %+v\nwant %+v", rule, data, got, want)
			}
		}
	}
}

func TestBinaryOffsetAsRuneByRune(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	bad := [][]byte{{0}, {0xff}, {0xc3}, {0xe2, 0x82}, {0xed, 0xa0, 0x80}, []byte("\u00e9"), []byte("\u20ac"), []byte("\U0001F600"), {0x1f}, {0x08}}
	for range 20000 {
		var b []byte
		for range r.IntN(20) {
			if r.IntN(3) == 0 {
				b = append(b, bad[r.IntN(len(bad))]...)
			} else {
				b = append(b, "name: a\n"...)
			}
		}
		gotOff, gotBin := binaryOffset(b, utf8.Valid(b))
		wantOff, wantBin := binaryOffsetByRune(b)
		if gotOff != wantOff || gotBin != wantBin {
			t.Fatalf("%q: %d %v, rune by rune %d %v", b, gotOff, gotBin, wantOff, wantBin)
		}
	}
	// A rune cut by the 64 KiB window is no binary byte; the same bytes at
	// the end of the whole text are.
	long := append(append([]byte{0x1f}, bytes.Repeat([]byte("a"), 64<<10-2)...), "\u20ac more"...)
	if _, bin := binaryOffset(long, utf8.Valid(long)); bin {
		t.Error("a rune cut by the window was called binary")
	}
	if off, bin := binaryOffset(long[:64<<10], utf8.Valid(long[:64<<10])); !bin || off != 64<<10-1 {
		t.Errorf("a rune cut by the end of the text: %d %v", off, bin)
	}
}
