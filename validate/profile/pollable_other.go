//go:build !unix

package profile

import "os"

// pollable is f: only Unix pipes are made non-blocking (pollable_unix.go).
func pollable(f *os.File) *os.File { return f }
