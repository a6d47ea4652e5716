// Package slab keeps large byte buffers for reuse: the manifests of a
// bundle on their way to fbc-profile and back out of the pipe there. Each
// bundle's manifests are tens of kilobytes to megabytes, held only until
// its findings come back; allocating them afresh for every bundle made the
// garbage collector run, and the kernel zero new pages, for tens of
// megabytes per catalog that a handful of buffers can carry.
package slab

import "sync"

// minSize is the smallest buffer a Pool makes: below it, reuse saves
// little and the collector copes well.
const minSize = 64 << 10

// Pool is a bounded free list of buffers, safe for concurrent use. Its zero
// value keeps no buffer; make one with New.
type Pool struct {
	mu   sync.Mutex
	free [][]byte
	keep int
	// poison overwrites each buffer handed back (poisonOnPut).
	poison bool
}

// New makes a pool that keeps at most keep free buffers.
func New(keep int) *Pool { return &Pool{keep: keep, poison: poisonOnPut} }

// Get returns an empty buffer with room for at least n bytes: a free one if
// one is large enough, else a new one.
func (p *Pool) Get(n int) []byte {
	p.mu.Lock()
	best := -1
	for i, b := range p.free {
		if cap(b) >= n && (best < 0 || cap(b) < cap(p.free[best])) {
			best = i
		}
	}
	if best >= 0 {
		b := p.free[best]
		last := len(p.free) - 1
		p.free[best] = p.free[last]
		p.free[last] = nil
		p.free = p.free[:last]
		p.mu.Unlock()
		return b[:0]
	}
	p.mu.Unlock()
	return make([]byte, 0, max(n, minSize))
}

// Put hands a buffer back once nothing refers to its bytes any longer. When
// the pool is full, the smallest buffer is let go.
func (p *Pool) Put(b []byte) {
	if p.poison {
		b = b[:cap(b)]
		for i := range b {
			b[i] = 0xff
		}
	}
	if cap(b) < minSize {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.free) < p.keep {
		p.free = append(p.free, b)
		return
	}
	smallest := -1
	for i, f := range p.free {
		if cap(f) < cap(b) && (smallest < 0 || cap(f) < cap(p.free[smallest])) {
			smallest = i
		}
	}
	if smallest >= 0 {
		p.free[smallest] = b
	}
}
