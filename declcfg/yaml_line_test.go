package declcfg

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// yaml.v3 prints scanner errors with 1-based lines, parser errors with
// 0-based ones, and no line when that number is 0; the loader reports the
// 1-based line of the construct in every case, or the line and column of
// the line whose indentation caused the error.
func TestYAMLSyntaxErrorLines(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		line, col int
	}{
		{"scanner error on the first line", "x: aaa : b", 1, 0},
		{"scanner error later", "a: 1\nx: aaa : b\n", 2, 0},
		{"unclosed flow sequence", "schema: olm.package\nname: p\ndefaultChannel: [stable\n", 3, 0},
		// The end of the input, where the parser notices, is the last line.
		{"unclosed flow sequence on the first line", "[a, b\n", 1, 0},
		{"unclosed flow sequence at the end", "schema: olm.package\nname: [a,\n", 2, 0},
		// yaml.v3 names the sequence's line; the key after it is the one
		// indented wrongly.
		{"bad block sequence", "a: 1\nb:\n  - x\n  y: 2\n", 4, 3},
		{"unknown anchor has no position", "a: 1\nb: *x\n", 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := ParseFile("f.yaml", []byte(tc.src))
			require.Len(t, f.Errors, 1)
			assert.Equal(t, RuleSyntax, f.Errors[0].Rule)
			assert.Equal(t, Pos{File: "f.yaml", Line: tc.line, Col: tc.col}, f.Errors[0].Pos, f.Errors[0].Msg)
		})
	}
}
