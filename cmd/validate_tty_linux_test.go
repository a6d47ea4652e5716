package cmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// openPTY opens a pseudo-terminal pair: text written to tty can be read from
// pty. Only the kernel's ioctls are needed, no extra dependency.
func openPTY(t *testing.T) (pty, tty *os.File) {
	t.Helper()
	pty, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { pty.Close() })
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, pty.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Skipf("unlocking the pseudo-terminal: %v", e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, pty.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Skipf("naming the pseudo-terminal: %v", e)
	}
	tty, err = os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("opening the terminal side: %v", err)
	}
	t.Cleanup(func() { tty.Close() })
	return pty, tty
}

// validateOnTTY runs `fbc validate` with stdout on a terminal and returns
// what the terminal showed.
func validateOnTTY(t *testing.T, catalog string) string {
	pty, tty := openPTY(t)
	var stderr bytes.Buffer
	code := Run(context.Background(), []string{"validate", catalog}, nil, tty, &stderr)
	require.Equal(t, ExitFindings, code, stderr.String())
	require.NoError(t, tty.Close())
	var out bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		for {
			if pty.SetReadDeadline(time.Now().Add(5*time.Second)) != nil {
				return
			}
			n, err := pty.Read(buf)
			out.Write(buf[:n])
			// Linux reports EIO once the terminal side is closed and drained.
			if err != nil || bytes.Contains(out.Bytes(), []byte("[syntax]")) {
				return
			}
		}
	}()
	<-done
	return out.String()
}

// Colour appears only on a terminal, and not with NO_COLOR or TERM=dumb.
// (Pipes are covered by the testscripts: no escape codes there.)
func TestValidateColourOnlyOnATerminal(t *testing.T) {
	catalog := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, os.WriteFile(catalog, []byte("{\"schema\": \n"), 0o644))

	t.Setenv("TERM", "xterm-256color")
	t.Setenv("NO_COLOR", "") // registers the restore of the caller's value
	os.Unsetenv("NO_COLOR")
	assert.Contains(t, validateOnTTY(t, catalog), "\x1b[1;31merror:\x1b[0m")

	t.Setenv("NO_COLOR", "")
	got := validateOnTTY(t, catalog)
	assert.Contains(t, got, "error:")
	assert.NotContains(t, got, "\x1b[")

	os.Unsetenv("NO_COLOR")
	t.Setenv("TERM", "dumb")
	got = validateOnTTY(t, catalog)
	assert.Contains(t, got, "error:")
	assert.NotContains(t, got, "\x1b[")
}
