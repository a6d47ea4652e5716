package atomicfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Batch is a set of files written, and folders removed, together, in
// several directories: Commit lands all of them or, when one cannot land,
// puts back everything it changed, so that the files hold their old
// content or all the new content, never a mix. Every file is first written
// whole under a temporary name next to its target (missing folders are
// made), and only then are the files renamed into place, one after the
// other; each replaced file is kept under a second name until the last
// rename has worked. Only a kill in the middle of those renames (no
// writing happens there) leaves a mix, and the old files next to their
// targets as .NAME.old-PID-N.
type Batch struct {
	writes  []batchWrite
	removes []string
}

type batchWrite struct {
	path string
	data []byte
	perm os.FileMode
}

// Write adds a file to the batch. A later Write of the same path wins.
// perm is the mode of a new file; a replaced file keeps its own.
func (b *Batch) Write(path string, data []byte, perm os.FileMode) {
	for i := range b.writes {
		if b.writes[i].path == path {
			b.writes[i] = batchWrite{path, data, perm}
			return
		}
	}
	b.writes = append(b.writes, batchWrite{path, data, perm})
}

// RemoveAll adds a file or folder to remove with the batch.
func (b *Batch) RemoveAll(path string) { b.removes = append(b.removes, path) }

// Len is the number of files to write.
func (b *Batch) Len() int { return len(b.writes) }

// Paths lists the files to write, in the order they were added.
func (b *Batch) Paths() []string {
	out := make([]string, len(b.writes))
	for i, w := range b.writes {
		out[i] = w.path
	}
	return out
}

// staged is a write whose temporary file is complete.
type staged struct {
	batchWrite
	tmp    string
	backup string // the old file's second name, once linked
	placed bool
}

// Commit lands the batch; see Batch. Its error names the file that could
// not be written, and nothing is left changed. Once every new file is
// staged, an ended ctx (an interrupt) leaves everything as it was, as
// WriteDir does.
func (b *Batch) Commit(ctx context.Context) (err error) {
	var made []string // folders made for new files, outermost first
	var st []*staged
	var moved []movedAside
	defer func() {
		if err == nil {
			return
		}
		for i := len(st) - 1; i >= 0; i-- {
			s := st[i]
			switch {
			case s.placed && s.backup != "":
				os.Rename(s.backup, s.path)
			case s.placed:
				os.Remove(s.path)
			case s.backup != "":
				os.Remove(s.backup)
			}
			if s.tmp != "" {
				os.Remove(s.tmp)
			}
		}
		for i := len(moved) - 1; i >= 0; i-- {
			os.Rename(moved[i].aside, moved[i].path)
		}
		for i := len(made) - 1; i >= 0; i-- {
			os.RemoveAll(made[i])
		}
	}()
	for _, w := range b.writes {
		dirs, err := mkdirs(filepath.Dir(w.path))
		made = append(made, dirs...)
		if err != nil {
			return &BatchError{Op: "writing", Path: w.path, Err: err}
		}
		s := &staged{batchWrite: w}
		st = append(st, s)
		perm := w.perm
		old, err := os.Lstat(w.path)
		if err == nil {
			if !old.Mode().IsRegular() {
				return &BatchError{Op: "writing", Path: w.path, Err: errors.New("it exists and is not a regular file")}
			}
			perm = old.Mode().Perm()
		}
		if s.tmp, err = writeTemp(w.path, perm, func(wr io.Writer) error {
			_, err := wr.Write(w.data)
			return err
		}); err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) && pe.Op == "open" {
				// The temporary name means nothing to the reader.
				err = &fs.PathError{Op: "creating a file in", Path: filepath.Dir(w.path), Err: pe.Err}
			}
			return &BatchError{Op: "writing", Path: w.path, Err: err}
		}
		if old != nil {
			if err := keepReplaced(s.tmp, w.path); err != nil {
				return &BatchError{Op: "writing", Path: w.path, Err: err}
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, p := range b.removes {
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		aside := sideName(p, "old")
		if err := os.Rename(p, aside); err != nil {
			return &BatchError{Op: "removing", Path: p, Err: err}
		}
		moved = append(moved, movedAside{path: p, aside: aside})
	}
	for _, s := range st {
		if _, err := os.Lstat(s.path); err == nil {
			s.backup = sideName(s.path, "old")
			if err := os.Link(s.path, s.backup); err != nil {
				s.backup = ""
				return &BatchError{Op: "writing", Path: s.path, Err: fmt.Errorf("keeping the old file: %w", err)}
			}
		}
		if err := placeFile(s.tmp, s.path); err != nil {
			return &BatchError{Op: "writing", Path: s.path, Err: err}
		}
		s.tmp, s.placed = "", true
	}
	for _, s := range st {
		if s.backup != "" {
			os.Remove(s.backup)
		}
	}
	for _, m := range moved {
		os.RemoveAll(m.aside)
	}
	return nil
}

type movedAside struct{ path, aside string }

// BatchError is the file a batch could not write or remove, and why.
type BatchError struct {
	Op   string // "writing" or "removing"
	Path string
	Err  error
}

func (e *BatchError) Error() string { return e.Op + " " + e.Path + ": " + e.Err.Error() }
func (e *BatchError) Unwrap() error { return e.Err }

// placeFile renames a finished temporary file into place; tests replace it
// to fail in the middle of a batch.
var placeFile = os.Rename

// sideName is a free name next to path: .NAME.KIND-PID-N.
func sideName(path, kind string) string {
	dir, base := filepath.Split(path)
	for n := 0; ; n++ {
		p := filepath.Join(dir, fmt.Sprintf(".%s.%s-%d-%d", base, kind, os.Getpid(), n))
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			return p
		}
	}
}

// mkdirs makes dir and its missing parents and returns the folders it
// made, outermost first.
func mkdirs(dir string) ([]string, error) {
	var missing []string
	for d := dir; ; {
		if st, err := os.Stat(d); err == nil {
			if !st.IsDir() {
				return nil, &fs.PathError{Op: "mkdir", Path: d, Err: syscall.ENOTDIR}
			}
			break
		} else if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return nil, err
		}
		missing = append(missing, d)
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	var made []string
	for i := len(missing) - 1; i >= 0; i-- {
		if err := os.Mkdir(missing[i], 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return made, err
		}
		made = append(made, missing[i])
	}
	return made, nil
}
