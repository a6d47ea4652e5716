package declcfg

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fbc-project/fbc/internal/sharedtest"
)

// bundleRef is what json.Encoder (HTML escaping off) writes for b.
func bundleRef(t testing.TB, b *Bundle) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(b)
	return buf.Bytes(), err
}

func checkBundleJSON(t testing.TB, b *Bundle) {
	want, err := bundleRef(t, b)
	got, ok := appendBundleJSON(nil, b)
	if !ok {
		return // left to encoding/json
	}
	if err != nil {
		t.Fatalf("appendBundleJSON wrote %q where encoding/json fails: %v", got, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("appendBundleJSON\n got %q\nwant %q", got, want)
	}
}

func TestAppendBundleJSON(t *testing.T) {
	long := strings.Repeat("QUJD", 300)
	for _, b := range []*Bundle{
		{Schema: SchemaBundle, Image: ""},
		{Schema: SchemaBundle, Name: "a.v1", Package: "a", Image: "quay.io/a@sha256:00"},
		{Schema: SchemaBundle, Name: "q\"\\<>&\u2028\x01é", Image: "i", Properties: []Property{
			{Type: "olm.package", Value: json.RawMessage(`{"packageName":"a","version":"1.0.0"}`)},
			{Type: "olm.bundle.object", Value: json.RawMessage(`{"data":"` + long + `"}`)},
			{Type: "x", Value: nil},
			{Type: "y", Value: json.RawMessage(`"a \" b \\ c"`)},
			{Type: "z", Value: json.RawMessage(`[1,true,null,{"k":[]}]`)},
		}, RelatedImages: []RelatedImage{{Name: "", Image: "r"}, {Name: "n", Image: "<&>"}}},
		{Schema: SchemaBundle, Image: "i", Properties: []Property{}},
	} {
		if _, ok := appendBundleJSON(nil, b); !ok {
			t.Fatalf("%q left to encoding/json", b.Name)
		}
		checkBundleJSON(t, b)
	}
	// Values encoding/json would compact (or refuse) are left to it.
	for _, v := range []string{`{"a": 1}`, "[1,\n2]", ``} {
		if _, ok := appendBundleJSON(nil, &Bundle{Schema: SchemaBundle, Properties: []Property{{Type: "t", Value: json.RawMessage(v)}}}); ok {
			t.Errorf("value %q taken", v)
		}
	}
}

// TestAppendBundleJSONCorpus: every bundle of real catalogs encodes as
// encoding/json encodes it, and none is left to encoding/json.
func TestAppendBundleJSONCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("reads whole corpus catalogs")
	}
	root := sharedtest.Corpus(t)
	n := 0
	for _, dir := range []string{"certified-operators/catalogs/v4.16", "certified-operators/catalogs/v4.18", "community-operators-prod/catalogs/v4.22"} {
		path := filepath.Join(root, dir)
		if _, err := os.Stat(path); err != nil {
			continue
		}
		err := LoadEach(context.Background(), []string{path}, LoadOptions{}, func(cfg *DeclarativeConfig) error {
			for i := range cfg.Bundles {
				if _, ok := appendBundleJSON(nil, &cfg.Bundles[i]); !ok {
					t.Errorf("%s: bundle %s left to encoding/json", dir, cfg.Bundles[i].Name)
				}
				checkBundleJSON(t, &cfg.Bundles[i])
				n++
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n == 0 {
		sharedtest.Missing(t, "no corpus catalogs")
	}
}

func FuzzAppendBundleJSON(f *testing.F) {
	f.Add("a.v1", "a", "quay.io/a:1", "olm.package", []byte(`{"packageName":"a"}`), "n", "img")
	f.Add("", "", "", "t", []byte(`"x\u2028"`), "", "")
	f.Fuzz(func(t *testing.T, name, pkg, image, typ string, value []byte, riName, riImage string) {
		b := &Bundle{Schema: SchemaBundle, Name: name, Package: pkg, Image: image,
			Properties:    []Property{{Type: typ, Value: json.RawMessage(value)}},
			RelatedImages: []RelatedImage{{Name: riName, Image: riImage}}}
		if !json.Valid(value) {
			return // the writer's values are JSON; encoding/json refuses others
		}
		checkBundleJSON(t, b)
	})
}
