package images

import (
	"strings"

	"github.com/fbc-project/fbc/declcfg"
)

// Helpers for reading declcfg trees: a mapping's fields by key (exactly,
// as Kubernetes and catalogs spell them, or ignoring case, as opm reads
// templates), and scalar strings.

// field returns the value of key in mapping n (nil if n is not a mapping or
// lacks the key), as the readers of what the scan reads take it: the last
// of repeated keys (declcfg.ManifestKeys).
func field(n *declcfg.Node, key string) *declcfg.Node {
	return declcfg.ManifestKeys.Value(n, key)
}

// foldField is field with the key matched ignoring case, as encoding/json
// (and so opm) matches a template's keys (declcfg.JSONKeys).
func foldField(n *declcfg.Node, key string) *declcfg.Node {
	return declcfg.JSONKeys.Value(n, key)
}

// items returns a sequence's items (nil for anything else).
func items(n *declcfg.Node) []*declcfg.Node {
	n = declcfg.Deref(n)
	if n == nil || n.Kind != declcfg.SequenceNode {
		return nil
	}
	return n.Content
}

// str returns a scalar string's value; ok is false for anything else
// (numbers, booleans, nulls, collections).
func str(n *declcfg.Node) (string, bool) {
	n = declcfg.Deref(n)
	if n == nil || n.Kind != declcfg.ScalarNode || n.Tag != "!!str" {
		return "", false
	}
	return n.Value, true
}

// strValue is str without the flag.
func strValue(n *declcfg.Node) string {
	s, _ := str(n)
	return s
}

// stringMap reads a mapping of strings (labels, annotations), copied out
// of the file's bytes.
func stringMap(n *declcfg.Node) map[string]string {
	n = declcfg.Deref(n)
	if n == nil || n.Kind != declcfg.MappingNode {
		return nil
	}
	out := map[string]string{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k, ok := str(n.Content[i]); ok {
			v := declcfg.Deref(n.Content[i+1])
			if v != nil && v.Kind == declcfg.ScalarNode {
				out[strings.Clone(k)] = strings.Clone(v.Value)
			}
		}
	}
	return out
}

// at is the position of a node in file.
func at(file string, n *declcfg.Node) declcfg.Pos {
	if n == nil {
		return declcfg.Pos{File: file}
	}
	return declcfg.Pos{File: file, Line: n.Line, Col: n.Column}
}

// quoteOf is how a scalar is quoted: 0 for plain, or its quote character.
func quoteOf(n *declcfg.Node) byte {
	switch {
	case n.Style&declcfg.DoubleQuotedStyle != 0:
		return '"'
	case n.Style&declcfg.SingleQuotedStyle != 0:
		return '\''
	case n.Style&(declcfg.LiteralStyle|declcfg.FoldedStyle) != 0:
		return '|'
	}
	return 0
}
