//go:build unix

package atomicfile

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func ownerOf(t *testing.T, path string) (uid, gid uint32, mode os.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	return st.Uid, st.Gid, fi.Mode().Perm()
}

// A file rewritten in place keeps its owner and group, whoever rewrites
// it: root's temporary file is given back to the file's owner. New files
// belong to whoever writes them.
func TestRewriteKeepsOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("giving a file to another user takes root")
	}
	dir := t.TempDir()
	one, two := filepath.Join(dir, "one.yaml"), filepath.Join(dir, "sub", "two.yaml")
	writeTestTree(t, dir, map[string]string{"one.yaml": "old\n", "sub/two.yaml": "old\n"})
	for _, p := range []string{one, two} {
		if err := os.Chown(p, 1234, 5678); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, 0o640); err != nil {
			t.Fatal(err)
		}
	}
	if err := WriteFile(one, []byte("new\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	var b Batch
	b.Write(two, []byte("new\n"), 0o644)
	b.Write(filepath.Join(dir, "sub", "three.yaml"), []byte("new\n"), 0o644)
	if err := b.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{one, two} {
		if uid, gid, mode := ownerOf(t, p); uid != 1234 || gid != 5678 || mode != 0o640 {
			t.Errorf("%s: owner %d:%d mode %o, want 1234:5678 640", p, uid, gid, mode)
		}
	}
	if uid, gid, _ := ownerOf(t, filepath.Join(dir, "sub", "three.yaml")); uid != 0 || gid != 0 {
		t.Errorf("new file: owner %d:%d, want root's", uid, gid)
	}
}

// Where the owner cannot be kept, the file is not rewritten: a non-root
// writer is refused a file of another user's (simulated by a FileInfo of
// another owner, which the system refuses to give the file to).
func TestRewriteRefusedWhenOwnerCannotBeKept(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root may give files to anyone")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	writeTestTree(t, dir, map[string]string{"f": "x"})
	fi, _ := os.Stat(p)
	st := *fi.Sys().(*syscall.Stat_t)
	st.Uid++
	err := keepOwner(p, fakeInfo{fi, &st})
	if _, ok := err.(*OwnerError); !ok {
		t.Fatalf("keepOwner: %v, want *OwnerError", err)
	}
}

type fakeInfo struct {
	os.FileInfo
	st *syscall.Stat_t
}

func (f fakeInfo) Sys() any { return f.st }
