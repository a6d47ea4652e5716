package cmd

import (
	"os"
	"runtime"
	"runtime/debug"
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

// TestWithGCPercent: validate's collector target holds while any run is
// on, the one before comes back when the last ends, and a GOGC the user
// set is left alone.
func TestWithGCPercent(t *testing.T) {
	t.Setenv("GOGC", "")
	os.Unsetenv("GOGC")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	first := withGCPercent(125)
	second := withGCPercent(125)
	assert.Equal(t, 125, debug.SetGCPercent(125))
	first()
	first() // once only
	assert.Equal(t, 125, debug.SetGCPercent(125), "a run still on keeps it")
	second()
	assert.Equal(t, 100, debug.SetGCPercent(100), "back once the last run ends")

	t.Setenv("GOGC", "300")
	debug.SetGCPercent(300)
	withGCPercent(125)()
	assert.Equal(t, 300, debug.SetGCPercent(300), "the user's GOGC stands")
}
