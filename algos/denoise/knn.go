package denoise

import (
	"fmt"
	"math"
	"slices"

	"github.com/pctk/pctk/primitives/findneighbor"
)

// The statistical filter needs each point's k nearest neighbours with no
// distance limit. Rather than asking a backend for plain kNN (ε = +Inf),
// which grid backends cannot prune and GPU backends serve on the host,
// knnDistances searches within a finite radius that holds about 2k points
// for a typical point, then searches again, with a doubled radius, only for
// the points that found fewer than k. Points beyond ε are farther than
// every point found within it, so the result is exactly the k nearest.
const (
	// knnSample is the number of points whose counts tune the radius.
	knnSample = 1024
	// knnTuneRounds bounds the rounds of radius tuning on the sample.
	knnTuneRounds = 4
	// knnGrowRounds bounds the doublings for the points still short of k;
	// the rest get an unbounded search.
	knnGrowRounds = 6
)

// knnDistances stores in sum[i] the sum of the distances from point i to
// its k nearest other points and in found[i] how many there were (k, or
// fewer only when the cloud has fewer than k+1 points).
func knnDistances(xyz []float32, b findneighbor.Backend, k int, bo findneighbor.BuildOptions, sum []float64, found []int) error {
	n := len(sum)
	eps, err := knnRadius(xyz, b, k, bo)
	if err != nil {
		return err
	}
	idx := make([]int32, n*k)
	dist := make([]float32, n*k)
	if err := withIndex(xyz, b, eps, bo, func(ix findneighbor.Index) error {
		return ix.KNearest(nil, k, idx, dist)
	}); err != nil {
		return err
	}
	var short []int32 // points with fewer than k within eps
	for i := range n {
		s, c := 0.0, 0
		for j := i * k; j < (i+1)*k && idx[j] >= 0; j++ {
			s += float64(dist[j])
			c++
		}
		if c < k {
			short = append(short, int32(i))
			continue
		}
		sum[i], found[i] = s, c
	}
	for round := 0; len(short) > 0; round++ {
		eps *= 2
		if round == knnGrowRounds || math.IsInf(float64(eps), 0) {
			eps = float32(math.Inf(1))
		}
		if short, err = knnAgain(xyz, b, k, eps, bo, short, sum, found); err != nil {
			return err
		}
	}
	return nil
}

// knnAgain searches the k nearest of the points short within eps, as
// separate queries (so the point itself may be among the results and is
// skipped), and returns the points still short of k.
func knnAgain(xyz []float32, b findneighbor.Backend, k int, eps float32, bo findneighbor.BuildOptions, short []int32, sum []float64, found []int) ([]int32, error) {
	q := make([]float32, 0, 3*len(short))
	for _, i := range short {
		q = append(q, xyz[3*i:3*i+3]...)
	}
	k1 := k + 1
	idx := make([]int32, len(short)*k1)
	dist := make([]float32, len(short)*k1)
	if err := withIndex(xyz, b, eps, bo, func(ix findneighbor.Index) error {
		return ix.KNearest(q, k1, idx, dist)
	}); err != nil {
		return nil, err
	}
	var still []int32
	for qi, i := range short {
		s, c, self := 0.0, 0, false
		for j := qi * k1; j < (qi+1)*k1 && idx[j] >= 0 && c < k; j++ {
			// Skip the point itself; when more than k+1 points coincide
			// it may be missing, and then every kept distance is 0 anyway.
			if idx[j] == i && !self {
				self = true
				continue
			}
			s += float64(dist[j])
			c++
		}
		if c < k && !math.IsInf(float64(eps), 1) {
			still = append(still, i)
			continue
		}
		sum[i], found[i] = s, c
	}
	return still, nil
}

// knnRadius returns a radius within which a typical point has about 2k
// other points: a first guess from the bounding box, as if the points
// filled it uniformly, tuned on the neighbour counts of a sample.
func knnRadius(xyz []float32, b findneighbor.Backend, k int, bo findneighbor.BuildOptions) (float32, error) {
	n := len(xyz) / 3
	var lo, hi [3]float64
	for a := range 3 {
		lo[a], hi[a] = math.Inf(1), math.Inf(-1)
	}
	for i := range n {
		for a := range 3 {
			v := float64(xyz[3*i+a])
			lo[a], hi[a] = min(lo[a], v), max(hi[a], v)
		}
	}
	// Volume of the box, with flat axes (2D data) given a nominal depth.
	diag := math.Sqrt((hi[0]-lo[0])*(hi[0]-lo[0]) + (hi[1]-lo[1])*(hi[1]-lo[1]) + (hi[2]-lo[2])*(hi[2]-lo[2]))
	if diag == 0 {
		// Every point coincides: any radius finds them all.
		return 1, nil
	}
	vol := 1.0
	for a := range 3 {
		vol *= max(hi[a]-lo[a], diag*1e-3)
	}
	eps := math.Cbrt(3 * float64(2*k) * vol / (4 * math.Pi * float64(n)))
	step := max(1, n/knnSample)
	var q []float32
	for i := 0; i < n; i += step {
		q = append(q, xyz[3*i:3*i+3]...)
	}
	counts := make([]uint32, len(q)/3)
	for range knnTuneRounds {
		if err := withIndex(xyz, b, float32(eps), bo, func(ix findneighbor.Index) error {
			return ix.Counts(q, counts)
		}); err != nil {
			return 0, err
		}
		med := float64(median(counts)) - 1 // the point itself is counted
		target := float64(2 * k)
		if med >= target/2 && med <= target*2 {
			break
		}
		// Scale as for points on a surface (count ∝ ε²), the common case
		// of scans; the clamp keeps one round from overshooting far.
		eps *= min(4, max(0.25, math.Sqrt(target/max(med, 0.5))))
	}
	if eps = min(eps, diag); !(eps > 0) || float32(eps) == 0 {
		eps = diag
	}
	return float32(eps), nil
}

// withIndex builds an index of xyz for eps, calls fn with it and closes it.
func withIndex(xyz []float32, b findneighbor.Backend, eps float32, bo findneighbor.BuildOptions, fn func(findneighbor.Index) error) error {
	ix, err := b.Build(xyz, eps, bo)
	if err != nil {
		return fmt.Errorf("denoise: build %s index (ε %g): %w", b.Name(), eps, err)
	}
	err = fn(ix)
	if cerr := ix.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("denoise: %s backend: %w", b.Name(), err)
	}
	return nil
}

// median returns the median of c (which it reorders).
func median(c []uint32) uint32 {
	slices.Sort(c)
	return c[len(c)/2]
}
