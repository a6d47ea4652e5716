package resolve

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestDependencyPredicates checks OLM's wording of each dependency and of
// each property OLM refuses.
func TestDependencyPredicates(t *testing.T) {
	tests := []struct {
		typ, value string
		want       string // predicate text, or "error: " + message
	}{
		{"olm.gvk.required", `{"group":"g","kind":"K","version":"v1"}`, "providing an API with group: g, version: v1, kind: K"},
		{"olm.package.required", `{"packageName":"b","versionRange":">=1.0.0 <2.0.0"}`, "with package: b and with version in range: >=1.0.0 <2.0.0"},
		{"olm.label.required", `{"label":"lts"}`, "with label: lts"},
		{"olm.constraint", `{"gvk":{"group":"g","version":"v","kind":"k"},"failureMessage":"dropped"}`, "providing an API with group: g, version: v, kind: k"},
		{"olm.constraint", `{"all":{"constraints":[{"package":{"packageName":"a","versionRange":"1.x"}},{"not":{"constraints":[{"gvk":{"group":"g","version":"v","kind":"k"}},{"package":{"packageName":"b","versionRange":">0.0.0"}}]}}]}}`,
			"with package: a and with version in range: 1.x and providing an API with group: g, version: v, kind: k and not with package: b and with version in range: >0.0.0"},
		{"olm.constraint", `{"any":{"constraints":[{"gvk":{"group":"g","version":"v","kind":"k"}},{"gvk":{"group":"h","version":"v","kind":"k"}}]}}`,
			"providing an API with group: g, version: v, kind: k or providing an API with group: h, version: v, kind: k"},
		{"olm.constraint", `{"cel":{"rule":"properties.exists(p, p.type == \"x\")"},"failureMessage":"needs \"x\""}`,
			`with constraint: "properties.exists(p, p.type == \"x\")" and message: "needs \"x\""`},
		// Several kinds: gvk wins over package, package over the compounds.
		{"olm.constraint", `{"package":{"packageName":"p","versionRange":"1.0.0"},"gvk":{"group":"g","version":"v","kind":"k"}}`, "providing an API with group: g, version: v, kind: k"},
		{"olm.constraint", `{"x":1}`, `error: parse olm.constraint: json: unknown field "x"`},
		{"olm.constraint", `{}`, "error: convert olm.constraint to resolver predicate: constraint is empty"},
		{"olm.constraint", `{"failureMessage":"only"}`, "error: convert olm.constraint to resolver predicate: constraint is empty"},
		{"olm.constraint", `{"gvk":"g"}`, "error: parse olm.constraint: json: cannot unmarshal string into Go struct field Constraint.gvk of type constraints.GVKConstraint"},
		{"olm.constraint", `{"cel":{"rule":"properties"}}`, "error: convert olm.constraint to resolver predicate: cel expressions must have type Bool"},
		{"olm.constraint", `{"cel":{"rule":"nope"}}`, "error: convert olm.constraint to resolver predicate: ERROR: <input>:1:1: undeclared reference to 'nope'"},
		{"olm.constraint", `{"any":{"constraints":[{"package":{"packageName":"p","versionRange":">=1.0"}}]}}`, `error: convert olm.constraint to resolver predicate: Could not parse Range ">=1.0"`},
		{"olm.constraint", `{"gvk":{"group":"` + strings.Repeat("g", 2<<16) + `"}}`, "error: parse olm.constraint: olm.constraint value is greater than max constraint size 131072 bytes"},
		{"olm.package.required", `{"packageName":"b","versionRange":""}`, "error: Last element in range is '||'"},
		{"olm.gvk.required", `[]`, "error: json: cannot unmarshal array into Go value of type struct"},
		{"olm.deprecated", `{}`, ""},
		{"example.com/unknown", `{"anything":1}`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.typ+" "+tc.value[:min(len(tc.value), 40)], func(t *testing.T) {
			ps, err := dependencyPredicates([]Property{{Type: tc.typ, Value: json.RawMessage(tc.value)}})
			if want, ok := strings.CutPrefix(tc.want, "error: "); ok {
				if err == nil || !strings.HasPrefix(err.Error(), want) {
					t.Fatalf("error %v, want one starting %q", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" {
				if len(ps) != 0 {
					t.Fatalf("got dependency %v, want none", ps)
				}
				return
			}
			if len(ps) != 1 || ps[0].String() != tc.want {
				t.Fatalf("got %v, want %q", ps, tc.want)
			}
		})
	}
}

// TestCELMatching runs rules on a bundle's properties as OLM does: JSON
// numbers compare with ints, semver_compare is tolerant, an evaluation error
// is no match.
func TestCELMatching(t *testing.T) {
	e := &entry{props: []Property{
		{Type: "olm.package", Value: json.RawMessage(`{"packageName":"a","version":"1.2.3"}`)},
		{Type: "example.com/size", Value: json.RawMessage(`3`)},
	}}
	tests := []struct {
		rule string
		want bool
	}{
		{`properties.exists(p, p.type == "example.com/size" && p.value == 3)`, true},
		{`properties.exists(p, p.type == "olm.package" && semver_compare(p.value.version, "v1.2.3") == 0)`, true},
		{`properties.exists(p, p.type == "olm.package" && semver_compare(p.value.version, "1.3") < 0)`, true},
		{`properties.exists(p, p.type == "olm.package" && semver_compare(p.value.version, "banana") == 0)`, false},
		{`properties.all(p, p.value.packageName == "a")`, false},
	}
	for _, tc := range tests {
		ps, err := dependencyPredicates([]Property{{Type: "olm.constraint", Value: mustJSON(t, map[string]any{"cel": map[string]string{"rule": tc.rule}})}})
		if err != nil {
			t.Fatalf("%s: %v", tc.rule, err)
		}
		if got := ps[0].test(e); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.rule, got, tc.want)
		}
	}
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSortChannel checks OLM's channel order and its errors.
func TestSortChannel(t *testing.T) {
	mk := func(specs ...string) []*entry {
		var es []*entry
		for _, s := range specs {
			f := strings.Split(s, ":")
			e := &entry{name: f[0], pkg: "p", channel: "c"}
			if len(f) > 1 {
				e.replaces = f[1]
			}
			if len(f) > 2 && f[2] != "" {
				e.skips = strings.Split(f[2], ",")
			}
			es = append(es, e)
		}
		return es
	}
	tests := []struct {
		entries []*entry
		want    string
	}{
		{mk("a", "b:a", "c:b"), "c b a"},
		{mk("a", "b:a", "c:b:a"), "c b"},
		{mk("a", "b:a:x", "c:b"), "c b a"},
		{mk("a:c", "b:a", "c:b"), `no channel heads (entries not replaced by another entry) found in channel "c" of package "p"`},
		{mk("a", "b:a", "c:a"), `a unique replacement chain within a channel is required to determine the relative order between channel entries, but 2 replacement chains were found in channel "c" of package "p": b...a, c...a`},
		{mk("a", "b"), `a unique replacement chain within a channel is required to determine the relative order between channel entries, but 2 replacement chains were found in channel "c" of package "p": a, b`},
		{mk("a:b", "b:a", "c:a"), `a cycle exists in the chain of replacement beginning with "c" in channel "c" of package "p"`},
	}
	for _, tc := range tests {
		chain, err := sortChannel(tc.entries)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			var names []string
			for _, e := range chain {
				names = append(names, e.name)
			}
			got = strings.Join(names, " ")
		}
		if got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}
