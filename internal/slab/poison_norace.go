//go:build !race

package slab

// poisonOnPut: see poison_race.go.
const poisonOnPut = false
