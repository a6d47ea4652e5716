package image

import (
	"bytes"
	"io"
	"io/fs"
	"path"
	"sort"
	"time"
)

// memFS is the read-only in-memory file tree ReadFiles returns: regular
// files and directories only (links are resolved before).
type memFS struct {
	files map[string]*memEntry
}

type memEntry struct {
	name     string // base name
	dir      bool
	mode     fs.FileMode
	data     []byte
	children []string // sorted base names, for directories
}

func newMemFS(nodes map[string]*node) *memFS {
	m := &memFS{files: map[string]*memEntry{".": {name: ".", dir: true, mode: 0o755}}}
	var ensureDir func(p string) *memEntry
	ensureDir = func(p string) *memEntry {
		if e, ok := m.files[p]; ok {
			return e
		}
		e := &memEntry{name: path.Base(p), dir: true, mode: 0o755}
		m.files[p] = e
		parent := ensureDir(path.Dir(p))
		parent.children = append(parent.children, e.name)
		return e
	}
	for _, p := range sortedKeys(nodes) {
		n := nodes[p]
		switch n.kind {
		case kindDir:
			ensureDir(p).mode = n.mode
		case kindFile:
			if _, ok := m.files[p]; ok {
				continue // a directory already holds files there
			}
			m.files[p] = &memEntry{name: path.Base(p), mode: n.mode, data: n.data}
			parent := ensureDir(path.Dir(p))
			parent.children = append(parent.children, path.Base(p))
		}
	}
	for _, e := range m.files {
		sort.Strings(e.children)
	}
	return m
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (m *memFS) lookup(op, name string) (*memEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	e, ok := m.files[name]
	if !ok {
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	}
	return e, nil
}

func (m *memFS) Open(name string) (fs.File, error) {
	e, err := m.lookup("open", name)
	if err != nil {
		return nil, err
	}
	if e.dir {
		return &memDir{fsys: m, path: name, e: e}, nil
	}
	return &memFile{e: e, r: bytes.NewReader(e.data)}, nil
}

func (m *memFS) ReadFile(name string) ([]byte, error) {
	e, err := m.lookup("read", name)
	if err != nil {
		return nil, err
	}
	if e.dir {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrInvalid}
	}
	return bytes.Clone(e.data), nil
}

func (m *memFS) Stat(name string) (fs.FileInfo, error) {
	e, err := m.lookup("stat", name)
	if err != nil {
		return nil, err
	}
	return memInfo{e}, nil
}

func (m *memFS) ReadDir(name string) ([]fs.DirEntry, error) {
	e, err := m.lookup("readdir", name)
	if err != nil {
		return nil, err
	}
	if !e.dir {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	return m.entries(name, e), nil
}

func (m *memFS) entries(dir string, e *memEntry) []fs.DirEntry {
	out := make([]fs.DirEntry, 0, len(e.children))
	for _, c := range e.children {
		p := c
		if dir != "." {
			p = dir + "/" + c
		}
		out = append(out, fs.FileInfoToDirEntry(memInfo{m.files[p]}))
	}
	return out
}

type memInfo struct{ e *memEntry }

func (i memInfo) Name() string       { return i.e.name }
func (i memInfo) Size() int64        { return int64(len(i.e.data)) }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return i.e.dir }
func (i memInfo) Sys() any           { return nil }
func (i memInfo) Mode() fs.FileMode {
	if i.e.dir {
		return fs.ModeDir | i.e.mode
	}
	return i.e.mode
}

type memFile struct {
	e *memEntry
	r *bytes.Reader
}

func (f *memFile) Stat() (fs.FileInfo, error) { return memInfo{f.e}, nil }
func (f *memFile) Read(p []byte) (int, error) { return f.r.Read(p) }
func (f *memFile) Seek(off int64, whence int) (int64, error) {
	return f.r.Seek(off, whence)
}
func (f *memFile) ReadAt(p []byte, off int64) (int, error) { return f.r.ReadAt(p, off) }
func (f *memFile) Close() error                            { return nil }

type memDir struct {
	fsys *memFS
	path string
	e    *memEntry
	off  int
}

func (d *memDir) Stat() (fs.FileInfo, error) { return memInfo{d.e}, nil }
func (d *memDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.path, Err: fs.ErrInvalid}
}
func (d *memDir) Close() error { return nil }

func (d *memDir) ReadDir(n int) ([]fs.DirEntry, error) {
	all := d.fsys.entries(d.path, d.e)[d.off:]
	if n <= 0 {
		d.off += len(all)
		return all, nil
	}
	if len(all) == 0 {
		return nil, io.EOF
	}
	if n > len(all) {
		n = len(all)
	}
	d.off += n
	return all[:n], nil
}

// paths lists every file (not directory) of an fs.FS returned by ReadFiles,
// sorted (the tests' view of what was read; export_test.go).
func paths(fsys fs.FS) []string {
	m, ok := fsys.(*memFS)
	if !ok {
		return nil
	}
	var out []string
	for p, e := range m.files {
		if !e.dir {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}
