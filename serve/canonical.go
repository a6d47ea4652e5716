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
// values in the same form. A docReader reproduces it from the document as
// it was parsed, without building the map: it writes each mapping's pairs
// in key order as it walks the tree, and reads fields and checks shapes on
// the tree the same way.

// MetaBlob appends to buf the document n in the form opm keeps a blob it
// read (its declcfg.Meta.Blob): the canonical line catalogd serves, newline
// included. opm's serve cache hashes the catalog's blobs in this form.
func MetaBlob(buf *bytes.Buffer, n *declcfg.Node) error {
	if err := newDocReader().write(buf, n, 0); err != nil {
		return err
	}
	buf.WriteByte('\n')
	return nil
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

// docReader reads one document's tree as opm reads it into a map: YAML
// 1.1 booleans (yes, on, off...) are booleans, every number is a float64,
// keys are strings, merge keys (<<) merge, aliases expand (within a
// budget of values, against alias bombs), a repeated key takes its last
// value.
type docReader struct {
	budget int
	// levels are pair lists to reuse, one per depth: a mapping's pairs
	// are in use while its values, all deeper, are read.
	levels [][]pair
}

func newDocReader() *docReader { return &docReader{budget: 1 << 24} }

// spend counts one value against the budget and checks the depth.
func (r *docReader) spend(n *declcfg.Node, depth int) error {
	r.budget--
	if r.budget < 0 {
		return nodeErr(n, "document expands to too many values (YAML alias bomb?)")
	}
	if depth > maxDepth {
		return nodeErr(n, "nesting deeper than %d levels", maxDepth)
	}
	return nil
}

// write writes n's canonical JSON: what encoding/json's Encoder writes,
// HTML escaping off, for the value opm reads.
func (r *docReader) write(buf *bytes.Buffer, n *declcfg.Node, depth int) error {
	if err := r.spend(n, depth); err != nil {
		return err
	}
	switch n.Kind {
	case declcfg.DocumentNode:
		if len(n.Content) == 0 {
			buf.WriteString("null")
			return nil
		}
		return r.write(buf, n.Content[0], depth)
	case declcfg.AliasNode:
		if n.Alias == nil {
			return nodeErr(n, "unknown alias %q", n.Value)
		}
		return r.write(buf, n.Alias, depth+1)
	case declcfg.SequenceNode:
		buf.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := r.write(buf, c, depth+1); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
		return nil
	case declcfg.MappingNode:
		ps, err := r.pairs(n, depth)
		if err != nil {
			return err
		}
		defer r.release(ps, depth)
		buf.WriteByte('{')
		for i, p := range ps {
			if i > 0 {
				buf.WriteByte(',')
			}
			declcfg.WriteJSONString(buf, p.key)
			buf.WriteByte(':')
			if err := r.write(buf, p.val, p.depth); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
		return nil
	case declcfg.ScalarNode:
		return writeScalar(buf, n)
	}
	return nodeErr(n, "unsupported YAML node")
}

// pair is a mapping's key, as opm makes it a string, its value and the
// depth the value is read at.
type pair struct {
	key   string
	val   *declcfg.Node
	depth int
	// merged: from a merge key (<<), which never replaces the mapping's
	// own keys.
	merged bool
}

// pairs lists a mapping's pairs as the map opm reads holds them, sorted
// by key: its own pairs, the last of a repeated key winning, then those
// its merge keys bring that it does not set itself, the first winning.
// The values of repeated keys that lose are still read (opm reads them
// before it replaces them), so that their errors count.
func (r *docReader) pairs(n *declcfg.Node, depth int) ([]pair, error) {
	var ps []pair
	if depth < len(r.levels) {
		ps, r.levels[depth] = r.levels[depth][:0], nil
	}
	ps, err := r.collect(ps, n, depth, false)
	if err != nil {
		return nil, err
	}
	byKey := func(a, b pair) int { return strings.Compare(a.key, b.key) }
	// Catalogs opm wrote have their keys in order already.
	if !slices.IsSortedFunc(ps, byKey) {
		slices.SortStableFunc(ps, byKey)
	}
	out := ps[:0]
	for i := 0; i < len(ps); {
		j := i + 1
		for j < len(ps) && ps[j].key == ps[i].key {
			j++
		}
		// ps[i:j] share a key, own pairs first in document order, then
		// merged ones in merge order.
		win := i
		for k := i; k < j && !ps[k].merged; k++ {
			win = k
		}
		for k := i; k < win; k++ {
			var discard bytes.Buffer
			if err := r.write(&discard, ps[k].val, ps[k].depth); err != nil {
				return nil, err
			}
		}
		out = append(out, ps[win])
		i = j
	}
	return out, nil
}

// release gives a mapping's pairs back for the next mapping at its depth.
func (r *docReader) release(ps []pair, depth int) {
	if depth > maxDepth {
		return
	}
	for len(r.levels) <= depth {
		r.levels = append(r.levels, nil)
	}
	r.levels[depth] = ps
}

// collect appends a mapping's own pairs, then those of its merge keys.
func (r *docReader) collect(ps []pair, n *declcfg.Node, depth int, merged bool) ([]pair, error) {
	var merges []*declcfg.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == declcfg.ScalarNode && k.Tag == "!!merge" {
			merges = append(merges, v)
			continue
		}
		key, err := keyString(k)
		if err != nil {
			return nil, err
		}
		ps = append(ps, pair{key: key, val: v, depth: depth + 1, merged: merged})
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
				return nil, nodeErr(s, "a merge key (<<) takes a mapping or a list of mappings")
			}
			var err error
			if ps, err = r.collect(ps, s, depth+1, true); err != nil {
				return nil, err
			}
		}
	}
	return ps, nil
}

// resolve follows documents and aliases to the node that holds a value.
func resolve(n *declcfg.Node) *declcfg.Node {
	for n != nil {
		switch {
		case n.Kind == declcfg.DocumentNode && len(n.Content) > 0:
			n = n.Content[0]
		case n.Kind == declcfg.AliasNode && n.Alias != nil:
			n = n.Alias
		default:
			return n
		}
	}
	return nil
}

// mapping lists the pairs of the mapping n stands for (nil when n is no
// mapping), for a document a reader wrote without error.
func mapping(n *declcfg.Node) []pair {
	n = resolve(n)
	if n == nil || n.Kind != declcfg.MappingNode {
		return nil
	}
	ps, err := newDocReader().pairs(n, 0)
	if err != nil {
		return nil
	}
	return ps
}

// lookup is the value of key among pairs (nil when it has none).
func lookup(ps []pair, key string) *declcfg.Node {
	if i, found := slices.BinarySearchFunc(ps, key, func(p pair, k string) int { return strings.Compare(p.key, k) }); found {
		return ps[i].val
	}
	return nil
}

// stringOf is the string n stands for, "" when it is no string.
func stringOf(n *declcfg.Node) string {
	n = resolve(n)
	if n == nil || n.Kind != declcfg.ScalarNode {
		return ""
	}
	if k, _, _, _ := scalar(n); k != kindString {
		return ""
	}
	return n.Value
}

// items are the values of the list n stands for.
func items(n *declcfg.Node) []*declcfg.Node {
	if n = resolve(n); n == nil || n.Kind != declcfg.SequenceNode {
		return nil
	}
	return n.Content
}

// canonicalValue is the canonical JSON of a value in a document a reader
// wrote without error ("null" for none).
func canonicalValue(n *declcfg.Node) string {
	if n == nil {
		return "null"
	}
	var buf bytes.Buffer
	if err := newDocReader().write(&buf, n, 0); err != nil {
		return "null"
	}
	return buf.String()
}

// keyString is a mapping key as opm's YAML-to-JSON conversion writes it.
func keyString(k *declcfg.Node) (string, error) {
	if k.Kind == declcfg.AliasNode && k.Alias != nil {
		k = k.Alias
	}
	if k.Kind != declcfg.ScalarNode {
		return "", nodeErr(k, "a mapping key must be a scalar")
	}
	kind, b, f, err := scalar(k)
	switch {
	case err != nil:
		return "", err
	case kind == kindNull:
		return "null", nil
	case kind == kindBool:
		return strconv.FormatBool(b), nil
	case kind == kindNumber:
		return strconv.FormatFloat(f, 'g', -1, 64), nil
	}
	return k.Value, nil
}

// scalarKind is what a scalar is in the JSON opm writes.
type scalarKind int

const (
	kindString scalarKind = iota
	kindNull
	kindBool
	kindNumber
)

// scalar reads a scalar as opm does; a string is n.Value.
func scalar(n *declcfg.Node) (scalarKind, bool, float64, error) {
	if b, ok := declcfg.YAML11Bool(n); ok {
		return kindBool, b, 0, nil
	}
	switch n.Tag {
	case "!!null":
		return kindNull, false, 0, nil
	case "!!bool":
		switch n.Value {
		case "true", "True", "TRUE":
			return kindBool, true, 0, nil
		case "false", "False", "FALSE":
			return kindBool, false, 0, nil
		}
		return 0, false, 0, nodeErr(n, "invalid boolean %q", n.Value)
	case "!!int":
		s := strings.ReplaceAll(n.Value, "_", "")
		// Decimal as JSON reads it (-0 stays -0, huge values round);
		// other bases as YAML does.
		if f, err := strconv.ParseFloat(s, 64); err == nil && !strings.ContainsAny(s, "xXoObB") {
			return kindNumber, false, f, nil
		}
		if i, err := strconv.ParseInt(s, 0, 64); err == nil {
			return kindNumber, false, float64(i), nil
		}
		if u, err := strconv.ParseUint(s, 0, 64); err == nil {
			return kindNumber, false, float64(u), nil
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, false, 0, nodeErr(n, "invalid number %q", n.Value)
		}
		return kindNumber, false, f, nil
	case "!!float":
		f, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return 0, false, 0, nodeErr(n, "%s cannot be represented in JSON", n.Value)
		}
		return kindNumber, false, f, nil
	}
	return kindString, false, 0, nil
}

// writeScalar writes a scalar's canonical JSON.
func writeScalar(buf *bytes.Buffer, n *declcfg.Node) error {
	kind, b, f, err := scalar(n)
	switch {
	case err != nil:
		return err
	case kind == kindNull:
		buf.WriteString("null")
	case kind == kindBool:
		buf.WriteString(strconv.FormatBool(b))
	case kind == kindNumber:
		buf.Write(appendFloat(buf.AvailableBuffer(), f))
	default:
		declcfg.WriteJSONString(buf, n.Value)
	}
	return nil
}

func nodeErr(n *declcfg.Node, format string, args ...any) error {
	return fmt.Errorf("line %d column %d: %s", n.Line, n.Column, fmt.Sprintf(format, args...))
}
