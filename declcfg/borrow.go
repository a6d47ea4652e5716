package declcfg

import (
	"strings"
	"unsafe"
)

// borrowMin is the length from which a parsed scalar may share the file's
// bytes instead of copying them. Long scalars are bundle manifests (base64 or
// JSON), icons and descriptions: copying them doubled what parsing a file
// allocated. Short ones (names, versions, keys) are always copied, so that
// what outlives the parse does not keep a whole file alive.
const borrowMin = 1024

// scalarString returns b as a string: with borrow and when it is long, one
// that shares b's memory; a copy otherwise. Borrowing is for readers that
// own the buffer and drop the parsed documents file by file (WalkOptions.
// Borrow): a borrowed string kept longer keeps its whole file in memory.
func scalarString(b []byte, borrow bool) string {
	if !borrow || len(b) < borrowMin {
		return string(b)
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// ownString returns s in memory of its own when it may share a file's bytes,
// for values kept after the file is parsed (typed blobs).
func ownString(s string) string {
	if len(s) < borrowMin {
		return s
	}
	return strings.Clone(s)
}
