//go:build !unix

package atomicfile

import "io/fs"

// keepOwner does nothing where files have no Unix owner and group.
func keepOwner(tmp string, old fs.FileInfo) error { return nil }
