package review

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A review interrupted while it compares a touched catalog's upgrade graph
// with the base's ends with the interruption: it does not skip the
// comparison as if the base's catalog did not load, and pass the change.
func TestDiffsInterrupted(t *testing.T) {
	root, base := t.TempDir(), t.TempDir()
	catalog := "schema: olm.package\nname: demo\n"
	for _, dir := range []string{root, base} {
		p := filepath.Join(dir, "catalogs", "v4.18", "demo", "catalog.yaml")
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(catalog), 0o644))
	}
	c := &change{root: root, base: base, rev: "HEAD", catalogs: [][2]string{{"v4.18", "demo"}}}
	rv := &reviewer{}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := rv.diffs(ctx, c, &Report{})
	assert.ErrorIs(t, err, context.Canceled)
}
