package density

import (
	"fmt"
	"math"

	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/tile"
)

// PDALPi is the value of π PDAL's RadialDensityFilter divides by
// ((4.0 / 3.0) * 3.14159 * r³), kept so that densities match PDAL's to the
// last bit of the ratio; it is 8.4e-7 relative below π.
const PDALPi = 3.14159

// fourThirds is C++'s (4.0 / 3.0), rounded to float64 before it multiplies,
// so that Radial's factor rounds as PDAL's does (a Go constant expression
// would be computed exactly and round once).
var fourThirds = 4.0 / 3.0

// RadialOptions configure Radial.
type RadialOptions struct {
	// Radius is the sphere's radius R in the coordinates' units (PDAL's
	// radius, whose default 1.0 pctk does not assume: it depends on the
	// cloud's scale). A point at exactly R counts.
	Radius float64
	// Build tunes the neighbour index (workers, progress, reuse of xyz).
	Build findneighbor.BuildOptions
	// TileSize, when > 0, counts on square tiles of this side in XY with
	// a halo of Radius (tile.CountsTiled, docs/scale.md): the same
	// densities, tile by tile.
	TileSize float64
}

// Validate reports whether the options make sense.
func (o RadialOptions) Validate() error {
	if err := findneighbor.CheckRadius("density", "radius", o.Radius, false); err != nil {
		return err
	}
	return findneighbor.CheckRadius("density", "tile_size", o.TileSize, true)
}

// Radial returns PDAL's RadialDensity of every point of xyz: (the number of
// points within Radius, the point itself included) / (4/3·PDALPi·Radius³),
// in points per cubic unit. With Build.Reuse the index may take xyz over.
func Radial(xyz []float32, b findneighbor.Backend, opts RadialOptions) ([]float64, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	var counts []uint32
	var err error
	if opts.TileSize > 0 {
		counts, err = tile.CountsTiled(xyz, b, opts.Radius, opts.TileSize, opts.Build)
	} else {
		counts, err = findneighbor.Counts(b, xyz, opts.Radius, opts.Build)
	}
	if err != nil {
		return nil, fmt.Errorf("density: %w", err)
	}
	factor := RadialFactor(opts.Radius)
	out := make([]float64, len(counts))
	for i, c := range counts {
		out[i] = float64(c+1) * factor
	}
	return out, nil
}

// RadialFactor returns 1 / (4/3·PDALPi·r³), rounded as PDAL rounds it: a
// point with c other points within r has RadialDensity float64(c+1) times
// it (for callers that count themselves, such as out-of-core runs).
func RadialFactor(r float64) float64 {
	return 1.0 / (fourThirds * PDALPi * (r * r * r))
}

// KnnMeanDistance returns for every point of xyz the mean distance to its k
// nearest other points, within radius when radius > 0 (then a point with
// fewer than k neighbours averages over what it has), NaN for a point with
// none. It is the Moment's Dist/N that findneighbor computes for the k
// nearest, without storing a moment per point. tileSize > 0 computes it on
// square tiles of that side in XY (tile.MomentsTiled, docs/scale.md), to
// the same bits: the sum of k float32 distances in float64 is exact.
func KnnMeanDistance(xyz []float32, b findneighbor.Backend, k int, radius, tileSize float64, opts findneighbor.BuildOptions) ([]float32, error) {
	n, err := findneighbor.CheckPoints("density", xyz)
	if err != nil {
		return nil, err
	}
	if err := findneighbor.CheckMin("density", "k", k, 1); err != nil {
		return nil, err
	}
	if err := findneighbor.CheckRadius("density", "radius", radius, true); err != nil {
		return nil, err
	}
	if err := findneighbor.CheckRadius("density", "tile_size", tileSize, true); err != nil {
		return nil, err
	}
	out := make([]float32, n)
	fn := func(pts []int32, m []findneighbor.Moment) {
		for j, i := range pts {
			out[i] = float32(math.NaN())
			if m[j].N > 0 {
				out[i] = float32(m[j].Dist / float64(m[j].N))
			}
		}
	}
	if n == 0 {
		return out, nil
	}
	if tileSize > 0 {
		if err := tile.MomentsTiled(xyz, b, radius, k, tileSize, opts, fn); err != nil {
			return nil, fmt.Errorf("density: %d nearest (%s, tiled): %w", k, b.Name(), err)
		}
		return out, nil
	}
	if radius == 0 {
		if err := findneighbor.KNearestMomentsFunc(b, xyz, k, opts, fn); err != nil {
			return nil, fmt.Errorf("density: %d nearest (%s): %w", k, b.Name(), err)
		}
		return out, nil
	}
	opts.Reuse = false
	ix, err := b.Build(xyz, float32(radius), opts)
	if err != nil {
		return nil, fmt.Errorf("density: %s backend: build index: %w", b.Name(), err)
	}
	defer ix.Close()
	if err := findneighbor.MomentsFunc(ix, xyz, k, opts.Workers, fn); err != nil {
		return nil, fmt.Errorf("density: %d nearest within %g (%s): %w", k, radius, b.Name(), err)
	}
	return out, nil
}
