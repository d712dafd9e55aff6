package sample

import (
	"fmt"
	"math"

	"github.com/pctk/pctk/primitives/findneighbor"
)

// DefaultMaxEntries bounds the neighbour-list entries Poisson holds at once
// unless Options.MaxEntries says otherwise: 2²⁵ int32 indices, 128 MiB.
const DefaultMaxEntries = 1 << 25

// slack widens the index's radius over Radius so that every pair closer
// than Radius in exact arithmetic is listed by every backend, whatever the
// rounding of its float32 distance test (a few ulps, 1e-7 relative): the
// exact test then decides, identically everywhere.
const slack = 1e-5

// Options configure Poisson.
type Options struct {
	// Radius is the smallest distance between kept points, PDAL's radius.
	Radius float64
	// MaxEntries bounds the neighbour-list entries held at once (the lists
	// are streamed in batches of queries); 0 means DefaultMaxEntries.
	MaxEntries int64
	// Build tunes the neighbour index (workers, progress).
	Build findneighbor.BuildOptions
}

// Validate reports whether the options make sense.
func (o Options) Validate() error {
	r := o.Radius
	if !(r > 0) || math.IsInf(r, 0) || !(float32(r*(1+slack)) > 0) || math.IsInf(float64(float32(r*(1+slack))), 0) {
		return fmt.Errorf("sample: radius %g, want > 0 and finite in float32", r)
	}
	if o.MaxEntries < 0 {
		return fmt.Errorf("sample: max entries %d, want ≥ 0", o.MaxEntries)
	}
	return nil
}

// Result says which points Poisson keeps.
type Result struct {
	// Keep[i] is true when point i is kept.
	Keep []bool
	// Kept counts the kept points.
	Kept int
}

// Poisson thins the points xyz (interleaved x, y, z, float32 relative to a
// local origin) to a Poisson-disk sample, as PDAL's filters.sample with a
// radius does (filters/SampleFilter.cpp, voxelize): in input order, a
// point is kept unless a point kept before it lies closer than Radius.
// Kept points are thus at least Radius apart, every dropped point lies
// closer than Radius to a kept one, and the result depends only on the
// points and their order.
//
// The backend b lists each point's neighbours within Radius (slightly
// more, see slack) in whole-cloud calls, streamed in batches of queries in
// input order (findneighbor.Batches); the greedy pass then walks each
// list, in index order, up to the point itself, and tests the kept
// candidates exactly: dx²+dy²+dz² < Radius² in float64 from the float32
// coordinates, so every backend keeps the same points.
func Poisson(xyz []float32, b findneighbor.Backend, opts Options) (*Result, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if len(xyz)%3 != 0 {
		return nil, fmt.Errorf("sample: %d coordinates is not a multiple of 3", len(xyz))
	}
	n := len(xyz) / 3
	res := &Result{Keep: make([]bool, n)}
	if n == 0 {
		return res, nil
	}
	ix, err := b.Build(xyz, float32(opts.Radius*(1+slack)), opts.Build)
	if err != nil {
		return nil, fmt.Errorf("sample: build %s index: %w", b.Name(), err)
	}
	defer ix.Close()
	maxEntries := opts.MaxEntries
	if maxEntries == 0 {
		maxEntries = DefaultMaxEntries
	}
	r2 := opts.Radius * opts.Radius
	err = findneighbor.Batches(ix, xyz, nil, findneighbor.NeighborOptions{}, maxEntries, func(first int, csr *findneighbor.CSR) error {
		for q := range len(csr.Offsets) - 1 {
			i := first + q
			keep := true
			for _, j := range csr.Indices[csr.Offsets[q]:csr.Offsets[q+1]] {
				if int(j) >= i {
					break // the lists are in index order
				}
				if res.Keep[j] && closer(xyz, i, int(j), r2) {
					keep = false
					break
				}
			}
			if keep {
				res.Keep[i] = true
				res.Kept++
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("sample: %s neighbours: %w", b.Name(), err)
	}
	return res, nil
}

// closer reports whether points i and j of xyz are closer than √r2, in
// float64 (where the float32 differences are exact unless the coordinates
// differ in scale by 2²⁹); the explicit conversions keep the compiler from
// fusing the multiply-adds, so every processor gives the same answer.
func closer(xyz []float32, i, j int, r2 float64) bool {
	dx := float64(xyz[3*i]) - float64(xyz[3*j])
	dy := float64(xyz[3*i+1]) - float64(xyz[3*j+1])
	dz := float64(xyz[3*i+2]) - float64(xyz[3*j+2])
	return float64(dx*dx)+float64(dy*dy)+float64(dz*dz) < r2
}
