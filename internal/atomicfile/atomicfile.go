// Package atomicfile writes files and directory trees so that readers see
// either the old content or the whole new one, never part of it, even when
// the writer is killed: everything is written to a temporary name next to
// the target and renamed into place.
package atomicfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/fbc-project/fbc/internal/fault"
	"github.com/fbc-project/fbc/internal/safefs"
)

// ErrDirNotEmpty is returned (wrapped) when WriteDir would replace a
// directory that holds files without being allowed to: a Usage error.
var ErrDirNotEmpty = fault.Wrap(fault.Usage, errors.New("directory is not empty"))

// ExistsError is an output in the way: a file or directory that a write
// was not allowed to replace. It is a Usage error, and matches fs.ErrExist.
type ExistsError struct{ Path string }

func (e *ExistsError) Error() string         { return e.Path + " already exists" }
func (e *ExistsError) FaultKind() fault.Kind { return fault.Usage }
func (e *ExistsError) Is(target error) bool  { return target == fs.ErrExist }

// CheckDir reports whether WriteDir may write dir: it must not exist, be an
// empty directory, or (with replace) be a directory that is not the working
// directory, one of its parents, or a git checkout. A symbolic link counts as
// the directory it points to. Callers check early so that a long run does not
// end in a refusal; WriteDir checks again.
func CheckDir(dir string, replace bool) error {
	if _, err := os.Lstat(dir); err == nil {
		if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
			target, _ := os.Readlink(dir)
			return fmt.Errorf("%s is a symbolic link to %s, which does not exist", dir, target)
		}
	}
	st, err := os.Stat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%s exists and is not a directory", dir)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if len(ents) == 0 {
		return nil
	}
	if !replace {
		return fmt.Errorf("%s: %w", dir, ErrDirNotEmpty)
	}
	abs, err := filepath.Abs(resolveDir(dir))
	if err != nil {
		return err
	}
	if wd, err := os.Getwd(); err == nil {
		if real, err := filepath.EvalSymlinks(wd); err == nil {
			wd = real
		}
		if safefs.Within(wd, abs) {
			return fmt.Errorf("refusing to replace %s: it holds the working directory", dir)
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
		return fmt.Errorf("refusing to replace %s: it is a git checkout", dir)
	}
	return nil
}

// resolveDir follows dir to the directory it names when it is a symbolic
// link (or lies under one), so that a tree written "to" a link lands where
// the link points instead of replacing the link.
func resolveDir(dir string) string {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		return real
	}
	return filepath.Clean(dir)
}

// WriteDir makes dir hold exactly the tree fill writes into the empty
// directory tmp. The tree is built next to dir and renamed into place only
// when fill succeeds and ctx has not ended (an interrupt leaves dir as it
// was), so dir holds either its old content or the whole new tree, never
// part of it, even if the process is killed; on Linux an existing tree is
// swapped out in one step (renameat2 RENAME_EXCHANGE). fill should stop
// when ctx ends. dir must pass CheckDir(dir, replace). When dir is a
// symbolic link, the tree replaces the directory it points to and the link
// stays.
//
// A killed run leaves its temporary tree (.<name>.tmp-<pid>-<n>) next to
// dir; the next write to dir removes those whose process is gone, so that
// loading or building the parent folder does not pick up half a catalog.
func WriteDir(ctx context.Context, dir string, replace bool, fill func(tmp string) error) (err error) {
	if err := CheckDir(dir, replace); err != nil {
		return err
	}
	dir = resolveDir(dir)
	parent, base := filepath.Split(dir)
	if parent == "" {
		parent = "."
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	removeStaleTrees(parent, base)
	tmp, err := os.MkdirTemp(parent, fmt.Sprintf(".%s.tmp-%d-", base, os.Getpid()))
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
		untrack(tmp)
	}()
	if err := track(tmp); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	if err := fill(tmp); err != nil {
		return err
	}
	if err := commit(ctx, func() error { return replaceDir(tmp, dir, replace) }); err != nil {
		return err
	}
	// Swapped out, tmp holds the old tree now (renamed, it is gone).
	return os.RemoveAll(tmp)
}

// inFlight is what this process is writing: the temporary files and trees
// not yet renamed into place, for Abandon.
var inFlight struct {
	sync.Mutex
	temps     map[string]bool
	abandoned bool
}

// ErrAbandoned is returned by writes that Abandon stopped.
var ErrAbandoned = errors.New("abandoned: the process is ending")

func track(tmp string) error {
	inFlight.Lock()
	defer inFlight.Unlock()
	if inFlight.abandoned {
		os.RemoveAll(tmp)
		return ErrAbandoned
	}
	if inFlight.temps == nil {
		inFlight.temps = map[string]bool{}
	}
	inFlight.temps[tmp] = true
	return nil
}

func untrack(tmp string) {
	inFlight.Lock()
	defer inFlight.Unlock()
	delete(inFlight.temps, tmp)
}

// commit renames a finished temporary into place (rename), unless ctx has
// ended or the process abandons its writes: both leave the target as it
// was. Abandon waits for a rename under way.
func commit(ctx context.Context, rename func() error) error {
	inFlight.Lock()
	defer inFlight.Unlock()
	if inFlight.abandoned {
		return ErrAbandoned
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return rename()
}

// Abandon is for a process that must end now, with writes still under way
// (an interrupt the work did not heed in time): it removes every temporary
// file and tree this process is writing, and makes every later commit
// fail. Each target keeps its old content, or the whole new one where the
// rename was already done; nothing partial is left.
func Abandon() {
	inFlight.Lock()
	defer inFlight.Unlock()
	inFlight.abandoned = true
	for tmp := range inFlight.temps {
		os.RemoveAll(tmp)
	}
	inFlight.temps = nil
}

// removeStaleTrees removes the temporary trees of earlier writes to
// parent/base whose process no longer runs (killed before it could clean
// up). Trees of running processes, and anything not named exactly like a
// temporary tree, are left alone.
func removeStaleTrees(parent, base string) {
	ents, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	prefix := "." + base + ".tmp-"
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || !e.IsDir() {
			continue
		}
		pidText, n, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || !allDigits(n) || processRuns(pid) {
			continue
		}
		os.RemoveAll(filepath.Join(parent, e.Name()))
	}
}

func allDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// replaceDir moves the finished tree tmp to dir. Go's os.Rename refuses
// to replace any existing directory, even an empty one, so an existing dir
// is swapped out (or, where that is not possible, moved aside) instead.
func replaceDir(tmp, dir string, replace bool) error {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return os.Rename(tmp, dir)
	}
	if err != nil {
		return err
	}
	if len(ents) > 0 && !replace {
		// Something filled dir while the tree was being written.
		return fmt.Errorf("%s: %w", dir, ErrDirNotEmpty)
	}
	if exchangeDirs(tmp, dir) == nil {
		return nil // tmp holds the old content, for the caller to remove
	}
	old := filepath.Join(filepath.Dir(tmp), "."+filepath.Base(dir)+".old-"+filepath.Base(tmp))
	if err := os.Rename(dir, old); err != nil {
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		if rerr := os.Rename(old, dir); rerr != nil {
			return fmt.Errorf("%w (and restoring %s from %s failed: %v)", err, dir, old, rerr)
		}
		return err
	}
	return os.RemoveAll(old)
}

// WriteFile writes data to path through a temporary file in the same
// directory and a rename, so readers never see a partial file.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return Write(context.Background(), path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Write streams into a temporary file next to path and renames it into
// place only if write succeeds and ctx has not ended. write should stop
// when ctx ends.
func Write(ctx context.Context, path string, perm os.FileMode, write func(io.Writer) error) error {
	p, err := Create(path, perm)
	if err != nil {
		return err
	}
	if err := write(p); err != nil {
		p.Abort()
		return err
	}
	return p.commit(ctx)
}

// Pending is a file being written under a temporary name next to its path,
// for content that arrives piece by piece (a download teed into a cache)
// rather than from one callback: Commit renames it into place, Abort
// removes it. Exactly one of them must be called.
type Pending struct {
	f    *os.File
	path string
	perm os.FileMode
}

// Create starts a Pending file for path, with perm once committed.
func Create(path string, perm os.FileMode) (*Pending, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return nil, err
	}
	if err := track(f.Name()); err != nil {
		f.Close()
		return nil, err
	}
	return &Pending{f: f, path: path, perm: perm}, nil
}

// Write appends to the temporary file.
func (p *Pending) Write(b []byte) (int, error) { return p.f.Write(b) }

// Commit makes the file whole on disk and renames it into place; on
// failure nothing is left behind.
func (p *Pending) Commit() error { return p.commit(context.Background()) }

func (p *Pending) commit(ctx context.Context) error {
	defer untrack(p.f.Name())
	err := p.finish()
	if err == nil {
		err = commit(ctx, func() error {
			if err := keepReplaced(p.f.Name(), p.path); err != nil {
				return err
			}
			return os.Rename(p.f.Name(), p.path)
		})
	}
	if err != nil {
		os.Remove(p.f.Name())
	}
	return err
}

// CommitUnsynced renames the file into place without waiting for the disk
// to have it: for content that is verified whenever it is read (a cache
// addressed by digest), where a file a crash cut short is noticed, removed
// and fetched again, so that the wait (an fsync per file, most of the cost
// of caching many small manifests) buys nothing.
func (p *Pending) CommitUnsynced() error {
	err := p.f.Chmod(p.perm)
	if cerr := p.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(p.f.Name(), p.path)
	}
	if err != nil {
		os.Remove(p.f.Name())
	}
	return err
}

// Abort removes the temporary file.
func (p *Pending) Abort() {
	p.f.Close()
	os.Remove(p.f.Name())
	untrack(p.f.Name())
}

// finish sets the permissions, syncs and closes the temporary file.
func (p *Pending) finish() error {
	if err := p.f.Chmod(p.perm); err != nil {
		p.f.Close()
		return err
	}
	if err := p.f.Sync(); err != nil {
		p.f.Close()
		return err
	}
	return p.f.Close()
}

// keepReplaced gives tmp the owner and group of the regular file at path
// it is about to replace (keepOwner); nothing when path is new.
func keepReplaced(tmp, path string) error {
	old, err := os.Lstat(path)
	if err != nil || !old.Mode().IsRegular() {
		return nil
	}
	if err := keepOwner(tmp, old); err != nil {
		var oe *OwnerError
		if errors.As(err, &oe) {
			oe.Path = path
		}
		return err
	}
	return nil
}

// OwnerError is a file that would change hands if rewritten: the system
// refuses to give the new content the old file's owner and group.
type OwnerError struct {
	Path     string
	UID, GID int
	Err      error
}

func (e *OwnerError) Error() string {
	return fmt.Sprintf("cannot keep the owner and group of %s (user %d, group %d) for its new content: %v; it is left as it was (rewrite it as its owner)", e.Path, e.UID, e.GID, e.Err)
}
func (e *OwnerError) Unwrap() error { return e.Err }

// WriteNew writes data to path through a temporary file, like WriteFile,
// but refuses to replace an existing path (*ExistsError): the file is
// linked into place, which fails when the name is taken.
func WriteNew(path string, data []byte, perm os.FileMode) error {
	tmp, err := writeTemp(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
	if err != nil {
		return err
	}
	defer untrack(tmp)
	defer os.Remove(tmp)
	return commit(context.Background(), func() error {
		if err := os.Link(tmp, path); err != nil {
			if errors.Is(err, fs.ErrExist) {
				return &ExistsError{Path: path}
			}
			// File systems without hard links: check, then rename.
			if _, serr := os.Lstat(path); serr == nil {
				return &ExistsError{Path: path}
			}
			return os.Rename(tmp, path)
		}
		return nil
	})
}

// writeTemp writes a complete temporary file next to path and returns its
// name; on failure nothing is left behind.
func writeTemp(path string, perm os.FileMode, write func(io.Writer) error) (string, error) {
	p, err := Create(path, perm)
	if err != nil {
		return "", err
	}
	if err := write(p); err != nil {
		p.Abort()
		return "", err
	}
	if err := p.finish(); err != nil {
		os.Remove(p.f.Name())
		untrack(p.f.Name())
		return "", err
	}
	return p.f.Name(), nil
}

// TempDir makes a scratch folder (os.MkdirTemp's pattern) for work that
// is read, not landed, such as a revision's files: remove deletes it, and
// Abandon does too when the process must end before it is removed.
func TempDir(pattern string) (dir string, remove func(), err error) {
	dir, err = os.MkdirTemp("", pattern)
	if err != nil {
		return "", nil, err
	}
	if err := track(dir); err != nil {
		return "", nil, err
	}
	return dir, func() {
		os.RemoveAll(dir)
		untrack(dir)
	}, nil
}
