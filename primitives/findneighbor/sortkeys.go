package findneighbor

import (
	"math/bits"
	"slices"
)

// spatialOrder returns the permutation that sorts n items by key(i)
// (stable: equal keys keep increasing i) and the sorted keys. keyBits is
// the number of significant bits of the keys. Keys below 2³² go through
// an LSD radix sort of packed key<<32|i words (16 bytes per item with its
// buffer); wider keys through a comparison sort of (key, i) pairs.
func spatialOrder(n int, keyBits int, nw int, key func(i int) uint64) (perm []int32, keys []uint64) {
	perm = make([]int32, n)
	if keyBits > 32 {
		type pair struct {
			k uint64
			i int32
		}
		ps := make([]pair, n)
		_ = parallel(n, nw, nil, func(_, lo, hi int) error {
			for i := lo; i < hi; i++ {
				ps[i] = pair{key(i), int32(i)}
			}
			return nil
		})
		slices.SortStableFunc(ps, func(a, b pair) int {
			switch {
			case a.k < b.k:
				return -1
			case a.k > b.k:
				return 1
			}
			return 0
		})
		keys = make([]uint64, n)
		for j, p := range ps {
			perm[j], keys[j] = p.i, p.k
		}
		return perm, keys
	}
	w := make([]uint64, n)
	_ = parallel(n, nw, nil, func(_, lo, hi int) error {
		for i := lo; i < hi; i++ {
			w[i] = key(i)<<32 | uint64(i)
		}
		return nil
	})
	radixSortHigh(w, keyBits)
	for j, v := range w {
		perm[j] = int32(uint32(v))
		w[j] = v >> 32
	}
	return perm, w
}

// radixSortHigh sorts w stably by bits 32..32+keyBits-1 (the low 32 bits
// ride along), in passes of up to 11 bits.
func radixSortHigh(w []uint64, keyBits int) {
	if len(w) < 2 || keyBits == 0 {
		return
	}
	const digit = 11
	passes := (keyBits + digit - 1) / digit
	tmp := make([]uint64, len(w))
	src, dst := w, tmp
	var count [1 << digit]int
	for p := range passes {
		shift := uint(32 + p*digit)
		clear(count[:])
		for _, v := range src {
			count[(v>>shift)&(1<<digit-1)]++
		}
		sum := 0
		for d, c := range count {
			count[d] = sum
			sum += c
		}
		for _, v := range src {
			d := (v >> shift) & (1<<digit - 1)
			dst[count[d]] = v
			count[d]++
		}
		src, dst = dst, src
	}
	if passes%2 == 1 {
		copy(w, src)
	}
}

// bitsFor returns the number of bits needed to hold values below n.
func bitsFor(n uint64) int {
	if n <= 1 {
		return 0
	}
	return bits.Len64(n - 1)
}
