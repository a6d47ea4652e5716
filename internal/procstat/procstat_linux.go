package procstat

import (
	"bytes"
	"os"
	"strconv"
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

// runningRSS reads VmHWM, the high-water mark of resident memory, from
// /proc/<pid>/status, where Linux gives it in kilobytes.
func runningRSS(pid int) int64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			n, _ := strconv.ParseInt(string(bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(v), []byte("kB")))), 10, 64)
			return n << 10
		}
	}
	return 0
}
