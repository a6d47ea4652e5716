package atomicfile

import "golang.org/x/sys/unix"

// exchangeDirs swaps two paths in one step, so that readers of b see either
// its old or its new content.
func exchangeDirs(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}
