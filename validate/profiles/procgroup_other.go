//go:build !unix

package profiles

import "os/exec"

// ownGroup leaves fbc-profile's process as it is: process groups are a
// Unix notion.
func ownGroup(cmd *exec.Cmd) {}

// killGroup ends fbc-profile (elsewhere than on Unix, not its children).
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
