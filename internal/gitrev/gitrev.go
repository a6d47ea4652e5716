// Package gitrev reads what a git revision of a repository holds, to judge
// a working tree's change against it: which paths differ, and the files
// of some of them at the revision, in a scratch folder that is removed
// afterwards. It runs git.
package gitrev

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"github.com/fbc-project/fbc/internal/atomicfile"
	"github.com/fbc-project/fbc/internal/fault"
)

// Repo is a git working tree.
type Repo struct {
	// Top is the working tree's top folder, absolute.
	Top string
}

// Open finds the git working tree that holds dir.
func Open(ctx context.Context, dir string) (*Repo, error) {
	out, err := git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		var ge *gitError
		if errors.As(err, &ge) {
			return nil, fault.Errorf(fault.Usage, "%s is not in a git repository, where a revision could be read: %s", dir, ge.msg)
		}
		return nil, err
	}
	top := strings.TrimSpace(out)
	if real, err := filepath.EvalSymlinks(top); err == nil {
		top = real
	}
	return &Repo{Top: top}, nil
}

// Commit resolves rev (a branch, tag, commit or expression such as
// origin/main or HEAD~1) to a commit.
func (r *Repo) Commit(ctx context.Context, rev string) (string, error) {
	if strings.HasPrefix(rev, "-") {
		return "", fault.Errorf(fault.Usage, "revision %q is not a revision (it starts with -)", rev)
	}
	out, err := git(ctx, r.Top, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		var ge *gitError
		if errors.As(err, &ge) {
			return "", r.missing(ctx, rev)
		}
		return "", err
	}
	return strings.TrimSpace(out), nil
}

// missing says why rev names no commit, and what to do: a repository
// with no commits has none to compare with, and a shallow clone (what CI
// checks out unless told otherwise) lacks the base branch until it is
// fetched. Not a misuse of a flag: exit 2 without the pointer to --help.
func (r *Repo) missing(ctx context.Context, rev string) error {
	if _, err := git(ctx, r.Top, "rev-parse", "--verify", "--quiet", "HEAD"); err != nil {
		return fault.Errorf(fault.Run, "the git repository %s has no commits yet: there is no revision %q to compare with", r.Top, rev)
	}
	msg := fmt.Sprintf("revision %q does not exist in the git repository %s", rev, r.Top)
	out, _ := git(ctx, r.Top, "rev-parse", "--is-shallow-repository")
	shallow := strings.TrimSpace(out) == "true"
	remote, branch, remoteLike := strings.Cut(rev, "/")
	switch {
	case shallow && remoteLike:
		msg += fmt.Sprintf("; the clone is shallow, as CI checkouts are unless told otherwise: fetch the base first (git fetch %s %s, or fetch-depth: 0 in actions/checkout)", remote, branch)
	case shallow:
		msg += "; the clone is shallow, as CI checkouts are unless told otherwise: fetch the base first (fetch-depth: 0 in actions/checkout)"
	case remoteLike:
		msg += fmt.Sprintf(" (if %s is a remote's branch, fetch it first: git fetch %s %s)", rev, remote, branch)
	}
	return fault.Errorf(fault.Run, "%s", msg)
}

// Changed lists the files under paths (relative to Top; none: all) that
// differ between commit and the working tree: changed, added, deleted or
// untracked and not ignored. Paths are relative to Top, with slashes.
func (r *Repo) Changed(ctx context.Context, commit string, paths ...string) ([]string, error) {
	diff, err := git(ctx, r.Top, append([]string{"diff", "--name-only", "--no-renames", "-z", commit, "--"}, paths...)...)
	if err != nil {
		return nil, err
	}
	untracked, err := git(ctx, r.Top, append([]string{"ls-files", "--others", "--exclude-standard", "-z", "--"}, paths...)...)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, s := range strings.Split(diff+untracked, "\x00") {
		if s != "" {
			out = append(out, s)
		}
	}
	return out, nil
}

// Tree is the files of some paths at a commit, in a scratch folder.
type Tree struct {
	// Dir is the folder that stands for the repository's top.
	Dir    string
	remove func()
}

// Close removes the scratch folder.
func (t *Tree) Close() {
	if t.remove != nil {
		t.remove()
		t.remove = nil
	}
}

// Extract writes the files of paths (relative to Top) at commit into a
// scratch folder, laid out as in the repository. A path the commit does
// not have is left out.
func (r *Repo) Extract(ctx context.Context, commit string, paths []string) (*Tree, error) {
	dir, remove, err := atomicfile.TempDir("fbc-base-*")
	if err != nil {
		return nil, err
	}
	t := &Tree{Dir: dir, remove: remove}
	for _, p := range paths {
		p = strings.Trim(filepath.ToSlash(p), "/")
		spec := commit + ":" + p
		if p == "" || p == "." {
			spec, p = commit, ""
		}
		if _, err := git(ctx, r.Top, "cat-file", "-e", spec); err != nil {
			var ge *gitError
			if errors.As(err, &ge) {
				continue // not at this commit
			}
			t.Close()
			return nil, err
		}
		kind, err := git(ctx, r.Top, "cat-file", "-t", spec)
		if err != nil {
			t.Close()
			return nil, err
		}
		if strings.TrimSpace(kind) == "blob" {
			data, err := git(ctx, r.Top, "cat-file", "blob", spec)
			if err == nil {
				err = writeFile(filepath.Join(dir, filepath.FromSlash(p)), []byte(data))
			}
			if err != nil {
				t.Close()
				return nil, err
			}
			continue
		}
		prefix := ""
		if p != "" {
			prefix = p + "/"
		}
		tarball, err := git(ctx, r.Top, "archive", "--format=tar", "--prefix="+prefix, spec)
		if err == nil {
			err = untar(ctx, []byte(tarball), dir)
		}
		if err != nil {
			t.Close()
			return nil, fmt.Errorf("reading %s at %s: %w", p, commit, err)
		}
	}
	return t, nil
}

// untar writes a tar stream's folders, regular files and symbolic links
// that stay inside dest.
func untar(ctx context.Context, tarball []byte, dest string) error {
	tr := tar.NewReader(bytes.NewReader(tarball))
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := path.Clean(h.Name)
		if path.IsAbs(name) || name == ".." || strings.HasPrefix(name, "../") {
			return fmt.Errorf("archive entry %q leaves the tree", h.Name)
		}
		p := filepath.Join(dest, filepath.FromSlash(name))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			data, err := io.ReadAll(tr)
			if err != nil {
				return err
			}
			if err := writeFile(p, data); err != nil {
				return err
			}
		case tar.TypeSymlink:
			target := path.Join(path.Dir(name), h.Linkname)
			if path.IsAbs(h.Linkname) || target == ".." || strings.HasPrefix(target, "../") {
				continue // a link out of the tree is not followed
			}
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			if err := os.Symlink(h.Linkname, p); err != nil {
				return err
			}
		}
	}
}

func writeFile(p string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, data, 0o644)
}

// gitError is git refusing a request (exit status not 0), with the first
// line it printed.
type gitError struct{ msg string }

func (e *gitError) Error() string { return e.msg }

// git runs git in dir and returns its standard output.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir, "-c", "core.quotepath=off"}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// Nothing here reaches a remote (no prompt for credentials) or pages:
	// standard output is a pipe.
	err := cmd.Run()
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		msg, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n")
		if msg == "" {
			msg = fmt.Sprintf("git %s exited %d", args[0], ee.ExitCode())
		}
		return "", &gitError{msg: msg}
	case errors.Is(err, exec.ErrNotFound):
		return "", fault.Errorf(fault.Run, "reading a git revision needs git, which is not installed (not on PATH)")
	case err != nil:
		return "", fault.Errorf(fault.Run, "running git: %v", err)
	}
	return stdout.String(), nil
}

// SplitSpec reads REV:PATH, git's way of naming a path at a revision
// (origin/main:catalog, HEAD~1:catalogs/v4.18). ok is false for text that
// is not of that form.
func SplitSpec(s string) (rev, path string, ok bool) {
	rev, path, ok = strings.Cut(s, ":")
	if !ok || rev == "" || strings.HasPrefix(rev, "-") {
		return "", "", false
	}
	return rev, path, true
}

// Checkout writes PATH at revision rev of the repository that holds
// workDir into a scratch tree, and returns where PATH is in it. PATH is
// relative to the repository's top, or to workDir when it starts with ./
// or ../ (as git reads it). A PATH the revision does not have is a Usage
// error naming both.
func Checkout(ctx context.Context, workDir, rev, p string) (string, *Tree, error) {
	return checkout(ctx, workDir, rev, p, p)
}

// CheckoutPath is Checkout for a path of the working tree, named as every
// path of a command line is (from workDir unless absolute): the same path
// at revision rev of the repository that holds it, as fbc diff --base REV
// PATH compares them. A PATH the working tree no longer has is read from
// the repository around its nearest folder that exists.
func CheckoutPath(ctx context.Context, workDir, rev, p string) (string, *Tree, error) {
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(workDir, p)
	}
	dir := filepath.Clean(abs)
	for !isDir(dir) && filepath.Dir(dir) != dir {
		dir = filepath.Dir(dir)
	}
	rel, err := filepath.Rel(dir, abs)
	if err != nil {
		return "", nil, err
	}
	return checkout(ctx, dir, rev, "./"+filepath.ToSlash(rel), p)
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// checkout is Checkout naming p as shown in messages.
func checkout(ctx context.Context, workDir, rev, p, shown string) (string, *Tree, error) {
	r, err := Open(ctx, workDir)
	if err != nil {
		return "", nil, err
	}
	commit, err := r.Commit(ctx, rev)
	if err != nil {
		return "", nil, err
	}
	rel, err := r.Rel(workDir, p)
	if err != nil {
		return "", nil, fault.Errorf(fault.Usage, "%s is outside the git repository %s", shown, r.Top)
	}
	t, err := r.Extract(ctx, commit, []string{rel})
	if err != nil {
		return "", nil, err
	}
	where := filepath.Join(t.Dir, filepath.FromSlash(rel))
	if _, err := os.Lstat(where); err != nil {
		t.Close()
		return "", nil, fault.Errorf(fault.Run, "%s does not exist at revision %s", shown, rev)
	}
	return where, t, nil
}

// Rel names path p relative to the repository's top, with slashes: a path
// given to git after REV:, which is from the top unless it starts with ./
// or ../, where it is from workDir. An absolute p must be inside the
// working tree.
func (r *Repo) Rel(workDir, p string) (string, error) {
	switch {
	case filepath.IsAbs(p):
	case p == "." || p == ".." || strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../"):
		p = filepath.Join(workDir, p)
	default:
		p = filepath.Join(r.Top, p)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	// Top has its links resolved, and so must the folders above p: a link
	// that is p itself names a file of the tree (git keeps links), unless
	// only following it leads into the tree, as a link to the checkout or
	// to a folder of it does.
	named := abs
	if real, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		named = filepath.Join(real, filepath.Base(abs))
	}
	rel, ok := r.inside(named)
	if !ok {
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			rel, ok = r.inside(real)
		}
	}
	if !ok {
		return "", fault.Errorf(fault.Usage, "%s is outside the git repository %s", p, r.Top)
	}
	return filepath.ToSlash(rel), nil
}

// inside names abs from Top; ok is false for a path outside the tree.
func (r *Repo) inside(abs string) (rel string, ok bool) {
	rel, err := filepath.Rel(r.Top, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}
