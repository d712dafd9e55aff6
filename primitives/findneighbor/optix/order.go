package optix

import (
	"runtime"
	"sync"

	"github.com/pctk/pctk/primitives/findneighbor/internal/hostkit"
)

// mortonOrder returns the permutation that lists the points of xyz (x, y, z
// interleaved) along a Z-order (Morton) curve over a 1024³ grid spanning
// their bounding box. Rays launched in this order visit neighbouring parts
// of the BVH one after another, which RTNN (PPoPP 2022) found to halve query
// time; the GAS is built over the points in this order too.
func mortonOrder(xyz []float32) []int32 {
	n := len(xyz) / 3
	if n == 0 {
		return nil
	}
	lo, hi := hostkit.Bounds(xyz)
	var scale [3]float64
	for a := range 3 {
		if ext := float64(hi[a]) - float64(lo[a]); ext > 0 {
			scale[a] = 1023.999 / ext
		}
	}
	keys := make([]uint32, n)
	parallelFor(n, func(from, to int) {
		for i := from; i < to; i++ {
			var c uint32
			for a := range 3 {
				cell := uint32((float64(xyz[3*i+a]) - float64(lo[a])) * scale[a])
				c |= spread10(min(cell, 1023)) << a
			}
			keys[i] = c
		}
	})
	vals := make([]int32, n)
	for i := range vals {
		vals[i] = int32(i)
	}
	radixSort30(keys, vals)
	return vals
}

// spread10 spaces the 10 low bits of v two zero bits apart.
func spread10(v uint32) uint32 {
	v &= 0x3ff
	v = (v | v<<16) & 0x030000ff
	v = (v | v<<8) & 0x0300f00f
	v = (v | v<<4) & 0x030c30c3
	v = (v | v<<2) & 0x09249249
	return v
}

// radixSort30 sorts vals by the 30-bit keys: a stable least-significant-
// digit radix sort, three passes of 10 bits, each pass split over
// GOMAXPROCS chunks (per-chunk histograms, then each chunk scatters its own
// elements, which keeps the sort stable).
func radixSort30(keys []uint32, vals []int32) {
	n := len(keys)
	w := chunks(n)
	k2, v2 := make([]uint32, n), make([]int32, n)
	hist := make([][1024]int, w)
	for shift := uint(0); shift < 30; shift += 10 {
		src, srcV, dst, dstV := keys, vals, k2, v2
		parallelChunks(n, w, func(c, from, to int) {
			h := &hist[c]
			*h = [1024]int{}
			for _, k := range src[from:to] {
				h[(k>>shift)&1023]++
			}
		})
		at := 0
		for d := range 1024 {
			for c := range hist {
				cnt := hist[c][d]
				hist[c][d] = at
				at += cnt
			}
		}
		parallelChunks(n, w, func(c, from, to int) {
			h := &hist[c]
			for i := from; i < to; i++ {
				k := src[i]
				d := (k >> shift) & 1023
				j := h[d]
				h[d]++
				dst[j], dstV[j] = k, srcV[i]
			}
		})
		keys, k2 = k2, keys
		vals, v2 = v2, vals
	}
	// after an odd number of passes the sorted data sits in the scratch
	// buffers: copy it into the callers'.
	copy(k2, keys)
	copy(v2, vals)
}

// chunks is the number of pieces parallelFor splits n items into.
func chunks(n int) int { return min(runtime.GOMAXPROCS(0), max(1, n/65536)) }

// parallelFor runs fn over [0, n) in GOMAXPROCS chunks.
func parallelFor(n int, fn func(from, to int)) {
	parallelChunks(n, chunks(n), func(_, from, to int) { fn(from, to) })
}

// parallelChunks runs fn on w goroutines, chunk c covering [c·n/w, (c+1)·n/w).
func parallelChunks(n, w int, fn func(c, from, to int)) {
	var wg sync.WaitGroup
	for c := range w {
		from, to := c*n/w, (c+1)*n/w
		wg.Go(func() { fn(c, from, to) })
	}
	wg.Wait()
}

// gather returns the points of xyz in the order perm.
func gather(xyz []float32, perm []int32) []float32 {
	out := make([]float32, len(xyz))
	parallelFor(len(perm), func(from, to int) {
		for i := from; i < to; i++ {
			j := perm[i]
			copy(out[3*i:3*i+3], xyz[3*j:3*j+3])
		}
	})
	return out
}

// paddedRadius returns the primitive radius for ε: ε plus a margin that
// covers float32 rounding of the AABB bounds and of the sphere test at the
// cloud's coordinate magnitude, so no pair within ε is missed; the exact
// distance test then drops the extra candidates. It is never 0, so ε = 0
// (exact duplicates) still gets primitives with volume.
func paddedRadius(xyz []float32, eps float32) float32 {
	var m float32
	if len(xyz) > 0 {
		lo, hi := hostkit.Bounds(xyz)
		for a := range 3 {
			m = max(m, -lo[a], hi[a])
		}
	}
	r := float64(eps)*(1+1.0/(1<<16)) + float64(m)/(1<<20) + 1e-30
	return float32(r)
}
