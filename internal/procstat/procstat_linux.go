package procstat

import (
	"os"
	"syscall"
	"time"
)

func self() usage {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	// Linux counts ru_maxrss in kilobytes.
	return usage{cpu: time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), rss: int64(ru.Maxrss) << 10}
}

func childRSS(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return int64(ru.Maxrss) << 10
	}
	return 0
}
