// Package cueshape is validate's CUE: it compiles CUE definitions into the
// shapes of validate/internal/shape (a Table, which validate embeds for its
// built-in schema: see validate's TestBuiltinSchemaTable), and evaluates
// CUE on parsed documents for --schema policies. The CUE files stay the
// single description of shapes; a compiled shape reads what a definition
// says (field names, optional or required, closedness, allowed kinds,
// literal values, != bounds, list element and [string] pattern definitions)
// instead of restating it.
//
// Evaluating CUE per blob would mean converting every blob (megabytes of
// base64 manifests included) into a CUE value; a shape walks the parsed
// nodes instead. On certified-operators catalogs the walk is tens of times
// faster than CUE (BenchmarkWalk); the tests and FuzzMatchesCUE prove on
// real and mutated blobs that it reports what CUE reports.
package cueshape

import (
	"fmt"
	"maps"
	"slices"

	"cuelang.org/go/cue"

	"github.com/fbc-project/fbc/validate/internal/shape"
)

// A Compiler compiles the definitions of one CUE value into a shape.Table.
// Only what shapes can express compiles: anything else (disjunctions of
// objects or lists, lists with fixed elements, patterns other than
// [string], bounds other than !=) is an error naming where it is, since a
// built-in check must run natively.
type Compiler struct {
	b shape.Builder
	// memo holds the shapes of referenced definitions by path, so that a
	// definition used in many places (or recursively, as #Constraint is) is
	// compiled once.
	memo map[string]int
}

// Table compiles each definition of the structs at schemas, properties and
// files in root (see Fields; a struct that is absent is empty) into a table.
func (c *Compiler) Table(root cue.Value, schemas, properties, files string) (shape.Table, error) {
	var maps [3]map[string]int
	for i, name := range []string{schemas, properties, files} {
		m, err := c.compileMap(root, name)
		if err != nil {
			return shape.Table{}, err
		}
		maps[i] = m
	}
	return c.b.Table(maps[0], maps[1], maps[2]), nil
}

func (c *Compiler) compileMap(root cue.Value, name string) (map[string]int, error) {
	entries, ok, err := Fields(root, name)
	if err != nil || !ok {
		return nil, err
	}
	out := make(map[string]int, len(entries))
	// In name order, so that the same schema makes the same table.
	for _, k := range slices.Sorted(maps.Keys(entries)) {
		i, err := c.compile(entries[k], 0)
		if err != nil {
			return nil, fmt.Errorf("%s[%q]: %w", name, k, err)
		}
		out[k] = i
	}
	return out, nil
}

const maxShapeDepth = 64

// notNative is the error for a part of a definition shapes cannot express.
func notNative(v cue.Value, what string) error {
	return fmt.Errorf("%s: %s cannot be compiled into a native check", v.Path(), what)
}

func (c *Compiler) compile(v cue.Value, depth int) (int, error) {
	if depth > maxShapeDepth {
		return 0, notNative(v, "a definition nested more than 64 deep")
	}
	if err := v.Err(); err != nil {
		return 0, err
	}
	kinds, err := kindOf(v, v.IncompleteKind())
	if err != nil {
		return 0, err
	}
	op, args := v.Expr()
	switch {
	case kinds == shape.StructKind:
		if op == cue.OrOp || op == cue.AndOp {
			return 0, notNative(v, "a disjunction or conjunction of objects")
		}
		key := ""
		if _, ref := v.ReferencePath(); len(ref.Selectors()) > 0 {
			key = ref.String()
			if m, ok := c.memo[key]; ok {
				return m, nil
			}
		}
		i := c.b.Add()
		if key != "" {
			if c.memo == nil {
				c.memo = map[string]int{}
			}
			c.memo[key] = i
		}
		sp, err := c.compileStruct(v, depth)
		if err != nil {
			return 0, err
		}
		sp.Kinds = kinds
		c.b.Set(i, sp)
		return i, nil
	case kinds == shape.ListKind:
		if op == cue.OrOp || op == cue.AndOp {
			return 0, notNative(v, "a disjunction or conjunction of lists")
		}
		i := c.b.Add()
		sp, err := c.compileList(v, depth)
		if err != nil {
			return 0, err
		}
		sp.Kinds = kinds
		c.b.Set(i, sp)
		return i, nil
	case kinds&(shape.StructKind|shape.ListKind) != 0 && kinds != shape.TopKind:
		return 0, notNative(v, "a disjunction mixing objects or lists with other kinds")
	}
	// Scalars and top.
	sp := shape.Spec{Kinds: kinds}
	if !scalarConstraint(&sp, v, op, args) {
		return 0, notNative(v, fmt.Sprintf("the constraint %v", v))
	}
	i := c.b.Add()
	c.b.Set(i, sp)
	return i, nil
}

// kindOf translates CUE's kinds into shape's; k is v's.
func kindOf(v cue.Value, k cue.Kind) (shape.Kind, error) {
	if k == cue.TopKind {
		return shape.TopKind, nil
	}
	var out shape.Kind
	for _, m := range []struct {
		cue   cue.Kind
		shape shape.Kind
	}{
		{cue.NullKind, shape.NullKind}, {cue.BoolKind, shape.BoolKind}, {cue.IntKind, shape.IntKind},
		{cue.FloatKind, shape.FloatKind}, {cue.StringKind, shape.StringKind}, {cue.ListKind, shape.ListKind},
		{cue.StructKind, shape.StructKind},
	} {
		if k&m.cue != 0 {
			out |= m.shape
			k &^= m.cue
		}
	}
	if k != 0 {
		return 0, notNative(v, fmt.Sprintf("the kind %v", k))
	}
	return out, nil
}

// scalarConstraint records in sp what v allows; false means it cannot be
// expressed natively.
func scalarConstraint(sp *shape.Spec, v cue.Value, op cue.Op, args []cue.Value) bool {
	switch op {
	case cue.NoOp:
		if v.IsConcrete() {
			l, ok := literalOf(v)
			if !ok {
				return false
			}
			sp.Literals = append(sp.Literals, l)
		}
		return true // a basic kind such as string or _; Kinds says which
	case cue.AndOp:
		for _, a := range args {
			aop, aargs := a.Expr()
			switch {
			case aop == cue.NoOp && !a.IsConcrete():
				// a basic kind; the intersection is already in Kinds
			case aop == cue.NotEqualOp && len(aargs) == 1 && aargs[0].IsConcrete():
				l, ok := literalOf(aargs[0])
				if !ok {
					return false
				}
				sp.NotEqual = append(sp.NotEqual, l)
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
				sp.Literals = append(sp.Literals, l)
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
			sp.NotEqual = append(sp.NotEqual, l)
			return true
		}
	}
	return false
}

func literalOf(v cue.Value) (shape.Literal, bool) {
	k, err := kindOf(v, v.Kind())
	if err != nil {
		return shape.Literal{}, false
	}
	switch v.Kind() {
	case cue.StringKind:
		str, err := v.String()
		if err != nil {
			return shape.Literal{}, false
		}
		return shape.Literal{Kind: k, Value: str}, true
	case cue.NullKind:
		return shape.Literal{Kind: k, Value: "null"}, true
	case cue.BoolKind, cue.IntKind, cue.FloatKind, cue.NumberKind:
		return shape.Literal{Kind: k, Value: fmt.Sprint(v)}, true
	}
	return shape.Literal{}, false
}

func (c *Compiler) compileStruct(v cue.Value, depth int) (shape.Spec, error) {
	var sp shape.Spec
	it, err := v.Fields(cue.Optional(true), cue.Definitions(false))
	if err != nil {
		return sp, err
	}
	for it.Next() {
		sel := it.Selector()
		f := shape.FieldSpec{Name: sel.Unquoted(), Required: sel.ConstraintType() != cue.OptionalConstraint}
		if f.Shape, err = c.compile(it.Value(), depth+1); err != nil {
			return sp, fmt.Errorf("%s: %w", f.Name, err)
		}
		sp.Fields = append(sp.Fields, f)
	}
	sp.Closed = v.IsClosed()
	if p := v.LookupPath(cue.MakePath(cue.AnyString)); p.Exists() {
		i, err := c.compile(p, depth+1)
		if err != nil {
			return sp, err
		}
		sp.Pattern = i + 1
	} else if sp.Closed && v.Allows(cue.Str("\x00fbc-probe")) {
		return sp, notNative(v, "a closed object that admits names through a pattern other than [string]")
	}
	return sp, nil
}

func (c *Compiler) compileList(v cue.Value, depth int) (shape.Spec, error) {
	var sp shape.Spec
	it, err := v.List()
	if err != nil {
		return sp, err
	}
	if it.Next() {
		return sp, notNative(v, "a list with fixed elements")
	}
	e := v.LookupPath(cue.MakePath(cue.AnyIndex))
	if !e.Exists() {
		return sp, notNative(v, "a list without an element definition")
	}
	i, err := c.compile(e, depth+1)
	if err != nil {
		return sp, err
	}
	sp.Elem = i + 1
	return sp, nil
}
