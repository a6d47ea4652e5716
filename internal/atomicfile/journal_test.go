package atomicfile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// The child side of TestBatchKilled: a batch of 8 files (and a folder to
// remove) in $FBC_TEST_BATCH_DIR whose process is killed with SIGKILL right
// after its rename number $FBC_TEST_BATCH_KILL. The environment is read
// here, in a test, only.
func TestBatchKilledChild(t *testing.T) {
	dir := os.Getenv("FBC_TEST_BATCH_DIR")
	if dir == "" {
		t.Skip("run by TestBatchKilled")
	}
	n, _ := strconv.Atoi(os.Getenv("FBC_TEST_BATCH_KILL"))
	renames := 0
	placeFile = func(from, to string) error {
		if err := os.Rename(from, to); err != nil {
			return err
		}
		if renames++; renames == n {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {}
		}
		return nil
	}
	b := Batch{Journal: filepath.Join(dir, ".journal")}
	for i := range 8 {
		b.Write(batchFile(dir, i), []byte(fmt.Sprintf("new %d\n", i)), 0o644)
	}
	b.RemoveAll(filepath.Join(dir, "gone"))
	if err := b.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Fatal("not killed")
}

// batchFile is the batch's file i: in folders of their own, 7 of them there
// before the batch, the last one new in a folder the batch makes.
func batchFile(dir string, i int) string {
	return filepath.Join(dir, "c"+strconv.Itoa(i), "pkg", "catalog.yaml")
}

func prepareBatchDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for i := range 7 {
		p := batchFile(dir, i)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(fmt.Sprintf("old %d\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "gone", "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "gone", "pkg", "catalog.yaml"), []byte("removed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// killBatch runs the child, killed after rename n, and returns the folder
// it left.
func killBatch(t *testing.T, n int) string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("kills a child with SIGKILL")
	}
	dir := prepareBatchDir(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestBatchKilledChild$")
	cmd.Env = append(os.Environ(), "FBC_TEST_BATCH_DIR="+dir, "FBC_TEST_BATCH_KILL="+strconv.Itoa(n))
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child: %v, want it killed\n%s", err, out)
	}
	return dir
}

// contents is every regular file under dir with its content, hidden ones
// (temporary and kept files) included.
func contents(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			data, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			out[filepath.ToSlash(rel)] = string(data)
		}
		return nil
	})
	return out
}

func wantFiles(done bool) map[string]string {
	want := map[string]string{}
	for i := range 8 {
		p := fmt.Sprintf("c%d/pkg/catalog.yaml", i)
		switch {
		case done:
			want[p] = fmt.Sprintf("new %d\n", i)
		case i < 7:
			want[p] = fmt.Sprintf("old %d\n", i)
		}
	}
	if !done {
		want["gone/pkg/catalog.yaml"] = "removed\n"
	}
	return want
}

// TestBatchKilled kills a batch's process in the middle of its renames, as
// SIGKILL does, and checks what it leaves and that RecoverBatch finishes it,
// or, when the new content of a file not yet renamed is gone (an interrupt
// removed the temporary files), undoes it.
func TestBatchKilled(t *testing.T) {
	for _, tc := range []struct {
		name    string
		kill    int
		lose    bool // remove a pending temporary file before recovering
		landed  int
		finish  bool
		leftTmp bool
	}{
		{name: "after 3 of 8 renames", kill: 3, landed: 3, finish: true},
		{name: "after the last rename", kill: 8, landed: 8, finish: true},
		{name: "after 3, a temporary file lost", kill: 3, lose: true, landed: 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := killBatch(t, tc.kill)
			journal := filepath.Join(dir, ".journal")
			left := contents(t, dir)
			var tmps []string
			newFiles := 0
			for name, data := range left {
				switch {
				case strings.Contains(name, ".tmp-"):
					tmps = append(tmps, name)
				case strings.HasPrefix(data, "new"):
					newFiles++
				}
			}
			if newFiles != tc.landed || len(tmps) != 8-tc.landed {
				t.Fatalf("killed after %d renames: %d new files and %d temporary ones, want %d and %d", tc.kill, newFiles, len(tmps), tc.landed, 8-tc.landed)
			}
			if tc.lose {
				slices.Sort(tmps)
				if err := os.Remove(filepath.Join(dir, tmps[0])); err != nil {
					t.Fatal(err)
				}
			}
			in, err := ReadJournal(journal)
			if err != nil || in == nil {
				t.Fatalf("ReadJournal: %v, %v", in, err)
			}
			if !in.Landing || len(in.Landed) != tc.landed || len(in.Pending) != 8-tc.landed || in.Finishable != tc.finish || len(in.Removed) != 1 {
				t.Fatalf("ReadJournal: %+v", in)
			}
			if _, err := RecoverBatch(journal); err != nil {
				t.Fatal(err)
			}
			got, want := contents(t, dir), wantFiles(tc.finish)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("recovered:\n%v\nwant\n%v", got, want)
			}
			if !tc.finish {
				if _, err := os.Lstat(filepath.Dir(batchFile(dir, 7))); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("the folder the batch made is still there: %v", err)
				}
			}
			if in, err := ReadJournal(journal); in != nil || err != nil {
				t.Fatalf("journal left: %v, %v", in, err)
			}
		})
	}
}

// A batch killed while it writes its new files (staging) is undone: the
// temporary files and the folders it made go, every file is as it was.
func TestBatchStagingUndone(t *testing.T) {
	dir := prepareBatchDir(t)
	b := Batch{Journal: filepath.Join(dir, ".journal")}
	for i := range 8 {
		b.Write(batchFile(dir, i), []byte("new\n"), 0o644)
	}
	if _, err := b.startJournal(); err != nil {
		t.Fatal(err)
	}
	// What the writing had done when it was killed.
	os.MkdirAll(filepath.Dir(batchFile(dir, 7)), 0o755)
	for _, i := range []int{0, 7} {
		os.WriteFile(filepath.Join(filepath.Dir(batchFile(dir, i)), ".catalog.yaml.tmp-123"), []byte("ne"), 0o644)
	}
	in, err := RecoverBatch(b.Journal)
	if err != nil || in == nil || in.Landing {
		t.Fatalf("RecoverBatch: %+v, %v", in, err)
	}
	if got, want := contents(t, dir), wantFiles(false); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("recovered:\n%v\nwant\n%v", got, want)
	}
	if _, err := os.Lstat(filepath.Join(dir, "c7")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("c7 made by the batch is still there")
	}
}

// A journal fbc would not write is refused, and nothing is changed.
func TestJournalRefused(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o644)
	for _, j := range []string{
		`{"fbc-batch": 1, "state": "landing", "write": [{"path": "../f", "tmp": "../.f.tmp-1"}]}`,
		`{"fbc-batch": 1, "state": "landing", "write": [{"path": "f", "tmp": "g"}]}`,
		`{"fbc-batch": 1, "state": "landing", "write": [{"path": "f"}]}`,
		`{"fbc-batch": 2, "state": "landing"}`,
		`{"fbc-batch": 1, "state": "landing", "extra": 1}`,
		`not json`,
	} {
		path := filepath.Join(dir, ".journal")
		os.WriteFile(path, []byte(j), 0o644)
		var je *JournalError
		if _, err := RecoverBatch(path); !errors.As(err, &je) {
			t.Errorf("%s: %v, want a JournalError", j, err)
		}
		if data, _ := os.ReadFile(filepath.Join(dir, "f")); string(data) != "x" {
			t.Fatalf("%s: f changed", j)
		}
	}
}

// A batch that lands, or fails and is put back, leaves no journal.
func TestBatchJournalRemoved(t *testing.T) {
	dir := prepareBatchDir(t)
	b := Batch{Journal: filepath.Join(dir, ".journal")}
	b.Write(batchFile(dir, 0), []byte("new\n"), 0o644)
	b.RemoveAll(filepath.Join(dir, "gone"))
	if err := b.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(b.Journal); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("journal left after a commit: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b2 := Batch{Journal: b.Journal}
	b2.Write(batchFile(dir, 1), []byte("new\n"), 0o644)
	if err := b2.Commit(ctx); err == nil {
		t.Fatal("interrupted commit landed")
	}
	if _, err := os.Lstat(b.Journal); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("journal left after an interrupted commit: %v", err)
	}
}
