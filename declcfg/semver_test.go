package declcfg

import (
	"testing"

	"github.com/blang/semver/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseRange(t *testing.T) {
	r, err := ParseRange(">=1.0.0 <2.0.0 || >=3.0.0")
	require.NoError(t, err)
	assert.True(t, r(semver.MustParse("3.1.0")))
	assert.False(t, r(semver.MustParse("2.5.0")))

	for _, bad := range []string{"0.0.0 || || 0.0.0", "<1.0.0 ||  || >2.0.0", "1.0.0 || || || 2.0.0", "0.0.0 || 0 || 0.0.0", "1.0.0 || ! || 2.0.0"} {
		_, err := ParseRange(bad)
		assert.ErrorIs(t, err, ErrEmptyAlternative, bad)
		// blang itself accepts these, and its range panics: the reason for
		// the check.
		br, berr := semver.ParseRange(bad)
		require.NoError(t, berr, bad)
		assert.Panics(t, func() { br(semver.MustParse("9.9.9")) }, bad)
	}
	_, err = ParseRange("")
	assert.Error(t, err)
}

// FuzzParseRange: a range ParseRange accepts never panics when matched.
func FuzzParseRange(f *testing.F) {
	for _, s := range []string{">=1.0.0 <2.0.0", "0.0.0 || || 0.0.0", "1.x || >2.x", "!=1.2.x", "< 1.0.0 !0.0.0"} {
		f.Add(s, "1.0.0")
	}
	f.Fuzz(func(t *testing.T, rng, ver string) {
		if len(rng) > 200 {
			return
		}
		r, err := ParseRange(rng)
		if err != nil {
			return
		}
		v, err := semver.Parse(ver)
		if err != nil {
			return
		}
		r(v)
	})
}
