package cmd

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// renderOnTTY runs `fbc render ARGS` with stderr on a terminal and returns
// standard output and what the terminal showed.
func renderOnTTY(t *testing.T, args ...string) (stdout, terminal string) {
	pty, tty := openPTY(t)
	var out bytes.Buffer
	code := Run(context.Background(), append([]string{"render"}, args...), nil, &out, tty)
	require.Equal(t, ExitOK, code)
	require.NoError(t, tty.Close())
	var shown bytes.Buffer
	buf := make([]byte, 4096)
	for {
		if pty.SetReadDeadline(time.Now().Add(5*time.Second)) != nil {
			break
		}
		n, err := pty.Read(buf)
		shown.Write(buf[:n])
		// Linux reports EIO once the terminal side is closed and drained.
		if err != nil {
			break
		}
	}
	return out.String(), shown.String()
}

// writeTTYBundle writes a minimal bundle directory named for its version.
func writeTTYBundle(t *testing.T, root, version string) string {
	dir := filepath.Join(root, version)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "manifests"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "metadata"), 0o755))
	csv := fmt.Sprintf("apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: foo.v%s\nspec:\n  version: %s\n", version, version)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "manifests", "csv.yaml"), []byte(csv), 0o644))
	ann := "annotations:\n  operators.operatorframework.io.bundle.package.v1: foo\n  operators.operatorframework.io.bundle.channels.v1: stable\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "metadata", "annotations.yaml"), []byte(ann), 0o644))
	return dir
}

// The progress line is drawn on a terminal (and erased at the end), never
// on standard output, and not with NO_COLOR or TERM=dumb. (Pipes are covered
// by the testscripts: render_channels checks that stderr stays empty.)
func TestRenderProgressOnlyOnATerminal(t *testing.T) {
	root := t.TempDir()
	var dirs []string
	for _, v := range []string{"0.1.0", "0.2.0", "0.3.0"} {
		dirs = append(dirs, writeTTYBundle(t, root, v))
	}
	t.Setenv("TERM", "xterm-256color")
	t.Setenv("NO_COLOR", "") // registers the restore of the caller's value
	os.Unsetenv("NO_COLOR")

	stdout, shown := renderOnTTY(t, dirs...)
	assert.Contains(t, shown, "\r\x1b[Krendering: 3/3")
	assert.True(t, strings.HasSuffix(shown, "\r\x1b[K"), "the line is erased at the end: %q", shown)
	assert.NotContains(t, stdout, "rendering")
	assert.NotContains(t, stdout, "\x1b[")
	assert.Equal(t, 3, strings.Count(stdout, `"schema": "olm.bundle"`))

	// One source: nothing to count.
	_, shown = renderOnTTY(t, dirs[0])
	assert.Empty(t, shown)

	t.Setenv("NO_COLOR", "")
	_, shown = renderOnTTY(t, dirs...)
	assert.Empty(t, shown)

	os.Unsetenv("NO_COLOR")
	t.Setenv("TERM", "dumb")
	_, shown = renderOnTTY(t, dirs...)
	assert.Empty(t, shown)
}
