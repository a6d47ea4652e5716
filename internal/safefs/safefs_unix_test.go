//go:build unix

package safefs

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// noBlock fails the test if fn does not return within a few seconds: the
// whole point of the package is that nothing waits on a FIFO.
func noBlock(t *testing.T, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("blocked")
	}
}

func TestSpecialFilesAreRefusedWithoutBlocking(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	if err := os.Symlink("fifo", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "file"), []byte("data"), 0o644); err != nil {
		t.Fatal(err)
	}
	noBlock(t, func() {
		for _, name := range []string{fifo, filepath.Join(dir, "link")} {
			var nre *NotRegularError
			if _, err := Open(name); !errors.As(err, &nre) || nre.Path != name || nre.Error() != name+": not a regular file (a named pipe)" {
				t.Errorf("Open(%s) = %v", name, err)
			}
			if _, err := ReadFile(name); !errors.As(err, &nre) {
				t.Errorf("ReadFile(%s) = %v", name, err)
			}
			if _, err := ReadInput(context.Background(), name, 0); !errors.As(err, &nre) {
				t.Errorf("ReadInput(%s) = %v: a FIFO on disk is no inherited stream", name, err)
			}
		}
		if _, err := Open(dir); err == nil {
			t.Error("Open opened a directory")
		}
		if data, err := ReadFile(filepath.Join(dir, "file")); err != nil || string(data) != "data" {
			t.Errorf("ReadFile = %q, %v", data, err)
		}
		fsys := DirFS(dir)
		for _, name := range []string{"fifo", "link"} {
			_, err := fsys.Open(name)
			var pe *fs.PathError
			var enr ErrNotRegular
			if !errors.As(err, &pe) || pe.Path != name || !errors.As(err, &enr) {
				t.Errorf("DirFS.Open(%s) = %v", name, err)
			}
			if _, err := fs.ReadFile(fsys, name); err == nil {
				t.Errorf("fs.ReadFile(DirFS, %s) read a FIFO", name)
			}
		}
		if data, err := fs.ReadFile(fsys, "file"); err != nil || string(data) != "data" {
			t.Errorf("fs.ReadFile(DirFS) = %q, %v", data, err)
		}
		if ents, err := fs.ReadDir(fsys, "."); err != nil || len(ents) != 3 {
			t.Errorf("ReadDir = %v, %v", ents, err)
		}
	})
}

// A pipe this process holds (what <(...) hands a command) is read, and a
// read whose writer never finishes stops when the context ends.
func TestInheritedStreams(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	name := "/proc/self/fd/" + strconv.Itoa(int(r.Fd()))
	if _, err := os.Stat(name); err != nil {
		name = "/dev/fd/" + strconv.Itoa(int(r.Fd()))
	}
	if !IsInheritedStream(name) {
		t.Fatalf("%s is not an inherited stream", name)
	}
	go func() { w.WriteString("streamed"); w.Close() }()
	data, err := ReadInput(context.Background(), name, 0)
	if err != nil || string(data) != "streamed" {
		t.Fatalf("ReadInput = %q, %v", data, err)
	}

	r2, w2, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	defer w2.Close()
	w2.WriteString("0123456789")
	// The limit holds before the writer closes.
	if _, err := ReadInput(context.Background(), "/dev/fd/"+strconv.Itoa(int(r2.Fd())), 4); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a stream over the limit: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	noBlock(t, func() {
		if _, err := ReadInput(ctx, "/dev/fd/"+strconv.Itoa(int(r2.Fd())), 0); !errors.Is(err, context.Canceled) {
			t.Errorf("a stream that never ends, interrupted: %v", err)
		}
	})
	if IsInheritedStream(filepath.Join(t.TempDir(), "x")) {
		t.Error("a plain path counts as an inherited stream")
	}
}

func TestTreeResolve(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	dir := filepath.Join(root, "tree")
	for _, d := range []string{"a", "b"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "a", "f"), []byte("f"), 0o644); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"b/rel":     "../a/f",                              // inside
		"b/abs":     filepath.Join(dir, "a", "f"),          // inside, absolute
		"b/out":     filepath.Join(outside, "secret"),      // outside
		"b/up":      "../../tree/../" + filepath.Base(dir), // the tree itself, by a detour
		"b/sibling": "../../tree2/x",                       // a name that only starts like the tree
	}
	for l, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, l)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "tree2"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "tree2", "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tree, err := NewTree(dir)
	if err != nil {
		t.Fatal(err)
	}
	for l, wantOutside := range map[string]bool{"b/rel": false, "b/abs": false, "b/out": true, "b/up": false, "b/sibling": true} {
		_, err := tree.Resolve(filepath.Join(dir, l))
		var oe *OutsideError
		if got := errors.As(err, &oe); got != wantOutside {
			t.Errorf("%s: Resolve = %v, want outside %v", l, err, wantOutside)
		}
	}
}
