package denoise

import (
	"fmt"

	"github.com/pctk/pctk/algos/internal/pairs"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/tile"
)

// RadiusOptions configure Radius. Radius has no sensible default (it
// depends on the cloud's scale); the zero value of the other fields follows
// PCL and Open3D.
type RadiusOptions struct {
	// Radius is the search radius, in the cloud's units. A point at exactly
	// Radius counts (as in PCL; Open3D and PDAL count only points strictly
	// closer, which Convention PDAL follows).
	Radius float64
	// MinNeighbors is the number of neighbours a point needs to be kept:
	// PCL's min_pts, Open3D's nb_points, PDAL's min_k (PDAL's default is
	// PDALMinK). 0 keeps every point.
	MinNeighbors int
	// CountSelf counts the point itself among its neighbours, so that a
	// point needs only MinNeighbors-1 others. PCL and Open3D both count only
	// other points (false); docs/denoise.md shows where in their source.
	CountSelf bool
	// Build tunes the neighbour index.
	Build findneighbor.BuildOptions
	// TileSize, when > 0, counts on square tiles of this side in XY with
	// a halo of Radius (tile.CountsTiled, docs/scale.md): the same
	// outliers, tile by tile. Not under PDAL (tiles take Reach).
	TileSize float64
	// Convention is PCL (the zero value: ≤ Radius in float32, which
	// Open3D's users get too but for pairs at exactly Radius) or PDAL
	// (filters.outlier's radius method: < Radius in float64, and no point
	// flagged when all would be).
	Convention Convention
	// Pos, under PDAL, holds the points' float64 coordinates in any frame
	// (interleaved x, y, z; PDAL's absolute ones give its bits), the
	// distances' source (nil: xyz).
	Pos []float64
}

// PDAL's defaults of filters.outlier's radius method: radius and min_k.
const (
	PDALRadius = 1.0
	PDALMinK   = 2
)

// Validate reports whether the options make sense.
func (o RadiusOptions) Validate() error {
	if err := findneighbor.CheckRadius("denoise radius", "radius", o.Radius, false); err != nil {
		return err
	}
	if err := findneighbor.CheckRadius("denoise radius", "tile_size", o.TileSize, true); err != nil {
		return err
	}
	if o.Convention != PCL && o.Convention != PDAL {
		return fmt.Errorf("denoise: radius: convention %v: want pcl or pdal", o.Convention)
	}
	if err := checkPDAL("denoise radius", o.Convention, o.TileSize, o.Pos); err != nil {
		return err
	}
	return findneighbor.CheckMin("denoise radius", "min_neighbors", o.MinNeighbors, 0)
}

// RadiusResult is what Radius found.
type RadiusResult struct {
	// Outlier[i] is true when point i is an outlier.
	Outlier []bool
	// Counts[i] is the number of other points within Radius of point i;
	// under PDAL, at most MinNeighbors (or 1), the count that decides.
	Counts []uint32
	// Outliers is the number of points flagged.
	Outliers int
	// AllOutliers, under PDAL, reports that every point was an outlier, so
	// that none is flagged (PDAL leaves the points unchanged).
	AllOutliers bool
	// Reach, under PDAL only, holds for each point the distance within
	// which lie all the points its count depends on (pairs.PointReach: the
	// radius widened for float32 rounding).
	Reach []float64
}

// Radius runs the radius outlier filter on the points xyz (x0,y0,z0,x1,...
// relative to a local origin), counting neighbours with backend b: a point
// is an outlier when fewer than MinNeighbors points lie within Radius.
func Radius(xyz []float32, b findneighbor.Backend, opts RadiusOptions) (*RadiusResult, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	n, err := pointCount(xyz)
	if err != nil {
		return nil, err
	}
	r := &RadiusResult{Outlier: make([]bool, n), Counts: make([]uint32, n)}
	if n == 0 {
		return r, nil
	}
	if opts.Pos != nil && len(opts.Pos) != len(xyz) {
		return nil, fmt.Errorf("denoise: %d float64 coordinates for %d points", len(opts.Pos), n)
	}
	if opts.Convention == PDAL {
		if err := pdalCounts(xyz, opts, r.Counts); err != nil {
			return nil, err
		}
		r.Reach = make([]float64, n)
		for i := range r.Reach {
			r.Reach[i] = pairs.PointReach(opts.Radius, xyz[3*i], xyz[3*i+1], xyz[3*i+2])
		}
	} else if opts.TileSize > 0 {
		if r.Counts, err = tile.CountsTiled(xyz, b, opts.Radius, opts.TileSize, opts.Build); err != nil {
			return nil, fmt.Errorf("denoise: radius: %w", err)
		}
	} else if err := radiusCounts(xyz, b, opts, r.Counts); err != nil {
		return nil, err
	}
	for i, c := range r.Counts {
		if opts.Outlier(c) {
			r.Outlier[i] = true
			r.Outliers++
		}
	}
	r.AllOutliers = allOutliers(opts.Convention, r.Outlier, &r.Outliers)
	return r, nil
}

// Outlier reports whether a point with count other points within Radius
// is an outlier (for callers that count themselves: tiles, out-of-core
// runs).
func (o RadiusOptions) Outlier(count uint32) bool {
	self := 0
	if o.CountSelf {
		self = 1
	}
	return int64(count)+int64(self) < int64(o.MinNeighbors)
}

// radiusCounts counts the neighbours of every point in one index.
func radiusCounts(xyz []float32, b findneighbor.Backend, opts RadiusOptions, counts []uint32) error {
	ix, err := b.Build(xyz, float32(opts.Radius), opts.Build)
	if err != nil {
		return fmt.Errorf("denoise: radius: build %s index: %w", b.Name(), err)
	}
	defer ix.Close()
	if err := ix.Counts(nil, counts); err != nil {
		return fmt.Errorf("denoise: radius: count neighbours (%s): %w", b.Name(), err)
	}
	return nil
}
