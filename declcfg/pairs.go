package declcfg

// MapEntry is one key/value pair of a YAML mapping.
type MapEntry struct {
	Key     string
	KeyNode *Node // nil for keys copied in by a "<<" merge key
	Value   *Node
}

// MappingEntries returns the pairs of a mapping node the way the loader reads
// them: "<<" merge keys resolved, and an error (with a position) for
// duplicate or non-scalar keys. Checkers that walk documents use it so that
// they see exactly the keys the decoder saw.
func MappingEntries(n *Node) ([]MapEntry, error) {
	if !hasMergeKey(n) {
		return plainEntries(n)
	}
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

// plainEntries is MappingEntries for a mapping without merge keys, in one
// allocation: mappingPairs' checks, in its order, without its pairs.
func plainEntries(n *Node) ([]MapEntry, error) {
	out := make([]MapEntry, 0, len(n.Content)/2)
	var seen map[string]*Node
	if len(n.Content) > 16 {
		seen = make(map[string]*Node, len(n.Content)/2)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != ScalarNode {
			return nil, nodeError(k, "mapping keys must be scalars")
		}
		if seen != nil {
			if prev, ok := seen[k.Value]; ok {
				return nil, nodeError(k, "duplicate key %q (first defined at line %d)", k.Value, prev.Line)
			}
			seen[k.Value] = k
		} else {
			for _, e := range out {
				if e.Key == k.Value {
					return nil, nodeError(k, "duplicate key %q (first defined at line %d)", k.Value, e.KeyNode.Line)
				}
			}
		}
		out = append(out, MapEntry{Key: k.Value, KeyNode: k, Value: deref(v)})
	}
	return out, nil
}

// Deref follows YAML aliases to the node they name.
func Deref(n *Node) *Node { return deref(n) }
