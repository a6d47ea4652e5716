package declcfg

import (
	"errors"
	"strings"

	"github.com/blang/semver/v4"
)

// ErrEmptyAlternative is the error for the one range blang accepts but
// cannot match.
var ErrEmptyAlternative = errors.New(`empty alternative between "||" and "||": blang/semver (which OLM uses) accepts it, then crashes when a version misses the alternatives before it`)

// ParseRange parses a version range exactly as OLM does for skipRange and
// olm.package.required (github.com/blang/semver/v4 ParseRange), except that
// it refuses an empty alternative ("<1.0.0 || || >2.0.0"). blang turns that
// into a nil function inside the OR chain, which panics when called; every
// fbc caller evaluates ranges from catalogs or flags, so it must not get one.
func ParseRange(s string) (semver.Range, error) {
	r, err := semver.ParseRange(s)
	if err != nil {
		return nil, err
	}
	tokens := rangeTokens(s)
	for i := 1; i < len(tokens); i++ {
		if tokens[i] == "||" && tokens[i-1] == "||" {
			return nil, ErrEmptyAlternative
		}
	}
	return r, nil
}

// rangeTokens splits a range the way blang/semver v4 does before parsing:
// at spaces, except a space right after '<', '>' or '=' (so ">= 1.0.0" is one
// token); spaces inside a token are removed, and one-character tokens are
// dropped ("! 1.0.0" is "1.0.0"). An alternative is empty exactly when two
// "||" tokens follow each other: "a || 0 || b" is one, because the lone "0"
// disappears.
func rangeTokens(s string) []string {
	var out []string
	last := 0
	var prev byte
	for i := 0; i < len(s); i++ {
		if s[i] != ' ' {
			prev = s[i]
			continue
		}
		if prev == '<' || prev == '>' || prev == '=' {
			continue
		}
		if i-last >= 2 {
			out = append(out, strings.ReplaceAll(s[last:i], " ", ""))
		}
		last = i + 1
	}
	if len(s)-last >= 2 {
		out = append(out, strings.ReplaceAll(s[last:], " ", ""))
	}
	return out
}
