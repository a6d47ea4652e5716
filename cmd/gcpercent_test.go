package cmd

import (
	"os"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

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
