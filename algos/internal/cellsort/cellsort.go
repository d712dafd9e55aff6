// Package cellsort orders points by the integer cells they fall in: the
// sort every grid of pctk's algorithms starts with (algos/voxel's voxels,
// algos/elm's cells, algos/internal/pairs' float64 grid).
package cellsort

import (
	"cmp"
	"math/bits"
	"slices"
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
// or three for a million points' cells); else by a comparison sort.
func Order(keys [][3]int64) (order []int32, starts []int32) {
	n := len(keys)
	order = make([]int32, n)
	if n == 0 {
		return order, []int32{0}
	}
	lo, hi := keys[0], keys[0]
	for _, k := range keys {
		for a := range 3 {
			lo[a], hi[a] = min(lo[a], k[a]), max(hi[a], k[a])
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
		for i, k := range keys {
			var w uint64
			for a := range 3 {
				w |= uint64(k[a]-lo[a]) << shift[a]
			}
			packed[i] = word{w, int32(i)}
		}
		packed = radix(packed, used)
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
// returns the sorted slice (ws or its scratch).
func radix(ws []word, used int) []word {
	tmp := make([]word, len(ws))
	for shift := 0; shift < used; shift += digit {
		var at [1 << digit]int
		for _, w := range ws {
			at[w.key>>shift&(1<<digit-1)]++
		}
		sum := 0
		for d, c := range at {
			at[d] = sum
			sum += c
		}
		for _, w := range ws {
			d := w.key >> shift & (1<<digit - 1)
			tmp[at[d]] = w
			at[d]++
		}
		ws, tmp = tmp, ws
	}
	return ws
}
