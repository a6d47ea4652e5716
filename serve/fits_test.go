package serve

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/sharedtest"
)

// decodes says whether encoding/json decodes n's canonical JSON into t.
func decodes(n *declcfg.Node, t reflect.Type) error {
	return json.Unmarshal([]byte(canonicalValue(n)), reflect.New(t).Interface())
}

// valueNode parses a YAML value.
func valueNode(t testing.TB, src string) *declcfg.Node {
	t.Helper()
	f := declcfg.ParseFile("t", []byte("v: "+src+"\n"))
	if len(f.Errors) > 0 || len(f.Docs) != 1 {
		t.Fatalf("%q: %v", src, f.Errors)
	}
	return lookup(mapping(f.Docs[0].Node), "v")
}

// fitsJSON agrees with encoding/json on olm.csv.metadata values of every
// shape: a yes is always a value that decodes, and on these it is exact.
func TestFitsJSON(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		src  string
		fits bool
	}{
		{`{}`, true},
		{`{displayName: Foo, description: x, keywords: [a, b], labels: {a: b}, maturity: null}`, true},
		{`{installModes: [{type: OwnNamespace, supported: true}], provider: {name: Acme, url: ""}}`, true},
		{`{apiServiceDefinitions: {owned: [{name: a, group: g, version: v1, kind: K, containerPort: 8443}]}}`, true},
		{`{crdDescriptions: {owned: [{name: a, version: v1, kind: K, specDescriptors: [{path: x, value: {any: [1, true]}}]}]}}`, true},
		{`{nativeAPIs: [{group: "", version: v1, kind: Pod}], unknownField: [1, {x: 2}]}`, true},
		// Keys matched without regard to case, as encoding/json does.
		{`{DisplayName: Foo, MINKUBEVERSION: 1.25.0}`, true},
		{`{DisplayName: 5}`, false},
		{`{displayName: 5}`, false},
		{`{keywords: a}`, false},
		{`{keywords: [a, 1]}`, false},
		{`{labels: {a: 1}}`, false},
		{`{labels: [a]}`, false},
		{`{annotations: {a: true}}`, false},
		{`{provider: Acme}`, false},
		{`{installModes: [{type: x, supported: "yes"}]}`, false},
		{`{installModes: {type: x}}`, false},
		{`{apiServiceDefinitions: {owned: [{containerPort: 1.5}]}}`, false},
		{`{apiServiceDefinitions: {owned: [{containerPort: 3000000000}]}}`, false},
		{`{apiServiceDefinitions: {owned: [{containerPort: 1e30}]}}`, false},
		{`{crdDescriptions: {required: [{name: [x]}]}}`, false},
		{`{crdDescriptions: {owned: [{resources: [{name: a, kind: 1}]}]}}`, false},
		{`[1]`, false},
		{`text`, false},
	} {
		v := valueNode(t, tc.src)
		got := fitsJSON(v, csvMetadataType)
		err := decodes(v, csvMetadataType)
		if got != tc.fits || (err == nil) != tc.fits {
			t.Errorf("%s: fitsJSON %v, encoding/json error %v; want fits=%v", tc.src, got, err, tc.fits)
		}
	}
}

// Every olm.csv.metadata value of a modern catalog fits, without a decode.
func TestFitsJSONCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("reads a whole catalog")
	}
	t.Parallel()
	dir := filepath.Join(sharedtest.Corpus(t), "certified-operators", "catalogs", "v4.18")
	n := 0
	err := declcfg.WalkPath(t.Context(), dir, nil, declcfg.WalkOptions{}, func(f *declcfg.File) error {
		for _, doc := range f.Docs {
			for _, item := range items(lookup(mapping(doc.Node), "properties")) {
				p := mapping(item)
				if stringOf(lookup(p, "type")) != declcfg.PropertyCSVMetadata {
					continue
				}
				n++
				if v := lookup(p, "value"); !fitsJSON(v, csvMetadataType) {
					t.Errorf("%s: an olm.csv.metadata value does not fit (encoding/json: %v)", doc.Pos, decodes(v, csvMetadataType))
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 700 {
		t.Fatalf("%d olm.csv.metadata values in %s", n, dir)
	}
}

// FuzzFitsJSON: whatever the value, a yes from fitsJSON is a value
// encoding/json decodes into olm.csv.metadata.
func FuzzFitsJSON(f *testing.F) {
	for _, s := range []string{
		`{"displayName":"x","keywords":["a"],"labels":{"a":"b"}}`,
		`{"apiServiceDefinitions":{"owned":[{"containerPort":2147483647}]}}`,
		`{"apiServiceDefinitions":{"owned":[{"containerPort":-2147483649}]}}`,
		`{"crdDescriptions":{"owned":[{"specDescriptors":[{"value":{"a":1}}]}]},"Provider":{"URL":"u"}}`,
		"installModes:\n- type: AllNamespaces\n  supported: yes\n",
	} {
		f.Add([]byte(s))
	}
	if data, err := os.ReadFile("testdata/catalog/beta-operator/catalog.yaml"); err == nil {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		for _, doc := range declcfg.ParseFile("fuzz", data).Docs {
			var discard bytes.Buffer
			if newDocReader().write(&discard, doc.Node, 0) != nil {
				continue // the loader refuses the document before any check
			}
			if fitsJSON(doc.Node, csvMetadataType) {
				if err := decodes(doc.Node, csvMetadataType); err != nil {
					t.Fatalf("fitsJSON says %s fits; encoding/json: %v", canonicalValue(doc.Node), err)
				}
			}
		}
	})
}
