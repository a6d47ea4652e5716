//go:build !unix

package atomicfile

import "os"

// tryLock takes no lock here, where flock(2) is not: runs are not
// serialized.
func tryLock(f *os.File, path string) (bool, error) { return true, nil }

func unlock(f *os.File) {}
