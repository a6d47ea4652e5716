package declcfg

import (
	"bytes"
	"encoding/json"

	"github.com/fbc-project/fbc/internal/textscan"
)

// appendIndented appends src, compact JSON as json.Encoder writes it (a
// value and a newline), indented as json.Encoder's SetIndent("", "    ")
// indents it, byte for byte. encoding/json's indenting steps through every
// byte of every string with its scanner; a catalog's strings are mostly
// base64 manifests, which this copies in runs. Anything but compact input
// (whitespace outside strings before the end) is left to json.Indent.
func appendIndented(dst, src []byte) []byte {
	start := len(dst)
	depth, needIndent := 0, false
	newline := func() {
		dst = append(dst, '\n')
		for range depth {
			dst = append(dst, "    "...)
		}
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		if needIndent && c != '}' && c != ']' {
			needIndent = false
			depth++
			newline()
		}
		switch c {
		case '"':
			j := textscan.StringEnd(src, i)
			if j < 0 {
				return slowIndent(dst[:start], src)
			}
			dst = append(dst, src[i:j+1]...)
			i = j
		case '{', '[':
			needIndent = true
			dst = append(dst, c)
		case ',':
			dst = append(dst, c)
			newline()
		case ':':
			dst = append(dst, c, ' ')
		case '}', ']':
			if needIndent {
				needIndent = false
			} else {
				depth--
				newline()
			}
			dst = append(dst, c)
		case ' ', '\t', '\r', '\n':
			if depth != 0 || needIndent || i != len(src)-1 {
				return slowIndent(dst[:start], src)
			}
			dst = append(dst, c)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// slowIndent is json.Indent's way, for input appendIndented does not take.
func slowIndent(dst, src []byte) []byte {
	var b bytes.Buffer
	if err := json.Indent(&b, src, "", "    "); err != nil {
		return append(dst, src...)
	}
	return append(dst, b.Bytes()...)
}
