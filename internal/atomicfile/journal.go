package atomicfile

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// A batch's journal is what Commit does, written down before it does it,
// in a file of a folder that holds every path of the batch (Batch.Journal):
// a Commit killed with SIGKILL, or cut short at its end, leaves it, and
// RecoverBatch finishes the batch or undoes it. Paths in it are relative
// to the journal's folder and slash-separated. Three states:
//
//   - "staging": nothing is renamed yet; new files are being written under
//     temporary names (.NAME.tmp-*) next to their targets, and Mkdir lists
//     the folders made for them. Undone: the temporary files and the
//     folders (when empty) are removed, and every target is as it was.
//   - "landing": every new file is written whole, under Tmp; Commit now
//     moves each Remove path to its Aside name, then links each replaced
//     file to its Old name and renames Tmp onto Path. Finished (every Tmp
//     not yet renamed is renamed, Old and Aside removed) when every Tmp
//     that is still needed is there; undone otherwise (Old renamed back,
//     new files removed, Aside renamed back).
//   - "landed": every file is in place; Commit removes the Old and Aside
//     names. Finished.
type journal struct {
	Version int            `json:"fbc-batch"`
	PID     int            `json:"pid"`
	Started time.Time      `json:"started"`
	State   string         `json:"state"`
	Mkdir   []string       `json:"mkdir,omitempty"`
	Write   []journalWrite `json:"write,omitempty"`
	Remove  []journalMove  `json:"remove,omitempty"`
}

type journalWrite struct {
	Path    string `json:"path"`
	Existed bool   `json:"existed,omitempty"`
	Tmp     string `json:"tmp,omitempty"`
	Old     string `json:"old,omitempty"`
}

type journalMove struct {
	Path  string `json:"path"`
	Aside string `json:"aside,omitempty"`
}

const (
	journalStaging = "staging"
	journalLanding = "landing"
	journalLanded  = "landed"
)

// rel names path from the journal's folder.
func (j *journal) rel(dir, path string) (string, error) {
	r, err := filepath.Rel(dir, path)
	if err != nil || r == "." || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s is not inside %s, the folder of the batch's journal", path, dir)
	}
	return filepath.ToSlash(r), nil
}

// save writes the journal whole (a temporary file, synced, renamed).
func (j *journal) save(path string) error {
	data, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return err
	}
	p, err := Create(path, 0o644)
	if err != nil {
		return err
	}
	if _, err := p.Write(append(data, '\n')); err != nil {
		p.Abort()
		return err
	}
	return p.commit(context.Background())
}

// JournalError is a journal that cannot be read or acted on: fbc did not
// write it, or the files it names are not where it says. Nothing is
// changed; the message says what to look at.
type JournalError struct {
	Path string
	Err  error
}

func (e *JournalError) Error() string {
	return fmt.Sprintf("%s: %v; nothing was changed: look at the files it names, and remove it once they are as they should be", e.Path, e.Err)
}

func (e *JournalError) Unwrap() error { return e.Err }

// Interrupted is what a journal left by an interrupted Commit says.
type Interrupted struct {
	// Journal is the file.
	Journal string
	PID     int
	Started time.Time
	// Landing is set when every new file was written whole and the
	// renames had begun; Landed and Pending are then the files renamed
	// into place and those not yet (absolute paths), Removed the paths
	// already removed.
	Landing                  bool
	Landed, Pending, Removed []string
	// Finishable is set when the batch can be finished (every pending
	// file's new content is there); it is undone otherwise.
	Finishable bool
}

// ReadJournal says what the journal at path, left by an interrupted Commit,
// holds; nil when there is none.
func ReadJournal(path string) (*Interrupted, error) {
	j, err := loadJournal(path)
	if j == nil || err != nil {
		return nil, err
	}
	dir := filepath.Dir(path)
	in := &Interrupted{Journal: path, PID: j.PID, Started: j.Started, Landing: j.State != journalStaging, Finishable: j.State != journalStaging}
	if !in.Landing {
		return in, nil
	}
	abs := func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }
	for _, w := range j.Write {
		target := abs(w.Path)
		switch {
		case j.State == journalLanded || j.placed(dir, w):
			in.Landed = append(in.Landed, target)
		default:
			in.Pending = append(in.Pending, target)
			if !exists(abs(w.Tmp)) {
				// Its new content is gone (an interrupt removed it before
				// its rename): the batch can only be undone.
				in.Finishable = false
			}
		}
	}
	for _, r := range j.Remove {
		if !exists(filepath.Join(dir, filepath.FromSlash(r.Path))) {
			in.Removed = append(in.Removed, filepath.Join(dir, filepath.FromSlash(r.Path)))
		}
	}
	return in, nil
}

// placed reports whether a write of a journal in landing state is in
// place: its temporary file is gone, and the file at its path is not the
// one it replaces (kept under Old, linked just before the rename) or, for
// a new file, is there.
func (j *journal) placed(dir string, w journalWrite) bool {
	abs := func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }
	if exists(abs(w.Tmp)) {
		return false
	}
	now, err := os.Lstat(abs(w.Path))
	if err != nil {
		return false
	}
	if !w.Existed {
		return true
	}
	old, err := os.Lstat(abs(w.Old))
	return err == nil && !os.SameFile(old, now)
}

// loadJournal reads and checks a journal: nil when there is none.
func loadJournal(path string) (*journal, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var j journal
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return nil, &JournalError{Path: path, Err: fmt.Errorf("not a journal fbc writes: %v", err)}
	}
	if err := j.check(filepath.Dir(path)); err != nil {
		return nil, &JournalError{Path: path, Err: err}
	}
	return &j, nil
}

// check refuses a journal fbc would not write: another version or state,
// a path out of its folder or through a symbolic link, a temporary or kept
// name that is not its path's.
func (j *journal) check(dir string) error {
	if j.Version != 1 {
		return fmt.Errorf("journal version %d, not 1", j.Version)
	}
	if j.State != journalStaging && j.State != journalLanding && j.State != journalLanded {
		return fmt.Errorf("unknown state %q", j.State)
	}
	sibling := func(path, name, kind string) error {
		if name == "" {
			if kind == "tmp" && j.State != journalStaging {
				return fmt.Errorf("%s has no temporary file", path)
			}
			return nil
		}
		if pathpkgDir(name) != pathpkgDir(path) || !strings.HasPrefix(pathpkgBase(name), "."+pathpkgBase(path)+"."+kind+"-") {
			return fmt.Errorf("%s is not a %s name of %s", name, kind, path)
		}
		return checkJournalPath(dir, name)
	}
	for _, d := range j.Mkdir {
		if err := checkJournalPath(dir, d); err != nil {
			return err
		}
	}
	for _, w := range j.Write {
		if err := checkJournalPath(dir, w.Path); err != nil {
			return err
		}
		if err := sibling(w.Path, w.Tmp, "tmp"); err != nil {
			return err
		}
		if w.Old != "" && !w.Existed {
			return fmt.Errorf("%s keeps an old file it did not have", w.Path)
		}
		if err := sibling(w.Path, w.Old, "old"); err != nil {
			return err
		}
	}
	for _, r := range j.Remove {
		if err := checkJournalPath(dir, r.Path); err != nil {
			return err
		}
		if err := sibling(r.Path, r.Aside, "old"); err != nil {
			return err
		}
	}
	return nil
}

// checkJournalPath refuses a path that leads out of dir, or whose folders
// below dir are symbolic links.
func checkJournalPath(dir, rel string) error {
	clean := filepath.ToSlash(filepath.Clean(filepath.FromSlash(rel)))
	if rel == "" || clean != rel || strings.HasPrefix(clean, "../") || clean == ".." || clean == "." || filepath.IsAbs(filepath.FromSlash(rel)) {
		return fmt.Errorf("%q is not a path inside the journal's folder", rel)
	}
	at := dir
	parts := strings.Split(clean, "/")
	for _, part := range parts[:len(parts)-1] {
		at = filepath.Join(at, part)
		if fi, err := os.Lstat(at); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symbolic link", at)
		}
	}
	return nil
}

func pathpkgDir(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

func pathpkgBase(p string) string { return p[strings.LastIndexByte(p, '/')+1:] }

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// RecoverBatch finishes or undoes the Commit that left the journal at
// path (see journal), then removes the journal; nil when there is none.
// Call it where no Commit with that journal runs (under the lock its
// writers hold). The Interrupted it returns says what it found, and
// whether the batch was finished (Finishable) or undone.
func RecoverBatch(path string) (*Interrupted, error) {
	in, err := ReadJournal(path)
	if in == nil || err != nil {
		return nil, err
	}
	j, err := loadJournal(path)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(path)
	abs := func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }
	var errs []error
	note := func(err error) {
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	switch {
	case in.Finishable:
		for _, r := range j.Remove {
			if r.Aside != "" && exists(abs(r.Aside)) {
				note(os.RemoveAll(abs(r.Aside)))
			} else {
				note(os.RemoveAll(abs(r.Path)))
			}
		}
		for _, w := range j.Write {
			if j.State == journalLanding && !j.placed(dir, w) {
				note(os.Rename(abs(w.Tmp), abs(w.Path)))
			}
			if w.Old != "" {
				note(os.Remove(abs(w.Old)))
			}
		}
	default:
		for i := len(j.Write) - 1; i >= 0; i-- {
			w := j.Write[i]
			switch {
			case w.Old != "" && exists(abs(w.Old)):
				note(os.Rename(abs(w.Old), abs(w.Path)))
			case !w.Existed && j.placed(dir, w):
				note(os.Remove(abs(w.Path))) // placed new: undone
			}
			if w.Tmp != "" {
				note(os.Remove(abs(w.Tmp)))
			} else {
				// Staging: the temporary files are not named yet.
				tmps, _ := filepath.Glob(filepath.Join(filepath.Dir(abs(w.Path)), "."+escapeGlob(filepath.Base(w.Path))+".tmp-*"))
				for _, t := range tmps {
					note(os.Remove(t))
				}
			}
		}
		for i := len(j.Remove) - 1; i >= 0; i-- {
			if r := j.Remove[i]; r.Aside != "" && exists(abs(r.Aside)) {
				note(os.Rename(abs(r.Aside), abs(r.Path)))
			}
		}
		for i := len(j.Mkdir) - 1; i >= 0; i-- {
			os.Remove(abs(j.Mkdir[i])) // only when empty
		}
	}
	if len(errs) > 0 {
		return in, fmt.Errorf("%s: recovering the batch an interrupted run left: %w (the journal is kept)", path, errors.Join(errs...))
	}
	if err := os.Remove(path); err != nil {
		return in, err
	}
	return in, nil
}

// escapeGlob quotes the characters filepath.Match reads in a name.
func escapeGlob(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
