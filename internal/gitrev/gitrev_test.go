package gitrev

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// newRepo makes a git repository with two commits: a/x.yaml and b/y.yaml,
// then a/x.yaml changed; the working tree then changes b/y.yaml and adds
// c/new.yaml.
func newRepo(t *testing.T) (dir, first string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir = t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, out)
		return string(out)
	}
	write := func(p, s string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644))
	}
	run("init", "-q")
	write("a/x.yaml", "x: 1\n")
	write("b/y.yaml", "y: 1\n")
	require.NoError(t, os.Symlink("../a/x.yaml", filepath.Join(dir, "b", "link.yaml")))
	run("add", ".")
	run("commit", "-q", "-m", "one")
	first = run("rev-parse", "HEAD")[:40]
	write("a/x.yaml", "x: 2\n")
	run("commit", "-q", "-am", "two")
	write("b/y.yaml", "y: 2\n")
	write("c/new.yaml", "new: true\n")
	return dir, first
}

func TestRevisions(t *testing.T) {
	ctx := context.Background()
	dir, first := newRepo(t)
	r, err := Open(ctx, filepath.Join(dir, "a"))
	require.NoError(t, err)
	real, _ := filepath.EvalSymlinks(dir)
	assert.Equal(t, real, r.Top)

	head, err := r.Commit(ctx, "HEAD")
	require.NoError(t, err)
	prev, err := r.Commit(ctx, "HEAD~1")
	require.NoError(t, err)
	assert.Equal(t, first, prev)
	assert.NotEqual(t, head, prev)
	_, err = r.Commit(ctx, "no-such-branch")
	assert.ErrorContains(t, err, `revision "no-such-branch" does not exist`)
	_, err = r.Commit(ctx, "--output=x")
	assert.Error(t, err)

	changed, err := r.Changed(ctx, head)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"b/y.yaml", "c/new.yaml"}, changed)
	changed, err = r.Changed(ctx, prev, "a")
	require.NoError(t, err)
	assert.Equal(t, []string{"a/x.yaml"}, changed)

	tree, err := r.Extract(ctx, prev, []string{"a", "b", "c", "b/y.yaml"})
	require.NoError(t, err)
	data, err := os.ReadFile(filepath.Join(tree.Dir, "a", "x.yaml"))
	require.NoError(t, err)
	assert.Equal(t, "x: 1\n", string(data))
	data, err = os.ReadFile(filepath.Join(tree.Dir, "b", "link.yaml"))
	require.NoError(t, err, "a link inside the tree is kept")
	assert.Equal(t, "x: 1\n", string(data))
	_, err = os.Stat(filepath.Join(tree.Dir, "c"))
	assert.True(t, os.IsNotExist(err), "c is not at that commit")
	tree.Close()
	_, err = os.Stat(tree.Dir)
	assert.True(t, os.IsNotExist(err), "the scratch folder is removed")

	_, err = Open(ctx, t.TempDir())
	assert.ErrorContains(t, err, "is not in a git repository")
}
