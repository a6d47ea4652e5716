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
	"time"

	"github.com/fbc-project/fbc/internal/safefs"
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
// targets as .NAME.old-PID-N: with a Journal, RecoverBatch then finishes
// the batch or undoes it.
type Batch struct {
	writes  []batchWrite
	removes []string
	// Journal, when set, is a file in a folder that holds every path of
	// the batch, where Commit writes down what it is about to do before
	// it does it, and which it removes once it is done (see journal.go).
	Journal string
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
	j, err := b.startJournal()
	if err != nil {
		return &BatchError{Op: "writing", Path: b.Journal, Err: err}
	}
	defer func() {
		if err == nil {
			return
		}
		if j != nil {
			defer os.Remove(b.Journal)
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
	// Every name the renames use is chosen, and written down, before the
	// first of them.
	var asides []movedAside
	for _, p := range b.removes {
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		asides = append(asides, movedAside{path: p, aside: sideName(p, "old")})
	}
	backups := make([]string, len(st))
	for i, s := range st {
		if _, err := os.Lstat(s.path); err == nil {
			backups[i] = sideName(s.path, "old")
		}
	}
	if j != nil {
		if err := j.land(b.Journal, st, backups, asides); err != nil {
			return &BatchError{Op: "writing", Path: b.Journal, Err: err}
		}
	}
	for _, m := range asides {
		if err := os.Rename(m.path, m.aside); err != nil {
			return &BatchError{Op: "removing", Path: m.path, Err: err}
		}
		moved = append(moved, m)
	}
	for i, s := range st {
		if backups[i] != "" {
			if err := os.Link(s.path, backups[i]); err != nil {
				return &BatchError{Op: "writing", Path: s.path, Err: fmt.Errorf("keeping the old file: %w", err)}
			}
			s.backup = backups[i]
		}
		if err := placeFile(s.tmp, s.path); err != nil {
			return &BatchError{Op: "writing", Path: s.path, Err: err}
		}
		s.tmp, s.placed = "", true
	}
	if j != nil {
		// Landed: a kill from here on leaves a batch to finish, never to
		// undo (its kept old files are being removed).
		j.State = journalLanded
		if err := j.save(b.Journal); err != nil {
			return &BatchError{Op: "writing", Path: b.Journal, Err: err}
		}
	}
	for _, s := range st {
		if s.backup != "" {
			os.Remove(s.backup)
		}
	}
	for _, m := range moved {
		os.RemoveAll(m.aside)
	}
	if j != nil {
		os.Remove(b.Journal)
	}
	return nil
}

// startJournal writes the journal of a batch in its staging state: the
// files it writes (and whether they exist), the paths it removes, the
// folders it makes; nil without a Journal.
func (b *Batch) startJournal() (*journal, error) {
	if b.Journal == "" {
		return nil, nil
	}
	dir := filepath.Dir(b.Journal)
	j := &journal{Version: 1, PID: os.Getpid(), Started: time.Now().UTC().Truncate(time.Second), State: journalStaging}
	seen := map[string]bool{}
	for _, w := range b.writes {
		rel, err := j.rel(dir, w.path)
		if err != nil {
			return nil, err
		}
		_, err = os.Lstat(w.path)
		j.Write = append(j.Write, journalWrite{Path: rel, Existed: err == nil})
		var missing []string
		for d := filepath.Dir(w.path); d != dir && safefs.Within(d, dir); d = filepath.Dir(d) {
			if _, err := os.Lstat(d); err == nil {
				break
			}
			missing = append(missing, d)
		}
		for i := len(missing) - 1; i >= 0; i-- {
			if !seen[missing[i]] {
				seen[missing[i]] = true
				rel, _ := j.rel(dir, missing[i])
				j.Mkdir = append(j.Mkdir, rel)
			}
		}
	}
	for _, p := range b.removes {
		rel, err := j.rel(dir, p)
		if err != nil {
			return nil, err
		}
		j.Remove = append(j.Remove, journalMove{Path: rel})
	}
	if err := j.save(b.Journal); err != nil {
		return nil, err
	}
	return j, nil
}

// land records the names of the renames to come and saves the journal in
// its landing state.
func (j *journal) land(path string, st []*staged, backups []string, asides []movedAside) error {
	dir := filepath.Dir(path)
	for i, s := range st {
		j.Write[i].Tmp, _ = j.rel(dir, s.tmp)
		j.Write[i].Existed = backups[i] != ""
		if backups[i] != "" {
			j.Write[i].Old, _ = j.rel(dir, backups[i])
		}
	}
	j.Remove = j.Remove[:0]
	for _, m := range asides {
		p, _ := j.rel(dir, m.path)
		a, _ := j.rel(dir, m.aside)
		j.Remove = append(j.Remove, journalMove{Path: p, Aside: a})
	}
	j.State = journalLanding
	return j.save(path)
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
