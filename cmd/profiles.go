package cmd

import (
	"os"
	"os/exec"
	"path/filepath"

	"github.com/fbc-project/fbc/validate/profiles"
)

// findProfiles finds fbc-profile as git finds its git-* commands: next to
// the running fbc first, then on PATH.
func findProfiles() (string, error) {
	var here string
	if exe, err := os.Executable(); err == nil {
		here = filepath.Dir(exe)
		p := filepath.Join(here, profiles.Executable)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	if p, err := exec.LookPath(profiles.Executable); err == nil {
		return p, nil
	}
	return "", &profiles.NotInstalledError{Dir: here}
}
