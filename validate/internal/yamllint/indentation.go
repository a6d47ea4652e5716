package yamllint

import "fmt"

// indentation is yamllint's indentation rule with spaces: consistent (the
// first indentation found sets the width for the file) and
// indent-sequences: whatever (a block sequence under a key may be indented
// or not), multi-line strings not checked. It keeps a stack of the
// collections, keys and values the tokens open, and checks the first token
// of each line against the indentation its parent expects.
type indentation struct {
	l       *linter
	stack   []*parent
	curLine int
	// curLineIndent is the indentation of the line the last visible token
	// started on.
	curLineIndent int
	spaces        int
	spacesKnown   bool
}

type parentKind uint8

const (
	pRoot parentKind = iota
	pBlockMap
	pFlowMap
	pBlockSeq
	pFlowSeq
	pBlockEntry
	pKey
	pValue
)

type parent struct {
	kind             parentKind
	indent           int
	lineIndent       int
	explicitKey      bool
	implicitBlockSeq bool
}

func kindOf(t *token) tokenKind {
	if t == nil {
		return 255
	}
	return t.kind
}

func (c *indentation) top() *parent  { return c.stack[len(c.stack)-1] }
func (c *indentation) push(p parent) { c.stack = append(c.stack, &p) }
func (c *indentation) pop()          { c.stack = c.stack[:len(c.stack)-1] }

func (c *indentation) detect(base int, next *token) int {
	if !c.spacesKnown {
		c.spaces = next.start.column - base
		c.spacesKnown = true
	}
	return base + c.spaces
}

// realEndLine is the line (from 1) on which a token really ends: a scalar's
// end mark often lies past the breaks that follow it.
func (c *indentation) realEndLine(t *token) int {
	end := t.end.line + 1
	if t.kind != tScalar {
		return end
	}
	text := c.l.text
	for pos := t.end.pointer - 1; pos >= 0 && pos >= t.start.pointer-1 && pos < len(text) && isSpace(text[pos]); pos-- {
		if text[pos] == '\n' {
			end--
		}
	}
	return end
}

func (c *indentation) check(t, prev, next, nextnext *token) {
	if c.stack == nil {
		c.stack = []*parent{{kind: pRoot}}
	}
	if !c.step(t, prev, next, nextnext) {
		c.l.add(t.start.line+1, t.start.column+1, "indentation", "cannot infer indentation: unexpected token")
	}
}

// step checks a token and updates the stack; false when the tokens do not
// go together as the rule expects.
func (c *indentation) step(t, prev, next, nextnext *token) bool {
	visible := t.kind != tStreamStart && t.kind != tStreamEnd && t.kind != tBlockEnd &&
		!(t.kind == tScalar && t.value == "")
	first := visible && t.start.line+1 > c.curLine
	found := t.start.column
	if first {
		expected := c.top().indent
		switch {
		case t.kind == tFlowMappingEnd || t.kind == tFlowSequenceEnd:
			expected = c.top().lineIndent
		case c.top().kind == pKey && c.top().explicitKey && t.kind != tValue:
			expected = c.detect(expected, t)
		}
		if found != expected {
			msg := fmt.Sprintf("wrong indentation: expected %d but found %d", expected, found)
			if expected < 0 {
				msg = fmt.Sprintf("wrong indentation: expected at least %d", found+1)
			}
			c.l.add(t.start.line+1, found+1, "indentation", msg)
		}
	}
	if visible {
		c.curLine = c.realEndLine(t)
		if first {
			c.curLineIndent = found
		}
	}

	switch {
	case t.kind == tBlockMappingStart:
		if kindOf(next) != tKey || next.start.line != t.start.line {
			return false
		}
		c.push(parent{kind: pBlockMap, indent: t.start.column})
	case t.kind == tFlowMappingStart || t.kind == tFlowSequenceStart:
		if next == nil {
			return false
		}
		indent := next.start.column
		if next.start.line != t.start.line {
			indent = c.detect(c.curLineIndent, next)
		}
		kind := pFlowMap
		if t.kind == tFlowSequenceStart {
			kind = pFlowSeq
		}
		c.push(parent{kind: kind, indent: indent, lineIndent: c.curLineIndent})
	case t.kind == tBlockSequenceStart:
		if kindOf(next) != tBlockEntry || next.start.line != t.start.line {
			return false
		}
		c.push(parent{kind: pBlockSeq, indent: t.start.column})
	case t.kind == tBlockEntry && kindOf(next) != tBlockEntry && kindOf(next) != tBlockEnd:
		if next == nil {
			return false
		}
		// Sequences that are not indented under their key get no
		// BlockSequenceStart: one is made up.
		if c.top().kind != pBlockSeq {
			c.push(parent{kind: pBlockSeq, indent: t.start.column, implicitBlockSeq: true})
		}
		var indent int
		switch {
		case next.start.line == t.end.line:
			indent = next.start.column
		case next.start.column == t.start.column:
			indent = next.start.column
		default:
			indent = c.detect(t.start.column, next)
		}
		c.push(parent{kind: pBlockEntry, indent: indent})
	case t.kind == tKey:
		c.push(parent{kind: pKey, indent: c.top().indent, explicitKey: c.l.isExplicitKey(t)})
	case t.kind == tValue:
		if c.top().kind != pKey {
			return false
		}
		if k := kindOf(next); (k == tAnchor || k == tTag) && prev != nil && nextnext != nil &&
			next.start.line == prev.start.line && next.start.line < nextnext.start.line {
			next = nextnext
		}
		switch kindOf(next) {
		case tBlockEnd, tFlowMappingEnd, tFlowSequenceEnd, tKey, 255:
		default:
			var indent int
			switch {
			case c.top().explicitKey:
				indent = c.detect(c.top().indent, next)
			case prev != nil && next.start.line == prev.start.line:
				indent = next.start.column
			case next.kind == tBlockSequenceStart || next.kind == tBlockEntry:
				if next.start.column == c.top().indent {
					indent = c.top().indent
				} else {
					indent = c.detect(c.top().indent, next)
				}
			default:
				indent = c.detect(c.top().indent, next)
			}
			c.push(parent{kind: pValue, indent: indent})
		}
	}

	consumed := false
	for {
		top := c.top()
		switch {
		case top.kind == pFlowSeq && t.kind == tFlowSequenceEnd && !consumed,
			top.kind == pFlowMap && t.kind == tFlowMappingEnd && !consumed:
			c.pop()
			consumed = true
		case (top.kind == pBlockMap || top.kind == pBlockSeq) && t.kind == tBlockEnd && !top.implicitBlockSeq && !consumed:
			c.pop()
			consumed = true
		case top.kind == pBlockEntry && t.kind != tBlockEntry && len(c.stack) > 1 && c.stack[len(c.stack)-2].implicitBlockSeq &&
			t.kind != tAnchor && t.kind != tTag && kindOf(next) != tBlockEntry:
			c.pop()
			c.pop()
		case top.kind == pBlockEntry && (kindOf(next) == tBlockEntry || kindOf(next) == tBlockEnd):
			c.pop()
		case top.kind == pValue && t.kind != tValue && t.kind != tAnchor && t.kind != tTag:
			if len(c.stack) < 2 || c.stack[len(c.stack)-2].kind != pKey {
				return false
			}
			c.pop()
			c.pop()
		case top.kind == pKey && (kindOf(next) == tBlockEnd || kindOf(next) == tFlowMappingEnd || kindOf(next) == tFlowSequenceEnd || kindOf(next) == tKey):
			c.pop()
		default:
			return true
		}
		if len(c.stack) == 0 {
			c.stack = []*parent{{kind: pRoot}}
			return false
		}
	}
}
