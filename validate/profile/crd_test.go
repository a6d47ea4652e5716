package profile

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/operator-framework/api/pkg/validation"
	"github.com/operator-framework/api/pkg/validation/errors"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/internal/sharedtest"
)

// corpusDir is the shared corpus of real catalogs and bundles:
// $FBC_SHARED/corpus, or ../shared/corpus next to the repository. Tests
// that need it skip when it is absent.
func corpusDir(t testing.TB) string {
	t.Helper()
	return sharedtest.Corpus(t)
}

// baseCRD is a valid v1 CRD; mutations of it exercise the validator's
// error paths.
const baseCRD = `{
 "apiVersion": "apiextensions.k8s.io/v1",
 "kind": "CustomResourceDefinition",
 "metadata": {"name": "widgets.example.com"},
 "spec": {
  "group": "example.com",
  "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
  "scope": "Namespaced",
  "versions": [
   {"name": "v1alpha1", "served": true, "storage": false,
    "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {"type": "object", "properties": {"size": {"type": "integer", "default": 1}}}}}}},
   {"name": "v1", "served": true, "storage": true,
    "subresources": {"status": {}},
    "additionalPrinterColumns": [{"name": "Size", "type": "integer", "jsonPath": ".spec.size"}],
    "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}, "status": {"type": "object"}}}}}
  ]
 }
}`

// crdMutations break baseCRD in the ways the API server checks.
var crdMutations = map[string]func(m map[string]any){
	"valid":              func(map[string]any) {},
	"no plural":          func(m map[string]any) { names(m)["plural"] = "" },
	"bad group":          func(m map[string]any) { spec(m)["group"] = "Example" },
	"name mismatch":      func(m map[string]any) { m["metadata"].(map[string]any)["name"] = "gadgets.example.com" },
	"bad scope":          func(m map[string]any) { spec(m)["scope"] = "Global" },
	"two storage":        func(m map[string]any) { version(m, 0)["storage"] = true },
	"no storage":         func(m map[string]any) { version(m, 1)["storage"] = false },
	"duplicate versions": func(m map[string]any) { version(m, 0)["name"] = "v1" },
	"bad version name":   func(m map[string]any) { version(m, 0)["name"] = "V1Alpha1" },
	"no schema":          func(m map[string]any) { delete(version(m, 0), "schema") },
	"null schema":        func(m map[string]any) { version(m, 0)["schema"] = map[string]any{"openAPIV3Schema": nil} },
	"empty schema":       func(m map[string]any) { version(m, 0)["schema"] = map[string]any{} },
	"bad schema type":    func(m map[string]any) { schema(m, 0)["type"] = "thing" },
	"nullable root":      func(m map[string]any) { schema(m, 1)["nullable"] = true },
	"identical schemas":  func(m map[string]any) { version(m, 0)["schema"] = version(m, 1)["schema"] },
	"bad column path":    func(m map[string]any) { column(m)["jsonPath"] = "spec.size" },
	"bad column type":    func(m map[string]any) { column(m)["type"] = "money" },
	"deprecation warning": func(m map[string]any) {
		version(m, 0)["deprecationWarning"] = "old"
	},
	"webhook conversion": func(m map[string]any) {
		spec(m)["conversion"] = map[string]any{"strategy": "Webhook"}
	},
	"webhook conversion with review versions": func(m map[string]any) {
		spec(m)["conversion"] = map[string]any{"strategy": "Webhook", "webhook": map[string]any{"conversionReviewVersions": []any{"v9"},
			"clientConfig": map[string]any{"url": "http://bad"}}}
	},
	"scale subresource": func(m map[string]any) {
		version(m, 1)["subresources"] = map[string]any{"scale": map[string]any{"specReplicasPath": "spec", "statusReplicasPath": ".status.replicas"}}
	},
	"stored versions": func(m map[string]any) {
		m["status"] = map[string]any{"storedVersions": []any{"v0"}}
	},
	"cel rule": func(m map[string]any) {
		schema(m, 1)["x-kubernetes-validations"] = []any{map[string]any{"rule": "self.spec.size > "}}
	},
}

func spec(m map[string]any) map[string]any  { return m["spec"].(map[string]any) }
func names(m map[string]any) map[string]any { return spec(m)["names"].(map[string]any) }
func version(m map[string]any, i int) map[string]any {
	return spec(m)["versions"].([]any)[i].(map[string]any)
}
func schema(m map[string]any, i int) map[string]any {
	return version(m, i)["schema"].(map[string]any)["openAPIV3Schema"].(map[string]any)
}
func column(m map[string]any) map[string]any {
	return version(m, 1)["additionalPrinterColumns"].([]any)[0].(map[string]any)
}

// TestReducedCRDVerdicts checks the premise of reducedV1: for CRDs that
// qualify, operator-framework/api's CRD validator says the same about the
// reduced CRD as about the whole one. It runs on broken variants of a CRD
// and on every distinct CRD of the corpus.
func TestReducedCRDVerdicts(t *testing.T) {
	checked := 0
	compare := func(name string, data []byte) {
		t.Helper()
		o := &object{apiVersion: "apiextensions.k8s.io/v1", kind: kindCRD}
		o.JSON = data
		var id struct{ APIVersion string }
		if json.Unmarshal(data, &id) != nil || id.APIVersion != o.apiVersion {
			return
		}
		c, err := parseCRD(o, keyOf(data))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			return
		}
		if c.needsFullValidation() {
			return
		}
		full, err := c.fullObject()
		if err != nil {
			return
		}
		reduced, _ := c.libraryObject()
		want := validation.CustomResourceDefinitionValidator.Validate(full)
		got := validation.CustomResourceDefinitionValidator.Validate(reduced)
		if !reflect.DeepEqual(verdictText(got), verdictText(want)) {
			t.Errorf("%s: reduced CRD verdict differs\n got: %v\nwant: %v", name, verdictText(got), verdictText(want))
		}
		checked++
	}
	for name, mutate := range crdMutations {
		var m map[string]any
		if err := json.Unmarshal([]byte(baseCRD), &m); err != nil {
			t.Fatal(err)
		}
		mutate(m)
		data, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		compare(name, data)
	}
	if testing.Short() {
		return
	}
	seen := map[contentKey]bool{}
	for name, data := range corpusCRDs(t) {
		if k := keyOf(data); !seen[k] {
			seen[k] = true
			compare(name, data)
		}
	}
	t.Logf("%d CRDs compared", checked)
}

// verdictText lists what a validator found; an invalid value is left out
// of the text, since it quotes the fields around the problem (which hold
// the schemas in their two forms).
func verdictText(rs []errors.ManifestResult) []string {
	var out []string
	for _, r := range rs {
		for _, e := range append(r.Errors, r.Warnings...) {
			out = append(out, fmt.Sprintf("%s %s %s %s %s", r.Name, e.Level, e.Type, e.Field, withoutValue(e.Detail)))
		}
	}
	return out
}

// corpusCRDs returns the CRDs of the corpus's bundle directories and of
// the certified v4.16 catalog, by where they are.
func corpusCRDs(t *testing.T) map[string][]byte {
	root := corpusDir(t)
	out := map[string][]byte{}
	files, _ := filepath.Glob(filepath.Join(root, "*", "operators", "*", "*", "manifests", "*"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil || !strings.Contains(string(data), "CustomResourceDefinition") {
			continue
		}
		j, err := sigsyaml.YAMLToJSON(data)
		if err == nil {
			out[f] = j
		}
	}
	cat := filepath.Join(root, "certified-operators", "catalogs", "v4.16")
	cfg, err := declcfg.LoadFS(context.Background(), os.DirFS(cat), cat, declcfg.WalkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range cfg.Bundles {
		objs, err := declcfg.BundleObjects(b.Properties)
		if err != nil {
			t.Fatal(err)
		}
		for i, o := range objs {
			if strings.Contains(string(o), `"CustomResourceDefinition"`) {
				out[fmt.Sprintf("%s object %d", b.Name, i)] = o
			}
		}
	}
	return out
}
