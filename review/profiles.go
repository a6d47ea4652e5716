package review

import (
	"math"
	"runtime"

	"github.com/fbc-project/fbc/validate/profiles"
)

// profileShare is how many processors fbc keeps out of n while fbc-profile
// checks a catalog's bundles with all n: reading the catalog is about a
// third of the CPU time of a profile run (0.45 of 1.3 s over certified
// v4.16), and both programs at full width made twice as many threads as
// processors, which the kernel then switched between. On the 2-core
// machine this is measured on, fbc with one processor cut the run's CPU
// time by 8% and its wall time by 4% (medians of 21 alternating runs).
func profileShare(n int) int {
	return max(1, int(math.Round(0.35*float64(n))))
}

// profileRun is an fbc-profile run and the processors fbc gave up for it.
type profileRun struct {
	*profiles.Client
	procs int // fbc's own before the run, -1 when unchanged
}

// Close ends the run and gives fbc its processors back.
func (r *profileRun) Close() {
	if r.Client != nil {
		r.Client.Close()
	}
	if r.procs > 0 {
		runtime.GOMAXPROCS(r.procs)
		r.procs = -1
	}
}
