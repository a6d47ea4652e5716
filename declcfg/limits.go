package declcfg

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/fbc-project/fbc/declcfg/internal/tree"
)

// The limits of what one YAML or JSON text fbc reads may hold (catalogs,
// templates, bundle manifests, an operator repository's settings), which
// every parser here applies: the fast YAML and JSON parsers as they go, and
// for yaml.v3 a look at the text before it is handed over and at the tree
// it returns. They are far above what real catalogs hold (the shared corpus
// nests 36 levels at most; its largest value is under 1 MiB, its largest
// document about 2 MiB) and refuse at once, as a syntax error at the line,
// a text made to exhaust fbc: 25,000 nested '[' took seconds, a 100 MB value
// gigabytes. A file may hold any number of documents.
const (
	// MaxDepth is how deeply collections may nest.
	MaxDepth = tree.MaxDepth
	// MaxScalar is the longest text one value may take.
	MaxScalar = tree.MaxScalar
	// MaxDocument is the longest text one document (a YAML document, a
	// value of a JSON stream) may take.
	MaxDocument = tree.MaxDocument
)

// LimitError is a text past one of the limits: where (Line and Col from 1;
// Col 0 when only the line is known) and which.
type LimitError struct {
	Line, Col int
	Msg       string
}

func (e *LimitError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// limitError is a parse error past a limit, at a line of the text.
func limitError(line, col int, msg string) *parseError {
	return &parseError{Line: line, Col: col, Msg: msg, limit: true}
}

// checkYAMLText refuses, before yaml.v3 reads it, a YAML text with a
// document longer than MaxDocument or flow collections nested deeper than
// MaxDepth: yaml.v3 takes its time over both (its own depth limit is
// 10,000, reached after seconds), and the fast path never sees them (it
// leaves flow collections to yaml.v3). Lines are the text's.
func checkYAMLText(data []byte) *parseError {
	if len(data) > MaxDocument {
		for _, c := range SplitDocuments(data, SplitYAML).Chunks {
			if c.End-c.Start > MaxDocument {
				return limitError(c.Line, 0, tree.DocumentMessage())
			}
		}
	}
	return checkFlowDepth(data)
}

// checkFlowDepth counts the '[' and '{' open at each point of a YAML text,
// outside quoted scalars and comments, and refuses the text where more than
// MaxDepth are open. A bracket inside a plain scalar counts too, which can
// only overstate the depth: no real text has a thousand of them unclosed.
func checkFlowDepth(data []byte) *parseError {
	if !bytes.ContainsAny(data, "[{") {
		return nil
	}
	depth, line, lineStart := 0, 1, 0
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '\n':
			line++
			lineStart = i + 1
		case '#':
			if i == lineStart || data[i-1] == ' ' || data[i-1] == '\t' {
				if nl := bytes.IndexByte(data[i:], '\n'); nl >= 0 {
					i += nl - 1
				} else {
					i = len(data)
				}
			}
		case '"', '\'':
			// A quote starts a quoted scalar where a token may start.
			if i > lineStart && bytes.IndexByte([]byte(" \t[{,:-?"), data[i-1]) < 0 {
				continue
			}
			j := i + 1
			for ; j < len(data); j++ {
				b := data[j]
				if b == '\\' && c == '"' && j+1 < len(data) {
					j++
					b = data[j]
				} else if b == c {
					if c == '\'' && j+1 < len(data) && data[j+1] == '\'' {
						j++
						continue
					}
					break
				}
				if b == '\n' {
					line++
					lineStart = j + 1
				}
			}
			i = j
		case '[', '{':
			if depth++; depth > MaxDepth {
				return limitError(line, utf8.RuneCount(data[lineStart:i])+1, tree.DepthMessage())
			}
		case ']', '}':
			if depth > 0 {
				depth--
			}
		}
	}
	return nil
}

// checkTree refuses a tree yaml.v3 built whose collections nest deeper
// than MaxDepth or with a scalar longer than MaxScalar. Aliases are not
// followed (an alias refers to a node already checked).
func checkTree(n *Node) *parseError {
	type at struct {
		n     *Node
		depth int
	}
	stack := []at{{n, 1}}
	for len(stack) > 0 {
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch top.n.Kind {
		case ScalarNode:
			if len(top.n.Value) > MaxScalar {
				return limitError(top.n.Line, top.n.Column, tree.ScalarMessage())
			}
		case MappingNode, SequenceNode:
			if top.depth > MaxDepth {
				return limitError(top.n.Line, top.n.Column, tree.DepthMessage())
			}
			for _, c := range top.n.Content {
				stack = append(stack, at{c, top.depth + 1})
			}
		}
	}
	return nil
}

// CheckYAMLText is what the parsers here refuse of a YAML text before they
// read it (a document longer than MaxDocument, flow collections nested
// deeper than MaxDepth), for other readers of the same text, which should
// not try harder: the pipelines' YAML linter. It returns a *LimitError.
func CheckYAMLText(data []byte) error {
	if pe := checkYAMLText(data); pe != nil {
		return &LimitError{Line: pe.Line, Col: pe.Col, Msg: pe.Msg}
	}
	return nil
}
