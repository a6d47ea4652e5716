package atomicfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/fbc-project/fbc/internal/fault"
)

func writeTestTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readTestTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func fillWith(files map[string]string) func(string) error {
	return func(tmp string) error {
		for name, content := range files {
			p := filepath.Join(tmp, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				return err
			}
		}
		return nil
	}
}

// A symbolic link as OUTDIR: the tree goes where it points and the link
// stays (replacing the link would leave its target untouched).
func TestWriteDirThroughSymlink(t *testing.T) {
	root := t.TempDir()
	target := filepath.Join(root, "catalogs")
	link := filepath.Join(root, "out")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := WriteDir(context.Background(), link, false, fillWith(map[string]string{"a/catalog.json": "1"})); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("out is no longer a symbolic link: %v %v", st, err)
	}
	if got := readTestTree(t, target); len(got) != 1 || got["a/catalog.json"] != "1" {
		t.Errorf("target holds %v", got)
	}
	// Replacing a non-empty target through the link.
	if err := WriteDir(context.Background(), link, false, fillWith(map[string]string{"b/catalog.json": "2"})); !errors.Is(err, ErrDirNotEmpty) {
		t.Errorf("without replace: err = %v", err)
	}
	if err := WriteDir(context.Background(), link, true, fillWith(map[string]string{"b/catalog.json": "2"})); err != nil {
		t.Fatal(err)
	}
	if got := readTestTree(t, target); len(got) != 1 || got["b/catalog.json"] != "2" {
		t.Errorf("target holds %v", got)
	}
	if left, _ := filepath.Glob(filepath.Join(root, ".*")); len(left) != 0 {
		t.Errorf("temporary trees left: %v", left)
	}

	dangling := filepath.Join(root, "dangling")
	if err := os.Symlink(filepath.Join(root, "nowhere"), dangling); err != nil {
		t.Fatal(err)
	}
	err := WriteDir(context.Background(), dangling, true, fillWith(nil))
	if err == nil || err.Error() != dangling+" is a symbolic link to "+filepath.Join(root, "nowhere")+", which does not exist" {
		t.Errorf("dangling link: err = %v", err)
	}
}

// A failing fill leaves the old tree and no temporary tree.
func TestWriteDirFailureKeepsOldTree(t *testing.T) {
	root := t.TempDir()
	out := filepath.Join(root, "out")
	old := map[string]string{"a/catalog.json": "old"}
	writeTestTree(t, out, old)
	boom := errors.New("boom")
	err := WriteDir(context.Background(), out, true, func(tmp string) error {
		if err := fillWith(map[string]string{"b/catalog.json": "new"})(tmp); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	if got := readTestTree(t, out); fmt.Sprint(got) != fmt.Sprint(old) {
		t.Errorf("out holds %v", got)
	}
	if left, _ := filepath.Glob(filepath.Join(root, ".*")); len(left) != 0 {
		t.Errorf("temporary trees left: %v", left)
	}
}

// deadPID is the id of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func TestWriteDirRemovesStaleTrees(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("process liveness is not checked on Windows")
	}
	root := t.TempDir()
	dead := deadPID(t)
	stale := fmt.Sprintf(".out.tmp-%d-123", dead)
	kept := []string{
		fmt.Sprintf(".out.tmp-%d-456", os.Getpid()), // a running process
		".out.tmp-789",                       // not named by fbc's rule
		fmt.Sprintf(".other.tmp-%d-1", dead), // another output's
		fmt.Sprintf(".out.tmp-%d-x1", dead),  // not a temporary tree's name
	}
	for _, d := range append([]string{stale}, kept...) {
		writeTestTree(t, filepath.Join(root, d), map[string]string{"pkg/catalog.json": "half"})
	}
	if err := WriteDir(context.Background(), filepath.Join(root, "out"), false, fillWith(map[string]string{"a/catalog.json": "1"})); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, stale)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale tree of a dead process kept: %v", err)
	}
	for _, d := range kept {
		if _, err := os.Stat(filepath.Join(root, d)); err != nil {
			t.Errorf("%s removed: %v", d, err)
		}
	}
}

// TestWriteDirKilled kills a writer with SIGKILL in the middle of its
// tree: the old tree must be intact, and the next write must clean up what
// the killed one left.
func TestWriteDirKilled(t *testing.T) {
	if dir := os.Getenv("FBC_TEST_WRITER_DIR"); dir != "" {
		// The writer: half a tree, then wait to be killed.
		err := WriteDir(context.Background(), dir, true, func(tmp string) error {
			if err := fillWith(map[string]string{"half/catalog.json": "new"})(tmp); err != nil {
				return err
			}
			if err := os.WriteFile(dir+".ready", nil, 0o644); err != nil {
				return err
			}
			time.Sleep(time.Minute)
			return errors.New("not killed")
		})
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	if runtime.GOOS == "windows" {
		t.Skip("needs SIGKILL")
	}
	root := t.TempDir()
	out := filepath.Join(root, "out")
	old := map[string]string{"a/catalog.json": "old", "b/catalog.json": "old"}
	writeTestTree(t, out, old)

	cmd := exec.Command(os.Args[0], "-test.run=^TestWriteDirKilled$")
	cmd.Env = append(os.Environ(), "FBC_TEST_WRITER_DIR="+out)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(out + ".ready"); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatal("the writer never got half way")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if got := readTestTree(t, out); fmt.Sprint(got) != fmt.Sprint(old) {
		t.Fatalf("after SIGKILL out holds %v, want the old tree %v", got, old)
	}
	left, _ := filepath.Glob(filepath.Join(root, ".out.tmp-*"))
	if len(left) != 1 {
		t.Fatalf("want the killed writer's temporary tree, found %v", left)
	}
	if err := WriteDir(context.Background(), out, true, fillWith(map[string]string{"c/catalog.json": "newer"})); err != nil {
		t.Fatal(err)
	}
	if got := readTestTree(t, out); len(got) != 1 || got["c/catalog.json"] != "newer" {
		t.Errorf("out holds %v", got)
	}
	if left, _ := filepath.Glob(filepath.Join(root, ".out.tmp-*")); len(left) != 0 {
		t.Errorf("the killed writer's tree is still there: %v", left)
	}
}

// WriteNew never replaces a file; WriteFile does; neither leaves a
// temporary file behind.
func TestWriteNew(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "catalog.Dockerfile")
	if err := WriteNew(p, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := WriteNew(p, []byte("two"), 0o644)
	var exists *ExistsError
	if !errors.As(err, &exists) || exists.Path != p || !errors.Is(err, fs.ErrExist) || fault.KindOf(err) != fault.Usage {
		t.Errorf("second WriteNew: %v", err)
	}
	if got := readTestTree(t, dir); len(got) != 1 || got["catalog.Dockerfile"] != "one" {
		t.Errorf("after a refused write: %v", got)
	}
	if err := WriteFile(p, []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := readTestTree(t, dir); len(got) != 1 || got["catalog.Dockerfile"] != "two" {
		t.Errorf("after WriteFile: %v", got)
	}
	if st, err := os.Stat(p); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("mode: %v %v", st.Mode(), err)
	}
}

// A Pending file is invisible under its name until Commit, which replaces
// what was there; Abort and a failed Write leave the old file alone and no
// temporary file behind.
func TestPending(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "blob")
	p, err := Create(path, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range []string{"hello, ", "world"} {
		if _, err := p.Write([]byte(part)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("before Commit: %v", err)
	}
	if err := p.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := readTestTree(t, dir); len(got) != 1 || got["blob"] != "hello, world" {
		t.Errorf("after Commit: %v", got)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("mode: %v %v", st, err)
	}

	p, err = Create(path, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Write([]byte("half")); err != nil {
		t.Fatal(err)
	}
	p.Abort()
	if got := readTestTree(t, dir); len(got) != 1 || got["blob"] != "hello, world" {
		t.Errorf("after Abort: %v", got)
	}

	// Commit onto a path that is a non-empty directory fails and cleans up.
	busy := filepath.Join(dir, "busy")
	writeTestTree(t, busy, map[string]string{"x": "y"})
	p, err = Create(busy, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Commit(); err == nil {
		t.Error("Commit over a non-empty directory succeeded")
	}
	if got := readTestTree(t, dir); len(got) != 2 || got["busy/x"] != "y" {
		t.Errorf("after a failed Commit: %v", got)
	}

	// CommitUnsynced: the same, without the wait for the disk.
	p, err = Create(path, 0o640)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Write([]byte("again")); err != nil {
		t.Fatal(err)
	}
	if err := p.CommitUnsynced(); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o640 {
		t.Errorf("mode after CommitUnsynced: %v %v", st, err)
	}
	if got := readTestTree(t, dir); got["blob"] != "again" {
		t.Errorf("after CommitUnsynced: %v", got)
	}
	p, err = Create(busy, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CommitUnsynced(); err == nil {
		t.Error("CommitUnsynced over a non-empty directory succeeded")
	}
	if got := readTestTree(t, dir); len(got) != 2 {
		t.Errorf("after a failed CommitUnsynced: %v", got)
	}

	if _, err := Create(filepath.Join(dir, "missing", "blob"), 0o600); err == nil {
		t.Error("Create in a missing directory succeeded")
	}
}

// An interrupt (a cancelled context) that comes while the tree or file is
// written leaves the target as it was, and no temporary behind.
func TestWriteInterrupted(t *testing.T) {
	root := t.TempDir()
	out := filepath.Join(root, "out")
	old := map[string]string{"a/catalog.json": "old"}
	writeTestTree(t, out, old)
	ctx, cancel := context.WithCancel(context.Background())
	err := WriteDir(ctx, out, true, func(tmp string) error {
		if err := fillWith(map[string]string{"b/catalog.json": "new"})(tmp); err != nil {
			return err
		}
		cancel() // the fill finished, the interrupt came before the rename
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("WriteDir = %v, want context.Canceled", err)
	}
	if got := readTestTree(t, out); fmt.Sprint(got) != fmt.Sprint(old) {
		t.Errorf("out holds %v, want the old tree", got)
	}

	file := filepath.Join(root, "file")
	if err := os.WriteFile(file, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	err = Write(ctx, file, 0o644, func(w io.Writer) error {
		_, err := w.Write([]byte("new"))
		cancel()
		return err
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Write = %v, want context.Canceled", err)
	}
	if data, _ := os.ReadFile(file); string(data) != "old" {
		t.Errorf("file holds %q", data)
	}
	if left, _ := filepath.Glob(filepath.Join(root, ".*")); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

// Abandon, in a process that must end while writes are under way, removes
// their temporary trees and files and lets no rename happen afterwards.
// (It is for good, so it runs in a process of its own.)
func TestAbandon(t *testing.T) {
	if dir := os.Getenv("FBC_TEST_ABANDON_DIR"); dir != "" {
		out, file := filepath.Join(dir, "out"), filepath.Join(dir, "file")
		filling, finish := make(chan struct{}), make(chan struct{})
		treeErr, fileErr := make(chan error, 1), make(chan error, 1)
		go func() {
			treeErr <- WriteDir(context.Background(), out, true, func(tmp string) error {
				if err := fillWith(map[string]string{"new/catalog.json": "new"})(tmp); err != nil {
					return err
				}
				filling <- struct{}{}
				<-finish
				return nil
			})
		}()
		p, err := Create(file, 0o644)
		if err != nil {
			fmt.Println(err)
			os.Exit(3)
		}
		p.Write([]byte("new"))
		<-filling
		Abandon()
		close(finish)
		fileErr <- p.Commit()
		if err := <-treeErr; !errors.Is(err, ErrAbandoned) {
			fmt.Println("WriteDir:", err)
			os.Exit(3)
		}
		if err := <-fileErr; !errors.Is(err, ErrAbandoned) {
			fmt.Println("Commit:", err)
			os.Exit(3)
		}
		if err := WriteDir(context.Background(), out, true, fillWith(nil)); !errors.Is(err, ErrAbandoned) {
			fmt.Println("a WriteDir after Abandon:", err)
			os.Exit(3)
		}
		os.Exit(0)
	}
	root := t.TempDir()
	writeTestTree(t, filepath.Join(root, "out"), map[string]string{"old/catalog.json": "old"})
	if err := os.WriteFile(filepath.Join(root, "file"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestAbandon$")
	cmd.Env = append(os.Environ(), "FBC_TEST_ABANDON_DIR="+root)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got := readTestTree(t, filepath.Join(root, "out")); len(got) != 1 || got["old/catalog.json"] != "old" {
		t.Errorf("out holds %v", got)
	}
	if data, _ := os.ReadFile(filepath.Join(root, "file")); string(data) != "old" {
		t.Errorf("file holds %q", data)
	}
	if left, _ := filepath.Glob(filepath.Join(root, ".*")); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}
