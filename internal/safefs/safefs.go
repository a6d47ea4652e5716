// Package safefs reads the files fbc is given without the two traps of a
// file system: special files (opening a FIFO waits for a writer that may
// never come, a device never ends) and symbolic links that lead out of a
// tree fbc copies or publishes. Nothing here opens a path in a way that can
// block: files are opened with O_NONBLOCK and their type checked on the open
// descriptor.
package safefs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// NotRegularError is a path that had to be a regular file and is not: a
// named pipe, a socket, a device or a directory.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s: not a regular file (%s)", e.Path, TypeWords(e.Mode))
}

// TypeWords names a file's type in a message: "a named pipe", "a socket",
// "a device", "a directory", "a symbolic link".
func TypeWords(mode fs.FileMode) string {
	switch {
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeDevice != 0:
		return "a device"
	case mode&fs.ModeSymlink != 0:
		return "a symbolic link"
	case mode.IsDir():
		return "a directory"
	case mode.IsRegular():
		return "a regular file"
	}
	return mode.Type().String()
}

// openNonblock opens name for reading without waiting: a FIFO with no
// writer opens at once instead of blocking until one comes.
func openNonblock(name string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, st, nil
}

// Open opens name for reading when it is a regular file (following
// symbolic links); anything else is a *NotRegularError, found without
// blocking.
func Open(name string) (*os.File, error) {
	f, st, err := openNonblock(name)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, &NotRegularError{Path: name, Mode: st.Mode()}
	}
	return f, nil
}

// ReadFile reads the regular file name (see Open).
func ReadFile(name string) ([]byte, error) {
	f, err := Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// IsInheritedStream reports whether name is a stream this process was
// handed open (/dev/stdin, /dev/fd/N, /proc/self/fd/N: a pipe from the
// shell's process substitution, fbc validate <(opm render ...)) rather than
// a special file on disk. Such a pipe has its writer already: opening it
// does not wait.
func IsInheritedStream(name string) bool {
	clean := filepath.Clean(name)
	for _, prefix := range []string{"/dev/fd/", "/proc/self/fd/"} {
		if strings.HasPrefix(clean, prefix) {
			return true
		}
	}
	if clean == "/dev/stdin" {
		return true
	}
	// Linux names an anonymous pipe or socket reached through /proc
	// (/proc/PID/fd/N) pipe:[INODE] or socket:[INODE].
	if target, err := os.Readlink(clean); err == nil {
		return strings.HasPrefix(target, "pipe:[") || strings.HasPrefix(target, "socket:[")
	}
	return false
}

// OpenInput opens a file a user names as input: a regular file, or a
// stream this process was handed (IsInheritedStream). A named pipe, socket
// or device on disk is a *NotRegularError: a FIFO that nobody writes to
// would wait forever. A stream is returned non-blocking, so that ReadAll
// can stop it.
func OpenInput(name string) (*os.File, error) {
	f, st, err := openNonblock(name)
	if err != nil {
		return nil, err
	}
	mode := st.Mode()
	switch {
	case mode.IsRegular():
		return f, nil
	case mode&(fs.ModeNamedPipe|fs.ModeSocket|fs.ModeCharDevice) != 0 && IsInheritedStream(name):
		return f, nil
	}
	f.Close()
	return nil, &NotRegularError{Path: name, Mode: mode}
}

// ErrTooLarge is returned (wrapped) by ReadAll for input beyond its limit.
var ErrTooLarge = errors.New("larger than the limit")

// ReadAll reads f to its end, at most limit bytes (limit <= 0: no limit),
// and stops when ctx ends: a pipe whose writer never finishes is cut off
// by an interrupt. f is closed.
func ReadAll(ctx context.Context, f *os.File, limit int64) ([]byte, error) {
	stop := context.AfterFunc(ctx, func() {
		// A pipe opened non-blocking waits in the runtime's poller, which
		// a deadline in the past wakes.
		_ = f.SetReadDeadline(time.Unix(1, 0))
	})
	defer stop()
	defer f.Close()
	var r io.Reader = f
	if limit > 0 {
		r = io.LimitReader(f, limit+1)
	}
	data, err := io.ReadAll(r)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, err
	}
	if limit > 0 && int64(len(data)) > limit {
		return nil, fmt.Errorf("%w of %d bytes", ErrTooLarge, limit)
	}
	return data, nil
}

// ReadInput reads a file a user names as input (see OpenInput), at most
// limit bytes (limit <= 0: no limit), stopping when ctx ends.
func ReadInput(ctx context.Context, name string, limit int64) ([]byte, error) {
	f, err := OpenInput(name)
	if err != nil {
		return nil, err
	}
	return ReadAll(ctx, f, limit)
}
