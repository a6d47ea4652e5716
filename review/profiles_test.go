package review

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestProfileShare: fbc keeps about a third of the processors while
// fbc-profile checks a catalog's bundles, never none.
func TestProfileShare(t *testing.T) {
	for n, want := range map[int]int{1: 1, 2: 1, 3: 1, 4: 1, 6: 2, 8: 3, 16: 6, 64: 22} {
		assert.Equal(t, want, profileShare(n), "of %d", n)
	}
}

// TestProfileRunGivesProcessorsBack: closing a run restores fbc's
// processors, once.
func TestProfileRunGivesProcessorsBack(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	r := &profileRun{procs: runtime.GOMAXPROCS(profileShare(4))}
	assert.Equal(t, 1, runtime.GOMAXPROCS(0))
	r.Close()
	assert.Equal(t, 4, runtime.GOMAXPROCS(0))
	runtime.GOMAXPROCS(2)
	r.Close()
	assert.Equal(t, 2, runtime.GOMAXPROCS(0), "a second Close changes nothing")
}
