package declcfg

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMinorVersion(t *testing.T) {
	for in, want := range map[string]MinorVersion{"4.18": {4, 18}, "v4.17": {4, 17}, "1.31": {1, 31}, "5.0": {5, 0}, "14.18": {14, 18}} {
		got, err := ParseMinorVersion(in)
		if assert.NoError(t, err, in) {
			assert.Equal(t, want, got, in)
		}
	}
	for _, in := range []string{"4", "4.x", "4.18.1", "04.18", "4.018", "-4.1", "4.-1", " 4.1", "4.1 ", "", "v", "4..1", "+4.1"} {
		_, err := ParseMinorVersion(in)
		assert.Error(t, err, in)
	}
	a, b := MinorVersion{4, 9}, MinorVersion{4, 10}
	assert.True(t, a.Less(b))
	assert.False(t, b.Less(a))
	assert.True(t, b.AtLeast(a))
	assert.True(t, a.AtLeast(a))
	assert.Equal(t, -1, MinorVersion{4, 22}.Compare(MinorVersion{5, 0}))
	assert.Equal(t, "4.10", b.String())
}
