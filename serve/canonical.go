package serve

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/fbc-project/fbc/declcfg"
)

// The blob form opm and catalogd serve. opm reads every document of a
// catalog into a map (YAML through a YAML 1.1 reader, numbers as float64)
// and writes it back with encoding/json: keys sorted, numbers in float64's
// shortest form, no HTML escaping, one line ending in a newline. catalogd's
// api/v1/all is those lines end to end, and opm serves bundle property
// values in the same form. blobValue and canonicalJSON reproduce it from the
// document as it was parsed.

// MetaBlob appends to buf the document n in the form opm keeps a blob it
// read (its declcfg.Meta.Blob): the canonical line catalogd serves, newline
// included. opm's serve cache hashes the catalog's blobs in this form.
func MetaBlob(buf *bytes.Buffer, n *declcfg.Node) error {
	v, err := blobValue(n)
	if err != nil {
		return err
	}
	canonicalJSON(buf, v)
	return nil
}

// canonicalJSON writes v (from blobValue) as one canonical line: what
// encoding/json's Encoder writes with HTML escaping off, without going
// through reflection and its copies.
func canonicalJSON(buf *bytes.Buffer, v any) {
	writeValue(buf, v)
	buf.WriteByte('\n')
}

// canonicalValue returns v's canonical JSON without the final newline.
func canonicalValue(v any) string {
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

// appendFloat formats f as encoding/json does: the shortest form that
// reads back, in exponent form below 1e-6 and from 1e21 up, with a
// two-digit negative exponent shortened (1e-07 is written 1e-7).
func appendFloat(b []byte, f float64) []byte {
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// maxDepth bounds nesting (and alias expansion through it): catalogs are
// shallow, hostile input is not.
const maxDepth = 10000

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

// keyString is a mapping key as opm's YAML-to-JSON conversion writes it.
func keyString(k *declcfg.Node) (string, error) {
	if k.Kind == declcfg.AliasNode && k.Alias != nil {
		k = k.Alias
	}
	if k.Kind != declcfg.ScalarNode {
		return "", nodeErr(k, "a mapping key must be a scalar")
	}
	v, err := scalarValue(k)
	if err != nil {
		return "", err
	}
	switch x := v.(type) {
	case nil:
		return "null", nil
	case string:
		return x, nil
	case bool:
		return strconv.FormatBool(x), nil
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), nil
	}
	return fmt.Sprint(v), nil
}

func scalarValue(n *declcfg.Node) (any, error) {
	if b, ok := declcfg.YAML11Bool(n); ok {
		return b, nil
	}
	switch n.Tag {
	case "!!null":
		return nil, nil
	case "!!bool":
		switch n.Value {
		case "true", "True", "TRUE":
			return true, nil
		case "false", "False", "FALSE":
			return false, nil
		}
		return nil, nodeErr(n, "invalid boolean %q", n.Value)
	case "!!int":
		s := strings.ReplaceAll(n.Value, "_", "")
		// Decimal as JSON reads it (-0 stays -0, huge values round);
		// other bases as YAML does.
		if f, err := strconv.ParseFloat(s, 64); err == nil && !strings.ContainsAny(s, "xXoObB") {
			return f, nil
		}
		if i, err := strconv.ParseInt(s, 0, 64); err == nil {
			return float64(i), nil
		}
		if u, err := strconv.ParseUint(s, 0, 64); err == nil {
			return float64(u), nil
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, nodeErr(n, "invalid number %q", n.Value)
		}
		return f, nil
	case "!!float":
		f, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, nodeErr(n, "%s cannot be represented in JSON", n.Value)
		}
		return f, nil
	}
	return n.Value, nil
}

func nodeErr(n *declcfg.Node, format string, args ...any) error {
	return fmt.Errorf("line %d column %d: %s", n.Line, n.Column, fmt.Sprintf(format, args...))
}
