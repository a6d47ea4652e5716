package declcfg

import "testing"

func TestSuggest(t *testing.T) {
	for _, tc := range []struct {
		word  string
		cands []string
		want  string
	}{
		{"replace", []string{"name", "replaces", "skips", "skipRange"}, "replaces"},
		{"skipRang", []string{"name", "replaces", "skips", "skipRange"}, "skipRange"},
		{"defaultchanel", []string{"schema", "name", "defaultChannel", "description", "icon", "properties"}, "defaultChannel"},
		{"olm.pakage", []string{"olm.gvk", "olm.package", "olm.package.required"}, "olm.package"},
		{"olm.channels", []string{"olm.channel", "olm.label"}, "olm.channel"},
		{"relatedImage", []string{"olm.package", "olm.gvk"}, ""},
		{"x", []string{"name"}, ""},
		{"acme-operater", []string{"", "acme-operator", "other"}, "acme-operator"},
		{"naem", []string{"name"}, "name"}, // a transposition is one edit
	} {
		if got := Suggest(tc.word, tc.cands); got != tc.want {
			t.Errorf("Suggest(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
}
