package resolve

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzManifests feeds the manifest reader arbitrary files: it must never
// panic, every problem must name the file, and what it reads must be what a
// Subscription or CatalogSource needs.
func FuzzManifests(f *testing.F) {
	seeds := []string{
		"apiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\nmetadata: {name: a, namespace: ns}\nspec: {name: a, source: c, sourceNamespace: ns, channel: stable}\nstatus: {installedCSV: a.v1}\n",
		"apiVersion: operators.coreos.com/v1alpha1\nkind: CatalogSource\nmetadata: {name: c, namespace: ns}\nspec: {priority: 10, image: quay.io/x/y:v1}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n",
		`{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "operators.coreos.com/v1", "kind": "OperatorGroup", "metadata": {"name": "og", "namespace": "ns", "annotations": {"olm.operatorframework.io/exclude-global-namespace-resolution": "true"}}}]}`,
		"apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: a.v1\n  annotations:\n    operatorframework.io/properties: '{\"properties\":[{\"type\":\"olm.package\",\"value\":{\"packageName\":\"a\",\"version\":\"1.0.0\"}}]}'\nspec:\n  version: 1.0.0\n  customresourcedefinitions:\n    owned: [{name: things.example.com, version: v1, kind: Thing}]\n    required: [{name: bad}]\n",
		"apiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\nmetadata: {name: a}\nspec: {name: [a]}\n",
		"- a\n- b\n",
		"kind: Subscription\nmetadata: {namespace: [\n",
		"---\n# only a comment\n---\n",
		"{\"kind\": \"List\", \"items\": [{\"kind\": \"List\", \"items\": []}]}",
		"apiVersion: olm.operatorframework.io/v1\nkind: ClusterCatalog\nmetadata: {name: c, labels: {a: b}}\nspec: {priority: 5, availabilityMode: Unavailable, source: {type: Image, image: {ref: x}}}\nstatus: {conditions: [{type: Serving, status: 'False'}]}\n",
		"apiVersion: olm.operatorframework.io/v1\nkind: ClusterExtension\nmetadata: {name: e}\nspec:\n  namespace: ns\n  source: {sourceType: Catalog, catalog: {packageName: p, version: '>=1', channels: [a], selector: {matchExpressions: [{key: k, operator: In, values: [v]}]}}}\nstatus: {install: {bundle: {name: p.v1, version: 1.0.0}}}\n",
		"apiVersion: v1\nkind: Namespace\nmetadata: {name: n, labels: {x: y}}\n",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		m := &Manifests{Skipped: map[string]int{}}
		for _, e := range m.parse("f.yaml", data) {
			if e.Pos.File != "f.yaml" {
				t.Fatalf("problem without its file: %v", e)
			}
		}
		for _, s := range m.Subscriptions {
			if s.Name == "" || s.Package == "" || s.Catalog.Name == "" || s.Catalog.Namespace == "" {
				t.Fatalf("incomplete Subscription accepted: %+v", s)
			}
		}
		for _, c := range m.CatalogSources {
			if c.Key.Name == "" {
				t.Fatalf("CatalogSource without a name accepted: %+v", c)
			}
		}
		for _, e := range m.ClusterExtensions {
			if e.Name == "" {
				t.Fatalf("ClusterExtension without a name accepted: %+v", e)
			}
			e.Admit(false)
			e.Admit(true)
		}
	})
}

// FuzzConstraint parses olm.constraint values (and the other dependency
// properties) as OLM does and runs what parses on a bundle: no panic, and
// an error or a predicate, never both.
func FuzzConstraint(f *testing.F) {
	seeds := []string{
		`{"gvk":{"group":"g","version":"v","kind":"k"}}`,
		`{"package":{"packageName":"p","versionRange":">=1.0.0 <2.0.0 || 3.x"}}`,
		`{"all":{"constraints":[{"package":{"packageName":"a","versionRange":"1.0.0"}},{"not":{"constraints":[{"gvk":{"group":"g","version":"v","kind":"k"}}]}}]}}`,
		`{"any":{"constraints":[]}}`,
		`{"cel":{"rule":"properties.exists(p, p.type == 'olm.package' && semver_compare(p.value.version, '1.0.0') >= 0)"},"failureMessage":"x"}`,
		`{"cel":{"rule":"properties"}}`,
		`{"cel":{"rule":"("}}`,
		`{"GVK":{"Group":"g"}}`,
		`{"x":1}`,
		`null`,
		`{"gvk":{"group":"g"}} trailing`,
		``,
	}
	for _, s := range seeds {
		f.Add("olm.constraint", s)
	}
	f.Add("olm.package.required", `{"packageName":"p","versionRange":"> 1.0.0"}`)
	f.Add("olm.gvk.required", `{"group":"g","version":"v","kind":"k"}`)
	f.Add("olm.label.required", `{"label":"lts"}`)
	e := newCatalogEntry(&catalog{}, Entry{Name: "b.v1", Package: "b", Version: "1.2.3", Properties: []Property{
		{Type: "olm.package", Value: json.RawMessage(`{"packageName":"b","version":"1.2.3"}`)},
		{Type: "olm.gvk", Value: json.RawMessage(`{"group":"g","version":"v","kind":"k"}`)},
		{Type: "olm.label", Value: json.RawMessage(`{"label":"lts"}`)},
	}})
	f.Fuzz(func(t *testing.T, typ, value string) {
		if len(value) > 1<<12 || strings.Contains(typ, "\x00") {
			return
		}
		ps, err := dependencyPredicates([]Property{{Type: typ, Value: json.RawMessage(value)}})
		if err != nil {
			if ps != nil {
				t.Fatalf("predicates %v with error %v", ps, err)
			}
			return
		}
		for _, p := range ps {
			p.test(e)
			_ = p.String()
		}
	})
}

// FuzzFlags reads the command line's catalog, Subscription and installed
// CSV arguments: no panic, and what parses has the parts it needs.
func FuzzFlags(f *testing.F) {
	for _, s := range []string{"ns/name=dir", "name=oci:layout:tag", "a/b/c=x", "=x", "ns/=x", "etcd/alpha@etcd.v1", "n=etcd", "etcd/", "@x", "ns/csv", "x=10", "x=-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if cs, err := ParseCatalogContent(s); err == nil && (cs.Key.Name == "" || cs.Source == "") {
			t.Fatalf("%q: incomplete catalog %+v", s, cs)
		}
		if cs, err := ParseQuickCatalog(s, ""); err == nil && (cs.Key.Name == "" || cs.Key.Namespace == "" || cs.Source == "") {
			t.Fatalf("%q: incomplete catalog %+v", s, cs)
		}
		if sub, err := ParseSubscribe(s); err == nil && sub.Package == "" {
			t.Fatalf("%q: Subscription without a package", s)
		}
		if in, err := ParseInstalledCSV(s); err == nil && in.Name == "" {
			t.Fatalf("%q: installed CSV without a name", s)
		}
		_, _ = ParseCatalogPriority(s)
	})
}
