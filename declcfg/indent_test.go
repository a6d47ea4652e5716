package declcfg

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// indentRef is what json.Encoder with SetIndent("", "    ") writes for src,
// a compact value and a newline.
func indentRef(t testing.TB, src []byte) []byte {
	var b bytes.Buffer
	if err := json.Indent(&b, src, "", "    "); err != nil {
		t.Fatalf("json.Indent(%q): %v", src, err)
	}
	return b.Bytes()
}

func checkIndent(t testing.TB, src []byte) {
	if got, want := appendIndented(nil, src), indentRef(t, src); !bytes.Equal(got, want) {
		t.Fatalf("appendIndented(%q)\n got %q\nwant %q", src, got, want)
	}
}

func TestAppendIndented(t *testing.T) {
	for _, s := range []string{
		`{}`, `[]`, `{"a":{}}`, `{"a":[]}`, `[[],{},[1,[2]]]`, `"x"`, `1`, `null`, `true`,
		`{"schema":"olm.bundle","properties":[{"type":"olm.bundle.object","value":{"data":"` + strings.Repeat("QUJD", 200) + `"}}]}`,
		`{"k":"a\"b\\c\n\u2028é","l":"\\"}`, `{"a":"` + strings.Repeat(`\"`, 40) + `"}`,
		`{"a":1.5e10,"b":-0,"c":[true,false,null]}`,
	} {
		checkIndent(t, []byte(s+"\n"))
	}
	// Not compact: the slow way gives the same as json.Indent.
	for _, s := range []string{"{ \"a\": 1 }\n", "[1, 2]\n", "{\"a\":\n1}\n"} {
		checkIndent(t, []byte(s))
	}
}

func FuzzAppendIndented(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":[1,{"b":"c\"d"}],"e":{}}`, `[[],[[]],{"x":null}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v any
		if json.Unmarshal(data, &v) != nil {
			return
		}
		// The input the writer has: json.Encoder's compact output.
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if enc.Encode(json.RawMessage(data)) != nil {
			return
		}
		checkIndent(t, b.Bytes())
	})
}
