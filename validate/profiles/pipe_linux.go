package profiles

import (
	"os"

	"golang.org/x/sys/unix"
)

// pipeSize is the capacity asked for the pipes to and from fbc-profile: a
// bundle's manifests are megabytes, and through the default 64 KiB pipe
// each one took dozens of wake-ups of both processes. Linux lets any
// process grow a pipe to 1 MiB (fs/pipe-max-size).
const pipeSize = 1 << 20

// growPipe asks for a larger buffer for pipe f; a refusal leaves it as it
// was (the exchange works either way, only slower). The descriptor stays
// non-blocking (Fd would make it blocking, and Close could no longer end a
// read).
func growPipe(f *os.File) {
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Control(func(fd uintptr) { _, _ = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, pipeSize) })
}
