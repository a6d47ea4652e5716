package manifestscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"unicode/utf8"
)

// FuzzScan checks the one-pass scanner against encoding/json: the same
// documents are valid, and the same identity is read.
//
//	go test ./internal/manifestscan -run '^$' -fuzz FuzzScan -fuzztime 30s
func FuzzScan(f *testing.F) {
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
		m, err := Scan(data)
		valid := json.Valid(data)
		if !valid {
			if err == nil {
				t.Fatalf("Scan accepted invalid JSON %q", data)
			}
			return
		}
		var v any
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber() // 2e400 is valid JSON, but no float64
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("encoding/json: %v", err)
		}
		obj, isObject := v.(map[string]any)
		if !isObject {
			if !errors.Is(err, ErrNotObject) {
				t.Fatalf("%q: got %v, want ErrNotObject", data, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("Scan rejected valid JSON %q: %v", data, err)
		}
		str := func(v any) string { s, _ := v.(string); return s }
		sub := func(k string) map[string]any { o, _ := obj[k].(map[string]any); return o }
		want := Manifest{APIVersion: str(obj["apiVersion"]), Kind: str(obj["kind"]), Name: str(sub("metadata")["name"]), Version: str(sub("spec")["version"])}
		for _, s := range []string{m.APIVersion, m.Kind, m.Name, m.Version} {
			if !utf8.ValidString(s) {
				return // encoding/json replaces invalid UTF-8; the scanner keeps bytes
			}
		}
		if m != want {
			t.Fatalf("%q: got %+v, want %+v", data, m, want)
		}
	})
}
