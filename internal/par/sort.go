package par

import (
	"cmp"
	"runtime"
	"slices"
)

// Sort sorts s in increasing order, as slices.Sort does, on all cores:
// ranges of s are sorted concurrently, then merged pairwise, each round's
// merges concurrently. It needs a buffer as long as s. With fewer than
// four cores the merges cost more than they save (measured on two: 8%
// slower than slices.Sort at 4M values), and it is slices.Sort.
func Sort[T cmp.Ordered](s []T) {
	rs := Ranges(len(s), Grain)
	if len(rs) == 1 || runtime.GOMAXPROCS(0) < 4 {
		slices.Sort(s)
		return
	}
	For(rs, func(_, lo, hi int) { slices.Sort(s[lo:hi]) })
	src, dst := s, make([]T, len(s))
	for len(rs) > 1 {
		next := make([][2]int, 0, (len(rs)+1)/2)
		for i := 0; i < len(rs); i += 2 {
			next = append(next, [2]int{rs[i][0], rs[min(i+1, len(rs)-1)][1]})
		}
		For(next, func(k, lo, hi int) {
			a := rs[2*k]
			if 2*k+1 == len(rs) {
				copy(dst[lo:hi], src[lo:hi])
				return
			}
			merge(dst[lo:hi], src[a[0]:a[1]], src[a[1]:hi])
		})
		src, dst, rs = dst, src, next
	}
	if &src[0] != &s[0] {
		copy(s, src)
	}
}

// merge writes the sorted a and b, merged, to dst (len(a)+len(b)).
func merge[T cmp.Ordered](dst, a, b []T) {
	i, j := 0, 0
	for k := range dst {
		if j < len(b) && (i == len(a) || cmp.Less(b[j], a[i])) {
			dst[k] = b[j]
			j++
		} else {
			dst[k] = a[i]
			i++
		}
	}
}
