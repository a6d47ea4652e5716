// Package progress counts a command's work as it is found and done, from
// any number of goroutines, for a display that reads the counts at its own
// pace (cmd draws them on a terminal). Counting costs two atomic additions;
// a nil *Counter counts nothing, so libraries count unconditionally.
package progress

import "sync/atomic"

// Counter counts units of work (files read, sources rendered, images
// pulled): Found when they are known to be ahead, Done as each is
// finished. Both only grow, so a display of them never goes backwards.
type Counter struct {
	found, done atomic.Int64
}

// Found adds n units of work ahead.
func (c *Counter) Found(n int) {
	if c != nil && n > 0 {
		c.found.Add(int64(n))
	}
}

// Done marks n units finished.
func (c *Counter) Done(n int) {
	if c != nil && n > 0 {
		c.done.Add(int64(n))
	}
}

// Counts returns the units done and found so far; done never exceeds
// found (a unit done before it was announced counts as found).
func (c *Counter) Counts() (done, found int64) {
	if c == nil {
		return 0, 0
	}
	// done first: found read afterwards is at least what done had seen.
	done = c.done.Load()
	found = c.found.Load()
	return done, max(found, done)
}
