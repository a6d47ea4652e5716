package declcfg

import (
	"slices"
	"strconv"
	"strings"
)

// Keys is a rule for finding a key in a YAML mapping: how a key matches and
// which of repeated keys counts. Every reader of a document tree looks keys
// up through one of the rules below, so that what a key means is decided in
// one place for each kind of file.
type Keys struct {
	// Fold matches a key that differs only in case when none is written
	// exactly so, as encoding/json matches an object's keys to fields.
	Fold bool
	// Last makes the last of repeated keys count, as a dictionary filled
	// key by key keeps it; otherwise the first counts.
	Last bool
}

var (
	// CatalogKeys is how catalogs and templates are read: as opm decodes
	// them (encoding/json's matching, case folded when no key is written
	// exactly so). opm v1.73.0 takes the last of repeated keys silently, in
	// YAML and JSON alike; fbc refuses them (RuleDuplicateKey, and
	// template's own check), and what it reports beyond that refusal is
	// about the first, which the refusal names as defined first.
	CatalogKeys = Keys{Fold: true}
	// PipelineKeys is how operator-pipelines reads its settings files
	// (ci.yaml, release-config.yaml, config.yaml): with PyYAML, into Python
	// dictionaries, keys exactly as written and the last of repeated keys
	// counting. RepeatedKeys lists them, for a warning.
	PipelineKeys = Keys{Last: true}
	// ManifestKeys is how Kubernetes reads a manifest written in YAML
	// (sigs.k8s.io/yaml, then encoding/json): exactly as written, the last
	// of repeated keys counting.
	ManifestKeys = Keys{Last: true}
	// JSONKeys is how encoding/json fills a struct from an object: case
	// folded as CatalogKeys, the last of repeated keys counting. It is what
	// opm v1.73.0 takes where a catalog's or template's keys repeat, for a
	// reader that reports what opm would read instead of refusing (the
	// image scan), and what a manifest decoded into a struct holds.
	JSONKeys = Keys{Fold: true, Last: true}
)

// Lookup finds key in mapping n by the rule and returns the key and its
// value (aliases followed); nils when n is no mapping (or alias of one) or
// has no such key. A key written exactly so wins over one matching only in
// case; among keys that match alike, the rule's Last decides.
func (r Keys) Lookup(n *Node, key string) (k, v *Node) {
	n = deref(n)
	if n == nil || n.Kind != MappingNode {
		return nil, nil
	}
	var folded *Node
	foldedAt := -1
	for i := 0; i+1 < len(n.Content); i += 2 {
		c := n.Content[i]
		if c.Kind != ScalarNode {
			continue
		}
		switch {
		case c.Value == key:
			if k == nil || r.Last {
				k, v = c, n.Content[i+1]
			}
			if !r.Last {
				return k, deref(v)
			}
		case r.Fold && k == nil && (folded == nil || r.Last) && strings.EqualFold(c.Value, key):
			folded, foldedAt = c, i
		}
	}
	if k != nil {
		return k, deref(v)
	}
	if folded != nil {
		return folded, deref(n.Content[foldedAt+1])
	}
	return nil, nil
}

// Value is Lookup's value alone.
func (r Keys) Value(n *Node, key string) *Node {
	_, v := r.Lookup(n, key)
	return v
}

// IsNull reports whether a value is absent (nil) or YAML's null.
func IsNull(n *Node) bool {
	return n == nil || n.Kind == ScalarNode && n.Tag == "!!null"
}

// RepeatedKey is a key written more than once in one mapping: Keys are
// its keys in the order written.
type RepeatedKey struct {
	Keys []*Node
}

// RepeatedKeys lists the keys written more than once in any mapping of the
// tree under n (merge keys aside), in the order of their second writing;
// aliases are not followed (their mappings are listed where they are
// written).
func RepeatedKeys(n *Node) []RepeatedKey {
	var out []RepeatedKey
	var walk func(n *Node)
	walk = func(n *Node) {
		if n == nil {
			return
		}
		if n.Kind == MappingNode {
			var seen map[string]int // key -> index in out, or -1
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				if k.Kind != ScalarNode || k.Tag == "!!merge" {
					continue
				}
				if seen == nil {
					seen = map[string]int{}
				}
				j, ok := seen[k.Value]
				switch {
				case !ok:
					seen[k.Value] = -1
					continue
				case j < 0:
					first := firstKey(n, k.Value)
					out = append(out, RepeatedKey{Keys: []*Node{first, k}})
					seen[k.Value] = len(out) - 1
				default:
					out[j].Keys = append(out[j].Keys, k)
				}
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(n)
	slices.SortStableFunc(out, func(a, b RepeatedKey) int {
		x, y := a.Keys[1], b.Keys[1]
		if x.Line != y.Line {
			return x.Line - y.Line
		}
		return x.Column - y.Column
	})
	return out
}

func firstKey(n *Node, key string) *Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; k.Kind == ScalarNode && k.Value == key {
			return k
		}
	}
	return nil
}

// Step takes one step of a path into a tree: in a mapping, the key seg by
// the rule (its key and value); in a sequence, the item whose index seg
// is (no key). Nils when n has no such step; aliases are followed.
func (r Keys) Step(n *Node, seg string) (key, value *Node) {
	n = deref(n)
	if n == nil {
		return nil, nil
	}
	switch n.Kind {
	case MappingNode:
		return r.Lookup(n, seg)
	case SequenceNode:
		if i, err := strconv.Atoi(seg); err == nil && i >= 0 && i < len(n.Content) {
			return nil, deref(n.Content[i])
		}
	}
	return nil, nil
}
