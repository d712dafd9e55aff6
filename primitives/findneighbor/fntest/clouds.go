// Package fntest is the shared test kit of the findneighbor backends:
// seeded generators of awkward point clouds and CheckBackend, which compares
// every operation of a backend with the "brute" reference backend. Every
// backend's test (cpu here, cuda and optix in their own packages) calls
// CheckBackend, so all of them are held to the same definition.
package fntest

import (
	"math"
	"math/rand/v2"
)

// Cloud is a named test cloud of interleaved float32 x, y, z coordinates.
type Cloud struct {
	Name string
	XYZ  []float32
}

// Len returns the number of points.
func (c Cloud) Len() int { return len(c.XYZ) / 3 }

// Rand returns the generator every function here uses for seed.
func Rand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)) }

// Uniform returns n points uniform in the cube [0, side)³.
func Uniform(r *rand.Rand, n int, side float32) []float32 {
	xyz := make([]float32, 3*n)
	for i := range xyz {
		xyz[i] = r.Float32() * side
	}
	return xyz
}

// Clustered returns n points in k Gaussian blobs of standard deviation
// sigma whose centres are uniform in [0, side)³: dense regions next to
// empty ones, as in real scans.
func Clustered(r *rand.Rand, n, k int, side, sigma float32) []float32 {
	centres := Uniform(r, k, side)
	xyz := make([]float32, 3*n)
	for i := range n {
		c := r.IntN(k)
		for a := range 3 {
			xyz[3*i+a] = centres[3*c+a] + float32(r.NormFloat64())*sigma
		}
	}
	return xyz
}

// Duplicated returns n points drawn from only distinct uniform positions in
// [0, side)³, so most points have exact copies (distance 0, tie-breaking by
// index everywhere).
func Duplicated(r *rand.Rand, n, distinct int, side float32) []float32 {
	base := Uniform(r, distinct, side)
	xyz := make([]float32, 3*n)
	for i := range n {
		copy(xyz[3*i:3*i+3], base[3*r.IntN(distinct):])
	}
	return xyz
}

// Flat returns n points uniform in the square [0, side)² with z = 0 (2D data).
func Flat(r *rand.Rand, n int, side float32) []float32 {
	xyz := Uniform(r, n, side)
	for i := range n {
		xyz[3*i+2] = 0
	}
	return xyz
}

// Collinear returns n points on the segment from the origin to dir·length,
// at uniform positions (half of them on the x axis exactly, half on dir).
func Collinear(r *rand.Rand, n int, length float32, dir [3]float32) []float32 {
	xyz := make([]float32, 3*n)
	norm := float32(math.Sqrt(float64(dir[0]*dir[0] + dir[1]*dir[1] + dir[2]*dir[2])))
	for i := range n {
		t := r.Float32() * length
		if i%2 == 0 {
			xyz[3*i] = t
			continue
		}
		for a := range 3 {
			xyz[3*i+a] = dir[a] / norm * t
		}
	}
	return xyz
}

// Sparse returns n points in small blobs scattered over a cube of side
// extent, centred on the origin: an extent many thousand times ε, as a
// city-scale scan in local coordinates.
func Sparse(r *rand.Rand, n int, extent float32) []float32 {
	xyz := Clustered(r, n, max(1, n/20), extent, 0.5)
	for i := range xyz {
		xyz[i] -= extent / 2
	}
	return xyz
}

// Clouds returns the standard set of test clouds for seed, each of about n
// points, all within a few units of the origin except "sparse" (extent
// 20000): uniform, clustered, duplicated, flat (2D), collinear, sparse, a
// single point and an empty cloud.
func Clouds(seed uint64, n int) []Cloud {
	r := Rand(seed)
	return []Cloud{
		{"uniform", Uniform(r, n, 10)},
		{"clustered", Clustered(r, n, 8, 10, 0.6)},
		{"duplicated", Duplicated(r, n, max(1, n/8), 10)},
		{"flat", Flat(r, n, 10)},
		{"collinear", Collinear(r, n, 40, [3]float32{1, 2, 3})},
		{"sparse", Sparse(r, n, 20000)},
		{"single", Uniform(r, 1, 10)},
		{"empty", []float32{}},
	}
}

// Eps are the radii CheckBackend tries on every cloud of Clouds: 0 (only
// exact duplicates), tiny, moderate (tens of neighbours), large (hundreds)
// and huge (everything is a neighbour).
var Eps = []float32{0, 0.013, 0.71, 1.9, 90}
