//go:build unix

package atomicfile

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes f's flock without waiting: false when another process
// holds it, errLockGone when the file at path is no longer f (its holder
// removed it on release).
func tryLock(f *os.File, path string) (bool, error) {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	if err != nil {
		return false, &os.PathError{Op: "lock", Path: path, Err: err}
	}
	held, err1 := f.Stat()
	now, err2 := os.Stat(path)
	if err1 != nil || err2 != nil || !os.SameFile(held, now) {
		unlock(f)
		return false, errLockGone
	}
	return true, nil
}

func unlock(f *os.File) { syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
