package cmd

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runOnTTY runs fbc ARGS in-process with standard error on a terminal and
// returns the exit code, standard output and what the terminal showed.
func runOnTTY(t *testing.T, args ...string) (code int, stdout, terminal string) {
	t.Helper()
	pty, tty := openPTY(t)
	var out bytes.Buffer
	shown := make(chan string)
	go func() {
		var b bytes.Buffer
		buf := make([]byte, 4096)
		for {
			if pty.SetReadDeadline(time.Now().Add(time.Minute)) != nil {
				break
			}
			n, err := pty.Read(buf)
			b.Write(buf[:n])
			// Linux reports EIO once the terminal side is closed and drained.
			if err != nil {
				break
			}
		}
		shown <- b.String()
	}()
	code = Run(context.Background(), args, nil, &out, tty)
	require.NoError(t, tty.Close())
	return code, out.String(), <-shown
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

// writeTTYCatalog writes a valid catalog of n packages, a file each.
func writeTTYCatalog(t *testing.T, dir string, n int) {
	t.Helper()
	for i := range n {
		pkg := fmt.Sprintf("pkg-%04d", i)
		require.NoError(t, os.MkdirAll(filepath.Join(dir, pkg), 0o755))
		blob := fmt.Sprintf(`{"schema":"olm.package","name":%[1]q,"defaultChannel":"stable"}
{"schema":"olm.channel","package":%[1]q,"name":"stable","entries":[{"name":"%[1]s.v1.0.0"}]}
{"schema":"olm.bundle","package":%[1]q,"name":"%[1]s.v1.0.0","image":"example.com/%[1]s:v1.0.0","properties":[{"type":"olm.package","value":{"packageName":%[1]q,"version":"1.0.0"}}]}
`, pkg)
		require.NoError(t, os.WriteFile(filepath.Join(dir, pkg, "catalog.json"), []byte(blob), 0o644))
	}
}

var progressCount = regexp.MustCompile(`\r\x1b\[K([a-z]+): (\d+)/(\d+)`)

// checkProgress checks what a terminal showed of a progress line: drawn
// under label, counts that never go backwards (neither what is done nor
// what was found), the last one complete, and the line erased at the end.
func checkProgress(t *testing.T, shown, label string) {
	t.Helper()
	draws := progressCount.FindAllStringSubmatch(shown, -1)
	require.NotEmpty(t, draws, "no progress line drawn: %q", shown)
	var lastDone, lastFound int
	for _, d := range draws {
		require.Equal(t, label, d[1])
		done, _ := strconv.Atoi(d[2])
		found, _ := strconv.Atoi(d[3])
		assert.GreaterOrEqual(t, done, lastDone, "the count went backwards: %q", shown)
		assert.GreaterOrEqual(t, found, lastFound, "the total went backwards: %q", shown)
		assert.LessOrEqual(t, done, found)
		lastDone, lastFound = done, found
	}
	assert.Equal(t, lastFound, lastDone, "the last count drawn is complete")
	// Erased at the end, before anything the command says itself.
	last := progressCount.FindAllStringIndex(shown, -1)
	rest := shown[last[len(last)-1][1]:]
	assert.Regexp(t, `^[^\r\n]*\r\x1b\[K`, rest, "the line is erased before anything else is written: %q", rest[:min(len(rest), 80)])
	assert.NotContains(t, rest, label+":")
}

// noProgress checks that a terminal showed no progress line.
func noProgress(t *testing.T, shown string) {
	t.Helper()
	assert.NotContains(t, shown, "\x1b[")
	assert.NotRegexp(t, `[a-z]+: \d+/\d+`, shown)
}

// Every command that reads many files or images shows steady progress on
// a terminal: counts that only rise, on standard error, erased at the end;
// standard output gets none of it. (Pipes and CI logs never see it: the
// testscripts check that standard error stays as it should be.)
func TestProgressOnATerminal(t *testing.T) {
	// The commands here are small enough to finish within the usual tick
	// on an idle machine, which would rightly show nothing: read the
	// counts often, so that a line is drawn whatever the machine's speed.
	defer func(d time.Duration) { progressTick = d }(progressTick)
	progressTick = time.Millisecond
	t.Setenv("TERM", "xterm-256color")
	t.Setenv("NO_COLOR", "") // registers the restore of the caller's value
	os.Unsetenv("NO_COLOR")
	root := t.TempDir()
	cat := filepath.Join(root, "catalog")
	writeTTYCatalog(t, cat, 600)
	var bundles []string
	for i := range 100 {
		bundles = append(bundles, writeTTYBundle(t, filepath.Join(root, "bundles"), fmt.Sprintf("0.%d.0", i)))
	}

	for _, tc := range []struct {
		label string
		args  []string
		code  int
	}{
		// Many bundle directories: the counter of issue 26 that went
		// backwards (…111/279, then 99/279).
		{"rendering", append([]string{"render"}, bundles...), ExitOK},
		{"rendering", []string{"render", cat}, ExitOK},
		{"validating", []string{"validate", cat}, ExitOK},
		{"reading", []string{"compose", filepath.Join(root, "out"), cat}, ExitOK},
		{"reading", []string{"list", "packages", cat}, ExitOK},
		{"reading", []string{"diff", cat, cat}, ExitOK},
	} {
		t.Run(tc.args[0], func(t *testing.T) {
			// A command that ends before the line's goroutine first runs
			// rightly draws nothing, and on a loaded machine (the race
			// detector beside parallel testscripts) that happens even at a
			// millisecond's tick: run it again until a line was drawn,
			// a bounded number of times. Every run is checked.
			var shown string
			for attempt := 1; ; attempt++ {
				code, stdout, s := runOnTTY(t, tc.args...)
				require.Equal(t, tc.code, code, s)
				assert.NotContains(t, stdout, "\x1b[")
				assert.NotContains(t, stdout, tc.label+":")
				shown = s
				if progressCount.MatchString(s) || attempt == 20 {
					break
				}
				noProgress(t, s) // nothing drawn means nothing at all
				t.Logf("run %d ended before its first draw; again", attempt)
			}
			checkProgress(t, shown, tc.label)
		})
	}

	// One bundle: nothing to count.
	_, _, shown := runOnTTY(t, "render", bundles[0])
	assert.Empty(t, shown)
	// --quiet, NO_COLOR and TERM=dumb: no progress (the summary stays).
	_, _, shown = runOnTTY(t, "validate", cat, "-q")
	noProgress(t, shown)
	assert.Contains(t, shown, "0 errors, 0 warnings in 600 files")
	t.Setenv("NO_COLOR", "")
	_, _, shown = runOnTTY(t, "validate", cat)
	noProgress(t, shown)
	os.Unsetenv("NO_COLOR")
	t.Setenv("TERM", "dumb")
	_, _, shown = runOnTTY(t, "validate", cat)
	noProgress(t, shown)
}
