package validate

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"cuelang.org/go/cue"
	cueerrors "cuelang.org/go/cue/errors"
	yaml "go.yaml.in/yaml/v3"

	"github.com/fbc-project/fbc/declcfg"
)

// A shape is a CUE definition compiled into a form that can check a YAML
// node tree directly. Evaluating CUE per blob would mean encoding every blob
// (megabytes of base64 manifests included) into CUE; instead the compiler
// reads what the definition says (field names, optional or required,
// closedness, allowed kinds, literal values, != bounds, list element and
// [string] pattern definitions) once, and keeps anything else it does not
// understand as a residual CUE value that is evaluated for that subtree only.
// shape_test.go proves on real catalogs and on mutated blobs that the walk
// reports what full CUE evaluation reports.
type shape struct {
	kinds cue.Kind // allowed kinds; cue.TopKind accepts anything

	literals []literal // non-empty: the value must be one of these
	notEqual []literal // the value must not be any of these

	// Structs.
	fields  []*shapeField
	byName  map[string]*shapeField
	closed  bool
	pattern *shape // [string]: T

	// Lists.
	elem *shape

	// residual is evaluated with CUE when set; the native checks above are
	// then skipped for this node and everything below it.
	residual *cue.Value
	rt       *cueRuntime
}

type shapeField struct {
	name     string
	required bool
	shape    *shape
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

type shapeCompiler struct {
	rt *cueRuntime
	// memo holds the shapes of referenced definitions by path, so that a
	// definition used in many places (or recursively, as #Constraint is) is
	// compiled once.
	memo map[string]*shape
	// residuals counts subtrees left to CUE; the built-in schema has none (a
	// test checks), so every built-in check runs natively.
	residuals []string
}

func (c *shapeCompiler) compileMap(root cue.Value, name string) (map[string]*shape, error) {
	entries, ok, err := mapEntries(root, name)
	if err != nil || !ok {
		return nil, err
	}
	out := make(map[string]*shape, len(entries))
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

func (c *shapeCompiler) compile(v cue.Value, depth int) (*shape, error) {
	if depth > maxShapeDepth {
		// Recursive definitions (#Constraint nests itself) are cut off here
		// and left to CUE below this depth.
		return c.residual(v), nil
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	s := &shape{kinds: v.IncompleteKind(), rt: c.rt}
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
				c.memo = map[string]*shape{}
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
func (c *shapeCompiler) scalarConstraint(s *shape, v cue.Value, op cue.Op, args []cue.Value) bool {
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

func (c *shapeCompiler) compileStruct(s *shape, v cue.Value, depth int) (*shape, error) {
	it, err := v.Fields(cue.Optional(true), cue.Definitions(false))
	if err != nil {
		return nil, err
	}
	s.byName = map[string]*shapeField{}
	for it.Next() {
		sel := it.Selector()
		f := &shapeField{name: sel.Unquoted(), required: sel.ConstraintType() != cue.OptionalConstraint}
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

func (c *shapeCompiler) compileList(s *shape, v cue.Value, depth int) (*shape, error) {
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

func (c *shapeCompiler) residual(v cue.Value) *shape {
	c.residuals = append(c.residuals, fmt.Sprint(v.Path()))
	return &shape{kinds: cue.TopKind, residual: &v, rt: c.rt}
}

// shapeReport receives what a walk finds: rule, the node it concerns, the
// path of the field concerned, and a message that starts with that path.
type shapeReport func(rule string, n *yaml.Node, p *fieldPath, msg string)

// fieldPath is a lazily formatted location inside a blob: a linked list from the
// innermost element outwards, turned into a string only when reporting.
type fieldPath struct {
	parent *fieldPath
	key    string
	index  int // -1 for keys, labelIndex for a root label
}

// labelIndex marks a root element that names the blob ("olm.bundle blob")
// for messages about the blob itself; it is not part of the path.
const labelIndex = -2

func rootPath(label string) *fieldPath { return &fieldPath{key: label, index: labelIndex} }

func (p *fieldPath) field(k string) *fieldPath { return &fieldPath{parent: p, key: k, index: -1} }
func (p *fieldPath) elem(i int) *fieldPath     { return &fieldPath{parent: p, index: i} }

func (p *fieldPath) String() string {
	if p == nil {
		return ""
	}
	var parts []*fieldPath
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

// subject names a location for a message: `entries[0].name`, or the blob
// itself at its top level.
func subject(p *fieldPath) string {
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

func isNull(n *yaml.Node) bool {
	return n == nil || n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

func nodeKind(n *yaml.Node) cue.Kind {
	switch n.Kind {
	case yaml.MappingNode:
		return cue.StructKind
	case yaml.SequenceNode:
		return cue.ListKind
	case yaml.ScalarNode:
		switch n.ShortTag() {
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
func nodeLiteral(n *yaml.Node) (literal, bool) {
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

// walk checks node n against s; p is n's location in the blob.
func (s *shape) walk(n *yaml.Node, p *fieldPath, report shapeReport) {
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
			report(declcfg.RuleFieldType, n, p, fmt.Sprintf("%s must be %s, not %s", subject(p), kindText(s.kinds), what))
			return
		}
	}
	switch k {
	case cue.StructKind:
		s.walkStruct(n, p, report)
	case cue.ListKind:
		if s.elem != nil {
			for i, c := range n.Content {
				s.elem.walk(c, p.elem(i), report)
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
				report(RuleInvalidValue, n, p, fmt.Sprintf("%s must be %s, not %s", subject(p), s.literals[0], l))
			} else {
				report(RuleInvalidValue, n, p, fmt.Sprintf("%s must be one of %s, not %s", subject(p), literalList(s.literals), l))
			}
			return
		}
		if literalIn(l, s.notEqual) {
			if l.kind == cue.StringKind && l.value == "" {
				report(RuleEmptyValue, n, p, fmt.Sprintf("%s must not be empty", subject(p)))
			} else {
				report(RuleInvalidValue, n, p, fmt.Sprintf("%s must not be %s", subject(p), l))
			}
		}
	}
}

func (s *shape) walkStruct(n *yaml.Node, p *fieldPath, report shapeReport) {
	entries, err := declcfg.MappingEntries(n)
	if err != nil {
		return // duplicate keys: the loader reports them
	}
	var seen []bool
	if len(s.fields) > 0 {
		seen = make([]bool, len(s.fields))
	}
	for _, e := range entries {
		f := s.byName[e.Key]
		if f == nil {
			if twin := s.caseTwin(e.Key, entries); twin != "" {
				at := e.KeyNode
				if at == nil {
					at = n
				}
				report(declcfg.RuleDuplicateKey, at, p.field(e.Key), fmt.Sprintf(
					"keys %q and %q name the same field for opm, which matches keys case-insensitively and keeps only one; remove %q", e.Key, twin, e.Key))
				continue
			}
			if cf := s.caseFold(e.Key, entries); cf != nil {
				if e.KeyNode != nil {
					report(declcfg.RuleKeyCase, e.KeyNode, p.field(e.Key), fmt.Sprintf("key %q is read as %q only because opm matches keys case-insensitively; write %q", e.Key, cf.name, cf.name))
				}
				f = cf
			}
		}
		if f != nil {
			seen[slices.Index(s.fields, f)] = true
		}
		if isNull(e.Value) {
			continue // null is absent; required fields are checked below
		}
		s.entry(n, e, f, p, report, (*shape).walk)
	}
	for i, f := range s.fields {
		if !f.required {
			continue
		}
		present := seen[i]
		if present {
			for _, e := range entries {
				if (e.Key == f.name || strings.EqualFold(e.Key, f.name)) && isNull(e.Value) {
					present = false
				}
			}
		}
		if !present {
			report(RuleMissingField, n, p.field(f.name), fmt.Sprintf("%s is missing required field %q", subject(p), f.name))
		}
	}
}

// entry hands a mapping entry to its field's shape (f, nil when the key
// names no field), to the pattern shape, or reports it as an unknown field
// of a closed struct; descend is the walk being made.
func (s *shape) entry(n *yaml.Node, e declcfg.MapEntry, f *shapeField, p *fieldPath, report shapeReport, descend func(*shape, *yaml.Node, *fieldPath, shapeReport)) {
	switch {
	case f != nil:
		descend(f.shape, e.Value, p.field(f.name), report)
	case s.pattern != nil:
		descend(s.pattern, e.Value, p.field(e.Key), report)
	case s.closed:
		at := e.KeyNode
		if at == nil {
			at = n
		}
		report(RuleUnknownField, at, p.field(e.Key), s.unknownFieldMessage(e.Key, p))
	}
}

// caseTwin returns the declared field that key equals when case is ignored
// and that is also present spelt exactly, or "".
func (s *shape) caseTwin(key string, entries []declcfg.MapEntry) string {
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
func (s *shape) caseFold(key string, entries []declcfg.MapEntry) *shapeField {
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

func (s *shape) unknownFieldMessage(key string, p *fieldPath) string {
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

// evaluate checks n against the residual CUE value.
func (s *shape) evaluate(n *yaml.Node, p *fieldPath, report shapeReport) {
	evalCUE(s.rt, *s.residual, n, p, report)
}

// cueRuntime is a CUE context with the lock that serialises evaluation in
// it: the CUE runtime does not allow concurrent use.
type cueRuntime struct {
	sync.Mutex
	ctx *cue.Context
}

// evalCUE unifies the YAML value n with the CUE value v and reports each
// error at the node its path leads to, classified by rule. v belongs to rt.
func evalCUE(rt *cueRuntime, v cue.Value, n *yaml.Node, p *fieldPath, report shapeReport) {
	val, err := declcfg.NodeToValue(n)
	if err != nil {
		return // the loader reports values it cannot convert
	}
	val = stripNulls(val)
	rt.Lock()
	verr := v.Unify(rt.ctx.Encode(val)).Validate(cue.Concrete(true))
	prefix := len(v.Path().Selectors())
	rt.Unlock()
	for _, ce := range cueerrors.Errors(verr) {
		rel := ce.Path()
		if len(rel) >= prefix {
			rel = rel[prefix:]
		}
		at, ap := locate(n, p, rel)
		report(classifyCUEError(ce), at, ap, fmt.Sprintf("%s: %s", subject(ap), cueMessage(ce)))
	}
}

// locate follows a CUE error path from n down its YAML nodes, as far as they
// go.
func locate(n *yaml.Node, p *fieldPath, sels []string) (*yaml.Node, *fieldPath) {
	for _, sel := range sels {
		n = declcfg.Deref(n)
		switch n.Kind {
		case yaml.MappingNode:
			entries, err := declcfg.MappingEntries(n)
			if err != nil {
				return n, p
			}
			found := false
			for _, e := range entries {
				if e.Key == sel {
					p = p.field(sel)
					if isNull(e.Value) || e.Value == nil {
						return n, p
					}
					n, found = e.Value, true
					break
				}
			}
			if !found {
				return n, p.field(sel)
			}
		case yaml.SequenceNode:
			i, err := strconv.Atoi(sel)
			if err != nil || i < 0 || i >= len(n.Content) {
				return n, p
			}
			n, p = n.Content[i], p.elem(i)
		default:
			return n, p
		}
	}
	return n, p
}

func classifyCUEError(e cueerrors.Error) string {
	format, args := e.Msg()
	switch {
	case strings.Contains(format, "not allowed"):
		return RuleUnknownField
	case strings.Contains(format, "required but not present"), strings.Contains(format, "incomplete value"):
		return RuleMissingField
	case strings.Contains(format, "mismatched types"):
		return declcfg.RuleFieldType
	case strings.Contains(format, "out of bound") && len(args) == 2 && fmt.Sprint(args[1]) == `!=""`:
		return RuleEmptyValue
	}
	return RuleInvalidValue
}

func cueMessage(e cueerrors.Error) string {
	format, args := e.Msg()
	return fmt.Sprintf(format, args...)
}

// stripNulls drops null object members, which count as absent.
func stripNulls(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e == nil {
				delete(x, k)
				continue
			}
			x[k] = stripNulls(e)
		}
	case []any:
		for i, e := range x {
			x[i] = stripNulls(e)
		}
	}
	return v
}
