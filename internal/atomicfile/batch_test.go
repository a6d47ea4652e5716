package atomicfile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// dirsOf lists the folders under dir, for checking that a failed batch
// leaves none it made.
func dirsOf(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return err
	})
	return out
}

func TestBatchCommit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTestTree(t, dir, map[string]string{"a/one.yaml": "old one", "gone/x": "x", "keep": "k"})
	if err := os.Chmod(filepath.Join(dir, "a/one.yaml"), 0o600); err != nil {
		t.Fatal(err)
	}
	var b Batch
	b.Write(filepath.Join(dir, "a/one.yaml"), []byte("new one"), 0o644)
	b.Write(filepath.Join(dir, "b/c/two.yaml"), []byte("draft"), 0o644)
	b.Write(filepath.Join(dir, "b/c/two.yaml"), []byte("two"), 0o644)
	b.RemoveAll(filepath.Join(dir, "gone"))
	b.RemoveAll(filepath.Join(dir, "never-was"))
	if err := b.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a/one.yaml": "new one", "b/c/two.yaml": "two", "keep": "k"}
	if got := readTestTree(t, dir); !reflect.DeepEqual(got, want) {
		t.Errorf("tree = %v, want %v", got, want)
	}
	if st, _ := os.Stat(filepath.Join(dir, "a/one.yaml")); st.Mode().Perm() != 0o600 {
		t.Errorf("a replaced file's mode is %v, want it kept (0600)", st.Mode().Perm())
	}
}

// TestBatchAllOrNothing: when one file cannot be written (a folder that
// takes no files), the others stay as they were and nothing is left over.
func TestBatchAllOrNothing(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		t.Skip("root writes into read-only folders")
	}
	dir := t.TempDir()
	before := map[string]string{"a/one.yaml": "old one", "locked/two.yaml": "old two", "gone/x": "x"}
	writeTestTree(t, dir, before)
	locked := filepath.Join(dir, "locked")
	if err := os.Chmod(locked, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(locked, 0o755)
	dirs := dirsOf(t, dir)
	var b Batch
	b.Write(filepath.Join(dir, "a/one.yaml"), []byte("new one"), 0o644)
	b.Write(filepath.Join(dir, "new/deep/three.yaml"), []byte("three"), 0o644)
	b.Write(filepath.Join(locked, "two.yaml"), []byte("new two"), 0o644)
	b.RemoveAll(filepath.Join(dir, "gone"))
	err := b.Commit(context.Background())
	if err == nil || !strings.Contains(err.Error(), "writing "+filepath.Join(locked, "two.yaml")) {
		t.Fatalf("Commit = %v, want an error naming locked/two.yaml", err)
	}
	if got := readTestTree(t, dir); !reflect.DeepEqual(got, before) {
		t.Errorf("after a failed batch the tree is %v, want it as it was, %v", got, before)
	}
	if got := dirsOf(t, dir); !reflect.DeepEqual(got, dirs) {
		t.Errorf("after a failed batch the folders are %v, want %v", got, dirs)
	}
}

// TestBatchRefusesFolders: a file whose target is a folder is refused
// before anything changes.
func TestBatchRefusesFolders(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	before := map[string]string{"a/one.yaml": "old one", "b/placeholder": ""}
	writeTestTree(t, dir, before)
	var b Batch
	b.Write(filepath.Join(dir, "a/one.yaml"), []byte("new one"), 0o644)
	b.Write(filepath.Join(dir, "b"), []byte("b is a folder"), 0o644)
	if err := b.Commit(context.Background()); err == nil || !strings.Contains(err.Error(), "is not a regular file") {
		t.Fatalf("Commit = %v, want a refusal", err)
	}
	if got := readTestTree(t, dir); !reflect.DeepEqual(got, before) {
		t.Errorf("tree = %v, want %v", got, before)
	}
}

// TestBatchRollsBackRenames: a failure while the files are renamed into
// place puts back the files already placed and the folders removed.
// Not parallel: it replaces placeFile.
func TestBatchRollsBackRenames(t *testing.T) {
	dir := t.TempDir()
	before := map[string]string{"a/one.yaml": "old one", "b/two.yaml": "old two", "gone/x": "x"}
	writeTestTree(t, dir, before)
	dirs := dirsOf(t, dir)
	third := filepath.Join(dir, "c/three.yaml")
	placeFile = func(from, to string) error {
		if to == third {
			return os.ErrPermission
		}
		return os.Rename(from, to)
	}
	defer func() { placeFile = os.Rename }()
	var b Batch
	b.Write(filepath.Join(dir, "a/one.yaml"), []byte("new one"), 0o644)
	b.Write(filepath.Join(dir, "new.yaml"), []byte("new"), 0o644)
	b.Write(third, []byte("three"), 0o644)
	b.RemoveAll(filepath.Join(dir, "gone"))
	if err := b.Commit(context.Background()); err == nil {
		t.Fatal("Commit succeeded")
	}
	if got := readTestTree(t, dir); !reflect.DeepEqual(got, before) {
		t.Errorf("tree = %v, want %v", got, before)
	}
	if got := dirsOf(t, dir); !reflect.DeepEqual(got, dirs) {
		t.Errorf("folders = %v, want %v", got, dirs)
	}
}

// TestBatchInterrupted: a batch committed after its context ended (an
// interrupt) leaves the tree as it was, with no temporary file or new
// folder.
func TestBatchInterrupted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	before := map[string]string{"a/one.yaml": "old one", "gone/x": "x"}
	writeTestTree(t, dir, before)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var b Batch
	b.Write(filepath.Join(dir, "a/one.yaml"), []byte("new one"), 0o644)
	b.Write(filepath.Join(dir, "b/two.yaml"), []byte("two"), 0o644)
	b.RemoveAll(filepath.Join(dir, "gone"))
	if err := b.Commit(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Commit = %v, want context.Canceled", err)
	}
	if got := readTestTree(t, dir); !reflect.DeepEqual(got, before) {
		t.Errorf("tree = %v, want %v", got, before)
	}
}
