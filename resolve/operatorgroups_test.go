package resolve

import (
	"testing"

	"github.com/fbc-project/fbc/model"
)

// TestSupports holds the install-mode rule to OLM's InstallModeSet.Supports:
// which target namespaces each set of modes accepts, and its messages.
func TestSupports(t *testing.T) {
	t.Parallel()
	modes := func(supported ...string) model.CSVFacts {
		f := model.CSVFacts{Source: "csv"}
		for _, m := range []string{"OwnNamespace", "SingleNamespace", "MultiNamespace", "AllNamespaces"} {
			on := false
			for _, s := range supported {
				on = on || s == m
			}
			f.InstallModes = append(f.InstallModes, model.InstallMode{Type: m, Supported: on})
		}
		return f
	}
	for _, tc := range []struct {
		name    string
		facts   model.CSVFacts
		targets []string
		want    string
	}{
		{"all", modes("AllNamespaces"), []string{""}, ""},
		{"all unsupported", modes("OwnNamespace"), []string{""}, "AllNamespaces InstallModeType not supported, cannot configure to watch all namespaces"},
		{"own", modes("OwnNamespace"), []string{"ops"}, ""},
		{"own unsupported", modes("SingleNamespace"), []string{"ops"}, "OwnNamespace InstallModeType not supported, cannot configure to watch own namespace"},
		{"single", modes("SingleNamespace"), []string{"team"}, ""},
		{"single unsupported", modes("OwnNamespace", "AllNamespaces"), []string{"team"}, "SingleNamespace InstallModeType not supported, cannot configure to watch one namespace"},
		{"multi unsupported", modes("SingleNamespace"), []string{"a", "b"}, "MultiNamespace InstallModeType not supported, cannot configure to watch 2 namespaces"},
		{"multi with own", modes("MultiNamespace"), []string{"a", "ops"}, "OwnNamespace InstallModeType not supported, cannot configure to watch own namespace"},
		{"multi with all", modes("MultiNamespace", "OwnNamespace"), []string{"a", ""}, "operatorgroup has invalid selected namespaces, NamespaceAll found when |selected namespaces| > 1"},
		{"none", modes("AllNamespaces"), nil, "operatorgroup has invalid selected namespaces, cannot configure to watch zero namespaces"},
	} {
		if got := supports(tc.facts, "ops", tc.targets); got != tc.want {
			t.Errorf("%s: supports(%v) = %q, want %q", tc.name, tc.targets, got, tc.want)
		}
	}
	dup := model.CSVFacts{InstallModes: []model.InstallMode{{Type: "AllNamespaces", Supported: true}, {Type: "AllNamespaces"}}}
	if got := duplicateModes(dup); got != "InstallMode list contains duplicates, cannot make set: [{AllNamespaces true} {AllNamespaces false}]" {
		t.Errorf("duplicateModes = %q", got)
	}
}
