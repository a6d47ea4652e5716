//go:build unix

package atomicfile

import (
	"io/fs"
	"os"
	"syscall"
)

// keepOwner gives tmp, the finished temporary file about to replace the
// file old describes, old's owner and group where they differ from its
// own: a file rewritten in place (fbc images pin, a release's templates)
// stays whose it was instead of passing to whoever runs fbc, root
// included. The system lets root give a file to anyone, and any user
// give it to a group of theirs; where it refuses, the rewrite is refused
// (*OwnerError) and the old file left as it was.
func keepOwner(tmp string, old fs.FileInfo) error {
	want, ok := old.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	fi, err := os.Lstat(tmp)
	if err != nil {
		return err
	}
	if have, ok := fi.Sys().(*syscall.Stat_t); ok && have.Uid == want.Uid && have.Gid == want.Gid {
		return nil
	}
	if err := os.Lchown(tmp, int(want.Uid), int(want.Gid)); err != nil {
		return &OwnerError{UID: int(want.Uid), GID: int(want.Gid), Err: err}
	}
	// Giving a file away may clear its set-id bits; the mode is the old
	// file's, or the one asked for, either way.
	return os.Chmod(tmp, fi.Mode().Perm())
}
