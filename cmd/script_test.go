package cmd

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/fbc-project/fbc/internal/sharedtest"
	"github.com/fbc-project/fbc/validate/profiles"
)

// The CLI's end-to-end tests are testscript files in testdata/script: each
// runs the real fbc command (this test binary re-executed as "fbc") against
// the files inline in the script. `go test ./cmd -run TestScripts -update`
// rewrites the expected output of the scripts in place.

var updateScripts = flag.Bool("update", false, "rewrite testscript golden output")

// Other _test.go files of this package extend the script environment through
// these: extra commands (e.g. a registry), setup steps and conditions.
var (
	scriptCmds       = map[string]func(ts *testscript.TestScript, neg bool, args []string){}
	scriptSetups     []func(env *testscript.Env) error
	scriptConditions = map[string]func() (bool, error){}
)

func init() {
	// exits CODE CMD ARGS... runs a command like exec and asserts its exact
	// exit status (exec only tells zero from non-zero).
	scriptCmds["exits"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) < 2 {
			ts.Fatalf("usage: exits CODE COMMAND [ARGS...]")
		}
		want, err := strconv.Atoi(args[0])
		if err != nil {
			ts.Fatalf("exits: bad code %q", args[0])
		}
		got := 0
		if err := ts.Exec(args[1], args[2:]...); err != nil {
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				ts.Fatalf("exits: %v", err)
			}
			got = ee.ExitCode()
		}
		if got != want {
			ts.Fatalf("%s exited %d, want %d", args[1], got, want)
		}
	}
}

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"fbc": func() { os.Exit(Main()) },
		// fbc answers to this name as grpc_health_probe (images served by
		// fbc link it to /bin/fbc).
		HealthProbeName: func() { os.Exit(Main()) },
		// fbc validate --profile runs it; this test binary links the
		// checks, so it serves as fbc-profile too (on PATH, for every
		// test of the package; profiles_test.go).
		profiles.Executable: func() { os.Exit(profilesMain()) },
	})
}

// repoRoot is the module root (tests run in cmd/).
func repoRoot(t testing.TB) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(wd)
}

func TestScripts(t *testing.T) {
	root := repoRoot(t)
	// Scripts that need the shared folder say [corpus]; without it they
	// are skipped, or fail in CI.
	shared := sharedtest.Find()
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join(root, "testdata", "script"),
		UpdateScripts:       *updateScripts,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Cmds:                scriptCmds,
		Setup: func(env *testscript.Env) error {
			env.Setenv("TESTDATA", filepath.Join(root, "testdata"))
			env.Setenv("CORPUS", filepath.Join(shared, "corpus"))
			env.Setenv("VECTORS", filepath.Join(shared, "vectors"))
			env.Setenv("NO_COLOR", "1")
			for _, s := range scriptSetups {
				if err := s(env); err != nil {
					return err
				}
			}
			return nil
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "corpus":
				_, err := os.Stat(filepath.Join(shared, "corpus", "README.md"))
				if err != nil && sharedtest.InCI() {
					return false, fmt.Errorf("[corpus]: the shared corpus is not there (%v), and CI is set: scripts that need it must run there (set FBC_SHARED)", err)
				}
				return err == nil, nil
			case "root":
				return os.Geteuid() == 0, nil
			}
			if f, ok := scriptConditions[cond]; ok {
				return f()
			}
			return false, nil
		},
	})
}

// TestNoStrayScripts keeps scripts in the one directory the runner reads.
func TestNoStrayScripts(t *testing.T) {
	root := repoRoot(t)
	err := filepath.WalkDir(filepath.Join(root, "testdata"), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasSuffix(p, ".txtar") && filepath.Dir(p) != filepath.Join(root, "testdata", "script") {
			t.Errorf("%s: testscript files belong in testdata/script", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
