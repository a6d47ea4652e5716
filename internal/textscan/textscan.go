// Package textscan finds how far a run of plain ASCII goes, eight bytes at
// a time: the inner loops of the catalog reader's check that a file is
// printable and of the JSON string writer, over base64 manifests and long
// descriptions that are most of a catalog's bytes. BenchmarkJSONSafe and
// BenchmarkPrintable compare it with the byte loop it replaces.
package textscan

import (
	"encoding/binary"
	"math/bits"
	"unsafe"
)

const (
	ones = 0x0101010101010101
	high = 0x8080808080808080
)

// less marks (high bit) each byte of x below n (n <= 0x80), exactly: no
// borrow crosses bytes, so marks can be combined byte by byte.
func less(x uint64, n byte) uint64 { return ^((x | high) - ones*uint64(n)) & ^x & high }

// equal marks each byte of x that is c, exactly.
func equal(x uint64, c byte) uint64 { return less(x^(ones*uint64(c)), 1) }

// jsonStop marks the bytes a JSON string writer must look at: not ASCII, a
// control character, '"' or '\\'.
func jsonStop(x uint64) uint64 { return x&high | less(x, 0x20) | equal(x, '"') | equal(x, '\\') }

// printStop marks the bytes that are not printable ASCII or a line feed.
func printStop(x uint64) uint64 {
	return x&high | less(x, 0x20)&^equal(x, '\n') | equal(x, 0x7f)
}

func word(b []byte, i int) uint64 { return binary.LittleEndian.Uint64(b[i:]) }

// JSONSafe returns the length of the longest prefix of b whose bytes a JSON
// string holds as they are: ASCII from space up, but for '"' and '\\'.
// It skips 32 bytes at a time, then eight, then looks at single bytes.
func JSONSafe(b []byte) int {
	i, n := 0, len(b)
	for i+32 <= n && jsonStop(word(b, i))|jsonStop(word(b, i+8))|jsonStop(word(b, i+16))|jsonStop(word(b, i+24)) == 0 {
		i += 32
	}
	for i+8 <= n && jsonStop(word(b, i)) == 0 {
		i += 8
	}
	for i < n && b[i] >= 0x20 && b[i] < 0x80 && b[i] != '"' && b[i] != '\\' {
		i++
	}
	return i
}

// Printable returns the length of the longest prefix of b that is printable
// ASCII (space to '~') and line feeds, as JSONSafe steps.
func Printable(b []byte) int {
	i, n := 0, len(b)
	for i+32 <= n && printStop(word(b, i))|printStop(word(b, i+8))|printStop(word(b, i+16))|printStop(word(b, i+24)) == 0 {
		i += 32
	}
	for i+8 <= n && printStop(word(b, i)) == 0 {
		i += 8
	}
	for i < n && (b[i] >= 0x20 && b[i] < 0x7f || b[i] == '\n') {
		i++
	}
	return i
}

// Chars returns how many characters (Unicode code points) the UTF-8 text b
// holds: its bytes but the continuation bytes (10xxxxxx), counted eight at
// a time. It is what a column counts.
func Chars(b []byte) int {
	i, n, cont := 0, len(b), 0
	for ; i+8 <= n; i += 8 {
		if x := word(b, i); x&high != 0 {
			cont += bits.OnesCount64(x &^ (x << 1) & high)
		}
	}
	for ; i < n; i++ {
		if b[i]&0xc0 == 0x80 {
			cont++
		}
	}
	return n - cont
}

// JSONSafeString is JSONSafe of a string's bytes (read, not copied).
func JSONSafeString(s string) int { return JSONSafe(unsafe.Slice(unsafe.StringData(s), len(s))) }

// StringEnd returns the index of the quote that closes the JSON string
// opening at b[open] (a '"'), skipping escaped characters, or -1 when the
// string does not close. It does not check the escapes.
func StringEnd(b []byte, open int) int {
	for j := open + 1; j < len(b); j++ {
		j += JSONSafe(b[j:])
		if j >= len(b) {
			break
		}
		switch b[j] {
		case '"':
			return j
		case '\\':
			j++
		}
	}
	return -1
}
