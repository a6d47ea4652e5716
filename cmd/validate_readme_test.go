package cmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeSetUp holds README.md to its promise: the "Set up" section has
// exactly two commands, make install (a Makefile target that go-installs
// fbc and runs it on the bundled sample catalog) and make test (which CI runs through .ci/run, with make test-race
// after it); the section then tells the newcomer to run fbc validate on the
// bundled sample catalog, which passes as typed (run here in process, from
// the repository root).
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
	if cmds[0] != "make install" {
		t.Errorf("first set-up command is %q, want make install (the newcomer needs an fbc on PATH)", cmds[0])
	}
	if cmds[1] != "make test" {
		t.Errorf("second set-up command is %q, want make test", cmds[1])
	}
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil || !regexp.MustCompile(`(?m)^install:\n(\t.*\n)*\t.*\$\(GO\) install `).Match(mk) {
		t.Errorf("the Makefile has no install target running go install (%v)", err)
	}
	// make install is the command that runs the main job on the sample
	// catalog: its recipe ends by running the installed fbc on it.
	if !regexp.MustCompile(`(?m)^install:\n(\t.*\n)*\t.*/fbc" validate testdata/catalog\n`).Match(mk) {
		t.Errorf("make install does not run the installed fbc validate testdata/catalog")
	}
	ci, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil || !strings.Contains(string(ci), "\nmake test\n") {
		t.Errorf(".ci/run does not run make test (%v)", err)
	}
	if !strings.Contains(string(ci), "\nmake test-race\n") {
		t.Errorf(".ci/run does not run make test-race: CI must keep the race detector on")
	}
	// make test fetches the registry binary without installing the Debian
	// package (which would start a registry service at every boot), and
	// the README says what it fetches.
	deps, err := os.ReadFile(filepath.Join(root, "scripts", "test-deps.sh"))
	if err != nil || regexp.MustCompile(`apt-get[^\n]* install`).Match(deps) || !strings.Contains(string(deps), "dpkg-deb -x") {
		t.Errorf("scripts/test-deps.sh must unpack docker-registry (apt-get download, dpkg-deb -x), never apt-get install it (%v)", err)
	}
	if !strings.Contains(section, "docker-registry") {
		t.Errorf("the Set up section does not say that make test fetches docker-registry")
	}
	const try = "`fbc validate testdata/catalog`"
	if !strings.Contains(section, try) {
		t.Fatalf("the Set up section does not tell the newcomer to run %s", try)
	}
	args := strings.TrimPrefix(strings.Trim(try, "`"), "fbc ")
	t.Chdir(root)
	var stdout, stderr bytes.Buffer
	code := Run(context.Background(), strings.Fields(args), strings.NewReader(""), &stdout, &stderr)
	if code != ExitOK {
		t.Errorf("fbc %s: exit %d, want the sample catalog to validate with exit 0\n%s%s", args, code, stdout.String(), stderr.String())
	}
}
