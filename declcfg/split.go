package declcfg

import "bytes"

// SplitRule says where one document of a YAML text ends and the next
// begins. Two readers cut texts differently, and fbc needs both: YAML's
// own grammar, which the parser follows, and Kubernetes' YAMLReader, with
// which opm and OLM read catalogs, templates and bundle files.
type SplitRule uint8

const (
	// SplitYAML cuts where YAML does, for parsing a stream a document at a
	// time with the documents of the whole stream: before a document start
	// marker ("---" alone or before a space or tab) that follows content.
	// A part with no content of its own (blank lines, comments,
	// directives, a bare "---") stays with the part after it, as YAML
	// reads it. There is always at least one chunk, empty for an empty
	// text.
	SplitYAML SplitRule = iota
	// SplitManifests cuts as Kubernetes' YAMLReader does: every line that
	// starts with "---" ends a chunk that holds a line and belongs to
	// neither; one that comes first (at the start of the text, or right
	// after another) is the first line of the next chunk instead. Only
	// spaces or a comment may follow its dashes: YAMLReader refuses
	// anything else (Split.Bad). A chunk of blank lines, comments and
	// "..." markers holds no object.
	SplitManifests
)

// Chunk is one document of a YAML text, as a SplitRule cuts it.
type Chunk struct {
	// Start and End are its bytes: data[Start:End].
	Start, End int
	// Line is the line Start is on (1-based).
	Line int
	// Marker says that its first line is a "---" line.
	Marker bool
	// Content is its first line of content, 0 when it has none: a line
	// that is not blank or a comment (nor a directive under SplitYAML, nor
	// a "..." marker under SplitManifests), or a "---" line with content
	// after the dashes.
	Content int
	// Comment is its first comment line before Content, 0 for none.
	Comment int
}

// Split is a YAML text cut into chunks.
type Split struct {
	Chunks []Chunk
	// Separators counts the lines that start with "---" (SplitManifests).
	Separators int
	// Bad are the separators with more than a comment after the dashes
	// (SplitManifests), in order.
	Bad []BadSeparator
}

// BadSeparator is a line that starts with "---" and holds more than a
// comment after the dashes.
type BadSeparator struct {
	Line int    // 1-based
	Text []byte // the line without its line break (part of the text)
}

// SplitDocuments cuts data into its documents by rule: the one document
// splitter of fbc, for the parser (SplitYAML) and for everything that
// reads a text as opm does (SplitManifests). Once a chunk has content,
// nothing before the next line that starts with "---" can change it, so
// the lines in between are skipped with one search.
func SplitDocuments(data []byte, rule SplitRule) Split {
	s := NewSplitter(rule)
	for s.off < len(data) {
		if s.settled() {
			off, line, found := skipToDocMarker(data, s.off, s.line)
			if !found {
				break
			}
			s.off, s.line = off, line
		}
		l, next := lineAt(data, s.off)
		s.take(l, next)
	}
	return s.Finish(len(data))
}

// A Splitter cuts a YAML text as SplitDocuments does, a line at a time,
// for a reader that may stop early.
type Splitter struct {
	rule      SplitRule
	off, line int // the next line's offset and number
	cur       Chunk
	open      bool // cur has begun
	out       Split
}

// NewSplitter starts cutting a text by rule.
func NewSplitter(rule SplitRule) *Splitter {
	return &Splitter{rule: rule, line: 1, open: rule == SplitYAML, cur: Chunk{Line: 1}}
}

// Line takes the text's next line, with its "\n" when it has one, and
// reports whether it ended a chunk.
func (s *Splitter) Line(raw []byte) bool {
	n := len(s.out.Chunks)
	s.take(bytes.TrimSuffix(raw, newline), s.off+len(raw))
	return len(s.out.Chunks) > n
}

// Finish ends the text, which is size bytes long, and returns its chunks.
func (s *Splitter) Finish(size int) Split {
	if s.open {
		s.cur.End = size
		s.out.Chunks = append(s.out.Chunks, s.cur)
		s.open = false
	}
	return s.out
}

// settled says that the chunk has content: only the next line that starts
// with "---" can change anything.
func (s *Splitter) settled() bool { return s.open && s.cur.Content > 0 }

// take reads the line l (without its "\n") at s.off; next is the offset
// of the line after it.
func (s *Splitter) take(l []byte, next int) {
	if s.rule == SplitYAML {
		s.yamlLine(l)
	} else {
		s.manifestLine(l)
	}
	s.off, s.line = next, s.line+1
}

func (s *Splitter) yamlLine(l []byte) {
	marker := isDocStart(l)
	if marker && s.cur.Content > 0 {
		s.cur.End = s.off
		s.out.Chunks = append(s.out.Chunks, s.cur)
		s.cur = Chunk{Start: s.off, Line: s.line}
	}
	if marker && s.cur.Start == s.off {
		s.cur.Marker = true
	}
	switch t := bytes.TrimSpace(l); {
	case marker:
		if s.cur.Content == 0 && hasContentAfterMarker(l) {
			s.cur.Content = s.line
		}
	case len(t) == 0, l[0] == '%':
	case t[0] == '#':
		if s.cur.Content == 0 && s.cur.Comment == 0 {
			s.cur.Comment = s.line
		}
	default:
		if s.cur.Content == 0 {
			s.cur.Content = s.line
		}
	}
}

func (s *Splitter) manifestLine(l []byte) {
	if bytes.HasPrefix(l, docMarker) {
		s.out.Separators++
		bad := hasContentAfterMarker(l)
		if bad {
			s.out.Bad = append(s.out.Bad, BadSeparator{Line: s.line, Text: l})
		}
		if s.open {
			s.cur.End = s.off
			s.out.Chunks = append(s.out.Chunks, s.cur)
			s.open = false
			return
		}
		// It opens the next chunk; what follows a bad one is content.
		s.cur, s.open = Chunk{Start: s.off, Line: s.line, Marker: true}, true
		if bad {
			s.cur.Content = s.line
		}
		return
	}
	if !s.open {
		s.cur, s.open = Chunk{Start: s.off, Line: s.line}, true
	}
	if s.cur.Content > 0 {
		return
	}
	switch t := bytes.TrimSpace(l); {
	case len(t) == 0, string(t) == "...":
	case t[0] == '#':
		if s.cur.Comment == 0 {
			s.cur.Comment = s.line
		}
	default:
		s.cur.Content = s.line
	}
}

// skipToDocMarker moves from the line at off, numbered line, to the next
// line that starts with "---" (that line itself if it does), with one
// search where a look at every line costs a call per line; found is
// false when no line after it does.
func skipToDocMarker(data []byte, off, line int) (next, nextLine int, found bool) {
	if bytes.HasPrefix(data[off:], docMarker) {
		return off, line, true
	}
	i := bytes.Index(data[off:], newlineDocMarker)
	if i < 0 {
		return off, line, false
	}
	return off + i + 1, line + bytes.Count(data[off:off+i+1], newline), true
}

// lineAt returns the line at off without its \n, and the offset of the
// line after it.
func lineAt(data []byte, off int) (l []byte, next int) {
	next = len(data)
	if i := bytes.IndexByte(data[off:], '\n'); i >= 0 {
		next = off + i + 1
	}
	return bytes.TrimSuffix(data[off:next], newline), next
}

var (
	newline          = []byte("\n")
	docMarker        = []byte("---")
	newlineDocMarker = []byte("\n---")
)

// isDocStart reports whether a line is a YAML document start marker.
func isDocStart(l []byte) bool {
	return bytes.HasPrefix(l, docMarker) && (len(l) == 3 || l[3] == ' ' || l[3] == '\t' || l[3] == '\r')
}

// hasContentAfterMarker reports whether a line that starts with "---"
// holds more than spaces and a comment after the dashes.
func hasContentAfterMarker(l []byte) bool {
	rest := bytes.TrimSpace(l[3:])
	return len(rest) > 0 && rest[0] != '#'
}
