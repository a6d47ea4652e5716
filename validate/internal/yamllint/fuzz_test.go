package yamllint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzLint: any text is linted without a panic or a hang, problems lie
// within the text, and linting is deterministic. Seeded with the test
// files.
func FuzzLint(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.yaml"))
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("a: [b, {c: d}]\n- e\n"))
	f.Add([]byte("? |\n  k\n: &x v\nr: *x\n"))
	f.Add([]byte("a: " + strings.Repeat("[", 1500) + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<14 {
			return
		}
		ps := Lint("f.yaml", data)
		// Tokens count lines as PyYAML does (a lone \r, \x85, \u2028 and
		// \u2029 break lines too), the line rules at each \n.
		lines := 1
		if utf8.Valid(data) {
			text := []rune(string(data))
			for i, r := range text {
				if r == '\n' || r == '\u0085' || r == '\u2028' || r == '\u2029' || r == '\r' && (i+1 == len(text) || text[i+1] != '\n') {
					lines++
				}
			}
		}
		for _, p := range ps {
			if p.Line < 1 || p.Line > lines || p.Col < 0 || p.Rule == "" || p.Message == "" {
				t.Fatalf("problem out of the text (%d lines): %v", lines, p)
			}
		}
		again := Lint("f.yaml", data)
		if len(again) != len(ps) {
			t.Fatalf("not deterministic: %v then %v", ps, again)
		}
		for i := range ps {
			if ps[i] != again[i] {
				t.Fatalf("not deterministic: %v then %v", ps, again)
			}
		}
	})
}
