package validate

import (
	"fmt"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
)

// CEL rules of olm.constraint are compiled in the environment OLM gives
// them (operator-framework/api pkg/constraints): one variable, properties,
// a list of string-keyed maps (the candidate bundle's properties), and one
// function, semver_compare(a, b), which compares two versions the way
// blang/semver's Compare does and returns -1, 0 or 1. OLM refuses a rule
// that does not compile or whose result is not a bool, so fbc reports both.

// celEnvironment is built once, on the first rule met.
var celEnvironment = sync.OnceValues(func() (*cel.Env, error) {
	return cel.NewEnv(
		cel.Variable("properties", cel.ListType(cel.MapType(cel.StringType, cel.DynType))),
		cel.Function("semver_compare",
			// Declared for the type checker only: fbc compiles rules,
			// it never evaluates them.
			cel.Overload("semver_compare_dyn_dyn", []*cel.Type{cel.DynType, cel.DynType}, cel.IntType)),
	)
})

// celCompiled remembers each distinct rule's verdict ("" = compiles): real
// catalogs repeat the same few rules on many bundles, and files are checked
// concurrently.
var celCompiled sync.Map // rule -> string

// checkCELRule returns why OLM would refuse rule, or "" when it compiles to
// a bool expression.
func checkCELRule(rule string) string {
	if v, ok := celCompiled.Load(rule); ok {
		return v.(string)
	}
	verdict := compileCELRule(rule)
	celCompiled.Store(rule, verdict)
	return verdict
}

func compileCELRule(rule string) string {
	env, err := celEnvironment()
	if err != nil {
		return "the CEL environment could not be built: " + err.Error()
	}
	ast, iss := env.Compile(rule)
	if iss != nil && iss.Err() != nil {
		var msgs []string
		for _, e := range iss.Errors() {
			msg := strings.TrimSuffix(e.Message, " (in container '')")
			loc := e.Location
			if loc != nil && loc.Line() > 0 {
				msgs = append(msgs, fmt.Sprintf("line %d column %d: %s", loc.Line(), loc.Column()+1, msg))
			} else {
				msgs = append(msgs, msg)
			}
		}
		return "does not compile: " + strings.Join(msgs, "; ")
	}
	if out := ast.OutputType(); !out.IsExactType(cel.BoolType) {
		return fmt.Sprintf("evaluates to %s, not bool: OLM needs a true/false answer", out)
	}
	return ""
}
