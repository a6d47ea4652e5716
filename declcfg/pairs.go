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
		out, err := appendPlainEntries(make([]MapEntry, 0, len(n.Content)/2), n)
		if err != nil {
			return nil, err
		}
		return out, nil
	}
	return pairEntries(n)
}

// AppendMappingEntries is MappingEntries appending to dst, for a walk that
// reads mapping after mapping into one slice it reuses; on an error, dst
// comes back as it was.
func AppendMappingEntries(dst []MapEntry, n *Node) ([]MapEntry, error) {
	if !hasMergeKey(n) {
		return appendPlainEntries(dst, n)
	}
	entries, err := pairEntries(n)
	if err != nil {
		return dst, err
	}
	return append(dst, entries...), nil
}

// pairEntries reads a mapping's entries through mappingPairs, which
// resolves merge keys.
func pairEntries(n *Node) ([]MapEntry, error) {
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

// appendPlainEntries is AppendMappingEntries for a mapping without merge
// keys: mappingPairs' checks (keySet), in its order, without its pairs.
func appendPlainEntries(dst []MapEntry, n *Node) ([]MapEntry, error) {
	out := dst
	keys := newKeySet(n)
	for i := 0; i+1 < len(n.Content); i += 2 {
		if err := keys.add(i); err != nil {
			return dst, err
		}
		k := n.Content[i]
		out = append(out, MapEntry{Key: k.Value, KeyNode: k, Value: deref(n.Content[i+1])})
	}
	return out, nil
}

// Deref follows YAML aliases to the node they name.
func Deref(n *Node) *Node { return deref(n) }
