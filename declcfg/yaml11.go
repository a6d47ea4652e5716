package declcfg

import (
	"fmt"
)

// YAML11Bool reports whether n is an unquoted, untagged scalar that yaml.v3
// (YAML 1.2) reads as a string but YAML 1.1 reads as a boolean, and which
// boolean. opm reads catalogs with sigs.k8s.io/yaml, a YAML 1.1 parser, so to
// opm "name: yes" is true, not the string "yes", and a field that must be a
// string rejects it. These words are the only plain scalars the two readings
// type differently (numbers, nulls and timestamps agree).
func YAML11Bool(n *Node) (value, ok bool) {
	if n == nil || n.Kind != ScalarNode || n.Style != 0 || n.Tag != "!!str" {
		return false, false
	}
	switch n.Value {
	case "y", "Y", "yes", "Yes", "YES", "on", "On", "ON":
		return true, true
	case "n", "N", "no", "No", "NO", "off", "Off", "OFF":
		return false, true
	}
	return false, false
}

// NotStringText names the kind of n for a message saying that a string
// belongs where n is. A YAML 1.1 boolean is named with its fix.
func NotStringText(n *Node) string {
	if b, ok := YAML11Bool(n); ok {
		return fmt.Sprintf("the unquoted %s, which opm reads as the boolean %t (YAML 1.1): quote it", n.Value, b)
	}
	return KindName(n)
}
