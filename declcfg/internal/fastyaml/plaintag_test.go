package fastyaml

import (
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"github.com/fbc-project/fbc/declcfg/internal/tree"
)

// TestPlainTag holds plainTag to yaml.v3's resolution of plain scalars: every
// first byte, and the words and shapes the core schema resolves.
func TestPlainTag(t *testing.T) {
	values := []string{"", "~", "null", "Null", "NULL", "nul", "nulls", "true", "True", "TRUE", "tRUE", "false", "False",
		"FALSE", "yes", "Yes", "no", "No", "on", "off", "y", "n", "<<", "<", "<x", ".inf", ".NaN", ".5", "-.inf",
		"+1", "-1", "0x1F", "0o17", "0b101", "1_000", "1.2.3", "1e3", "2023-01-02", "2023-01-02T03:04:05Z",
		"olm.package", "Operator", "quay.io/a/b:1", "a: b", "ÿ", "\u00e9t\u00e9", "~x", "true!", "oci:x"}
	for c := range 256 {
		values = append(values, string(rune(c)), string([]byte{byte(c)})+"x", string([]byte{byte(c)})+"1")
	}
	for _, v := range values {
		n := &yaml.Node{Kind: yaml.ScalarNode, Value: v}
		if got, want := plainTag(&tree.Node{Kind: tree.ScalarNode, Value: v}), n.ShortTag(); got != want {
			t.Errorf("%q: %s, yaml.v3 %s", v, got, want)
		}
	}
}
