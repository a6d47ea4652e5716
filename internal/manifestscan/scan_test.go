package validate

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// FuzzScanManifest checks the one-pass manifest scanner against
// encoding/json: the same documents are valid, and the same identity is read.
func FuzzScanManifest(f *testing.F) {
	for _, seed := range []string{
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}`,
		`{"apiVersion":"operators.coreos.com/v1alpha1","kind":"ClusterServiceVersion","metadata":{"name":"a.v1","annotations":{"k":"v"}},"spec":{"version":"1.0.0","x":[1,2.5e3,-0.1,true,false,null]}}`,
		` {"kind":"K\u0041","metadata":{"name":"a\"b"},"metadata":{}} `,
		`{"kind":1,"kind":"late"}`,
		`[1,2]`, `"text"`, `{`, `{"a":}`, `{"a":01}`, `{"a":1.}`, `{"a":"\x"}`, `{"a":"\u12"}`, `{} {}`, `nul`, "{\"a\":\"\x01\"}",
		`{"spec":{"version":"1"},"spec":5}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := scanManifest(data)
		valid := json.Valid(data)
		if !valid {
			if err == nil {
				t.Fatalf("scanManifest accepted invalid JSON %q", data)
			}
			return
		}
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatalf("encoding/json: %v", err)
		}
		obj, isObject := v.(map[string]any)
		if !isObject {
			if err != errNotObject {
				t.Fatalf("%q: got %v, want errNotObject", data, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("scanManifest rejected valid JSON %q: %v", data, err)
		}
		str := func(v any) string { s, _ := v.(string); return s }
		sub := func(k string) map[string]any { o, _ := obj[k].(map[string]any); return o }
		want := manifest{apiVersion: str(obj["apiVersion"]), kind: str(obj["kind"]), name: str(sub("metadata")["name"]), version: str(sub("spec")["version"])}
		for _, s := range []string{m.apiVersion, m.kind, m.name, m.version} {
			if !utf8.ValidString(s) {
				return // encoding/json replaces invalid UTF-8; the scanner keeps bytes
			}
		}
		if m != want {
			t.Fatalf("%q: got %+v, want %+v", data, m, want)
		}
	})
}
