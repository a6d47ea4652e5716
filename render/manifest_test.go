package render

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestFirstDocument(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		wantJSON string // "" when an error or an empty file is expected
		wantLine int
		wantErr  string // substring; with the error's line in errLine
		errLine  int
		empty    bool
	}{
		{name: "yaml", in: "kind: A\nb: 1\n", wantJSON: `{"b":1,"kind":"A"}`, wantLine: 1},
		{name: "leading separator", in: "---\nkind: A\n", wantJSON: `{"kind":"A"}`, wantLine: 2},
		{name: "separator with comment", in: "--- # first\nkind: A\n", wantJSON: `{"kind":"A"}`, wantLine: 2},
		{name: "trailing separator", in: "kind: A\n---\n", wantJSON: `{"kind":"A"}`, wantLine: 1},
		{name: "yaml 1.1 booleans", in: "kind: A\non: yes\n", wantJSON: `{"kind":"A","true":true}`, wantLine: 1},
		{name: "keys sorted, html escaped", in: "z: <a>\na: '&'\n", wantJSON: `{"a":"\u0026","z":"\u003ca\u003e"}`, wantLine: 1},
		{name: "json kept verbatim", in: "  {\"z\": 1, \"a\": 2}\n", wantJSON: `{"z": 1, "a": 2}`, wantLine: 1},
		{name: "empty", in: "", empty: true},
		{name: "only comments", in: "# nothing\n---\n# still nothing\n", empty: true},
		{name: "comment-only first document", in: "# license\n---\nkind: A\n", wantErr: "first document holds only comments", errLine: 3},
		{name: "two documents", in: "kind: A\n---\nkind: B\n", wantErr: "more than one YAML document (the second starts at line 3)", errLine: 3},
		{name: "two json values", in: "{\"kind\": \"A\"}\n{\"kind\": \"B\"}\n", wantErr: "more than one JSON value", errLine: 2},
		{name: "bad separator", in: "kind: A\n--- kind: B\n", wantErr: "invalid YAML document separator", errLine: 2},
		{name: "syntax error line", in: "---\na: 1\nb: c: d\n", wantErr: "mapping values are not allowed", errLine: 3},
		{name: "truncated json", in: "{\"kind\": \"A\"\n", wantErr: "unexpected end of JSON input", errLine: 2},
		{name: "bom", in: "\xef\xbb\xbfkind: A\n", wantJSON: `{"kind":"A"}`, wantLine: 1},
		// A "---" that opens a chunk is part of it, as in Kubernetes'
		// YAMLReader: a flow mapping after it is YAML, converted, and two
		// "---" lines make an empty first document, which opm reads and
		// so ignores the file.
		{name: "flow mapping after a separator", in: "---\n{\"z\": 1, \"a\": 2}\n", wantJSON: `{"a":2,"z":1}`, wantLine: 2},
		{name: "two leading separators", in: "---\n---\nkind: A\n", wantErr: "first document holds only comments", errLine: 3},
		{name: "separators between comments", in: "# c\n---\n---\n# d\nkind: A\n", wantErr: "first document holds only comments", errLine: 4},
		{name: "end marker after the document", in: "kind: A\n---\n...\n", wantJSON: `{"kind":"A"}`, wantLine: 1},
		{name: "object after a comment chunk and a separator", in: "---\n# c\n---\n---\na: 1\n", wantErr: "the object at line 5", errLine: 5},
		{name: "syntax error line after a comment", in: "--- # c\n# d\na: 1\nb: c: d\n", wantErr: "mapping values are not allowed", errLine: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := firstDocument([]byte(tt.in))
			if tt.wantErr != "" {
				de, ok := err.(*docError)
				if !ok || !strings.Contains(de.Msg, tt.wantErr) || de.Line != tt.errLine {
					t.Fatalf("error = %#v, want %q at line %d", err, tt.wantErr, tt.errLine)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if doc.Empty != tt.empty {
				t.Fatalf("Empty = %v, want %v", doc.Empty, tt.empty)
			}
			if tt.empty {
				return
			}
			if string(doc.JSON) != tt.wantJSON || doc.Line != tt.wantLine {
				t.Errorf("got %s at line %d, want %s at line %d", doc.JSON, doc.Line, tt.wantJSON, tt.wantLine)
			}
		})
	}
}

func TestDecodeKubeObject(t *testing.T) {
	tests := []struct {
		in, want, err string
	}{
		// Integers stay integers, whole floats lose their fraction, as in
		// Kubernetes' unstructured decoder followed by json.Marshal.
		{in: `{"kind":"A","i":3,"f":1.0,"g":2.5,"big":1e21}`, want: `{"big":1e+21,"f":1,"g":2.5,"i":3,"kind":"A"}`},
		{in: `{"kind":"A","s":"<&>"}`, want: `{"kind":"A","s":"\u003c\u0026\u003e"}`},
		{in: `{"apiVersion":"v1"}`, err: `it has no "kind"`},
		{in: `{"kind":""}`, err: `it has no "kind"`},
		{in: `["kind"]`, err: "the document is a list, not a mapping"},
		{in: `null`, err: "the document is null, not a mapping"},
		{in: `{"kind":"A","apiVersion":1}`, err: `"apiVersion" must be a string, not a number`},
		{in: `{"kind":"A","metadata":"x"}`, err: `"metadata" must be a mapping, not a string`},
		{in: `{"kind":"A","n":1e999}`, err: "out of range"},
	}
	for _, tt := range tests {
		o, err := decodeKubeObject([]byte(tt.in))
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: error %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.in, err)
			continue
		}
		if string(o.JSON) != tt.want {
			t.Errorf("%s: got %s, want %s", tt.in, o.JSON, tt.want)
		}
	}
}

func TestAnnotationString(t *testing.T) {
	// sigs.k8s.io/yaml turns scalars into strings for string fields.
	tests := map[string]string{
		`"stable"`: "stable",
		`1`:        "1",
		`1.5`:      "1.5",
		`4.10`:     "4.1",
		`true`:     "true",
		`null`:     "",
	}
	for in, want := range tests {
		var s annotationString
		if err := json.Unmarshal([]byte(in), &s); err != nil || string(s) != want {
			t.Errorf("%s: got %q, %v; want %q", in, s, err, want)
		}
	}
	var s annotationString
	if err := json.Unmarshal([]byte(`["a"]`), &s); err == nil {
		t.Error("a list must not become a string")
	}
}

func TestSplitChannels(t *testing.T) {
	got := splitChannels(" stable, fast ,,alpha")
	if strings.Join(got, "|") != "stable|fast|alpha" {
		t.Errorf("got %q", got)
	}
}

// FuzzFirstDocument checks that any file either yields a JSON object-ish
// document, an empty marker, or a positioned error, and never panics.
func FuzzFirstDocument(f *testing.F) {
	for _, s := range []string{"kind: A\n", "---\n# c\n---\nkind: B\n", "{\"kind\":\"A\"}", "a: [1, 2\n", "--- x\n", "\xef\xbb\xbf{}", ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		doc, err := firstDocument(data)
		if err != nil {
			if de, ok := err.(*docError); ok && de.Line < 1 {
				t.Fatalf("error without a line: %v", err)
			}
			return
		}
		if !doc.Empty && !json.Valid(doc.JSON) {
			t.Fatalf("invalid JSON %q from %q", doc.JSON, data)
		}
		if !doc.Empty {
			_, _ = decodeKubeObject(doc.JSON)
		}
	})
}
