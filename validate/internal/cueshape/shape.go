// Package cueshape compiles CUE definitions into native checks on YAML node
// trees, and evaluates CUE on YAML nodes where they cannot be compiled. It
// is validate's: the CUE files (the built-in schema, --schema policies) stay
// the single description of shapes, and a compiled Shape reads what a
// definition says (field names, optional or required, closedness, allowed
// kinds, literal values, != bounds, list element and [string] pattern
// definitions) instead of restating it.
//
// Evaluating CUE per blob would mean converting every blob (megabytes of
// base64 manifests included) into a CUE value; a Shape walks the parsed
// nodes instead, reading them as opm does (null is absent, keys match
// without regard to case, YAML 1.1 booleans are booleans), and keeps
// anything it does not understand as a residual CUE value evaluated for
// that subtree only. On certified-operators catalogs the walk is tens of
// times faster than CUE (BenchmarkWalk); the tests and FuzzMatchesCUE prove
// on real and mutated blobs that it reports what CUE reports.
package cueshape

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"cuelang.org/go/cue"

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

// A Shape is a CUE definition compiled into a form that checks a YAML node
// tree directly.
type Shape struct {
	kinds cue.Kind // allowed kinds; cue.TopKind accepts anything

	literals []literal // non-empty: the value must be one of these
	notEqual []literal // the value must not be any of these

	// Structs.
	fields  []*shapeField
	byName  map[string]*shapeField
	closed  bool
	pattern *Shape // [string]: T

	// Lists.
	elem *Shape

	// residual is evaluated with CUE when set; the native checks above are
	// then skipped for this node and everything below it.
	residual *cue.Value
	rt       *Runtime
}

type shapeField struct {
	name     string
	required bool
	shape    *Shape
	index    int // in its struct's fields
}

// A literal is a concrete scalar. value is a string's own text, or the
// canonical text of any other scalar; comparing it never quotes the node's
// value (which can be megabytes of base64).
type literal struct {
	kind  cue.Kind
	value string
}

// String renders the literal as CUE and JSON write it, for messages.
func (l literal) String() string {
	if l.kind == cue.StringKind {
		return strconv.Quote(l.value)
	}
	return l.value
}

// A Compiler compiles the definitions of one CUE value (one Runtime's) into
// Shapes.
type Compiler struct {
	rt *Runtime
	// memo holds the shapes of referenced definitions by path, so that a
	// definition used in many places (or recursively, as #Constraint is) is
	// compiled once.
	memo map[string]*Shape
	// residuals counts subtrees left to CUE; the built-in schema has none (a
	// test checks), so every built-in check runs natively.
	residuals []string
}

// NewCompiler returns a compiler for values of rt.
func NewCompiler(rt *Runtime) *Compiler { return &Compiler{rt: rt} }

// Residuals names the parts of what was compiled that are left to CUE
// evaluation.
func (c *Compiler) Residuals() []string { return c.residuals }

// Compile compiles the definition v.
func (c *Compiler) Compile(v cue.Value) (*Shape, error) { return c.compile(v, 0) }

// CompileMap compiles each definition of the struct at name in root (see
// Fields); it returns nil when root has no such field.
func (c *Compiler) CompileMap(root cue.Value, name string) (map[string]*Shape, error) {
	entries, ok, err := Fields(root, name)
	if err != nil || !ok {
		return nil, err
	}
	out := make(map[string]*Shape, len(entries))
	for k, v := range entries {
		s, err := c.compile(v, 0)
		if err != nil {
			return nil, fmt.Errorf("%s[%q]: %w", name, k, err)
		}
		out[k] = s
	}
	return out, nil
}

const maxShapeDepth = 64

func (c *Compiler) compile(v cue.Value, depth int) (*Shape, error) {
	if depth > maxShapeDepth {
		// Recursive definitions (#Constraint nests itself) are cut off here
		// and left to CUE below this depth.
		return c.residual(v), nil
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	s := &Shape{kinds: v.IncompleteKind(), rt: c.rt}
	op, args := v.Expr()
	switch {
	case s.kinds == cue.StructKind:
		if op == cue.OrOp || op == cue.AndOp {
			return c.residual(v), nil
		}
		if _, ref := v.ReferencePath(); len(ref.Selectors()) > 0 {
			key := ref.String()
			if m, ok := c.memo[key]; ok {
				return m, nil
			}
			if c.memo == nil {
				c.memo = map[string]*Shape{}
			}
			c.memo[key] = s
		}
		return c.compileStruct(s, v, depth)
	case s.kinds == cue.ListKind:
		if op == cue.OrOp || op == cue.AndOp {
			return c.residual(v), nil
		}
		return c.compileList(s, v, depth)
	case s.kinds&(cue.StructKind|cue.ListKind) != 0 && s.kinds != cue.TopKind:
		// A disjunction mixing objects or lists with other kinds.
		return c.residual(v), nil
	}
	// Scalars and top.
	if !c.scalarConstraint(s, v, op, args) {
		return c.residual(v), nil
	}
	return s, nil
}

// scalarConstraint records what v allows; false means it cannot be expressed
// natively.
func (c *Compiler) scalarConstraint(s *Shape, v cue.Value, op cue.Op, args []cue.Value) bool {
	switch op {
	case cue.NoOp:
		if v.IsConcrete() {
			l, ok := literalOf(v)
			if !ok {
				return false
			}
			s.literals = append(s.literals, l)
		}
		return true // a basic kind such as string or _; kinds says which
	case cue.AndOp:
		for _, a := range args {
			aop, aargs := a.Expr()
			switch {
			case aop == cue.NoOp && !a.IsConcrete():
				// a basic kind; the intersection is already in s.kinds
			case aop == cue.NotEqualOp && len(aargs) == 1 && aargs[0].IsConcrete():
				l, ok := literalOf(aargs[0])
				if !ok {
					return false
				}
				s.notEqual = append(s.notEqual, l)
			default:
				return false
			}
		}
		return true
	case cue.OrOp:
		concrete, basic := 0, 0
		for _, a := range args {
			aop, _ := a.Expr()
			switch {
			case a.IsConcrete():
				l, ok := literalOf(a)
				if !ok {
					return false
				}
				s.literals = append(s.literals, l)
				concrete++
			case aop == cue.NoOp:
				basic++
			default:
				return false
			}
		}
		// Either all literals or all basic kinds (string | number); a mix
		// such as "a" | int needs CUE.
		return concrete == 0 || basic == 0
	case cue.NotEqualOp:
		if len(args) == 1 && args[0].IsConcrete() {
			l, ok := literalOf(args[0])
			if !ok {
				return false
			}
			s.notEqual = append(s.notEqual, l)
			return true
		}
	}
	return false
}

func literalOf(v cue.Value) (literal, bool) {
	switch k := v.Kind(); k {
	case cue.StringKind:
		str, err := v.String()
		if err != nil {
			return literal{}, false
		}
		return literal{kind: k, value: str}, true
	case cue.NullKind:
		return literal{kind: k, value: "null"}, true
	case cue.BoolKind, cue.IntKind, cue.FloatKind, cue.NumberKind:
		return literal{kind: k, value: fmt.Sprint(v)}, true
	}
	return literal{}, false
}

func (c *Compiler) compileStruct(s *Shape, v cue.Value, depth int) (*Shape, error) {
	it, err := v.Fields(cue.Optional(true), cue.Definitions(false))
	if err != nil {
		return nil, err
	}
	s.byName = map[string]*shapeField{}
	for it.Next() {
		sel := it.Selector()
		f := &shapeField{name: sel.Unquoted(), required: sel.ConstraintType() != cue.OptionalConstraint, index: len(s.fields)}
		if f.shape, err = c.compile(it.Value(), depth+1); err != nil {
			return nil, fmt.Errorf("%s: %w", f.name, err)
		}
		s.fields = append(s.fields, f)
		s.byName[f.name] = f
	}
	s.closed = v.IsClosed()
	if p := v.LookupPath(cue.MakePath(cue.AnyString)); p.Exists() {
		if s.pattern, err = c.compile(p, depth+1); err != nil {
			return nil, err
		}
	} else if s.closed && v.Allows(cue.Str("\x00fbc-probe")) {
		// A closed struct that admits names through a pattern other than
		// [string] (a regular expression): leave it to CUE. s may already
		// be memoised, so it becomes the residual in place.
		r := c.residual(v)
		*s = *r
		return s, nil
	}
	return s, nil
}

func (c *Compiler) compileList(s *Shape, v cue.Value, depth int) (*Shape, error) {
	it, err := v.List()
	if err != nil {
		return nil, err
	}
	if it.Next() {
		return c.residual(v), nil // a list with fixed elements
	}
	e := v.LookupPath(cue.MakePath(cue.AnyIndex))
	if !e.Exists() {
		return c.residual(v), nil
	}
	if s.elem, err = c.compile(e, depth+1); err != nil {
		return nil, err
	}
	return s, nil
}

func (c *Compiler) residual(v cue.Value) *Shape {
	c.residuals = append(c.residuals, fmt.Sprint(v.Path()))
	return &Shape{kinds: cue.TopKind, residual: &v, rt: c.rt}
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
	var parts []*Path
	for q := p; q != nil; q = q.parent {
		parts = append(parts, q)
	}
	var b strings.Builder
	for i := len(parts) - 1; i >= 0; i-- {
		q := parts[i]
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

// IsNull reports whether n is absent or null, which the shapes read as
// absent (as opm does).
func IsNull(n *declcfg.Node) bool {
	return n == nil || n.Kind == declcfg.ScalarNode && n.Tag == "!!null"
}

func nodeKind(n *declcfg.Node) cue.Kind {
	switch n.Kind {
	case declcfg.MappingNode:
		return cue.StructKind
	case declcfg.SequenceNode:
		return cue.ListKind
	case declcfg.ScalarNode:
		switch n.Tag {
		case "!!null":
			return cue.NullKind
		case "!!bool":
			return cue.BoolKind
		case "!!int":
			return cue.IntKind
		case "!!float":
			return cue.FloatKind
		}
		if _, ok := declcfg.YAML11Bool(n); ok {
			return cue.BoolKind // as opm reads it
		}
		return cue.StringKind
	}
	return cue.BottomKind
}

// kindText describes the kinds a shape allows, for messages.
func kindText(k cue.Kind) string {
	var parts []string
	add := func(mask cue.Kind, text string) {
		if k&mask == mask {
			parts = append(parts, text)
			k &^= mask
		}
	}
	add(cue.StringKind, "a string")
	add(cue.NumberKind, "a number")
	add(cue.IntKind, "an integer")
	add(cue.FloatKind, "a decimal number")
	add(cue.BoolKind, "a boolean")
	add(cue.StructKind, "an object")
	add(cue.ListKind, "a list")
	add(cue.NullKind, "null")
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
func nodeLiteral(n *declcfg.Node) (literal, bool) {
	switch k := nodeKind(n); k {
	case cue.StringKind:
		return literal{kind: k, value: n.Value}, true
	case cue.NullKind:
		return literal{kind: k, value: "null"}, true
	case cue.BoolKind:
		if b, ok := declcfg.YAML11Bool(n); ok {
			return literal{kind: k, value: strconv.FormatBool(b)}, true
		}
		return literal{kind: k, value: strings.ToLower(n.Value)}, true
	case cue.IntKind, cue.FloatKind:
		return literal{kind: k, value: n.Value}, true
	}
	return literal{}, false
}

func literalIn(l literal, set []literal) bool {
	for _, m := range set {
		if m.value == l.value && (m.kind == l.kind || m.kind&cue.NumberKind != 0 && l.kind&cue.NumberKind != 0) {
			return true
		}
	}
	return false
}

func literalList(ls []literal) string {
	texts := make([]string, len(ls))
	for i, l := range ls {
		texts[i] = l.String()
	}
	return strings.Join(texts, ", ")
}

// Walk checks node n against s; p is n's location in the blob.
func (s *Shape) Walk(n *declcfg.Node, p *Path, report Report) { s.walk(n, p, report, false) }

// WalkExact checks n against s the way a JSON schema validator checks a
// YAML file read into Python dictionaries (operator-pipelines' settings
// files), not the way opm reads a blob: keys match only as written (a key
// that differs in case is an unknown field), and null is a value of its
// own, which a field of another kind refuses, not an absent field.
func (s *Shape) WalkExact(n *declcfg.Node, p *Path, report Report) { s.walk(n, p, report, true) }

func walkExact(s *Shape, n *declcfg.Node, p *Path, report Report) { s.walk(n, p, report, true) }

func (s *Shape) walk(n *declcfg.Node, p *Path, report Report, exact bool) {
	n = declcfg.Deref(n)
	if n == nil {
		return
	}
	if s.residual != nil {
		s.evaluate(n, p, report)
		return
	}
	k := nodeKind(n)
	if s.kinds != cue.TopKind && s.kinds&k == 0 {
		if k == cue.IntKind && s.kinds&cue.FloatKind != 0 {
			// 1 is a valid decimal number
		} else {
			what := declcfg.KindName(n)
			if k == cue.BoolKind && s.kinds&cue.StringKind != 0 {
				what = declcfg.NotStringText(n) // a YAML 1.1 boolean
			} else if k == cue.BoolKind {
				what = "a boolean"
			}
			report(declcfg.RuleFieldType, n, p, fmt.Sprintf("%s must be %s, not %s", p.Subject(), kindText(s.kinds), what))
			return
		}
	}
	switch k {
	case cue.StructKind:
		s.walkStruct(n, p, report, exact)
	case cue.ListKind:
		if s.elem != nil {
			for i, c := range n.Content {
				s.elem.walk(c, p.Elem(i), report, exact)
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
				report(RuleInvalidValue, n, p, fmt.Sprintf("%s must be %s, not %s", p.Subject(), s.literals[0], l))
			} else {
				report(RuleInvalidValue, n, p, fmt.Sprintf("%s must be one of %s, not %s", p.Subject(), literalList(s.literals), l))
			}
			return
		}
		if literalIn(l, s.notEqual) {
			if l.kind == cue.StringKind && l.value == "" {
				report(RuleEmptyValue, n, p, fmt.Sprintf("%s must not be empty", p.Subject()))
			} else {
				report(RuleInvalidValue, n, p, fmt.Sprintf("%s must not be %s", p.Subject(), l))
			}
		}
	}
}

func (s *Shape) walkStruct(n *declcfg.Node, p *Path, report Report, exact bool) {
	entries, err := declcfg.MappingEntries(n)
	if err != nil {
		return // duplicate keys: the loader reports them
	}
	// seen marks the fields present: bits of a word for structs of up to
	// 64 fields (all of the built-in schemas), else a slice.
	var seenBits uint64
	var seenMore []bool
	if len(s.fields) > 64 {
		seenMore = make([]bool, len(s.fields))
	}
	descend := (*Shape).Walk
	if exact {
		descend = walkExact
	}
	for _, e := range entries {
		f := s.byName[e.Key]
		if f == nil && !exact {
			if twin := s.caseTwin(e.Key, entries); twin != "" {
				at := e.KeyNode
				if at == nil {
					at = n
				}
				report(declcfg.RuleDuplicateKey, at, p.Field(e.Key), fmt.Sprintf(
					"keys %q and %q name the same field for opm, which matches keys case-insensitively and keeps only one; remove %q", e.Key, twin, e.Key))
				continue
			}
			if cf := s.caseFold(e.Key, entries); cf != nil {
				if e.KeyNode != nil {
					report(declcfg.RuleKeyCase, e.KeyNode, p.Field(e.Key), fmt.Sprintf("key %q is read as %q only because opm matches keys case-insensitively; write %q", e.Key, cf.name, cf.name))
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
		if IsNull(e.Value) && !exact {
			continue // null is absent; required fields are checked below
		}
		s.entry(n, e, f, p, report, descend)
	}
	for i, f := range s.fields {
		if !f.required {
			continue
		}
		present := seenBits&(1<<i) != 0
		if seenMore != nil {
			present = seenMore[i]
		}
		if present && !exact {
			for _, e := range entries {
				if (e.Key == f.name || strings.EqualFold(e.Key, f.name)) && IsNull(e.Value) {
					present = false
				}
			}
		}
		if !present {
			report(RuleMissingField, n, p.Field(f.name), fmt.Sprintf("%s is missing required field %q", p.Subject(), f.name))
		}
	}
}

// entry hands a mapping entry to its field's shape (f, nil when the key
// names no field), to the pattern shape, or reports it as an unknown field
// of a closed struct; descend is the walk being made.
func (s *Shape) entry(n *declcfg.Node, e declcfg.MapEntry, f *shapeField, p *Path, report Report, descend func(*Shape, *declcfg.Node, *Path, Report)) {
	switch {
	case f != nil:
		descend(f.shape, e.Value, p.Field(f.name), report)
	case s.pattern != nil:
		descend(s.pattern, e.Value, p.Field(e.Key), report)
	case s.closed:
		at := e.KeyNode
		if at == nil {
			at = n
		}
		report(RuleUnknownField, at, p.Field(e.Key), s.unknownFieldMessage(e.Key, p))
	}
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
func (s *Shape) caseFold(key string, entries []declcfg.MapEntry) *shapeField {
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
// the decoder (which warns about them), so they are not unknown; parts left
// to CUE evaluation are not looked into.
func (s *Shape) UnknownFields(n *declcfg.Node, p *Path, report Report) {
	n = declcfg.Deref(n)
	if n == nil || s.residual != nil {
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
			s.entry(n, e, f, p, report, (*Shape).UnknownFields)
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

// evaluate checks n against the residual CUE value.
func (s *Shape) evaluate(n *declcfg.Node, p *Path, report Report) {
	Eval(s.rt, *s.residual, n, p, report)
}
