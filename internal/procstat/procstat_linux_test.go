package procstat

import (
	"os"
	"os/exec"
	"testing"
)

// On Linux every figure is read: a test process has used CPU and memory,
// and so has a finished child.
func TestFiguresAreRead(t *testing.T) {
	buf := make([]byte, 8<<20)
	for i := range buf {
		buf[i] = byte(i)
	}
	if CPUTime() <= 0 {
		t.Error("CPUTime is 0")
	}
	self := PeakRSS()
	if self < int64(len(buf)) {
		t.Errorf("PeakRSS = %d, below the %d bytes just touched", self, len(buf))
	}
	running := Running(os.Getpid())
	// VmHWM and ru_maxrss count the same high-water mark.
	if running < int64(len(buf)) || running > 2*self {
		t.Errorf("Running(self) = %d, want near PeakRSS %d", running, self)
	}
	if Running(-1) != 0 {
		t.Error("Running of no process is not 0")
	}
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no true to run:", err)
	}
	if _, rss := Child(cmd.ProcessState); rss <= 0 {
		t.Errorf("Child rss = %d", rss)
	}
	if cpu, rss := Child(nil); cpu != 0 || rss != 0 {
		t.Error("Child(nil) is not zero")
	}
	_ = buf[len(buf)-1]
}
