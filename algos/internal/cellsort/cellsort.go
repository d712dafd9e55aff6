// Package cellsort orders points by the integer cells they fall in: the
// sort every grid of pctk's algorithms starts with (algos/voxel's voxels,
// algos/elm's cells, algos/internal/pairs' float64 grid).
package cellsort

import (
	"cmp"
	"math/bits"
	"slices"

	"github.com/pctk/pctk/internal/par"
)

// Order returns the permutation that sorts the points by their cells
// (keys[i], compared axis 0 first), points of one cell in increasing
// index, and the start of each cell's run in it (starts has one more
// entry, len(keys)).
//
// When the cells' spans on the three axes fit 64 bits together (always,
// but for a grid of more than about 2^21 cells a side on every axis), the
// cells are packed into one word and sorted by a least-significant-digit
// radix sort (11-bit digits, as many passes as the word has digits: two
// or three for a million points' cells) on all cores; else by a
// comparison sort.
func Order(keys [][3]int64) (order []int32, starts []int32) {
	n := len(keys)
	order = make([]int32, n)
	if n == 0 {
		return order, []int32{0}
	}
	rs := par.Ranges(n, par.Grain)
	los, his := make([][3]int64, len(rs)), make([][3]int64, len(rs))
	par.For(rs, func(r, i0, i1 int) {
		lo, hi := keys[i0], keys[i0]
		for _, k := range keys[i0:i1] {
			for a := range 3 {
				lo[a], hi[a] = min(lo[a], k[a]), max(hi[a], k[a])
			}
		}
		los[r], his[r] = lo, hi
	})
	lo, hi := los[0], his[0]
	for r := range rs {
		for a := range 3 {
			lo[a], hi[a] = min(lo[a], los[r][a]), max(hi[a], his[r][a])
		}
	}
	var shift [3]int
	used := 0
	for a := 2; a >= 0; a-- {
		shift[a] = used
		used += bits.Len64(uint64(hi[a] - lo[a]))
	}
	if used <= 64 {
		packed := make([]word, n)
		par.For(rs, func(_, i0, i1 int) {
			for i := i0; i < i1; i++ {
				k := &keys[i]
				var w uint64
				for a := range 3 {
					w |= uint64(k[a]-lo[a]) << shift[a]
				}
				packed[i] = word{w, int32(i)}
			}
		})
		packed = radix(packed, used, rs)
		for j, p := range packed {
			order[j] = p.i
			if j == 0 || p.key != packed[j-1].key {
				starts = append(starts, int32(j))
			}
		}
		return order, append(starts, int32(n))
	}
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(i, j int32) int {
		ki, kj := &keys[i], &keys[j]
		return cmp.Or(cmp.Compare(ki[0], kj[0]), cmp.Compare(ki[1], kj[1]), cmp.Compare(ki[2], kj[2]), cmp.Compare(i, j))
	})
	for j, i := range order {
		if j == 0 || keys[i] != keys[order[j-1]] {
			starts = append(starts, int32(j))
		}
	}
	return order, append(starts, int32(n))
}

// word is a point's packed cell and its index.
type word struct {
	key uint64
	i   int32
}

// digit is the radix sort's digit in bits (a 16 KiB count).
const digit = 11

// radix sorts ws, whose keys have at most used bits, by key, stably, and
// returns the sorted slice (ws or its scratch). Each pass counts the
// digits of each range of rs (consecutive ranges of ws) on all cores, and
// each range scatters its words to where its digits start after those of
// the ranges before it: the order of one serial pass.
func radix(ws []word, used int, rs [][2]int) []word {
	tmp := make([]word, len(ws))
	at := make([][1 << digit]int, len(rs))
	for shift := 0; shift < used; shift += digit {
		par.For(rs, func(r, lo, hi int) {
			c := &at[r]
			clear(c[:])
			for _, w := range ws[lo:hi] {
				c[w.key>>shift&(1<<digit-1)]++
			}
		})
		sum := 0
		for d := range 1 << digit {
			for r := range at {
				c := at[r][d]
				at[r][d] = sum
				sum += c
			}
		}
		par.For(rs, func(r, lo, hi int) {
			c := &at[r]
			for _, w := range ws[lo:hi] {
				d := w.key >> shift & (1<<digit - 1)
				tmp[c[d]] = w
				c[d]++
			}
		})
		ws, tmp = tmp, ws
	}
	return ws
}
