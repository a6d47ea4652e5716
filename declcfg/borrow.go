package declcfg

import "github.com/fbc-project/fbc/internal/borrow"

// borrowMin is the length from which the parsers may borrow a scalar from
// the file's bytes (borrow.String, WalkOptions.Borrow).
const borrowMin = borrow.Min

// ownString returns s in memory of its own when it may share a file's bytes,
// for values kept after the file is parsed (typed blobs).
func ownString(s string) string { return borrow.Own(s) }
