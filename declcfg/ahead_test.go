package declcfg

import (
	"context"
	"fmt"
	"io/fs"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"
)

// countingFS counts the distinct catalog files opened (a file is opened
// to be stated, then to be read).
type countingFS struct {
	fs.FS
	seen   sync.Map
	opened atomic.Int32
}

func (c *countingFS) Open(name string) (fs.File, error) {
	f, err := c.FS.Open(name)
	if err == nil && name != "." {
		if st, serr := f.Stat(); serr == nil && !st.IsDir() {
			if _, dup := c.seen.LoadOrStore(name, true); !dup {
				c.opened.Add(1)
			}
		}
	}
	return f, err
}

// TestWalkAhead: while fn holds the first file, no more than Ahead files
// are read (that one included), and the walk still delivers every file.
func TestWalkAhead(t *testing.T) {
	files := fstest.MapFS{}
	for i := range 8 {
		files[fmt.Sprintf("f%d.yaml", i)] = &fstest.MapFile{Data: []byte(fmt.Sprintf("schema: olm.package\nname: p%d\n", i))}
	}
	for _, tc := range []struct{ concurrency, ahead, want int }{
		{1, 1, 1},
		{2, 2, 2},
		{1, 0, 2}, // the default: twice Concurrency
		{2, 5, 5},
	} {
		t.Run(fmt.Sprintf("c%d-a%d", tc.concurrency, tc.ahead), func(t *testing.T) {
			fsys := &countingFS{FS: files}
			release := make(chan struct{})
			done := make(chan error, 1)
			var got []string
			go func() {
				done <- WalkFS(context.Background(), fsys, "", WalkOptions{Concurrency: tc.concurrency, Ahead: tc.ahead}, func(f *File) error {
					if len(got) == 0 {
						<-release
					}
					got = append(got, f.Path)
					return nil
				})
			}()
			// The reads ahead reach the bound (bounded wait), then stay there.
			deadline := time.Now().Add(5 * time.Second)
			for int(fsys.opened.Load()) < tc.want && time.Now().Before(deadline) {
				time.Sleep(5 * time.Millisecond)
			}
			time.Sleep(50 * time.Millisecond)
			if n := int(fsys.opened.Load()); n != tc.want {
				t.Errorf("%d files read while the first was held, want %d", n, tc.want)
			}
			close(release)
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if len(got) != len(files) {
				t.Errorf("walked %d files, want %d", len(got), len(files))
			}
		})
	}
}
