package validate

import (
	"fmt"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"

	"github.com/fbc-project/fbc/internal/olmcel"
)

// CEL rules of olm.constraint are compiled in the environment OLM gives
// them (internal/olmcel). OLM refuses a rule that does not compile or whose
// result is not a bool, so fbc reports both, with CEL's line and column.

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
	env, err := olmcel.Environment()
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
