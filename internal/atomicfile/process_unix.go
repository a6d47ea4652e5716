//go:build unix

package atomicfile

import (
	"errors"
	"syscall"
)

// processRuns reports whether a process with this id exists. A process of
// another user (EPERM) runs too.
func processRuns(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
