package declcfg

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fbc-project/fbc/internal/sharedtest"
)

// onlyPackage keeps the values validate reads.
func onlyPackage(typ string) bool { return typ == PropertyPackage }

// sameDecode holds DecodeDocumentWith(Values) to DecodeDocument on a
// document: the same problems at the same places, the same blob but for the
// values not kept, which are nil. It returns how many values were dropped.
func sameDecode(t testing.TB, doc Document) int {
	t.Helper()
	full, fullErrs, fullOK := DecodeDocument(doc)
	got, errs, ok := DecodeDocumentWith(doc, DecodeOptions{Values: onlyPackage})
	if ok != fullOK || !reflect.DeepEqual(errorTexts(errs), errorTexts(fullErrs)) {
		t.Fatalf("%s: ok %v, problems %q; all values kept: ok %v, problems %q", doc.Pos, ok, errorTexts(errs), fullOK, errorTexts(fullErrs))
	}
	dropped := 0
	var props []Property
	switch {
	case full.Package != nil:
		props = full.Package.Properties
	case full.Channel != nil:
		props = full.Channel.Properties
	case full.Bundle != nil:
		props = full.Bundle.Properties
	}
	for i := range props {
		if !onlyPackage(props[i].Type) && props[i].Value != nil {
			props[i].Value = nil
			dropped++
		}
	}
	if !reflect.DeepEqual(got, full) {
		t.Fatalf("%s: blobs differ beyond the dropped values:\n%+v\n%+v", doc.Pos, got, full)
	}
	return dropped
}

func errorTexts(errs []*LoadError) []string {
	var s []string
	for _, e := range errs {
		s = append(s, e.Rule+" "+e.Error())
	}
	return s
}

// TestDecodeValues: values not kept are still checked, and a problem in one
// is reported where, and as, it is when the value is encoded.
func TestDecodeValues(t *testing.T) {
	for name, tc := range map[string]struct {
		doc, problem string
	}{
		"kept and dropped": {doc: `{"schema":"olm.bundle","name":"a.v1","package":"a","image":"i",
"properties":[{"type":"olm.package","value":{"packageName":"a","version":"1.0.0"}},{"type":"olm.gvk","value":{"group":"g","kind":"K","version":"v1"}}]}`},
		"duplicate key": {doc: "schema: olm.bundle\nname: a.v1\nproperties:\n- type: olm.gvk\n  value:\n    group: g\n    group: h\n",
			problem: "f.yaml:7:5: duplicate key \"group\" (first defined at line 6)"},
		"infinity": {doc: "schema: olm.bundle\nname: a.v1\nproperties:\n- type: custom\n  value: {n: .inf}\n",
			problem: "f.yaml:5:14: .inf cannot be represented in JSON; quote it if it is meant as a string"},
		"bad boolean": {doc: "schema: olm.bundle\nname: a.v1\nproperties:\n- type: custom\n  value: [1, !!bool maybe]\n",
			problem: "f.yaml:5:14: invalid boolean \"maybe\""},
		"key not a scalar": {doc: "schema: olm.channel\nname: c\nproperties:\n- type: custom\n  value:\n    ? [a]\n    : b\n",
			problem: "f.yaml:6:7: mapping keys must be scalars"},
		"merge key": {doc: "schema: olm.package\nname: p\nproperties:\n- type: tx\n  value: &v {a: 1}\n- type: ty\n  value: {<<: *v, a: 2, a: 3}\n",
			problem: "f.yaml:7:25: duplicate key \"a\" (first defined at line 7)"},
		"bad package value": {doc: "schema: olm.bundle\nname: a.v1\nproperties:\n- type: olm.package\n  value: {v: .nan}\n",
			problem: "f.yaml:5:14: .nan cannot be represented in JSON; quote it if it is meant as a string"},
	} {
		t.Run(name, func(t *testing.T) {
			f := ParseFile("f.yaml", []byte(tc.doc))
			if len(f.Errors) > 0 || len(f.Docs) != 1 {
				t.Fatalf("parse: %v", f.Errors)
			}
			sameDecode(t, f.Docs[0])
			_, errs, _ := DecodeDocumentWith(f.Docs[0], DecodeOptions{Values: onlyPackage})
			if got := strings.Join(errorTexts(errs), "\n"); !strings.Contains(got, tc.problem) || (tc.problem == "") != (got == "") {
				t.Errorf("problems %q, want %q", got, tc.problem)
			}
		})
	}
}

// TestDecodeValuesCorpus: on real catalogs, dropping values changes nothing
// but the values.
func TestDecodeValuesCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("reads whole corpus catalogs")
	}
	root := sharedtest.Corpus(t)
	dropped := 0
	for _, dir := range []string{"certified-operators/catalogs/v4.18", "community-operators-prod/catalogs/v4.22"} {
		path := filepath.Join(root, dir)
		if _, err := os.Stat(path); err != nil {
			continue
		}
		err := WalkPath(context.Background(), path, nil, WalkOptions{}, func(f *File) error {
			for _, doc := range f.Docs {
				dropped += sameDecode(t, doc)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if dropped == 0 {
		t.Fatal("no value was dropped")
	}
}

// FuzzDecodeValues: whatever the document, keeping only some values reports
// what keeping all of them does.
func FuzzDecodeValues(f *testing.F) {
	addSeeds(f)
	f.Add([]byte("schema: olm.bundle\nname: a\nproperties:\n- type: t\n  value: {a: &x [1, .inf], b: *x, <<: {c: 1}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<20 {
			return
		}
		for _, doc := range ParseFile("fuzz.yaml", data).Docs {
			sameDecode(t, doc)
		}
	})
}
