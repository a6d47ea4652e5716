package declcfg

import yaml "go.yaml.in/yaml/v3"

// MapEntry is one key/value pair of a YAML mapping.
type MapEntry struct {
	Key     string
	KeyNode *yaml.Node // nil for keys copied in by a "<<" merge key
	Value   *yaml.Node
}

// MappingEntries returns the pairs of a mapping node the way the loader reads
// them: "<<" merge keys resolved, and an error (with a position) for
// duplicate or non-scalar keys. Checkers that walk documents use it so that
// they see exactly the keys the decoder saw.
func MappingEntries(n *yaml.Node) ([]MapEntry, error) {
	pairs, err := mappingPairs(n)
	if err != nil {
		return nil, err
	}
	out := make([]MapEntry, len(pairs))
	for i, p := range pairs {
		out[i] = MapEntry{Key: p.key, KeyNode: p.keyNode, Value: deref(p.value)}
	}
	return out, nil
}

// Deref follows YAML aliases to the node they name.
func Deref(n *yaml.Node) *yaml.Node { return deref(n) }
