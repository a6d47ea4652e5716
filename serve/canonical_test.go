package serve

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/fbc-project/fbc/declcfg"
)

// opmEncode is how opm writes a value it read into a map: encoding/json
// with HTML escaping off. The canonical line must be exactly this.
func opmEncode(t testing.TB, v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestCanonicalJSON(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"b": 1, "a": [true, null, 1.50, -0, 1e21, 1e-7, 12345678901234567890]}`,
			`{"a":[true,null,1.5,-0,1e+21,1e-7,12345678901234567000],"b":1}`},
		{`{"s": "<tag> & \"q\" \u2028 \t"}`, `{"s":"<tag> & \"q\" \u2028 \t"}`},
		{"schema: x\non: yes\nn: off\nq: \"yes\"\nv: 0x1F\nf: 1.0\nl: [a, 2]\n", `{"f":1,"false":false,"l":["a",2],"q":"yes","schema":"x","true":true,"v":31}`},
		{"base: &b {u: 1, w: 2}\nm:\n  <<: *b\n  w: 3\n", `{"base":{"u":1,"w":2},"m":{"u":1,"w":3}}`},
		// YAML 1.1 reads y and n as booleans, keys too (opm does).
		{"y: 1\nn: 2\n", `{"false":2,"true":1}`},
	} {
		f := declcfg.ParseFile("t", []byte(tc.in))
		if len(f.Errors) > 0 || len(f.Docs) != 1 {
			t.Fatalf("%q: %v", tc.in, f.Errors)
		}
		v, err := blobValue(f.Docs[0].Node)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := newDocReader().write(&buf, f.Docs[0].Node, 0); err != nil {
			t.Fatal(err)
		}
		buf.WriteByte('\n')
		if got := buf.String(); got != tc.want+"\n" {
			t.Errorf("%q:\ngot  %s\nwant %s", tc.in, got, tc.want)
		}
		if ref := opmEncode(t, v); !bytes.Equal(ref, buf.Bytes()) {
			t.Errorf("%q: encoding/json writes %s", tc.in, ref)
		}
	}
}

// The docReader refuses what reading into plain values refuses, and
// writes the same bytes for the rest: repeated keys (the last wins, the
// losers are still read), merge keys in every form, aliases, bad scalars.
func TestDocReaderAgrees(t *testing.T) {
	t.Parallel()
	for _, src := range []string{
		"a: 1\nb: 2\na: 3\n",
		"a: 1\na: !!float x\na: 2\n",
		"base: &b {x: 1, y: 2}\nm: {<<: *b, x: 3, <<: {y: 4, z: 5}}\n",
		"b1: &b1 {k: 1}\nb2: &b2 {k: 2, j: 3}\nm:\n  <<: [*b1, *b2]\n  k: 0\n",
		"m: {<<: [a]}\n",
		"m: {<<: 1}\n",
		"a: &a [1, 2]\nb: *a\nc: {*a : 1}\n",
		"n: !!int 0x1F\nf: !!float .inf\n",
		"n: !!int zz\n",
		"b: !!bool maybe\n",
		"1: a\n1.0: b\ntrue: c\nyes: d\n~: e\n",
		"k: [yes, no, on, 'yes', 1_000, 0o17, -0, 1e400]\n",
		"- 1\n- [2, {a: b}]\n",
		"{\"z\": 1, \"a\": {\"c\": [true, null]}, \"a\": 2}",
		"",
	} {
		f := declcfg.ParseFile("t", []byte(src))
		for _, doc := range f.Docs {
			agree(t, src, doc.Node)
		}
	}
}

// agree checks that the docReader and the plain values agree on n.
func agree(t *testing.T, src string, n *declcfg.Node) {
	t.Helper()
	v, refErr := blobValue(n)
	var buf bytes.Buffer
	err := newDocReader().write(&buf, n, 0)
	switch {
	case (err == nil) != (refErr == nil):
		t.Errorf("%q: docReader error %v, plain values error %v", src, err, refErr)
	case err == nil && buf.String() != refCanonicalValue(v):
		t.Errorf("%q: docReader writes %s, plain values %s", src, buf.String(), refCanonicalValue(v))
	}
}

// FuzzCanonical checks that, for any document the loader parses, the
// canonical line is what encoding/json writes for the same value, and that
// the docReader agrees.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{
		`{"schema":"olm.bundle","properties":[{"type":"x","value":{"z":1,"a":"<&>"}}]}`,
		"schema: olm.package\nname: foo\non: yes\nv: 1e400\n",
		"a: &x [1, *x]\n",
		`{"n": 1e-7, "m": 123456789012345678901234567890, "s": "\u0000\ud800"}`,
		"---\n- 1\n---\nk: \"\\xff\"\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		file := declcfg.ParseFile("fuzz", data)
		for _, doc := range file.Docs {
			agree(t, string(data), doc.Node)
			v, err := blobValue(doc.Node)
			if err != nil {
				continue
			}
			var buf bytes.Buffer
			refCanonicalJSON(&buf, v)
			if !json.Valid(buf.Bytes()) {
				t.Fatalf("invalid JSON %q", buf.Bytes())
			}
			if ref := opmEncode(t, v); !bytes.Equal(ref, buf.Bytes()) {
				t.Fatalf("canonical %s\nencoding/json %s", buf.Bytes(), ref)
			}
		}
	})
}
