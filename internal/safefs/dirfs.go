package safefs

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrNotRegular is the error of a DirFS open of a special file, inside an
// *fs.PathError; its text names the file's type.
type ErrNotRegular struct{ Mode fs.FileMode }

func (e ErrNotRegular) Error() string {
	return fmt.Sprintf("not a regular file (%s)", TypeWords(e.Mode))
}

// dirFS is os.DirFS whose Open never blocks and opens only directories and
// regular files.
type dirFS struct {
	dir string
	os  fs.FS
}

// DirFS is os.DirFS(dir) for reading a tree: opening a named pipe, socket
// or device fails at once (an *fs.PathError holding an ErrNotRegular)
// instead of waiting for a writer, following symbolic links as os.DirFS
// does. Stat, ReadDir and ReadLink are os.DirFS's.
func DirFS(dir string) fs.FS { return dirFS{dir: dir, os: os.DirFS(dir)} }

func (d dirFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	f, st, err := openNonblock(filepath.Join(d.dir, filepath.FromSlash(name)))
	if err != nil {
		if pe, ok := err.(*fs.PathError); ok {
			pe.Path = name
		}
		return nil, err
	}
	if !st.IsDir() && !st.Mode().IsRegular() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: name, Err: ErrNotRegular{Mode: st.Mode()}}
	}
	return f, nil
}

func (d dirFS) ReadFile(name string) ([]byte, error) {
	f, err := d.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

func (d dirFS) Stat(name string) (fs.FileInfo, error) { return fs.Stat(d.os, name) }

func (d dirFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(d.os, name) }

func (d dirFS) ReadLink(name string) (string, error) { return fs.ReadLink(d.os, name) }

func (d dirFS) Lstat(name string) (fs.FileInfo, error) { return fs.Lstat(d.os, name) }
