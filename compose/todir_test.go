package compose

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fbc-project/fbc/declcfg"
	"github.com/fbc-project/fbc/validate"
)

// TestToDir: a valid result is validated and written; an invalid one is
// not written, and comes back with its findings; NoValidate writes it.
func TestToDir(t *testing.T) {
	ctx := context.Background()
	src := t.TempDir()
	good := `{"schema":"olm.package","name":"a","defaultChannel":"s"}
{"schema":"olm.channel","package":"a","name":"s","entries":[{"name":"a.v1"}]}
{"schema":"olm.bundle","package":"a","name":"a.v1","image":"x/a:v1","properties":[{"type":"olm.package","value":{"packageName":"a","version":"1.0.0"}}]}
`
	require.NoError(t, os.WriteFile(filepath.Join(src, "a.json"), []byte(good), 0o644))
	out := filepath.Join(t.TempDir(), "out")
	res, err := ToDir(ctx, Options{Sources: []string{src}}, OutDir{Dir: out, Format: declcfg.FormatYAML})
	require.NoError(t, err)
	require.NotNil(t, res.Validation)
	assert.True(t, res.Validation.Valid())
	assert.FileExists(t, filepath.Join(out, "a", "catalog.yaml"))

	// A channel whose entry has no bundle: not valid, not written.
	bad := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"schema":"olm.package","name":"b","defaultChannel":"s"}
{"schema":"olm.channel","package":"b","name":"s","entries":[{"name":"b.v1"}]}
`), 0o644))
	out2 := filepath.Join(t.TempDir(), "out")
	res, err = ToDir(ctx, Options{Sources: []string{bad}}, OutDir{Dir: out2})
	require.True(t, errors.Is(err, validate.ErrInvalid), "err = %v", err)
	require.NotNil(t, res)
	assert.False(t, res.Validation.Valid())
	assert.NoDirExists(t, out2)

	res, err = ToDir(ctx, Options{Sources: []string{bad}}, OutDir{Dir: out2, NoValidate: true})
	require.NoError(t, err)
	assert.Nil(t, res.Validation)
	assert.FileExists(t, filepath.Join(out2, "b", "catalog.json"))
}
