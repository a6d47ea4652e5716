//go:build unix

package declcfg

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A pipe this process was handed (fbc validate <(opm render ...), seen as
// /dev/fd/N) is read like standard input; one whose writer never finishes
// stops on interrupt.
func TestInheritedPipe(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	go func() {
		_, _ = w.WriteString("schema: olm.package\nname: piped\n")
		w.Close()
	}()
	var names []string
	err = WalkPath(context.Background(), "/proc/self/fd/"+strconv.Itoa(int(r.Fd())), nil, WalkOptions{}, func(f *File) error {
		assert.Empty(t, f.Errors)
		for _, d := range f.Docs {
			b, _, _ := DecodeDocument(d)
			names = append(names, b.Package.Name)
		}
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"piped"}, names)

	r2, w2, err := os.Pipe()
	require.NoError(t, err)
	defer r2.Close()
	defer w2.Close() // the writer stays open: the read would wait forever
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	err = WalkPath(ctx, "/proc/self/fd/"+strconv.Itoa(int(r2.Fd())), nil, WalkOptions{}, func(f *File) error {
		if len(f.Errors) > 0 {
			return f.Errors[0]
		}
		return nil
	})
	assert.Error(t, err)
	assert.Less(t, time.Since(start), 5*time.Second)
}

// A FIFO on disk is refused at once, named or found in a tree (directly or
// through a symbolic link: it is skipped there, as sockets and devices are).
// Nothing waits for a writer.
func TestNamedPipeNeverBlocks(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.yaml"), []byte("schema: olm.package\nname: a\n"), 0o644))
	fifo := filepath.Join(dir, "z.yaml")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	require.NoError(t, os.Symlink("z.yaml", filepath.Join(dir, "link.yaml")))

	done := make(chan struct{})
	go func() {
		defer close(done)
		var files []string
		err := WalkPath(context.Background(), dir, nil, WalkOptions{}, func(f *File) error {
			assert.Empty(t, f.Errors)
			files = append(files, filepath.Base(f.Path))
			return nil
		})
		assert.NoError(t, err)
		assert.Equal(t, []string{"a.yaml"}, files)

		var got []*LoadError
		err = WalkPath(context.Background(), fifo, nil, WalkOptions{}, func(f *File) error {
			got = f.Errors
			return nil
		})
		assert.NoError(t, err)
		if assert.Len(t, got, 1) {
			assert.Equal(t, RuleIO, got[0].Rule)
			assert.True(t, got[0].IO)
			assert.Contains(t, got[0].Error(), "z.yaml: not a regular file (a named pipe)")
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		// Unblock the walk so that the test can end.
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		t.Fatal("walking a tree with a FIFO blocked")
	}
}

// A symbolic link that leads outside the catalog directory is an error
// naming the link and where it leads, however it gets there (absolute,
// relative, through another link); links that stay inside are read.
func TestSymlinkOutsideTheTree(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "config.json")
	require.NoError(t, os.WriteFile(secret, []byte(`{"schema":"olm.package","name":"secret"}`), 0o644))
	dir := filepath.Join(t.TempDir(), "cat")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "pkg"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "pkg", "catalog.yaml"), []byte("schema: olm.package\nname: pkg\n"), 0o644))
	require.NoError(t, os.Symlink("catalog.yaml", filepath.Join(dir, "pkg", "inside.yaml")))
	require.NoError(t, os.Symlink(secret, filepath.Join(dir, "abs.json")))
	rel, err := filepath.Rel(filepath.Join(dir, "pkg"), secret)
	require.NoError(t, err)
	require.NoError(t, os.Symlink(rel, filepath.Join(dir, "pkg", "rel.json")))
	require.NoError(t, os.Symlink("abs.json", filepath.Join(dir, "chain.json")))
	// The catalog directory itself may be a link.
	linkDir := filepath.Join(t.TempDir(), "catlink")
	require.NoError(t, os.Symlink(dir, linkDir))

	for _, root := range []string{dir, linkDir} {
		outsideLinks := map[string]bool{}
		var read []string
		err := WalkPath(context.Background(), root, nil, WalkOptions{}, func(f *File) error {
			for _, e := range f.Errors {
				require.Equal(t, RuleSymlink, e.Rule, e.Error())
				assert.Contains(t, e.Msg, "symbolic link to "+secret+", which is outside the catalog directory "+root)
				outsideLinks[filepath.Base(f.Path)] = true
			}
			for _, d := range f.Docs {
				b, _, _ := DecodeDocument(d)
				read = append(read, b.Package.Name)
			}
			return nil
		})
		require.NoError(t, err)
		assert.Equal(t, map[string]bool{"abs.json": true, "chain.json": true, "rel.json": true}, outsideLinks, root)
		assert.Equal(t, []string{"pkg", "pkg"}, read, "catalog.yaml and the link to it")
	}
}
