package validate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fbc-project/fbc/declcfg"
)

func TestUnknownFields(t *testing.T) {
	tests := []struct {
		name, doc string
		want      []string
	}{
		{"package typo", "schema: olm.package\nname: p\ndefaultChanel: stable\n",
			[]string{`3:1: unknown field "defaultChanel"; did you mean "defaultChannel"?`}},
		{"channel entry typo", "schema: olm.channel\nname: c\npackage: p\nentries:\n- name: a\n  replace: b\n",
			[]string{`6:3: unknown field "replace" in entries[0]; did you mean "replaces"?`}},
		{"key case is the decoder's warning", "schema: olm.package\nName: p\n", nil},
		{"no typo", "schema: olm.bundle\nname: b\npackage: p\nimage: i\nproperties: []\n", nil},
		{"unknown schema", "schema: example.com/x\nanything: 1\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := declcfg.ParseFile("f.yaml", []byte(tt.doc))
			var got []string
			for _, e := range UnknownFields(f.Docs[0]) {
				assert.True(t, e.Warning)
				assert.Equal(t, RuleUnknownField, e.Rule)
				got = append(got, e.Error()[len("f.yaml:"):])
			}
			assert.Equal(t, tt.want, got)

			// fbc validate reports the same unknown fields.
			path := filepath.Join(t.TempDir(), "f.yaml")
			require.NoError(t, os.WriteFile(path, []byte(tt.doc), 0o644))
			res, err := Validate(context.Background(), []string{path}, Options{})
			require.NoError(t, err)
			var fromValidate []string
			for _, d := range res.Diagnostics {
				if d.Rule == RuleUnknownField {
					fromValidate = append(fromValidate, fmt.Sprintf("%d:%d: %s", d.Line, d.Col, d.Message))
				}
			}
			assert.Equal(t, tt.want, fromValidate)
		})
	}
}
