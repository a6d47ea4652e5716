package declcfg

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/fbc-project/fbc/internal/sharedtest"
)

// sameDocument reports whether BlobDocument's tree for b is the tree of
// b's encoding/json encoding (HTML escaping on), which it stands in for.
func sameDocument(t *testing.T, b Blob, v any) {
	t.Helper()
	doc, err := BlobDocument(b)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	want := ParseFile("", data)
	if len(want.Docs) != 1 {
		t.Fatalf("%d documents in %s", len(want.Docs), data)
	}
	if err := sameValues(doc.Node, want.Docs[0].Node, b.Schema); err != nil {
		t.Errorf("%s: %v", data[:min(len(data), 120)], err)
	}
}

// sameValues compares two trees but for positions: the encodings differ in
// length where one escapes HTML characters.
func sameValues(a, b *Node, path string) error {
	if a.Kind != b.Kind || a.Tag != b.Tag || a.Value != b.Value || len(a.Content) != len(b.Content) {
		return fmt.Errorf("%s: {kind %d tag %s len %d %.60q} != {kind %d tag %s len %d %.60q}", path,
			a.Kind, a.Tag, len(a.Content), a.Value, b.Kind, b.Tag, len(b.Content), b.Value)
	}
	for i := range a.Content {
		if err := sameValues(a.Content[i], b.Content[i], fmt.Sprintf("%s/%d", path, i)); err != nil {
			return err
		}
	}
	return nil
}

func TestBlobDocument(t *testing.T) {
	pkg := Package{Schema: SchemaPackage, Name: "a", DefaultChannel: "s", Description: "<b>bold</b> & \u2028 \"quoted\""}
	ch := Channel{Schema: SchemaChannel, Package: "a", Name: "s", Entries: []ChannelEntry{{Name: "a.v1", Skips: []string{"a.v0"}, SkipRange: "<1.0.0"}}}
	b := Bundle{Schema: SchemaBundle, Package: "a", Name: "a.v1", Image: "quay.io/a/a:1",
		Properties: []Property{MustProperty("olm.package", PackageProperty{PackageName: "a", Version: "1.0.0"}),
			{Type: "custom", Value: json.RawMessage(`{"html":"<x>","n":[1,2.5e3,null,true]}`)},
			{Type: "spaced", Value: json.RawMessage(`{ "a" : [ 1 ] }`)}}}
	dep := Deprecation{Schema: SchemaDeprecations, Package: "a"}
	meta := Meta{Schema: "custom.schema", Package: "a", Blob: json.RawMessage(`{"schema":"custom.schema","package":"a","x":"<y>"}`)}
	sameDocument(t, Blob{Schema: SchemaPackage, Package: &pkg}, &pkg)
	sameDocument(t, Blob{Schema: SchemaChannel, Channel: &ch}, &ch)
	sameDocument(t, Blob{Schema: SchemaBundle, Bundle: &b}, &b)
	sameDocument(t, Blob{Schema: SchemaDeprecations, Deprecation: &dep}, &dep)
	sameDocument(t, Blob{Schema: meta.Schema, Meta: &meta}, &meta)
	if _, err := BlobDocument(Blob{Schema: "x"}); err == nil {
		t.Error("an empty blob has a document")
	}
}

// TestBlobDocumentCorpus: every bundle of real catalogs has the tree its
// encoding/json encoding has.
func TestBlobDocumentCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("reads whole corpus catalogs")
	}
	root := sharedtest.Corpus(t)
	for _, dir := range []string{"certified-operators/catalogs/v4.18", "community-operators-prod/catalogs/v4.22"} {
		path := filepath.Join(root, dir)
		if _, err := os.Stat(path); err != nil {
			continue
		}
		err := LoadEach(context.Background(), []string{path}, LoadOptions{}, func(cfg *DeclarativeConfig) error {
			for i := range cfg.Bundles {
				sameDocument(t, Blob{Schema: SchemaBundle, Bundle: &cfg.Bundles[i]}, &cfg.Bundles[i])
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
