//go:build unix

package profile

import (
	"os"
	"syscall"
)

// pollable is f, a pipe, made non-blocking and read or written through the
// runtime's poller. fbc starts fbc-profile with blocking pipes (as a
// child's standard streams are); a goroutine waiting on one held a thread
// in the kernel, and the runtime's monitor then kept waking every 20 µs to
// hand its processor to another thread, thousands of times per run. Any
// other file is f.
func pollable(f *os.File) *os.File {
	st, err := f.Stat()
	if err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		return f
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return f
	}
	var fd uintptr
	var nbErr error
	if err := rc.Control(func(d uintptr) { fd, nbErr = d, syscall.SetNonblock(int(d), true) }); err != nil || nbErr != nil {
		return f
	}
	return os.NewFile(fd, f.Name())
}
