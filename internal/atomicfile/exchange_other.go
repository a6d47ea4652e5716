//go:build !linux

package atomicfile

import "errors"

// exchangeDirs is not available here; replaceDir falls back to two renames.
func exchangeDirs(a, b string) error {
	return errors.New("atomic exchange is not supported on this system")
}
