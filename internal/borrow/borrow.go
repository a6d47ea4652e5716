// Package borrow decides when a parsed scalar may share the bytes of the
// file it was read from instead of copying them. The hand-rolled parsers
// (declcfg/internal/fastyaml, declcfg/internal/jsonstream) borrow through String; declcfg
// copies what it keeps (Own) from Min on.
package borrow

import (
	"strings"
	"unsafe"
)

// Min is the length from which a parsed scalar may share the file's bytes
// instead of copying them. Long scalars are bundle manifests (base64 or
// JSON), icons and descriptions: copying them doubled what parsing a file
// allocated. Short ones (names, versions, keys) are always copied, so that
// what outlives the parse does not keep a whole file alive.
const Min = 1024

// String returns b as a string: with borrow and when it is long, one that
// shares b's memory; a copy otherwise. Borrowing is for readers that own the
// buffer and drop the parsed documents file by file (declcfg's
// WalkOptions.Borrow): a borrowed string kept longer keeps its whole file in
// memory.
func String(b []byte, borrow bool) string {
	if !borrow || len(b) < Min {
		return string(b)
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// Own returns s in memory of its own when it may have been borrowed (it is
// Min bytes or longer), for a value kept after its file is parsed.
func Own(s string) string {
	if len(s) < Min {
		return s
	}
	return strings.Clone(s)
}

// Bytes returns s's memory as a byte slice, without copying it, for a
// reader that only reads it (a decoder's input): it must not be written.
func Bytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }
