package atomicfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/fbc-project/fbc/internal/fault"
)

// Lock is an exclusive lock on a file, held by a process while it reads,
// changes and writes files that another process must not change in the
// meantime (an operator repository during a release). On Unix it is an
// flock(2) on the file, which the kernel drops however the process ends,
// so a killed run leaves no lock behind; the file says who holds it, and
// is removed when the lock is released.
type Lock struct {
	f    *os.File
	path string
}

// LockedError is a lock another process held for longer than the wait.
type LockedError struct {
	Path   string
	Holder string // what the lock file says of its holder ("" if nothing)
	Waited time.Duration
}

func (e *LockedError) Error() string {
	holder := "another process"
	if e.Holder != "" {
		holder = e.Holder
	}
	waited := "without waiting"
	if e.Waited > 0 {
		waited = "after waiting " + e.Waited.String()
	}
	return fmt.Sprintf("%s holds the lock %s, %s: run again once it has finished", holder, e.Path, waited)
}

// FaultKind is Run: the work could not be done now.
func (e *LockedError) FaultKind() fault.Kind { return fault.Run }

// lockPoll is how often a waiting AcquireLock tries again.
const lockPoll = 50 * time.Millisecond

// AcquireLock takes the lock file at path, which it creates, and writes
// holder into it (what another process's wait is told). While another
// process holds it, AcquireLock tries again for up to wait (a
// *LockedError after that; wait 0 does not wait), calling waiting once
// with what the file says of that process; an ended ctx stops the wait.
func AcquireLock(ctx context.Context, path, holder string, wait time.Duration, waiting func(holder string)) (*Lock, error) {
	start := time.Now()
	told := false
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, err
		}
		ok, err := tryLock(f, path)
		if errors.Is(err, errLockGone) {
			f.Close()
			continue
		}
		if err != nil {
			f.Close()
			return nil, err
		}
		if ok {
			l := &Lock{f: f, path: path}
			if err := l.say(holder); err != nil {
				l.Release()
				return nil, err
			}
			return l, nil
		}
		other := readHolder(f)
		f.Close()
		waited := time.Since(start)
		if waited >= wait {
			return nil, &LockedError{Path: path, Holder: other, Waited: wait}
		}
		if !told && waiting != nil {
			waiting(other)
			told = true
		}
		t := time.NewTimer(min(lockPoll, wait-waited))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// say writes what the lock file tells a waiting process.
func (l *Lock) say(holder string) error {
	if err := l.f.Truncate(0); err != nil {
		return err
	}
	_, err := l.f.WriteAt([]byte(holder+"\n"), 0)
	return err
}

// readHolder is what a lock file says of its holder, on one line.
func readHolder(f *os.File) string {
	b, _ := io.ReadAll(io.LimitReader(f, 1024))
	return strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0])
}

// Release removes the lock file and lets the lock go. The file is removed
// first: a process waiting on it then finds it gone and takes a new one.
func (l *Lock) Release() {
	if l == nil || l.f == nil {
		return
	}
	os.Remove(l.path)
	unlock(l.f)
	l.f.Close()
	l.f = nil
}

// errLockGone is tryLock's answer for a lock file removed (or replaced)
// between its opening and its locking: the caller opens it again.
var errLockGone = errors.New("lock file replaced")
