package textscan

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func jsonSafe(c byte) bool  { return c >= 0x20 && c < 0x80 && c != '"' && c != '\\' }
func printable(c byte) bool { return c >= 0x20 && c < 0x7f || c == '\n' }

// naive is the byte-at-a-time loop each function replaces.
func naive(b []byte, ok func(byte) bool) int {
	for i, c := range b {
		if !ok(c) {
			return i
		}
	}
	return len(b)
}

// naiveChars counts the bytes that do not continue a UTF-8 sequence.
func naiveChars(b []byte) int {
	n := 0
	for _, c := range b {
		if c&0xc0 != 0x80 {
			n++
		}
	}
	return n
}

func check(t *testing.T, b []byte) {
	t.Helper()
	if got, want := JSONSafe(b), naive(b, jsonSafe); got != want {
		t.Fatalf("JSONSafe(%q) = %d, want %d", b, got, want)
	}
	if got, want := Printable(b), naive(b, printable); got != want {
		t.Fatalf("Printable(%q) = %d, want %d", b, got, want)
	}
	if len(b) > 0 && b[0] == '"' && StringEnd(b, 0) != naiveStringEnd(b, 0) {
		t.Fatalf("StringEnd(%q) = %d, want %d", b, StringEnd(b, 0), naiveStringEnd(b, 0))
	}
	if got, want := Chars(b), naiveChars(b); got != want {
		t.Fatalf("Chars(%q) = %d, want %d", b, got, want)
	}
	if utf8.Valid(b) && Chars(b) != utf8.RuneCount(b) {
		t.Fatalf("Chars(%q) = %d, utf8.RuneCount %d", b, Chars(b), utf8.RuneCount(b))
	}
	if loopJSONSafe(b) != JSONSafe(b) || loopPrintable(b) != Printable(b) {
		t.Fatalf("the benchmarks' baseline loops disagree on %q", b)
	}
}

// TestEveryByteEveryPlace puts each byte value at each place of runs long
// enough for the 32-byte, 8-byte and single-byte steps, after each kind of
// neighbour (a line feed stops a word but not Printable).
func TestEveryByteEveryPlace(t *testing.T) {
	for _, fill := range []string{"A", "~", " ", "\n", "+/=9", "ab\ncd", "é", "a€b😀"} {
		base := []byte(strings.Repeat(fill, 80)[:80])
		for c := 0; c < 256; c++ {
			for at := 0; at < len(base); at++ {
				b := append([]byte(nil), base...)
				b[at] = byte(c)
				check(t, b)
				check(t, b[:at+1])
			}
		}
	}
	check(t, nil)
}

func FuzzScan(f *testing.F) {
	for _, s := range []string{"", "abc", "eyJhcGlWZXJzaW9uIjoidjEifQ==\n", "a\"b", "x\\y", "caf\u00e9", "\x7f", "tab\there", strings.Repeat("Zm9v", 20) + "\"" + strings.Repeat("YmFy", 20)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) { check(t, b) })
}

// benchInput is base64 text (what most catalog bytes are) in 76-byte lines
// for Printable, one long run for JSONSafe.
func benchInput(lines bool) []byte {
	s := strings.Repeat("eyJhcGlWZXJzaW9uIjoiYXBpZXh0ZW5zaW9ucy5rOHMuaW8vdjEiLCJraW5kIjoiQ1JEIn0", 1<<12)
	if !lines {
		return []byte(s)
	}
	var b strings.Builder
	for len(s) > 76 {
		b.WriteString(s[:76])
		b.WriteByte('\n')
		s = s[76:]
	}
	return []byte(b.String())
}

// The loops the package replaced, written out as they were (no function
// values), as the benchmarks' baseline.
func loopJSONSafe(b []byte) int {
	for i, c := range b {
		if c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
			return i
		}
	}
	return len(b)
}

func loopPrintable(b []byte) int {
	for i, c := range b {
		if (c < 0x20 && c != '\n') || c >= 0x7f {
			return i
		}
	}
	return len(b)
}

func bench(b *testing.B, in []byte, words, bytes func([]byte) int) {
	b.SetBytes(int64(len(in)))
	b.Run("words", func(b *testing.B) {
		for b.Loop() {
			if words(in) != len(in) {
				b.Fatal("stopped early")
			}
		}
	})
	b.Run("bytes", func(b *testing.B) {
		for b.Loop() {
			if bytes(in) != len(in) {
				b.Fatal("stopped early")
			}
		}
	})
}

// go test ./internal/textscan -run '^$' -bench .
func BenchmarkJSONSafe(b *testing.B)  { bench(b, benchInput(false), JSONSafe, loopJSONSafe) }
func BenchmarkPrintable(b *testing.B) { bench(b, benchInput(true), Printable, loopPrintable) }

// naiveStringEnd is StringEnd a byte at a time.
func naiveStringEnd(b []byte, open int) int {
	for j := open + 1; j < len(b); j++ {
		switch b[j] {
		case '"':
			return j
		case '\\':
			j++
		}
	}
	return -1
}

func TestStringEnd(t *testing.T) {
	for _, s := range []string{`""`, `"abc"`, `"a\"b"`, `"a\\"`, `"\\\"x"`, `"unterminated`, `"ends in \`,
		`"` + strings.Repeat("QUJD", 40) + `\"` + strings.Repeat("é", 20) + `" tail`} {
		b := []byte(s)
		if got, want := StringEnd(b, 0), naiveStringEnd(b, 0); got != want {
			t.Errorf("StringEnd(%q) = %d, want %d", s, got, want)
		}
	}
}
