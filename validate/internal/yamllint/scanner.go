package yamllint

import (
	"errors"
	"strings"
)

// The scanner turns a YAML text into the tokens PyYAML's scanner makes
// (yaml.scan: the token kinds, their start and end marks, a scalar's value
// and style), which is what yamllint's token rules read. It follows the
// YAML 1.1 scanning rules PyYAML implements: simple keys found when their
// ':' comes, block collections opened and closed by indentation, scalars
// of every style. It only scans; what a parser would refuse is the syntax
// check's (declcfg's parser).

type tokenKind uint8

const (
	tStreamStart tokenKind = iota
	tStreamEnd
	tDirective
	tDocumentStart
	tDocumentEnd
	tBlockSequenceStart
	tBlockMappingStart
	tBlockEnd
	tFlowSequenceStart
	tFlowSequenceEnd
	tFlowMappingStart
	tFlowMappingEnd
	tBlockEntry
	tFlowEntry
	tKey
	tValue
	tAlias
	tAnchor
	tTag
	tScalar
)

// mark is a place in the text: pointer counts characters from the start,
// line and column from 0, as PyYAML's marks do.
type mark struct {
	pointer, line, column int
}

type token struct {
	kind       tokenKind
	start, end mark
	// value is a scalar's value or an anchor's or alias's name.
	value string
	plain bool
	// style is a scalar's quote or block indicator: '\'', '"', '|', '>'.
	style rune
}

// errScan is a text the scanner cannot read on; the tokens before it stand.
var errScan = errors.New("yaml scanner error")

type simpleKey struct {
	tokenNumber int
	required    bool
	mark        mark
}

type scanner struct {
	src  []rune
	pos  int
	line int
	col  int

	tokens      []token
	tokensTaken int
	done        bool

	flowLevel      int
	indent         int
	indents        []int
	allowSimpleKey bool
	possible       map[int]simpleKey
}

func newScanner(src []rune) *scanner {
	s := &scanner{src: src, indent: -1, allowSimpleKey: true, possible: map[int]simpleKey{}}
	s.tokens = append(s.tokens, token{kind: tStreamStart})
	return s
}

// scanAll returns every token of the text; when the scanner stops before
// its end (what PyYAML's scanner refuses), also where it stopped.
func scanAll(src []rune) ([]token, *mark) {
	s := newScanner(src)
	var out []token
	for {
		t, err := s.next()
		if err != nil {
			m := s.mark()
			return out, &m
		}
		out = append(out, t)
		if t.kind == tStreamEnd {
			return out, nil
		}
	}
}

func (s *scanner) next() (token, error) {
	for {
		more, err := s.needMoreTokens()
		if err != nil {
			return token{}, err
		}
		if !more {
			break
		}
		if err := s.fetchMoreTokens(); err != nil {
			return token{}, err
		}
	}
	if len(s.tokens) == 0 {
		return token{}, errScan
	}
	t := s.tokens[0]
	s.tokens = s.tokens[1:]
	s.tokensTaken++
	return t, nil
}

const eof = rune(0)

func (s *scanner) peek(n int) rune {
	if s.pos+n < len(s.src) {
		return s.src[s.pos+n]
	}
	return eof
}

func (s *scanner) mark() mark { return mark{s.pos, s.line, s.col} }

// forward moves past n characters, counting lines as PyYAML does (a \r
// followed by \n is one break).
func (s *scanner) forward(n int) {
	for ; n > 0 && s.pos < len(s.src); n-- {
		ch := s.src[s.pos]
		s.pos++
		if isBreak(ch) && !(ch == '\r' && s.peek(0) == '\n') {
			s.line++
			s.col = 0
		} else if ch != '\ufeff' {
			s.col++
		}
	}
}

func isBreak(ch rune) bool {
	return ch == '\n' || ch == '\r' || ch == '\u0085' || ch == '\u2028' || ch == '\u2029'
}

// isBlankOrEnd is PyYAML's '\0 \t\r\n\x85\u2028\u2029'.
func isBlankOrEnd(ch rune) bool { return ch == eof || ch == ' ' || ch == '\t' || isBreak(ch) }

func (s *scanner) needMoreTokens() (bool, error) {
	if s.done {
		return false, nil
	}
	if len(s.tokens) == 0 {
		return true, nil
	}
	if err := s.staleSimpleKeys(); err != nil {
		return false, err
	}
	return s.nextPossibleSimpleKey() == s.tokensTaken, nil
}

func (s *scanner) nextPossibleSimpleKey() int {
	min := -1
	for _, k := range s.possible {
		if min < 0 || k.tokenNumber < min {
			min = k.tokenNumber
		}
	}
	return min
}

// staleSimpleKeys forgets the simple keys that can no longer be keys: a
// key ends on its line, within 1024 characters. A key that must be one
// (a plain scalar at the block's indentation) is an error then.
func (s *scanner) staleSimpleKeys() error {
	for level, k := range s.possible {
		if k.mark.line != s.line || s.pos-k.mark.pointer > 1024 {
			if k.required {
				return errScan // could not find expected ':'
			}
			delete(s.possible, level)
		}
	}
	return nil
}

func (s *scanner) savePossibleSimpleKey() error {
	required := s.flowLevel == 0 && s.indent == s.col
	if s.allowSimpleKey {
		if err := s.removePossibleSimpleKey(); err != nil {
			return err
		}
		s.possible[s.flowLevel] = simpleKey{tokenNumber: s.tokensTaken + len(s.tokens), required: required, mark: s.mark()}
	}
	return nil
}

func (s *scanner) removePossibleSimpleKey() error {
	if k, ok := s.possible[s.flowLevel]; ok {
		if k.required {
			return errScan // could not find expected ':'
		}
		delete(s.possible, s.flowLevel)
	}
	return nil
}

func (s *scanner) unwindIndent(column int) {
	if s.flowLevel > 0 {
		return
	}
	for s.indent > column {
		m := s.mark()
		s.indent = s.indents[len(s.indents)-1]
		s.indents = s.indents[:len(s.indents)-1]
		s.tokens = append(s.tokens, token{kind: tBlockEnd, start: m, end: m})
	}
}

func (s *scanner) addIndent(column int) bool {
	if s.indent < column {
		s.indents = append(s.indents, s.indent)
		s.indent = column
		return true
	}
	return false
}

func (s *scanner) fetchMoreTokens() error {
	if err := s.scanToNextToken(); err != nil {
		return err
	}
	if err := s.staleSimpleKeys(); err != nil {
		return err
	}
	s.unwindIndent(s.col)
	ch := s.peek(0)
	switch {
	case s.pos >= len(s.src):
		return s.fetchStreamEnd()
	case ch == '%' && s.col == 0:
		return s.fetchDirective()
	case ch == '-' && s.checkDocumentIndicator("---"):
		return s.fetchDocumentIndicator(tDocumentStart)
	case ch == '.' && s.checkDocumentIndicator("..."):
		return s.fetchDocumentIndicator(tDocumentEnd)
	case ch == '[':
		return s.fetchFlowCollectionStart(tFlowSequenceStart)
	case ch == '{':
		return s.fetchFlowCollectionStart(tFlowMappingStart)
	case ch == ']':
		return s.fetchFlowCollectionEnd(tFlowSequenceEnd)
	case ch == '}':
		return s.fetchFlowCollectionEnd(tFlowMappingEnd)
	case ch == ',':
		return s.fetchFlowEntry()
	case ch == '-' && isBlankOrEnd(s.peek(1)):
		return s.fetchBlockEntry()
	case ch == '?' && (s.flowLevel > 0 || isBlankOrEnd(s.peek(1))):
		return s.fetchKey()
	case ch == ':' && (s.flowLevel > 0 || isBlankOrEnd(s.peek(1))):
		return s.fetchValue()
	case ch == '*':
		return s.fetchAnchor(tAlias)
	case ch == '&':
		return s.fetchAnchor(tAnchor)
	case ch == '!':
		return s.fetchTag()
	case (ch == '|' || ch == '>') && s.flowLevel == 0:
		return s.fetchBlockScalar(ch)
	case ch == '\'' || ch == '"':
		return s.fetchFlowScalar(ch)
	case s.checkPlain():
		return s.fetchPlain()
	}
	return errScan // found character that cannot start any token
}

func (s *scanner) checkDocumentIndicator(ind string) bool {
	if s.col != 0 {
		return false
	}
	for i, r := range ind {
		if s.peek(i) != r {
			return false
		}
	}
	return isBlankOrEnd(s.peek(3))
}

func (s *scanner) checkPlain() bool {
	ch := s.peek(0)
	if !isBlankOrEnd(ch) && !strings.ContainsRune("-?:,[]{}#&*!|>'\"%@`", ch) {
		return true
	}
	return !isBlankOrEnd(s.peek(1)) && (ch == '-' || s.flowLevel == 0 && (ch == '?' || ch == ':'))
}

func (s *scanner) scanToNextToken() error {
	if s.pos == 0 && s.peek(0) == '\ufeff' {
		s.forward(1)
	}
	for {
		for s.peek(0) == ' ' {
			s.forward(1)
		}
		if s.peek(0) == '#' {
			for !isBreak(s.peek(0)) && s.pos < len(s.src) {
				s.forward(1)
			}
		}
		if s.scanLineBreak() != "" {
			if s.flowLevel == 0 {
				s.allowSimpleKey = true
			}
			continue
		}
		return nil
	}
}

// scanLineBreak moves past one line break and returns it ("\n" for \r\n),
// or "" when there is none.
func (s *scanner) scanLineBreak() string {
	ch := s.peek(0)
	switch {
	case ch == '\r' && s.peek(1) == '\n':
		s.forward(2)
		return "\n"
	case ch == '\r' || ch == '\n' || ch == '\u0085':
		s.forward(1)
		return "\n"
	case ch == '\u2028' || ch == '\u2029':
		s.forward(1)
		return string(ch)
	}
	return ""
}

func (s *scanner) fetchStreamEnd() error {
	s.unwindIndent(-1)
	if err := s.removePossibleSimpleKey(); err != nil {
		return err
	}
	s.allowSimpleKey = false
	s.possible = map[int]simpleKey{}
	m := s.mark()
	s.tokens = append(s.tokens, token{kind: tStreamEnd, start: m, end: m})
	s.done = true
	return nil
}

func (s *scanner) fetchDirective() error {
	s.unwindIndent(-1)
	if err := s.removePossibleSimpleKey(); err != nil {
		return err
	}
	s.allowSimpleKey = false
	start := s.mark()
	for !isBreak(s.peek(0)) && s.pos < len(s.src) && s.peek(0) != '#' {
		s.forward(1)
	}
	end := s.mark()
	s.tokens = append(s.tokens, token{kind: tDirective, start: start, end: end})
	return nil
}

func (s *scanner) fetchDocumentIndicator(kind tokenKind) error {
	s.unwindIndent(-1)
	if err := s.removePossibleSimpleKey(); err != nil {
		return err
	}
	s.allowSimpleKey = false
	start := s.mark()
	s.forward(3)
	s.tokens = append(s.tokens, token{kind: kind, start: start, end: s.mark()})
	return nil
}

func (s *scanner) fetchFlowCollectionStart(kind tokenKind) error {
	if err := s.savePossibleSimpleKey(); err != nil {
		return err
	}
	s.flowLevel++
	s.allowSimpleKey = true
	start := s.mark()
	s.forward(1)
	s.tokens = append(s.tokens, token{kind: kind, start: start, end: s.mark()})
	return nil
}

func (s *scanner) fetchFlowCollectionEnd(kind tokenKind) error {
	if err := s.removePossibleSimpleKey(); err != nil {
		return err
	}
	if s.flowLevel > 0 {
		s.flowLevel--
	}
	s.allowSimpleKey = false
	start := s.mark()
	s.forward(1)
	s.tokens = append(s.tokens, token{kind: kind, start: start, end: s.mark()})
	return nil
}

func (s *scanner) fetchFlowEntry() error {
	s.allowSimpleKey = true
	if err := s.removePossibleSimpleKey(); err != nil {
		return err
	}
	start := s.mark()
	s.forward(1)
	s.tokens = append(s.tokens, token{kind: tFlowEntry, start: start, end: s.mark()})
	return nil
}

func (s *scanner) fetchBlockEntry() error {
	if s.flowLevel == 0 {
		if !s.allowSimpleKey {
			return errScan // sequence entries are not allowed here
		}
		if s.addIndent(s.col) {
			m := s.mark()
			s.tokens = append(s.tokens, token{kind: tBlockSequenceStart, start: m, end: m})
		}
	}
	s.allowSimpleKey = true
	if err := s.removePossibleSimpleKey(); err != nil {
		return err
	}
	start := s.mark()
	s.forward(1)
	s.tokens = append(s.tokens, token{kind: tBlockEntry, start: start, end: s.mark()})
	return nil
}

func (s *scanner) fetchKey() error {
	if s.flowLevel == 0 {
		if !s.allowSimpleKey {
			return errScan // mapping keys are not allowed here
		}
		if s.addIndent(s.col) {
			m := s.mark()
			s.tokens = append(s.tokens, token{kind: tBlockMappingStart, start: m, end: m})
		}
	}
	s.allowSimpleKey = s.flowLevel == 0
	if err := s.removePossibleSimpleKey(); err != nil {
		return err
	}
	start := s.mark()
	s.forward(1)
	s.tokens = append(s.tokens, token{kind: tKey, start: start, end: s.mark()})
	return nil
}

func (s *scanner) fetchValue() error {
	if k, ok := s.possible[s.flowLevel]; ok {
		delete(s.possible, s.flowLevel)
		at := k.tokenNumber - s.tokensTaken
		if at < 0 || at > len(s.tokens) {
			return errScan
		}
		insert := []token{{kind: tKey, start: k.mark, end: k.mark}}
		if s.flowLevel == 0 && s.addIndent(k.mark.column) {
			insert = append([]token{{kind: tBlockMappingStart, start: k.mark, end: k.mark}}, insert...)
		}
		s.tokens = append(s.tokens[:at], append(insert, s.tokens[at:]...)...)
		s.allowSimpleKey = false
	} else {
		if s.flowLevel == 0 {
			if !s.allowSimpleKey {
				return errScan // mapping values are not allowed here
			}
			if s.addIndent(s.col) {
				m := s.mark()
				s.tokens = append(s.tokens, token{kind: tBlockMappingStart, start: m, end: m})
			}
		}
		s.allowSimpleKey = s.flowLevel == 0
		if err := s.removePossibleSimpleKey(); err != nil {
			return err
		}
	}
	start := s.mark()
	s.forward(1)
	s.tokens = append(s.tokens, token{kind: tValue, start: start, end: s.mark()})
	return nil
}

func isAnchorChar(ch rune) bool {
	return ch >= '0' && ch <= '9' || ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch == '-' || ch == '_'
}

func (s *scanner) fetchAnchor(kind tokenKind) error {
	if err := s.savePossibleSimpleKey(); err != nil {
		return err
	}
	s.allowSimpleKey = false
	start := s.mark()
	s.forward(1)
	n := 0
	for isAnchorChar(s.peek(n)) {
		n++
	}
	if n == 0 {
		return errScan
	}
	name := string(s.src[s.pos : s.pos+n])
	s.forward(n)
	if ch := s.peek(0); !isBlankOrEnd(ch) && !strings.ContainsRune("?:,]}%@`", ch) {
		return errScan
	}
	s.tokens = append(s.tokens, token{kind: kind, start: start, end: s.mark(), value: name})
	return nil
}

func (s *scanner) fetchTag() error {
	if err := s.savePossibleSimpleKey(); err != nil {
		return err
	}
	s.allowSimpleKey = false
	start := s.mark()
	for !isBlankOrEnd(s.peek(0)) {
		s.forward(1)
	}
	s.tokens = append(s.tokens, token{kind: tTag, start: start, end: s.mark()})
	return nil
}

func (s *scanner) fetchBlockScalar(style rune) error {
	s.allowSimpleKey = true
	if err := s.removePossibleSimpleKey(); err != nil {
		return err
	}
	start := s.mark()
	s.forward(1)
	// The header: chomping and indentation indicators in either order.
	keep, increment := false, 0
	for i := 0; i < 2; i++ {
		switch ch := s.peek(0); {
		case ch == '+' || ch == '-':
			keep = ch == '+'
			s.forward(1)
		case ch >= '1' && ch <= '9' && increment == 0:
			increment = int(ch - '0')
			s.forward(1)
		}
	}
	for s.peek(0) == ' ' {
		s.forward(1)
	}
	if s.peek(0) == '#' {
		for !isBreak(s.peek(0)) && s.pos < len(s.src) {
			s.forward(1)
		}
	}
	if !isBreak(s.peek(0)) && s.pos < len(s.src) {
		return errScan // expected a comment or a line break
	}
	s.scanLineBreak()
	end := s.mark()
	minIndent := s.indent + 1
	if minIndent < 1 {
		minIndent = 1
	}
	breaks := 0
	var indent int
	if increment == 0 {
		maxIndent := 0
		for s.peek(0) == ' ' || isBreak(s.peek(0)) {
			if s.peek(0) != ' ' {
				s.scanLineBreak()
				breaks++
				end = s.mark()
			} else {
				s.forward(1)
				if s.col > maxIndent {
					maxIndent = s.col
				}
			}
		}
		indent = max(minIndent, maxIndent)
	} else {
		indent = minIndent + increment - 1
		breaks, end = s.blockScalarBreaks(indent, end)
	}
	content := false
	for s.col == indent && s.pos < len(s.src) {
		for !isBreak(s.peek(0)) && s.pos < len(s.src) {
			s.forward(1)
			content = true
		}
		if s.scanLineBreak() == "" {
			end = s.mark()
			break
		}
		end = s.mark()
		breaks, end = s.blockScalarBreaks(indent, end)
	}
	t := token{kind: tScalar, start: start, end: end, style: style}
	if content || keep && breaks > 0 {
		t.value = "\n" // not empty; block scalars are not keys yamllint compares
	}
	s.tokens = append(s.tokens, t)
	return nil
}

// blockScalarBreaks moves past the empty lines of a block scalar.
func (s *scanner) blockScalarBreaks(indent int, end mark) (int, mark) {
	n := 0
	for s.col < indent && s.peek(0) == ' ' {
		s.forward(1)
	}
	for isBreak(s.peek(0)) {
		s.scanLineBreak()
		n++
		end = s.mark()
		for s.col < indent && s.peek(0) == ' ' {
			s.forward(1)
		}
	}
	return n, end
}

func (s *scanner) fetchFlowScalar(quote rune) error {
	if err := s.savePossibleSimpleKey(); err != nil {
		return err
	}
	s.allowSimpleKey = false
	start := s.mark()
	s.forward(1)
	var b strings.Builder
	for {
		// Non-space content up to a space, a break or the quote.
		for {
			ch := s.peek(0)
			switch {
			case s.pos >= len(s.src):
				return errScan // unexpected end of stream
			case quote == '\'' && ch == '\'' && s.peek(1) == '\'':
				b.WriteRune('\'')
				s.forward(2)
				continue
			case ch == quote:
				s.forward(1)
				s.tokens = append(s.tokens, token{kind: tScalar, start: start, end: s.mark(), value: b.String(), style: quote})
				return nil
			case quote == '"' && ch == '\\':
				if err := s.escape(&b); err != nil {
					return err
				}
				continue
			case ch == ' ' || ch == '\t' || isBreak(ch):
			default:
				b.WriteRune(ch)
				s.forward(1)
				continue
			}
			break
		}
		// Spaces and breaks, folded.
		n := 0
		for s.peek(n) == ' ' || s.peek(n) == '\t' {
			n++
		}
		spaces := string(s.src[s.pos : s.pos+n])
		s.forward(n)
		if !isBreak(s.peek(0)) {
			b.WriteString(spaces)
			continue
		}
		s.scanLineBreak()
		breaks := 0
		for {
			if s.checkDocumentIndicator("---") || s.checkDocumentIndicator("...") {
				return errScan // document separator in a quoted scalar
			}
			for s.peek(0) == ' ' || s.peek(0) == '\t' {
				s.forward(1)
			}
			if !isBreak(s.peek(0)) {
				break
			}
			s.scanLineBreak()
			breaks++
		}
		if breaks == 0 {
			b.WriteByte(' ')
		} else {
			b.WriteString(strings.Repeat("\n", breaks))
		}
	}
}

// escape reads a double-quoted scalar's escape sequence.
func (s *scanner) escape(b *strings.Builder) error {
	ch := s.peek(1)
	simple := map[rune]string{'0': "\x00", 'a': "\a", 'b': "\b", 't': "\t", '\t': "\t", 'n': "\n", 'v': "\v", 'f': "\f", 'r': "\r",
		'e': "\x1b", ' ': " ", '"': "\"", '/': "/", '\\': "\\", 'N': "\u0085", '_': "\u00a0", 'L': "\u2028", 'P': "\u2029"}
	if r, ok := simple[ch]; ok {
		b.WriteString(r)
		s.forward(2)
		return nil
	}
	if n := map[rune]int{'x': 2, 'u': 4, 'U': 8}[ch]; n > 0 {
		v := 0
		for i := 0; i < n; i++ {
			d := s.peek(2 + i)
			switch {
			case d >= '0' && d <= '9':
				v = v*16 + int(d-'0')
			case d >= 'a' && d <= 'f':
				v = v*16 + int(d-'a'+10)
			case d >= 'A' && d <= 'F':
				v = v*16 + int(d-'A'+10)
			default:
				return errScan
			}
		}
		b.WriteRune(rune(v))
		s.forward(2 + n)
		return nil
	}
	if isBreak(ch) {
		// An escaped line break joins the lines.
		s.forward(1)
		s.scanLineBreak()
		for s.peek(0) == ' ' || s.peek(0) == '\t' || isBreak(s.peek(0)) {
			if isBreak(s.peek(0)) {
				s.scanLineBreak()
				b.WriteByte('\n')
				continue
			}
			s.forward(1)
		}
		return nil
	}
	return errScan // unknown escape
}

func (s *scanner) fetchPlain() error {
	if err := s.savePossibleSimpleKey(); err != nil {
		return err
	}
	s.allowSimpleKey = false
	start := s.mark()
	end := start
	indent := s.indent + 1
	var b strings.Builder
	var spaces string
	for {
		if s.peek(0) == '#' {
			break
		}
		n := 0
		for {
			ch := s.peek(n)
			if isBlankOrEnd(ch) ||
				ch == ':' && (isBlankOrEnd(s.peek(n+1)) || s.flowLevel > 0 && strings.ContainsRune(",[]{}", s.peek(n+1))) ||
				s.flowLevel > 0 && strings.ContainsRune(",?[]{}", ch) {
				break
			}
			n++
		}
		if n == 0 {
			break
		}
		s.allowSimpleKey = false
		b.WriteString(spaces)
		b.WriteString(string(s.src[s.pos : s.pos+n]))
		s.forward(n)
		end = s.mark()
		var ok bool
		spaces, ok = s.plainSpaces()
		if !ok || s.peek(0) == '#' || s.flowLevel == 0 && s.col < indent {
			break
		}
	}
	s.tokens = append(s.tokens, token{kind: tScalar, start: start, end: end, value: b.String(), plain: true})
	return nil
}

// plainSpaces moves past the spaces and breaks after a plain scalar's
// chunk and returns what they fold to; false when the scalar ends there.
func (s *scanner) plainSpaces() (string, bool) {
	n := 0
	for s.peek(n) == ' ' {
		n++
	}
	ws := string(s.src[s.pos : s.pos+n])
	s.forward(n)
	if !isBreak(s.peek(0)) {
		return ws, n > 0
	}
	s.scanLineBreak()
	s.allowSimpleKey = true
	if s.checkDocumentIndicator("---") || s.checkDocumentIndicator("...") {
		return "", false
	}
	breaks := 0
	for s.peek(0) == ' ' || isBreak(s.peek(0)) {
		if s.peek(0) == ' ' {
			s.forward(1)
			continue
		}
		s.scanLineBreak()
		breaks++
		if s.checkDocumentIndicator("---") || s.checkDocumentIndicator("...") {
			return "", false
		}
	}
	if breaks == 0 {
		return " ", true
	}
	return strings.Repeat("\n", breaks), true
}
