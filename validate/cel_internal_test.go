package validate

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCheckCELRuleBounds: rules a hostile or broken catalog could hold are
// refused by cel-go's parser limits with a verdict, not a hang or a panic,
// and a verdict is the same when it comes from the cache.
func TestCheckCELRuleBounds(t *testing.T) {
	long := "properties.exists(p, " + strings.Repeat(`p.type == "x" || `, 10000) + "false)"
	deep := strings.Repeat("(", 1000) + "true" + strings.Repeat(")", 1000)
	for name, rule := range map[string]string{"long": long, "deep": deep} {
		t.Run(name, func(t *testing.T) {
			first := checkCELRule(rule)
			assert.True(t, strings.HasPrefix(first, "does not compile: "), first)
			assert.Equal(t, first, checkCELRule(rule))
		})
	}
	assert.Contains(t, checkCELRule(long), "exceeds limit")
	assert.Empty(t, checkCELRule(`properties.exists(p, p.type == "olm.package")`))
}
