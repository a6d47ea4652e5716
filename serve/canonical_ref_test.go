package serve

import (
	"bytes"
	"slices"
	"strconv"

	"github.com/fbc-project/fbc/declcfg"
)

// The reference the docReader is held to: the document read into plain
// values (maps, slices, float64, bool, string, nil) as opm reads it, and
// those values written as encoding/json writes them (which canonical_test
// checks against encoding/json itself). The docReader must write the same
// bytes and fail on the same documents, without building the map.

// refCanonicalJSON writes v (from blobValue) as one canonical line.
func refCanonicalJSON(buf *bytes.Buffer, v any) {
	writeValue(buf, v)
	buf.WriteByte('\n')
}

// refCanonicalValue returns v's canonical JSON without the final newline.
func refCanonicalValue(v any) string {
	var buf bytes.Buffer
	writeValue(&buf, v)
	return buf.String()
}

func writeValue(buf *bytes.Buffer, v any) {
	switch x := v.(type) {
	case nil:
		buf.WriteString("null")
	case bool:
		buf.WriteString(strconv.FormatBool(x))
	case float64:
		buf.Write(appendFloat(buf.AvailableBuffer(), x))
	case string:
		declcfg.WriteJSONString(buf, x)
	case []any:
		buf.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeValue(buf, e)
		}
		buf.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			declcfg.WriteJSONString(buf, k)
			buf.WriteByte(':')
			writeValue(buf, x[k])
		}
		buf.WriteByte('}')
	}
}

// blobValue converts a parsed document to plain values the way opm reads
// it: YAML 1.1 booleans (yes, on, off...) are booleans, every number is a
// float64, keys are strings, merge keys (<<) merge.
func blobValue(n *declcfg.Node) (any, error) {
	budget := 1 << 24
	return nodeValue(n, 0, &budget)
}

func nodeValue(n *declcfg.Node, depth int, budget *int) (any, error) {
	*budget--
	if *budget < 0 {
		return nil, nodeErr(n, "document expands to too many values (YAML alias bomb?)")
	}
	if depth > maxDepth {
		return nil, nodeErr(n, "nesting deeper than %d levels", maxDepth)
	}
	switch n.Kind {
	case declcfg.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return nodeValue(n.Content[0], depth, budget)
	case declcfg.AliasNode:
		if n.Alias == nil {
			return nil, nodeErr(n, "unknown alias %q", n.Value)
		}
		return nodeValue(n.Alias, depth+1, budget)
	case declcfg.SequenceNode:
		out := make([]any, len(n.Content))
		for i, c := range n.Content {
			v, err := nodeValue(c, depth+1, budget)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case declcfg.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		if err := mergeMapping(out, n, depth, budget, false); err != nil {
			return nil, err
		}
		return out, nil
	case declcfg.ScalarNode:
		return scalarValue(n)
	}
	return nil, nodeErr(n, "unsupported YAML node")
}

// mergeMapping adds n's pairs to out. Merged mappings (<<) never replace
// keys the mapping itself sets, wherever the merge key stands.
func mergeMapping(out map[string]any, n *declcfg.Node, depth int, budget *int, merged bool) error {
	var merges []*declcfg.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == declcfg.ScalarNode && k.Tag == "!!merge" {
			merges = append(merges, v)
			continue
		}
		key, err := keyString(k)
		if err != nil {
			return err
		}
		if _, set := out[key]; set && merged {
			continue
		}
		val, err := nodeValue(v, depth+1, budget)
		if err != nil {
			return err
		}
		out[key] = val
	}
	for _, m := range merges {
		if m.Kind == declcfg.AliasNode && m.Alias != nil {
			m = m.Alias
		}
		srcs := []*declcfg.Node{m}
		if m.Kind == declcfg.SequenceNode {
			srcs = m.Content
		}
		for _, s := range srcs {
			if s.Kind == declcfg.AliasNode && s.Alias != nil {
				s = s.Alias
			}
			if s.Kind != declcfg.MappingNode {
				return nodeErr(s, "a merge key (<<) takes a mapping or a list of mappings")
			}
			if err := mergeMapping(out, s, depth+1, budget, true); err != nil {
				return err
			}
		}
	}
	return nil
}

// scalarValue is a scalar as a plain value.
func scalarValue(n *declcfg.Node) (any, error) {
	kind, b, f, err := scalar(n)
	switch {
	case err != nil:
		return nil, err
	case kind == kindNull:
		return nil, nil
	case kind == kindBool:
		return b, nil
	case kind == kindNumber:
		return f, nil
	}
	return n.Value, nil
}
