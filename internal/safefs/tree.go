package safefs

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/fbc-project/fbc/internal/fault"
)

// OutsideError is a symbolic link in a tree that leads outside the tree:
// following it would read (and copy, or publish) a file the tree does not
// hold, such as ~/.docker/config.json.
type OutsideError struct {
	Link   string // the link, as walked
	Target string // the real path it leads to
	Root   string // the tree, as given
}

// FaultKind is Input: the tree holds a link it must not.
func (e *OutsideError) FaultKind() fault.Kind { return fault.Input }

func (e *OutsideError) Error() string {
	return fmt.Sprintf("%s: symbolic link to %s, which is outside %s: only what the directory holds is read; copy the file in instead of linking to it", e.Link, e.Target, e.Root)
}

// Within reports whether path is dir or inside it; both are cleaned
// absolute paths, or both relative to the same directory.
func Within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// Overlap says how path a stands to path b, both cleaned absolute paths
// (RealPath's): "is" the same path, "holds" b, "lies inside" b, or "" when
// they are apart. Writing or replacing a where it overlaps b changes b.
func Overlap(a, b string) string {
	switch {
	case a == b:
		return "is"
	case Within(b, a):
		return "holds"
	case Within(a, b):
		return "lies inside"
	}
	return ""
}

// RealPath is p absolute, with symbolic links resolved as far as p exists:
// the part below its nearest existing parent is kept as written.
func RealPath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	var rest []string
	for {
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			return filepath.Join(append([]string{real}, rest...)...), nil
		}
		parent := filepath.Dir(abs)
		if parent == abs {
			return filepath.Join(append([]string{abs}, rest...)...), nil
		}
		rest = append([]string{filepath.Base(abs)}, rest...)
		abs = parent
	}
}

// Tree is a directory whose symbolic links must lead inside it.
type Tree struct {
	dir  string // as given
	real string // absolute, with its own links resolved
}

// NewTree returns the Tree at dir. dir itself may be a symbolic link: the
// tree is the directory it leads to.
func NewTree(dir string) (*Tree, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, err
	}
	if real, err = filepath.Abs(real); err != nil {
		return nil, err
	}
	return &Tree{dir: dir, real: real}, nil
}

// Resolve follows name, a path inside the tree (the tree's directory joined
// with a relative path, as a walk finds it), through every symbolic link on
// the way and returns the real path it names. A path that leads outside
// the tree is an *OutsideError; one that leads nowhere is the file
// system's error.
func (t *Tree) Resolve(name string) (string, error) {
	real, err := filepath.EvalSymlinks(name)
	if err != nil {
		return "", err
	}
	if real, err = filepath.Abs(real); err != nil {
		return "", err
	}
	if !Within(real, t.real) {
		return "", &OutsideError{Link: name, Target: real, Root: t.dir}
	}
	return real, nil
}

// Entry is one thing a tree holds, walked for copying.
type Entry struct {
	// Rel is the slash-separated path under the tree's root ("." is the
	// root itself).
	Rel string
	// Path is the path walked (a symbolic link's own path).
	Path string
	// Dir is set for directories; everything else is a regular file.
	Dir bool
	// real is the regular file's path with its links resolved.
	real string
}

// Open opens a file entry for reading: the regular file itself, or the one
// its symbolic link leads to. A file that has turned into something else
// since the walk found it is a *NotRegularError, without blocking.
func (e Entry) Open() (*os.File, error) {
	f, err := Open(e.real)
	if nre, ok := err.(*NotRegularError); ok {
		nre.Path = e.Path
	}
	return f, err
}

// WalkTree walks the tree at dir to copy it: parents before their
// children, names in lexical order, ctx checked at each entry. Every entry
// fn sees is a directory or a regular file; a symbolic link to a regular
// file inside the tree counts as that file. A link that leads outside the
// tree (*OutsideError), a link to a directory, a link that leads nowhere
// and a special file (a named pipe, a socket, a device) are errors naming
// the path. WalkTree knows no ignore files: a file hidden from reading
// (.indexignore) is still copied, so it is held to the same rules.
func WalkTree(ctx context.Context, dir string, fn func(Entry) error) error {
	t, err := NewTree(dir)
	if err != nil {
		return err
	}
	// The real directory is walked (WalkDir would not enter a link), and
	// paths are named under dir as given.
	return filepath.WalkDir(t.real, func(walked string, d fs.DirEntry, werr error) error {
		rel, err := filepath.Rel(t.real, walked)
		if err != nil {
			return err
		}
		p := filepath.Join(dir, rel)
		if werr != nil {
			if pe, ok := werr.(*fs.PathError); ok {
				pe.Path = p
			}
			return werr
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		e := Entry{Rel: filepath.ToSlash(rel), Path: p, real: walked}
		mode := d.Type()
		if mode&fs.ModeSymlink != 0 {
			real, err := t.Resolve(walked)
			if err != nil {
				if oe, ok := err.(*OutsideError); ok {
					oe.Link = p
					return oe
				}
				return fmt.Errorf("%s: symbolic link cannot be followed: %w", p, err)
			}
			st, err := os.Stat(real)
			if err != nil {
				return fmt.Errorf("%s: symbolic link cannot be followed: %w", p, err)
			}
			if st.IsDir() {
				return fmt.Errorf("%s: symbolic link to a directory: a copied tree cannot hold one; copy the directory instead", p)
			}
			e.real, mode = real, st.Mode().Type()
		}
		switch {
		case mode.IsDir():
			e.Dir = true
		case !mode.IsRegular():
			return &NotRegularError{Path: p, Mode: mode}
		}
		return fn(e)
	})
}
