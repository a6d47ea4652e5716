package declcfg

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Fields that DecodeDocument reads before the schema-specific decoder reads
// them again (name, package) report each problem once.
func TestDecodeReportsEachProblemOnce(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"key case", "schema: olm.package\nName: p\n", "key-case"},
		{"wrong type", "schema: olm.package\nname: 3\n", "field-type"},
		{"channel package type", "schema: olm.channel\npackage: [p]\nname: c\n", "field-type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := ParseFile("c.yaml", []byte(tc.src))
			require.Empty(t, f.Errors)
			require.Len(t, f.Docs, 1)
			_, errs, _ := DecodeDocument(f.Docs[0])
			var rules []string
			for _, e := range errs {
				rules = append(rules, e.Rule)
			}
			assert.Equal(t, []string{tc.want}, rules)
		})
	}
}
