package hostkit

import (
	"math"
	"math/bits"
	"slices"
)

// spatialOrder sorts n items by key(i) < keySpace, stably (equal keys keep
// increasing i). It returns the permutation (sorted position → item) and
// the occupied keys with where each run starts in sorted order (starts has
// one more entry, n).
//
// When the key space is at most a few times n, a counting sort over it
// needs only the permutation and a histogram (4 bytes per key), which keeps
// Build's peak memory low; sparser keys (a huge extent next to ε) go
// through an LSD radix sort of packed key<<32|i words (16 bytes per item
// with its buffer), or for keys of more than 32 bits a comparison sort.
// With spare memory the counting sort also computes the keys once, on nw
// goroutines, into 4 bytes per item, instead of twice in its serial passes.
func spatialOrder(n int, keySpace uint64, nw int, spare bool, key func(i int) uint64) (perm []int32, keys []uint64, starts []int32) {
	perm = make([]int32, n)
	if keySpace <= uint64(2*n)+1024 {
		if spare && keySpace <= math.MaxUint32 {
			ks := make([]uint32, n)
			_ = Parallel(n, nw, nil, func(_, lo, hi int) error {
				for i := lo; i < hi; i++ {
					ks[i] = uint32(key(i))
				}
				return nil
			})
			key = func(i int) uint64 { return uint64(ks[i]) }
		}
		return countingOrder(n, keySpace, key, perm)
	}
	keyBits := bitsFor(keySpace)
	var w []uint64
	if keyBits > 32 {
		type pair struct {
			k uint64
			i int32
		}
		ps := make([]pair, n)
		_ = Parallel(n, nw, nil, func(_, lo, hi int) error {
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
		w = make([]uint64, n)
		for j, p := range ps {
			perm[j], w[j] = p.i, p.k
		}
	} else {
		w = make([]uint64, n)
		_ = Parallel(n, nw, nil, func(_, lo, hi int) error {
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
	}
	for j := range w {
		if j == 0 || w[j] != w[j-1] {
			keys = append(keys, w[j])
			starts = append(starts, int32(j))
		}
	}
	return perm, keys, append(starts, int32(n))
}

// countingOrder is spatialOrder's counting sort for a dense key space.
func countingOrder(n int, keySpace uint64, key func(i int) uint64, perm []int32) ([]int32, []uint64, []int32) {
	next := make([]int32, keySpace)
	for i := range n {
		next[key(i)]++
	}
	cells := 0
	var sum int32
	for k, c := range next {
		next[k] = sum
		sum += c
		if c > 0 {
			cells++
		}
	}
	keys := make([]uint64, 0, cells)
	starts := make([]int32, 0, cells+1)
	for k := range next {
		if (k+1 < len(next) && next[k+1] > next[k]) || (k+1 == len(next) && int(next[k]) < n) {
			keys = append(keys, uint64(k))
			starts = append(starts, next[k])
		}
	}
	starts = append(starts, int32(n))
	for i := range n {
		k := key(i)
		perm[next[k]] = int32(i)
		next[k]++
	}
	return perm, keys, starts
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
