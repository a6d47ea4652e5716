// Package olmcel is the CEL environment OLM gives the rules of olm.constraint
// properties (operator-framework/api pkg/constraints), shared by validate,
// which only compiles rules, and resolve, which also runs them on candidate
// bundles.
package olmcel

import (
	"errors"
	"fmt"
	"sync"

	"github.com/blang/semver/v4"
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// The environment has one variable, properties: a list of string-keyed maps,
// one per property of the candidate bundle ({"type": T, "value": V}), and one
// function, semver_compare(a, b), which parses both arguments the tolerant
// way blang/semver does (a "v" prefix and missing minor or patch numbers are
// accepted) and returns -1, 0 or 1. An argument that is not a version makes
// the rule's evaluation fail, which OLM counts as "does not match".

// Environment returns the environment, built once.
var Environment = sync.OnceValues(func() (*cel.Env, error) {
	return cel.NewEnv(
		cel.Variable("properties", cel.ListType(cel.MapType(cel.StringType, cel.DynType))),
		cel.Function("semver_compare",
			cel.Overload("semver_compare_dyn_dyn", []*cel.Type{cel.DynType, cel.DynType}, cel.IntType,
				cel.BinaryBinding(semverCompare))),
	)
})

func semverCompare(a, b ref.Val) ref.Val {
	va, err := semver.ParseTolerant(fmt.Sprint(a.Value()))
	if err != nil {
		return types.NewErr("unable to parse '%v' to semver format", a.Value())
	}
	vb, err := semver.ParseTolerant(fmt.Sprint(b.Value()))
	if err != nil {
		return types.NewErr("unable to parse '%v' to semver format", b.Value())
	}
	return types.Int(va.Compare(vb))
}

// ErrNotBool is OLM's refusal of a rule whose result is not a bool.
var ErrNotBool = errors.New("cel expressions must have type Bool")

type compiled struct {
	program cel.Program
	err     error
}

// programs remembers each distinct rule's compilation: catalogs repeat the
// same few rules on many bundles.
var programs sync.Map // rule -> compiled

// Program compiles a rule as OLM does: CEL's compile error, or ErrNotBool,
// or a program ready to evaluate (safe for concurrent use).
func Program(rule string) (cel.Program, error) {
	if c, ok := programs.Load(rule); ok {
		return c.(compiled).program, c.(compiled).err
	}
	prg, err := compile(rule)
	programs.Store(rule, compiled{prg, err})
	return prg, err
}

func compile(rule string) (cel.Program, error) {
	env, err := Environment()
	if err != nil {
		return nil, err
	}
	ast, iss := env.Compile(rule)
	if err := iss.Err(); err != nil {
		return nil, err
	}
	if !ast.OutputType().IsExactType(cel.BoolType) {
		return nil, ErrNotBool
	}
	return env.Program(ast)
}

// Matches evaluates a compiled rule on a bundle's properties (each
// {"type": T, "value": V} with V decoded from JSON). An evaluation error is
// no match, as in OLM.
func Matches(prg cel.Program, properties []map[string]any) bool {
	out, _, err := prg.Eval(map[string]any{"properties": properties})
	if err != nil {
		return false
	}
	b, ok := out.Value().(bool)
	return ok && b
}
