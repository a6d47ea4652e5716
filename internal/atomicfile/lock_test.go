package atomicfile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".lock")
	ctx := context.Background()
	a, err := AcquireLock(ctx, path, "pid 1: first", 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Held: another taker waits, then gives up naming the holder.
	var told string
	_, err = AcquireLock(ctx, path, "pid 2: second", 120*time.Millisecond, func(h string) { told = h })
	var le *LockedError
	if !errors.As(err, &le) || le.Holder != "pid 1: first" || told != "pid 1: first" {
		t.Fatalf("second taker: %v (told %q), want a LockedError naming the first", err, told)
	}
	// An ended context stops the wait.
	cctx, cancel := context.WithCancel(ctx)
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	if _, err := AcquireLock(cctx, path, "pid 3", time.Minute, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted taker: %v", err)
	}
	// Released while another waits: the waiter takes it, and the file is
	// its own.
	done := make(chan error)
	go func() {
		b, err := AcquireLock(ctx, path, "pid 4: waiter", 10*time.Second, nil)
		if err == nil {
			data, _ := os.ReadFile(path)
			if string(data) != "pid 4: waiter\n" {
				err = errors.New("lock file says " + string(data))
			}
			b.Release()
		}
		done <- err
	}()
	time.Sleep(100 * time.Millisecond)
	a.Release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("lock file left behind: %v", err)
	}
	// A lock file left by a killed holder (no flock on it) is taken.
	if err := os.WriteFile(path, []byte("pid 5: killed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := AcquireLock(ctx, path, "pid 6", 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.Release()
}
