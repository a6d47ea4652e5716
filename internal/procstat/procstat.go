// Package procstat reads what the operating system counts of a process: the
// CPU time it used and its peak resident memory, for benchmarks that report
// them beside wall time (the benchmark machines are shared, so CPU time says
// more about the code than wall time does).
package procstat

import (
	"os"
	"time"
)

// CPUTime is the running process's user and system CPU time so far.
func CPUTime() time.Duration { return self().cpu }

// PeakRSS is the running process's peak resident memory so far, in bytes.
func PeakRSS() int64 { return self().rss }

// Child is what a finished child process used: its CPU time and its peak
// resident memory in bytes (0 where the system does not say).
func Child(ps *os.ProcessState) (cpu time.Duration, rss int64) {
	if ps == nil {
		return 0, 0
	}
	return ps.UserTime() + ps.SystemTime(), childRSS(ps)
}

// Running is the peak resident memory so far, in bytes, of a process that
// is still running (a server a benchmark loads); 0 where the system does
// not say or the process is gone.
func Running(pid int) int64 { return runningRSS(pid) }

type usage struct {
	cpu time.Duration
	rss int64
}
