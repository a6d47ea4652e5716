// Package yamllint is the YAML linter the community and certified operator
// pipelines run over a bundle folder (operator-pipelines' yaml-lint task:
// yamllint with its default rules, line-length at 180 and a warning,
// sequences indented or not): the rules at error level, which fail the
// pipeline, with yamllint's rule ids and messages. The warnings (comments,
// comments-indentation, document-start, line-length, truthy) do not fail it
// and are not reported. Tokens come from a scanner that reads YAML as
// PyYAML's does (scanner.go); syntax errors from declcfg's parser.
package yamllint

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/fbc-project/fbc/declcfg"
)

// Lint checks one YAML file, file's data. Each thing yamllint reports is
// an error finding at its line and column (from 1), its rule yamllint's
// rule id (trailing-spaces, indentation, syntax, ...) and its message
// yamllint's.
func Lint(file string, data []byte) []declcfg.Finding {
	out := lint(data)
	for i := range out {
		out[i].Pos.File, out[i].Severity = file, declcfg.SeverityError
	}
	return out
}

// problem is a finding at line and column of the file.
func problem(line, col int, rule, msg string) declcfg.Finding {
	return declcfg.Finding{Rule: rule, Pos: declcfg.Pos{Line: line, Col: col}, Message: msg}
}

func lint(data []byte) []declcfg.Finding {
	if !utf8.Valid(data) {
		return []declcfg.Finding{problem(1, 1, "syntax", "syntax error: the file is not UTF-8 text")}
	}
	// A text declcfg's parsers refuse for its size or nesting is not
	// scanned either: PyYAML's scanner, which this one follows, looks at
	// every open flow collection at every token.
	var le *declcfg.LimitError
	if err := declcfg.CheckYAMLText(data); errors.As(err, &le) {
		return []declcfg.Finding{problem(le.Line, max(le.Col, 1), "syntax", "syntax error: "+le.Msg)}
	}
	_, parseErr := declcfg.ParseYAML(data)
	if errors.As(parseErr, &le) {
		return []declcfg.Finding{problem(le.Line, max(le.Col, 1), "syntax", "syntax error: "+le.Msg)}
	}
	l := &linter{text: []rune(string(data))}
	l.lines = splitLines(l.text)
	if disableFile().MatchString(string(l.text[l.lines[0].start:l.lines[0].end])) {
		return nil
	}
	tokens, stop := scanAll(l.text)
	if stop != nil {
		// What PyYAML's scanner refuses (a tab where a token starts, a
		// simple key without its ':') is a syntax error where it stopped.
		p := problem(stop.line+1, stop.column+1, "syntax", "syntax error: the YAML scanner cannot read on here")
		l.syntaxErr = &p
	} else if parseErr != nil && !strings.Contains(parseErr.Error(), "unknown anchor") {
		// An alias without its anchor is the anchors rule's; PyYAML's
		// parser, which yamllint runs for syntax, does not resolve them.
		l.syntax(parseErr)
	}
	l.tokens(tokens)
	for i, ln := range l.lines {
		l.line(i+1, ln)
	}
	out := l.filter(tokens)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Line != out[j].Line {
			return out[i].Line < out[j].Line
		}
		return out[i].Col < out[j].Col
	})
	if l.syntaxErr == nil {
		return out
	}
	// yamllint puts the syntax error in the place of the first problem at
	// or after it, which it drops as probably redundant.
	syn := *l.syntaxErr
	for i, p := range out {
		if syn.Line <= p.Line && syn.Col <= p.Col {
			out[i] = syn
			return out
		}
	}
	return append(out, syn)
}

var (
	disableFile = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^#\s*yamllint disable-file\s*$`) })
	syntaxLine  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^line (\d+): (.*)$`) })
)

type lineSpan struct{ start, end int }

type linter struct {
	text      []rune
	lines     []lineSpan
	problems  []declcfg.Finding
	syntaxErr *declcfg.Finding
}

func (l *linter) add(line, col int, rule, msg string) {
	l.problems = append(l.problems, problem(line, col, rule, msg))
}

func (l *linter) syntax(err error) {
	line, msg := 1, err.Error()
	if m := syntaxLine().FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
	}
	p := problem(line, 1, "syntax", "syntax error: "+msg)
	l.syntaxErr = &p
}

// splitLines cuts the text as yamllint does: at each \n, a line's end
// before a \r that precedes it; the last line is what follows the last \n.
func splitLines(text []rune) []lineSpan {
	var out []lineSpan
	cur := 0
	for i, ch := range text {
		if ch != '\n' {
			continue
		}
		end := i
		if i > 0 && text[i-1] == '\r' {
			end = i - 1
		}
		out = append(out, lineSpan{cur, end})
		cur = i + 1
	}
	return append(out, lineSpan{cur, len(text)})
}

func isSpace(ch rune) bool { // Python's string.whitespace
	return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\x0b' || ch == '\x0c'
}

// line applies the line rules: trailing-spaces, empty-lines (at most 2 in
// a row, none at the start or end), new-lines (unix), and
// new-line-at-end-of-file.
func (l *linter) line(no int, ln lineSpan) {
	text := l.text
	if ln.end != 0 {
		pos := ln.end
		for pos > ln.start && isSpace(text[pos-1]) {
			pos--
		}
		if pos != ln.end && (text[pos] == ' ' || text[pos] == '\t') {
			l.add(no, pos-ln.start+1, "trailing-spaces", "trailing spaces")
		}
	}
	l.emptyLines(no, ln)
	if ln.start == 0 && len(text) > ln.end && text[ln.end] != '\n' {
		l.add(1, ln.end-ln.start+1, "new-lines", `wrong new line character: expected \n`)
	}
	if ln.end == len(text) && ln.end > ln.start {
		l.add(no, ln.end-ln.start+1, "new-line-at-end-of-file", "no new line character at the end of file")
	}
}

func (l *linter) emptyLines(no int, ln lineSpan) {
	text := l.text
	if ln.start != ln.end || ln.end >= len(text) {
		return
	}
	// Only the last blank line of a series is reported.
	if ln.end+2 <= len(text) && text[ln.end] == '\n' && text[ln.end+1] == '\n' {
		return
	}
	if ln.end+4 <= len(text) && string(text[ln.end:ln.end+4]) == "\r\n\r\n" {
		return
	}
	blank := 0
	start := ln.start
	for start >= 2 && text[start-2] == '\r' && text[start-1] == '\n' {
		blank++
		start -= 2
	}
	for start >= 1 && text[start-1] == '\n' {
		blank++
		start--
	}
	limit := 2
	if start == 0 {
		blank++ // the first line has no \n before it
		limit = 0
	}
	if ln.end == len(text)-1 && text[ln.end] == '\n' || ln.end == len(text)-2 && text[ln.end] == '\r' && text[ln.end+1] == '\n' {
		if ln.end == 0 {
			return // a file of one \n
		}
		limit = 0
	}
	if blank > limit {
		l.add(no, 1, "empty-lines", fmt.Sprintf("too many blank lines (%d > %d)", blank, limit))
	}
}

// tokens applies the token rules to the scanned tokens, each with the
// tokens before and after it.
func (l *linter) tokens(ts []token) {
	ind := &indentation{l: l, curLine: -1}
	keys := &keyDuplicates{l: l}
	anchors := map[string]bool{}
	for i := range ts {
		t := &ts[i]
		var prev, next, nextnext *token
		if i > 0 {
			prev = &ts[i-1]
		}
		if i+1 < len(ts) {
			next = &ts[i+1]
		}
		if i+2 < len(ts) {
			nextnext = &ts[i+2]
		}
		l.anchors(t, anchors)
		l.braces(t, prev, next, tFlowMappingStart, tFlowMappingEnd, "braces")
		l.braces(t, prev, next, tFlowSequenceStart, tFlowSequenceEnd, "brackets")
		l.colons(t, prev, next)
		l.commas(t, prev, next)
		if t.kind == tBlockEntry {
			l.spacesAfter(t, next, -1, 1, "hyphens", "", "too many spaces after hyphen")
		}
		ind.check(t, prev, next, nextnext)
		keys.check(t, next)
	}
}

// spacesAfter and spacesBefore measure the spaces between a token and the
// next or previous one on its line, reporting where yamllint does.
func (l *linter) spacesAfter(t, next *token, min, max int, rule, minDesc, maxDesc string) {
	if next == nil || t.end.line != next.start.line {
		return
	}
	spaces := next.start.pointer - t.end.pointer
	switch {
	case max != -1 && spaces > max:
		l.add(t.start.line+1, next.start.column, rule, maxDesc)
	case min != -1 && spaces < min:
		l.add(t.start.line+1, next.start.column+1, rule, minDesc)
	}
}

func (l *linter) spacesBefore(t, prev *token, max int, rule, maxDesc string) {
	if prev == nil || prev.end.line != t.start.line || prev.end.pointer > 0 && l.text[prev.end.pointer-1] == '\n' {
		return
	}
	if spaces := t.start.pointer - prev.end.pointer; max != -1 && spaces > max {
		l.add(t.start.line+1, t.start.column, rule, maxDesc)
	}
}

func (l *linter) isExplicitKey(t *token) bool {
	return t.start.pointer < t.end.pointer && l.text[t.start.pointer] == '?'
}

// colons: no space before a ':', at most one after; at most one after an
// explicit key's '?'.
func (l *linter) colons(t, prev, next *token) {
	if t.kind == tValue && !(prev != nil && prev.kind == tAlias && t.start.pointer-prev.end.pointer == 1) {
		l.spacesBefore(t, prev, 0, "colons", "too many spaces before colon")
		l.spacesAfter(t, next, -1, 1, "colons", "", "too many spaces after colon")
	}
	if t.kind == tKey && l.isExplicitKey(t) {
		l.spacesAfter(t, next, -1, 1, "colons", "", "too many spaces after question mark")
	}
}

// commas: no space before a ',', exactly one after.
func (l *linter) commas(t, prev, next *token) {
	if t.kind != tFlowEntry {
		return
	}
	if prev != nil && prev.end.line < t.start.line {
		l.add(t.start.line+1, max(1, t.start.column), "commas", "too many spaces before comma")
	} else {
		l.spacesBefore(t, prev, 0, "commas", "too many spaces before comma")
	}
	l.spacesAfter(t, next, 1, 1, "commas", "too few spaces after comma", "too many spaces after comma")
}

// braces and brackets: no spaces inside flow collections, empty or not.
func (l *linter) braces(t, prev, next *token, open, close tokenKind, rule string) {
	what := map[string]string{"braces": "braces", "brackets": "brackets"}[rule]
	switch {
	case t.kind == open && next != nil && next.kind == close:
		l.spacesAfter(t, next, 0, 0, rule, "too few spaces inside empty "+what, "too many spaces inside empty "+what)
	case t.kind == open:
		l.spacesAfter(t, next, 0, 0, rule, "too few spaces inside "+what, "too many spaces inside "+what)
	case t.kind == close && (prev == nil || prev.kind != open):
		l.spacesBefore(t, prev, 0, rule, "too many spaces inside "+what)
	}
}

// anchors: an alias must name an anchor declared before it in its
// document.
func (l *linter) anchors(t *token, declared map[string]bool) {
	switch t.kind {
	case tStreamStart, tDocumentStart, tDocumentEnd:
		clear(declared)
	case tAlias:
		if !declared[t.value] {
			l.add(t.start.line+1, t.start.column+1, "anchors", fmt.Sprintf("found undeclared alias %q", t.value))
		}
	case tAnchor:
		declared[t.value] = true
	}
}

// keyDuplicates: a mapping's keys are different scalars (merge keys <<
// aside).
type keyDuplicates struct {
	l     *linter
	stack []*keySet
}

type keySet struct {
	mapping bool
	keys    map[string]bool
}

func (k *keyDuplicates) check(t, next *token) {
	switch t.kind {
	case tBlockMappingStart, tFlowMappingStart:
		k.stack = append(k.stack, &keySet{mapping: true, keys: map[string]bool{}})
	case tBlockSequenceStart, tFlowSequenceStart:
		k.stack = append(k.stack, &keySet{})
	case tBlockEnd, tFlowMappingEnd, tFlowSequenceEnd:
		if len(k.stack) > 0 {
			k.stack = k.stack[:len(k.stack)-1]
		}
	case tKey:
		if next == nil || next.kind != tScalar || len(k.stack) == 0 || !k.stack[len(k.stack)-1].mapping {
			return
		}
		top := k.stack[len(k.stack)-1]
		if top.keys[next.value] && next.value != "<<" {
			k.l.add(next.start.line+1, next.start.column+1, "key-duplicates", fmt.Sprintf("duplication of key %q in mapping", next.value))
			return
		}
		top.keys[next.value] = true
	}
}

// ruleIDs are the rules Lint applies, which directives name.
var ruleIDs = []string{"anchors", "braces", "brackets", "colons", "commas", "empty-lines", "hyphens",
	"indentation", "key-duplicates", "new-line-at-end-of-file", "new-lines", "trailing-spaces"}

// Directives in comments turn rules off: "# yamllint disable-line
// [rule:ID ...]" for its line (or, alone on a line, for the next one),
// "# yamllint disable [rule:ID ...]" until "# yamllint enable [...]".
var (
	disableRules     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^# yamllint disable( rule:\S+)*\s*$`) })
	enableRules      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^# yamllint enable( rule:\S+)*\s*$`) })
	disableLineRules = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^# yamllint disable-line( rule:\S+)*\s*$`) })
)

// comment is a comment between two tokens: its line (from 1) and text,
// and whether code precedes it on its line.
type comment struct {
	line   int
	text   string
	inline bool
}

// comments finds the comments between tokens as yamllint does: the first
// '#' on each line of the text between two tokens on different lines.
func (l *linter) comments(ts []token) []comment {
	var out []comment
	for i := range ts {
		t := &ts[i]
		var end int
		if i+1 < len(ts) {
			n := &ts[i+1]
			if t.end.line == n.start.line && t.kind != tStreamStart && n.kind != tStreamEnd {
				continue
			}
			end = n.start.pointer
		} else {
			end = len(l.text)
		}
		if end < t.end.pointer {
			continue
		}
		buf := string(l.text[t.end.pointer:end])
		line := t.end.line + 1
		for j, seg := range strings.Split(buf, "\n") {
			if k := strings.IndexByte(seg, '#'); k >= 0 {
				text := seg[k:]
				if e := strings.IndexAny(text, "\r"); e >= 0 {
					text = text[:e]
				}
				inline := j == 0 && t.kind != tStreamStart && t.end.pointer < len(l.text) && l.text[t.end.pointer] != '\n'
				out = append(out, comment{line: line + j, text: text, inline: inline})
			}
		}
	}
	return out
}

// ruleList reads the rule:ID items of a directive; nil means every rule.
func ruleList(text string) map[string]bool {
	var ids map[string]bool
	for _, f := range strings.Fields(text)[2:] {
		if id, ok := strings.CutPrefix(f, "rule:"); ok {
			if ids == nil {
				ids = map[string]bool{}
			}
			ids[id] = true
		}
	}
	return ids
}

// filter drops the problems the directives turn off.
func (l *linter) filter(ts []token) []declcfg.Finding {
	cs := l.comments(ts)
	if len(cs) == 0 {
		return l.problems
	}
	// disabled[line] is what is off on a line: by "disable" up to it, or
	// by "disable-line" for it.
	type state map[string]bool
	perLine := map[int]state{}
	running := state{}
	cur := 0
	lastLine := len(l.lines)
	for line := 1; line <= lastLine; line++ {
		off := state{}
		for ; cur < len(cs) && cs[cur].line <= line; cur++ {
			c := cs[cur]
			switch {
			case disableRules().MatchString(c.text):
				if ids := ruleList(c.text); ids == nil {
					running = state{}
					for _, id := range ruleIDs {
						running[id] = true
					}
				} else {
					for id := range ids {
						running[id] = true
					}
				}
			case enableRules().MatchString(c.text):
				if ids := ruleList(c.text); ids == nil {
					running = state{}
				} else {
					for id := range ids {
						delete(running, id)
					}
				}
			case disableLineRules().MatchString(c.text):
				target := c.line
				if !c.inline {
					target++
				}
				s := perLine[target]
				if s == nil {
					s = state{}
					perLine[target] = s
				}
				if ids := ruleList(c.text); ids == nil {
					for _, id := range ruleIDs {
						s[id] = true
					}
				} else {
					for id := range ids {
						s[id] = true
					}
				}
			}
		}
		for id := range running {
			off[id] = true
		}
		for id := range perLine[line] {
			off[id] = true
		}
		if len(off) > 0 {
			perLine[-line] = off
		}
	}
	var out []declcfg.Finding
	for _, p := range l.problems {
		off := perLine[-p.Line]
		if off[p.Rule] {
			continue
		}
		out = append(out, p)
	}
	return out
}
