package cmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadmeSetUp holds README.md to its promise: the "Set up" section has
// exactly two commands, the first validates the bundled sample catalog and
// passes as a newcomer types it (run here in process, from the repository
// root), the second is make test (which CI runs through .ci/run, with
// make test-race after it).
func TestReadmeSetUp(t *testing.T) {
	root := repoRoot(t)
	data, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## Set up\n")
	if !ok {
		t.Fatal(`README.md has no "## Set up" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	_, block, ok := strings.Cut(section, "```sh\n")
	if !ok {
		t.Fatal("the Set up section has no sh block")
	}
	block, _, _ = strings.Cut(block, "```")
	var cmds []string
	for _, line := range strings.Split(block, "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			cmds = append(cmds, line)
		}
	}
	if len(cmds) != 2 {
		t.Fatalf("the Set up section has %d commands, want exactly 2: %q", len(cmds), cmds)
	}
	if cmds[1] != "make test" {
		t.Errorf("second set-up command is %q, want make test", cmds[1])
	}
	ci, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil || !strings.Contains(string(ci), "\nmake test\n") {
		t.Errorf(".ci/run does not run make test (%v)", err)
	}
	if !strings.Contains(string(ci), "\nmake test-race\n") {
		t.Errorf(".ci/run does not run make test-race: CI must keep the race detector on")
	}
	args, ok := strings.CutPrefix(cmds[0], "go run . ")
	if !ok {
		t.Fatalf("first set-up command %q does not run fbc with go run .", cmds[0])
	}
	t.Chdir(root)
	var stdout, stderr bytes.Buffer
	code := Run(context.Background(), strings.Fields(args), strings.NewReader(""), &stdout, &stderr)
	if code != ExitOK || !strings.HasPrefix(args, "validate testdata/catalog") {
		t.Errorf("fbc %s: exit %d, want the sample catalog to validate with exit 0\n%s%s", args, code, stdout.String(), stderr.String())
	}
}
