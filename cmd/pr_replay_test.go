package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fbc-project/fbc/internal/sharedtest"
)

// prReplay is ../shared/vectors/pr-replay.json: changes the community and
// certified pipelines merged, each a commit of community-operators-prod or
// certified-operators and its parent.
type prReplay struct {
	Cases []struct {
		Repo     string   `json:"repo"`
		Kind     string   `json:"kind"`
		Commit   string   `json:"commit"`
		Parent   string   `json:"parent"`
		Pkg      string   `json:"pkg"`
		Catalogs []string `json:"catalogs"`
	} `json:"cases"`
}

// TestPRReplay replays every merged change of pr-replay.json as a
// maintainer checks it on the merged tree: fbc validate operators/<pkg>,
// fbc validate catalogs/<v>/<pkg> --target-ocp <v> for each catalog the
// change touched, and fbc diff of each from the parent. The pipelines
// merged every change, so none may report an error: a false alarm is a
// failure. The same change judged as a pull request (fbc validate --base
// HEAD in a git repository holding the parent, with the commit in its
// working tree) must pass too.
// The repositories come from the fetch tool (sharedtest.Mirror);
// without them the test is skipped.
func TestPRReplay(t *testing.T) {
	skipReplay(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	var v prReplay
	if err := json.Unmarshal(sharedtest.ReadVector(t, "pr-replay.json"), &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Cases) == 0 {
		t.Fatal("pr-replay.json holds no case")
	}
	mirrors := map[string]string{}
	for _, c := range v.Cases {
		if _, ok := mirrors[c.Repo]; !ok {
			mirrors[c.Repo] = sharedtest.Mirror(t, c.Repo)
		}
	}
	slots := make(chan struct{}, 2)
	for i, c := range v.Cases {
		name := strings.Join([]string{c.Kind, c.Pkg, c.Commit[:8]}, "-")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			slots <- struct{}{}
			defer func() { <-slots }()
			git := mirrors[c.Repo]
			dir := t.TempDir()
			before, after := filepath.Join(dir, "before"), filepath.Join(dir, "after")
			sharedtest.CheckoutPackage(t, git, c.Parent, c.Pkg, before)
			sharedtest.CheckoutPackage(t, git, c.Commit, c.Pkg, after)
			run := func(args ...string) {
				t.Helper()
				var stdout, stderr bytes.Buffer
				if code := Run(context.Background(), args, strings.NewReader(""), &stdout, &stderr); code != ExitOK {
					t.Errorf("case %d: fbc %s exited %d, want 0 (the pipelines merged the change)\n%s%s", i, strings.Join(args, " "), code, stdout.String(), stderr.String())
				}
			}
			if _, err := os.Stat(filepath.Join(after, "operators", c.Pkg)); err == nil {
				run("validate", filepath.Join(after, "operators", c.Pkg))
			}
			for _, cat := range c.Catalogs {
				p := "catalogs/" + cat + "/" + c.Pkg
				if _, err := os.Stat(filepath.Join(after, p)); err != nil {
					continue // removed by the change, or a blob the fetched copy lacks
				}
				run("validate", filepath.Join(after, p), "--target-ocp", strings.TrimPrefix(cat, "v"))
				if _, err := os.Stat(filepath.Join(before, p)); err == nil {
					run("diff", filepath.Join(before, p), filepath.Join(after, p))
				}
			}
			pr := filepath.Join(dir, "pr")
			gitRepoOf(t, pr, before, after)
			run("validate", "--base", "HEAD", pr)
		})
	}
}

// gitRepoOf makes dir a git repository whose one commit holds the files of
// before, with the files of after in its working tree.
func gitRepoOf(t *testing.T, dir, before, after string) {
	t.Helper()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.CopyFS(dir, os.DirFS(before)); err != nil {
		t.Fatal(err)
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "parent")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() != ".git" {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.CopyFS(dir, os.DirFS(after)); err != nil {
		t.Fatal(err)
	}
}

// skipReplay skips a replay of real repository history unless FBC_REPLAY
// is set (make test-replay): each renders and validates whole packages of
// fetched repositories, minutes of work that would take make test past
// its budget on a 2-core machine.
func skipReplay(t *testing.T) {
	t.Helper()
	if os.Getenv("FBC_REPLAY") == "" {
		t.Skip("replays real repository history: make test-replay (FBC_REPLAY=1) runs it")
	}
	if testing.Short() {
		t.Skip("replays real repository history")
	}
}
