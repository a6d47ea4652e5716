//go:build unix

package declcfg

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A FIFO named as a path (fbc validate <(opm render ...)) is read like a
// file; one that no process writes to blocks in open, until an interrupt.
func TestNamedPipe(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "catalog.yaml")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			_, _ = f.WriteString("schema: olm.package\nname: piped\n")
			f.Close()
		}
	}()
	var names []string
	err := WalkPath(context.Background(), fifo, nil, WalkOptions{}, func(f *File) error {
		assert.Empty(t, f.Errors)
		for _, d := range f.Docs {
			b, _, _ := DecodeDocument(d)
			names = append(names, b.Package.Name)
		}
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"piped"}, names)

	silent := filepath.Join(dir, "silent.yaml")
	require.NoError(t, syscall.Mkfifo(silent, 0o600))
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	err = WalkPath(ctx, silent, nil, WalkOptions{}, func(*File) error { return nil })
	assert.ErrorIs(t, err, context.Canceled)
	// Let the blocked open return so that the test leaves no goroutine.
	if f, err := os.OpenFile(silent, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		f.Close()
	}
}
