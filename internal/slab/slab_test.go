package slab

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGetReusesTheSmallestBufferThatFits(t *testing.T) {
	p := New(4)
	small, large := p.Get(minSize), p.Get(4*minSize)
	require.GreaterOrEqual(t, cap(small), minSize)
	require.GreaterOrEqual(t, cap(large), 4*minSize)
	small = append(small, "manifest"...)
	p.Put(small)
	p.Put(large)

	got := p.Get(100)
	assert.Empty(t, got, "a buffer comes back empty")
	assert.Equal(t, cap(small), cap(got), "the smallest buffer that fits")
	assert.Same(t, &small[:1][0], &got[:1][0], "the same memory, not a copy")

	got = p.Get(2 * minSize)
	assert.Same(t, &large[:1][0], &got[:1][0])

	fresh := p.Get(8 * minSize)
	assert.GreaterOrEqual(t, cap(fresh), 8*minSize, "none fits: a new one")
}

func TestPutKeepsAtMostKeepBuffersAndTheLargest(t *testing.T) {
	p := New(2)
	a, b, c := make([]byte, 0, minSize), make([]byte, 0, 2*minSize), make([]byte, 0, 3*minSize)
	p.Put(a)
	p.Put(b)
	p.Put(c) // full: c replaces a, the smallest
	require.Len(t, p.free, 2)
	caps := []int{cap(p.free[0]), cap(p.free[1])}
	assert.ElementsMatch(t, []int{2 * minSize, 3 * minSize}, caps)

	p.Put(make([]byte, 0, minSize)) // smaller than every kept one: let go
	assert.ElementsMatch(t, []int{2 * minSize, 3 * minSize}, []int{cap(p.free[0]), cap(p.free[1])})

	p.Put(make([]byte, 0, minSize/2)) // too small to keep at all
	assert.Len(t, p.free, 2)
}

func TestPoisonOverwritesWhatIsHandedBack(t *testing.T) {
	p := New(1)
	p.poison = true
	b := append(p.Get(10), "apiVersion: v1"...)
	kept := b[:4]
	p.Put(b)
	assert.Equal(t, []byte{0xff, 0xff, 0xff, 0xff}, kept, "a reference kept past Put reads garbage")
}
