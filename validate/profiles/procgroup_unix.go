//go:build unix

package profiles

import (
	"os/exec"
	"syscall"
)

// ownGroup starts fbc-profile as the leader of a process group of its
// own, which anything it starts joins: ending the group ends them all.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { killGroup(cmd); return nil }
}

// killGroup ends fbc-profile's process group: fbc-profile itself if it
// still runs, and whatever it started and left behind (a child that holds
// its output pipes open would otherwise outlive it and keep fbc waiting
// for the end of that output). Once fbc-profile has been waited for, its
// id still names the group as long as a member is left, and no other
// process or group can take it meanwhile.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
