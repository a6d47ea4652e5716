// Package shape checks parsed catalog documents against compiled blob
// shapes: which fields an object has (optional or required, spelt how),
// whether it is closed, which kinds and literal values a value may take,
// what a list's elements and an object's other members must be.
//
// The shapes are validate's CUE schemas compiled ahead of time
// (validate/internal/cueshape compiles them into a Table; validate embeds
// the table it generated, and a test holds that table to the CUE files), so
// that checking a blob walks its parsed nodes and the fbc executable needs
// no CUE evaluator to do it. A walk reads nodes as opm does: null is
// absent, keys match without regard to case, YAML 1.1 booleans are
// booleans. validate/internal/cueshape's tests and FuzzMatchesCUE prove on
// real and mutated blobs that a walk reports what CUE reports.
package shape

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/fbc-project/fbc/declcfg"
)

// Rule ids of what a walk finds besides the loader's (declcfg.RuleFieldType,
// declcfg.RuleDuplicateKey, declcfg.RuleKeyCase); validate reports them
// under these ids.
const (
	RuleUnknownField = "unknown-field"
	RuleMissingField = "missing-field"
	RuleEmptyValue   = "empty-value"
	RuleInvalidValue = "invalid-value"
)

// Kind is a set of the kinds of value a shape allows.
type Kind uint8

const (
	NullKind Kind = 1 << iota
	BoolKind
	IntKind
	FloatKind
	StringKind
	ListKind
	StructKind

	// NumberKind is an integer or a decimal number.
	NumberKind = IntKind | FloatKind
	// TopKind allows any value.
	TopKind = NullKind | BoolKind | NumberKind | StringKind | ListKind | StructKind
)

// A Shape is a compiled definition that checks a parsed node tree.
type Shape struct {
	kinds Kind // allowed kinds; TopKind accepts anything

	literals []Literal // non-empty: the value must be one of these
	notEqual []Literal // the value must not be any of these

	// Structs.
	fields  []*field
	byName  map[string]*field
	closed  bool
	pattern *Shape // [string]: T

	// Lists.
	elem *Shape
}

type field struct {
	name     string
	required bool
	shape    *Shape
	index    int // in its struct's fields
}

// A Literal is a concrete scalar. Value is a string's own text, or the
// canonical text of any other scalar; comparing it never quotes the node's
// value (which can be megabytes of base64).
type Literal struct {
	Kind  Kind
	Value string
}

// String renders the literal as CUE and JSON write it, for messages.
func (l Literal) String() string {
	if l.Kind == StringKind {
		return strconv.Quote(l.Value)
	}
	return l.Value
}

// Report receives what a walk finds: rule, the node it concerns, the
// path of the field concerned, and a message that starts with that path.
type Report func(rule string, n *declcfg.Node, p *Path, msg string)

// Path is a lazily formatted location inside a blob: a linked list from the
// innermost element outwards, turned into a string only when reporting. The
// nil Path is the top of a blob.
type Path struct {
	parent *Path
	key    string
	index  int // -1 for keys, labelIndex for a root label
}

// labelIndex marks a root element that names the blob ("olm.bundle blob")
// for messages about the blob itself; it is not part of the path.
const labelIndex = -2

// Root is the top of a blob that messages about the blob itself call label
// ("olm.bundle blob").
func Root(label string) *Path { return &Path{key: label, index: labelIndex} }

// Field is the path of member k of the object at p.
func (p *Path) Field(k string) *Path { return &Path{parent: p, key: k, index: -1} }

// Elem is the path of element i of the list at p.
func (p *Path) Elem(i int) *Path { return &Path{parent: p, index: i} }

// String is the path as messages write it: entries[0].name.
func (p *Path) String() string {
	if p == nil {
		return ""
	}
	n := 0
	for q := p; q != nil; q = q.parent {
		n++
	}
	parts := make([]*Path, n)
	for q := p; q != nil; q = q.parent {
		n--
		parts[n] = q
	}
	var b strings.Builder
	for _, q := range parts {
		if q.index == labelIndex {
			continue
		}
		if q.index >= 0 {
			fmt.Fprintf(&b, "[%d]", q.index)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		if isIdentifier(q.key) {
			b.WriteString(q.key)
		} else {
			b.WriteString(strconv.Quote(q.key))
		}
	}
	return b.String()
}

func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r == '-' && i > 0 || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' && i > 0) {
			return false
		}
	}
	return true
}

// Subject names a location for a message: `entries[0].name`, or the blob
// itself at its top level.
func (p *Path) Subject() string {
	if s := p.String(); s != "" {
		return s
	}
	for q := p; q != nil; q = q.parent {
		if q.index == labelIndex {
			return "the " + q.key
		}
	}
	return "the document"
}

// NodeKind is the kind of value n holds, as the shapes read it.
func NodeKind(n *declcfg.Node) Kind {
	switch n.Kind {
	case declcfg.MappingNode:
		return StructKind
	case declcfg.SequenceNode:
		return ListKind
	case declcfg.ScalarNode:
		switch n.Tag {
		case "!!null":
			return NullKind
		case "!!bool":
			return BoolKind
		case "!!int":
			return IntKind
		case "!!float":
			return FloatKind
		}
		if _, ok := declcfg.YAML11Bool(n); ok {
			return BoolKind // as opm reads it
		}
		return StringKind
	}
	return 0
}

// kindText describes the kinds a shape allows, for messages.
func kindText(k Kind) string {
	var parts []string
	add := func(mask Kind, text string) {
		if k&mask == mask {
			parts = append(parts, text)
			k &^= mask
		}
	}
	add(StringKind, "a string")
	add(NumberKind, "a number")
	add(IntKind, "an integer")
	add(FloatKind, "a decimal number")
	add(BoolKind, "a boolean")
	add(StructKind, "an object")
	add(ListKind, "a list")
	add(NullKind, "null")
	switch len(parts) {
	case 0:
		return "a valid value"
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}

// nodeLiteral reads a scalar node the way literals are stored, so that the
// two compare as strings.
func nodeLiteral(n *declcfg.Node) (Literal, bool) {
	switch k := NodeKind(n); k {
	case StringKind:
		return Literal{Kind: k, Value: n.Value}, true
	case NullKind:
		return Literal{Kind: k, Value: "null"}, true
	case BoolKind:
		if b, ok := declcfg.YAML11Bool(n); ok {
			return Literal{Kind: k, Value: strconv.FormatBool(b)}, true
		}
		return Literal{Kind: k, Value: strings.ToLower(n.Value)}, true
	case IntKind, FloatKind:
		return Literal{Kind: k, Value: n.Value}, true
	}
	return Literal{}, false
}

func literalIn(l Literal, set []Literal) bool {
	for _, m := range set {
		if m.Value == l.Value && (m.Kind == l.Kind || m.Kind&NumberKind != 0 && l.Kind&NumberKind != 0) {
			return true
		}
	}
	return false
}

func literalList(ls []Literal) string {
	texts := make([]string, len(ls))
	for i, l := range ls {
		texts[i] = l.String()
	}
	return strings.Join(texts, ", ")
}

// Walk checks node n against s; p is n's location in the blob.
func (s *Shape) Walk(n *declcfg.Node, p *Path, report Report) { s.start(n, p, report, false) }

// WalkExact checks n against s the way a JSON schema validator checks a
// YAML file read into Python dictionaries (operator-pipelines' settings
// files), not the way opm reads a blob: keys match only as written (a key
// that differs in case is an unknown field), and null is a value of its
// own, which a field of another kind refuses, not an absent field.
func (s *Shape) WalkExact(n *declcfg.Node, p *Path, report Report) { s.start(n, p, report, true) }

func (s *Shape) start(n *declcfg.Node, p *Path, report Report, exact bool) {
	w := walkers.Get().(*walker)
	w.report, w.base, w.elems, w.exact = report, p, w.buf[:0], exact
	s.walk(n, w)
	entries := w.entries[:0]
	clear(entries[:cap(entries)]) // no node outlives its document here
	*w = walker{entries: entries}
	walkers.Put(w)
}

// walkers keeps walkers for reuse: a walk's path stack would otherwise be an
// allocation per blob and per property value.
var walkers = sync.Pool{New: func() any { return new(walker) }}

// A walker is one walk: where it is, as a stack of path elements below
// base, and what it reports to. Paths are made only to report: a path per
// field walked had been a quarter of all the allocations of validating a
// catalog.
type walker struct {
	report Report
	base   *Path
	elems  []pathElem
	buf    [16]pathElem
	// exact is WalkExact's reading: keys as written, null a value.
	exact bool
	// entries is a stack of the entries of the mappings being walked,
	// kept with the walker: an allocation per mapping had been a ninth of
	// what validating a catalog allocated.
	entries []declcfg.MapEntry
}

type pathElem struct {
	key   string
	index int
}

func (w *walker) push(key string, index int) { w.elems = append(w.elems, pathElem{key, index}) }
func (w *walker) pop()                       { w.elems = w.elems[:len(w.elems)-1] }

// path is where the walk is.
func (w *walker) path() *Path {
	p := w.base
	for _, e := range w.elems {
		p = &Path{parent: p, key: e.key, index: e.index}
	}
	return p
}

// reportf reports a finding at the walk's path; the message starts with
// its subject.
func (w *walker) reportf(rule string, n *declcfg.Node, format string, args ...any) {
	p := w.path()
	w.report(rule, n, p, p.Subject()+fmt.Sprintf(format, args...))
}

func (s *Shape) walk(n *declcfg.Node, w *walker) {
	n = declcfg.Deref(n)
	if n == nil {
		return
	}
	k := NodeKind(n)
	if s.kinds != TopKind && s.kinds&k == 0 {
		if k == IntKind && s.kinds&FloatKind != 0 {
			// 1 is a valid decimal number
		} else {
			what := declcfg.KindName(n)
			if k == BoolKind && s.kinds&StringKind != 0 {
				what = declcfg.NotStringText(n) // a YAML 1.1 boolean
			} else if k == BoolKind {
				what = "a boolean"
			}
			w.reportf(declcfg.RuleFieldType, n, " must be %s, not %s", kindText(s.kinds), what)
			return
		}
	}
	switch k {
	case StructKind:
		s.walkStruct(n, w)
	case ListKind:
		if s.elem != nil {
			for i, c := range n.Content {
				w.push("", i)
				s.elem.walk(c, w)
				w.pop()
			}
		}
	default:
		if len(s.literals) == 0 && len(s.notEqual) == 0 {
			return
		}
		l, ok := nodeLiteral(n)
		if !ok {
			return
		}
		if len(s.literals) > 0 && !literalIn(l, s.literals) {
			if len(s.literals) == 1 {
				w.reportf(RuleInvalidValue, n, " must be %s, not %s", s.literals[0], l)
			} else {
				w.reportf(RuleInvalidValue, n, " must be one of %s, not %s", literalList(s.literals), l)
			}
			return
		}
		if literalIn(l, s.notEqual) {
			if l.Kind == StringKind && l.Value == "" {
				w.reportf(RuleEmptyValue, n, " must not be empty")
			} else {
				w.reportf(RuleInvalidValue, n, " must not be %s", l)
			}
		}
	}
}

func (s *Shape) walkStruct(n *declcfg.Node, w *walker) {
	base := len(w.entries)
	all, err := declcfg.AppendMappingEntries(w.entries, n)
	if err != nil {
		return // duplicate keys: the loader reports them
	}
	// The nested walks below push their entries past these and pop them;
	// entries stays valid if they move the stack to a larger array.
	w.entries = all
	entries := all[base:]
	defer func() { w.entries = w.entries[:base] }()
	// seen marks the fields present: bits of a word for structs of up to
	// 64 fields (all of the built-in schemas), else a slice.
	var seenBits uint64
	var seenMore []bool
	if len(s.fields) > 64 {
		seenMore = make([]bool, len(s.fields))
	}
	for _, e := range entries {
		f := s.byName[e.Key]
		if f == nil && !w.exact {
			if twin := s.caseTwin(e.Key, entries); twin != "" {
				at := e.KeyNode
				if at == nil {
					at = n
				}
				p := w.path().Field(e.Key)
				w.report(declcfg.RuleDuplicateKey, at, p, fmt.Sprintf(
					"keys %q and %q name the same field for opm, which matches keys case-insensitively and keeps only one; remove %q", e.Key, twin, e.Key))
				continue
			}
			if cf := s.caseFold(e.Key, entries); cf != nil {
				if e.KeyNode != nil {
					w.report(declcfg.RuleKeyCase, e.KeyNode, w.path().Field(e.Key), fmt.Sprintf("key %q is read as %q only because opm matches keys case-insensitively; write %q", e.Key, cf.name, cf.name))
				}
				f = cf
			}
		}
		if f != nil {
			if seenMore != nil {
				seenMore[f.index] = true
			} else {
				seenBits |= 1 << f.index
			}
		}
		if declcfg.IsNull(e.Value) && !w.exact {
			continue // null is absent; required fields are checked below
		}
		switch {
		case f != nil:
			w.push(f.name, -1)
			f.shape.walk(e.Value, w)
			w.pop()
		case s.pattern != nil:
			w.push(e.Key, -1)
			s.pattern.walk(e.Value, w)
			w.pop()
		case s.closed:
			s.unknownField(n, e, w.path(), w.report)
		}
	}
	for i, f := range s.fields {
		if !f.required {
			continue
		}
		present := seenBits&(1<<i) != 0
		if seenMore != nil {
			present = seenMore[i]
		}
		if present && !w.exact {
			for _, e := range entries {
				if (e.Key == f.name || strings.EqualFold(e.Key, f.name)) && declcfg.IsNull(e.Value) {
					present = false
				}
			}
		}
		if !present {
			p := w.path()
			w.report(RuleMissingField, n, p.Field(f.name), fmt.Sprintf("%s is missing required field %q", p.Subject(), f.name))
		}
	}
}

// unknownField reports entry e of the closed struct n as a field it does
// not have.
func (s *Shape) unknownField(n *declcfg.Node, e declcfg.MapEntry, p *Path, report Report) {
	at := e.KeyNode
	if at == nil {
		at = n
	}
	report(RuleUnknownField, at, p.Field(e.Key), s.unknownFieldMessage(e.Key, p))
}

// caseTwin returns the declared field that key equals when case is ignored
// and that is also present spelt exactly, or "".
func (s *Shape) caseTwin(key string, entries []declcfg.MapEntry) string {
	for _, f := range s.fields {
		if !strings.EqualFold(f.name, key) {
			continue
		}
		for _, e := range entries {
			if e.Key == f.name {
				return f.name
			}
		}
	}
	return ""
}

// caseFold finds the declared field that key matches only when case is
// ignored, unless that field is also present spelt exactly.
func (s *Shape) caseFold(key string, entries []declcfg.MapEntry) *field {
	for _, f := range s.fields {
		if !strings.EqualFold(f.name, key) {
			continue
		}
		for _, e := range entries {
			if e.Key == f.name {
				return nil
			}
		}
		return f
	}
	return nil
}

func (s *Shape) unknownFieldMessage(key string, p *Path) string {
	names := make([]string, len(s.fields))
	for i, f := range s.fields {
		names[i] = f.name
	}
	where := ""
	if ps := p.String(); ps != "" {
		where = " in " + ps
	}
	msg := fmt.Sprintf("unknown field %q%s", key, where)
	if sug := declcfg.Suggest(key, names); sug != "" {
		return msg + fmt.Sprintf("; did you mean %q?", sug)
	}
	sort.Strings(names)
	return msg + fmt.Sprintf(" (known fields: %s)", strings.Join(names, ", "))
}

// UnknownFields walks n as Walk does but reports only keys that s does not
// declare. Keys that match a field only without regard to case are read by
// the decoder (which warns about them), so they are not unknown.
func (s *Shape) UnknownFields(n *declcfg.Node, p *Path, report Report) {
	n = declcfg.Deref(n)
	if n == nil {
		return
	}
	switch n.Kind {
	case declcfg.MappingNode:
		entries, err := declcfg.MappingEntries(n)
		if err != nil {
			return
		}
		for _, e := range entries {
			f := s.byName[e.Key]
			if f == nil && s.caseTwin(e.Key, entries) != "" {
				continue // a duplicate key, not an unknown one
			}
			if f == nil {
				f = s.caseFold(e.Key, entries)
			}
			switch {
			case f != nil:
				f.shape.UnknownFields(e.Value, p.Field(f.name), report)
			case s.pattern != nil:
				s.pattern.UnknownFields(e.Value, p.Field(e.Key), report)
			case s.closed:
				s.unknownField(n, e, p, report)
			}
		}
	case declcfg.SequenceNode:
		if s.elem != nil {
			for i, c := range n.Content {
				s.elem.UnknownFields(c, p.Elem(i), report)
			}
		}
	}
}

// Declares reports whether s is an object shape with a field spelt key.
func (s *Shape) Declares(key string) bool { return s != nil && s.byName[key] != nil }
