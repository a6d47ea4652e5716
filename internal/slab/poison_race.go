//go:build race

package slab

// poisonOnPut is on in race-detector builds (make test-race): every buffer
// handed back is overwritten, so that a reader that kept a reference to
// its bytes reads garbage, and a test sees it, instead of reading the
// next bundle's bytes only when the timing is unlucky.
const poisonOnPut = true
