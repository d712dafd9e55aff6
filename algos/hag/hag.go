package hag

import (
	"fmt"
	"math"

	"github.com/pctk/pctk/internal/par"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// Ground is the ASPRS class of ground points (PDAL's ClassLabel::Ground).
const Ground = 2

// Method chooses how the ground under a point is estimated.
type Method int

const (
	// NearestNeighbor is PDAL's filters.hag_nn: the inverse-square-distance
	// weighted mean of the Z of the Count nearest ground points in XY.
	NearestNeighbor Method = iota
	// Delaunay is PDAL's filters.hag_delaunay: the Delaunay triangulation
	// of the Count nearest ground points in XY, interpolated
	// barycentrically in the triangle that holds the point.
	Delaunay
)

// Bounds is an XY box, bounds included, in the frame of Options.Pos.
type Bounds struct{ MinX, MinY, MaxX, MaxY float64 }

// Contains reports whether (x, y) lies in b, edges included (PDAL's
// BOX2D::contains).
func (b Bounds) Contains(x, y float64) bool {
	return b.MinX <= x && x <= b.MaxX && b.MinY <= y && y <= b.MaxY
}

// Options configure Compute. The zero value is PDAL's filters.hag_nn with
// its defaults.
type Options struct {
	// Method is the stage: NearestNeighbor (filters.hag_nn) or Delaunay
	// (filters.hag_delaunay).
	Method Method
	// Count is PDAL's count, the number of nearest ground points used;
	// 0 takes PDAL's default: 1 for hag_nn, 10 for hag_delaunay (which
	// needs at least 3).
	Count int
	// MaxDistance is hag_nn's max_distance: ground points farther than it
	// in XY are left out of the mean (a point with none gets height 0);
	// 0 (PDAL's default): no limit. hag_delaunay has no such option.
	MaxDistance float64
	// NoExtrapolation is PDAL's allow_extrapolation = false (PDAL's
	// default is true): a point outside the ground points' XY bounds gets
	// height 0, unless its nearest ground point has its X and Y or Count
	// is 1.
	NoExtrapolation bool
	// GroundBounds is the XY box of the whole run's ground points (in
	// Pos's frame) that NoExtrapolation tests against; nil: the box of the
	// ground points given. A tiled run must set it: a tile's own ground
	// box is not the run's.
	GroundBounds *Bounds
	// Pos holds the points' float64 coordinates, interleaved like xyz and
	// relative to the same origin, that the heights are computed from as
	// PDAL computes them; nil: xyz's values.
	Pos []float64
	// Need, when set, lists the points (in increasing order) whose
	// heights and reaches are wanted: the others get 0 and a reach of 0
	// (a tile's halo points, whose heights other tiles give).
	Need []int32
	// Build tunes the neighbour index.
	Build findneighbor.BuildOptions
}

// count returns the number of neighbours the method uses.
func (o Options) count() int {
	switch {
	case o.Count > 0:
		return o.Count
	case o.Method == Delaunay:
		return 10
	}
	return 1
}

// Validate reports whether the options make sense, naming the option as
// PDAL does.
func (o Options) Validate() error {
	switch o.Method {
	case NearestNeighbor:
		if err := findneighbor.CheckMin("hag_nn", "count", o.Count, 0); err != nil {
			return err
		}
		return findneighbor.CheckRadius("hag_nn", "max_distance", o.MaxDistance, true)
	case Delaunay:
		if o.Count != 0 {
			if err := findneighbor.CheckMin("hag_delaunay", "count", o.Count, 3); err != nil {
				return err
			}
		}
		if o.MaxDistance != 0 {
			return &findneighbor.ParamError{Op: "hag_delaunay", Param: "max_distance", Value: fmt.Sprint(o.MaxDistance), Want: "0: hag_delaunay has no max_distance"}
		}
		return nil
	}
	return &findneighbor.ParamError{Op: "hag", Param: "method", Value: fmt.Sprint(int(o.Method)), Want: "NearestNeighbor or Delaunay"}
}

// Result holds Compute's per-point outputs.
type Result struct {
	// HeightAboveGround is Z minus the ground's Z under the point (PDAL's
	// HeightAboveGround, float64): 0 for ground points.
	HeightAboveGround []float64
	// Reach is, for each point, an XY distance such that its height
	// depends only on the points within it: 0 for a ground point, the
	// float32 XY distance of its (Count+2)-th nearest ground point
	// otherwise (of the farthest when there are fewer), +Inf when the
	// cloud has fewer ground points than Count (PDAL then uses the first
	// ground point) or none.
	Reach []float64
}

// Compute returns the height above ground of every point of xyz (float32
// local coordinates) whose class is class[i] (2: ground), as PDAL's
// filters.hag_nn or filters.hag_delaunay (opts.Method) computes it. The
// queries, the non-ground points, find their Count nearest ground points
// in XY on an index of the ground points built by b.
func Compute(xyz []float32, class []uint8, b findneighbor.Backend, opts Options) (Result, error) {
	op := "hag_nn"
	if opts.Method == Delaunay {
		op = "hag_delaunay"
	}
	n, err := findneighbor.CheckPoints(op, xyz)
	if err != nil {
		return Result{}, err
	}
	if err := opts.Validate(); err != nil {
		return Result{}, err
	}
	if len(class) != n {
		return Result{}, fmt.Errorf("hag: %d classes for %d points", len(class), n)
	}
	if opts.Pos != nil && len(opts.Pos) != 3*n {
		return Result{}, fmt.Errorf("hag: %d float64 coordinates for %d points", len(opts.Pos), n)
	}
	pos := opts.Pos
	if pos == nil {
		pos = make([]float64, 3*n)
		for i, v := range xyz {
			pos[i] = float64(v)
		}
	}
	res := Result{HeightAboveGround: make([]float64, n), Reach: make([]float64, n)}
	// The ground and other points in order, split on all cores.
	ground, other := splitGround(class, opts.Need == nil)
	for _, i := range opts.Need {
		if class[i] != Ground {
			other = append(other, i)
		}
	}
	if len(other) == 0 {
		return res, nil
	}
	if len(ground) == 0 {
		// PDAL's hag_nn logs an error and leaves every height 0.
		for _, i := range other {
			res.Reach[i] = math.Inf(1)
		}
		return res, nil
	}
	var bounds Bounds
	if opts.GroundBounds != nil {
		bounds = *opts.GroundBounds
	} else {
		bounds = groundBounds(pos, ground)
	}
	count := opts.count()
	// The index ranks in float32; ask it for spare more and rank them in
	// float64, so that near ties at the Count-th ground point go as in
	// PDAL.
	k := min(count+spare, len(ground))
	used := min(count, len(ground))
	idx, dist, err := nearestGround(xyz, ground, other, k, b, opts.Build)
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", op, err)
	}
	// The ground points' coordinates in ground order: the neighbours'
	// lookups below land in this array, a fraction of pos, rather than
	// all over pos (on a 64M-point collection, random reads of 1.5 GB).
	gpos := make([]float64, 3*len(ground))
	par.For(par.Ranges(len(ground), par.Grain), func(_, lo, hi int) {
		for j := lo; j < hi; j++ {
			copy(gpos[3*j:3*j+3], pos[3*ground[j]:])
		}
	})
	par.For(par.Ranges(len(other), 64), func(_, lo, hi int) {
		nb := make([]neighbor, max(count, k))
		var xy []float64
		var tri delaunay
		for j := lo; j < hi; j++ {
			i := other[j]
			x0, y0, z0 := pos[3*i], pos[3*i+1], pos[3*i+2]
			res.Reach[i] = math.Inf(1)
			if used == count {
				res.Reach[i] = float64(dist[(j+1)*k-1])
			}
			// PDAL's neighbour list: the count nearest in float64 order,
			// then (fewer ground points than count) the first ground point
			// at squared distance 0, as its zero-filled vectors leave them.
			// A neighbour's g is its position in ground (and gpos).
			for s := range k {
				g := idx[j*k+s]
				dx, dy := x0-gpos[3*g], y0-gpos[3*g+1]
				nb[s] = neighbor{g: g, d2: dx*dx + dy*dy}
			}
			sortByDist(nb[:k])
			for s := used; s < count; s++ {
				nb[s] = neighbor{g: 0}
			}
			nb := nb[:count]
			g0 := nb[0].g
			var z1 float64
			switch {
			case x0 == gpos[3*g0] && y0 == gpos[3*g0+1] || count == 1:
				z1 = gpos[3*g0+2]
			case opts.NoExtrapolation && !bounds.Contains(x0, y0):
				z1 = z0
			case opts.Method == Delaunay:
				xy = xy[:0]
				for _, v := range nb {
					xy = append(xy, gpos[3*v.g], gpos[3*v.g+1])
				}
				z1 = tri.ground(x0, y0, z0, xy, nb, gpos)
			default:
				z1 = idwGround(nb, gpos, opts.MaxDistance*opts.MaxDistance, z0)
			}
			res.HeightAboveGround[i] = z0 - z1
		}
	})
	return res, nil
}

// spare is the number of ground points beyond Count that Compute asks
// the float32 index for, to rank in float64.
const spare = 2

// neighbor is a ground point g (its position in the coordinates the
// functions below are given) at squared XY distance d2 from a query.
type neighbor struct {
	g  int32
	d2 float64
}

// sortByDist orders nb by distance, ties kept in their order: an
// insertion sort, the index's order being nearly this one already (it
// ranks in float32).
func sortByDist(nb []neighbor) {
	for a := 1; a < len(nb); a++ {
		v, b := nb[a], a
		for ; b > 0 && nb[b-1].d2 > v.d2; b-- {
			nb[b] = nb[b-1]
		}
		nb[b] = v
	}
}

// groundBounds returns the XY box of the ground points, on all cores.
func groundBounds(pos []float64, ground []int32) Bounds {
	rs := par.Ranges(len(ground), par.Grain)
	parts := make([]Bounds, len(rs))
	par.For(rs, func(r, lo, hi int) {
		b := Bounds{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
		for _, g := range ground[lo:hi] {
			x, y := pos[3*g], pos[3*g+1]
			b.MinX, b.MaxX = min(b.MinX, x), max(b.MaxX, x)
			b.MinY, b.MaxY = min(b.MinY, y), max(b.MaxY, y)
		}
		parts[r] = b
	})
	b := Bounds{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	for _, p := range parts {
		b.MinX, b.MaxX = min(b.MinX, p.MinX), max(b.MaxX, p.MaxX)
		b.MinY, b.MaxY = min(b.MinY, p.MinY), max(b.MaxY, p.MaxY)
	}
	return b
}

// splitGround returns the indices of the ground points and (others) of
// the rest, each in order, on all cores: each range's ground points
// counted, then both lists filled in place.
func splitGround(class []uint8, others bool) (ground, other []int32) {
	rs := par.Ranges(len(class), par.Grain)
	at := make([]int, len(rs)+1) // ground points before range r
	par.For(rs, func(r, lo, hi int) {
		for _, c := range class[lo:hi] {
			if c == Ground {
				at[r+1]++
			}
		}
	})
	for r := range rs {
		at[r+1] += at[r]
	}
	ground = make([]int32, at[len(rs)])
	if others {
		other = make([]int32, len(class)-len(ground))
	}
	par.For(rs, func(r, lo, hi int) {
		g, o := at[r], lo-at[r]
		for i := lo; i < hi; i++ {
			if class[i] == Ground {
				ground[g] = int32(i)
				g++
			} else if others {
				other[o] = int32(i)
				o++
			}
		}
	})
	return ground, other
}

// nearestGround returns for each point of other its k nearest ground
// points in XY (positions in ground, ties by the smaller index; Z taken as
// 0) and their float32 XY distances: on the backend's own device, in
// finite-radius rounds on a GPU (findneighbor.KNearestQueries).
func nearestGround(xyz []float32, ground, other []int32, k int, b findneighbor.Backend, opts findneighbor.BuildOptions) ([]int32, []float32, error) {
	flat := func(pts []int32) []float32 {
		out := make([]float32, 3*len(pts))
		par.For(par.Ranges(len(pts), par.Grain), func(_, lo, hi int) {
			for j := lo; j < hi; j++ {
				i := pts[j]
				out[3*j], out[3*j+1] = xyz[3*i], xyz[3*i+1]
			}
		})
		return out
	}
	opts.Reuse = true
	idx, dist := make([]int32, len(other)*k), make([]float32, len(other)*k)
	if err := findneighbor.KNearestQueries(b, flat(ground), flat(other), k, opts, idx, dist); err != nil {
		return nil, nil, fmt.Errorf("%s backend: %d nearest ground points: %w", b.Name(), k, err)
	}
	return idx, dist, nil
}

// idwGround is PDAL's neighbor_interp_ground (filters/HagNnFilter.cpp):
// the Z of the neighbours weighted by 1/d², in order, stopping at the first
// beyond maxDist2 (when > 0); zDefault when none is used.
func idwGround(nb []neighbor, pos []float64, maxDist2, zDefault float64) float64 {
	var weights, acc float64
	for _, v := range nb {
		if maxDist2 > 0 && v.d2 > maxDist2 {
			break
		}
		w := 1 / v.d2
		weights += w
		acc += w * pos[3*v.g+2]
	}
	if weights != 0 {
		return acc / weights
	}
	return zDefault
}

// ground is PDAL's delaunay_interp_ground (filters/
// HagDelaunayFilter.cpp): the Z of the first triangle of the neighbours'
// triangulation (made in d) that holds (x0, y0), interpolated; outside
// them all the nearest neighbour's Z; z0 (height 0) when they have no
// triangulation.
func (d *delaunay) ground(x0, y0, z0 float64, xy []float64, nb []neighbor, pos []float64) float64 {
	if d.triangulate(xy) != nil {
		return z0
	}
	t := d.triangles
	for j := 0; j+2 < len(t); j += 3 {
		a, b, c := nb[t[j]].g, nb[t[j+1]].g, nb[t[j+2]].g
		z := barycentric(pos[3*a], pos[3*a+1], pos[3*a+2], pos[3*b], pos[3*b+1], pos[3*b+2],
			pos[3*c], pos[3*c+1], pos[3*c+2], x0, y0)
		if !math.IsInf(z, 1) {
			return z
		}
	}
	return pos[3*nb[0].g+2]
}

// barycentric is PDAL's math::barycentricInterpolation (pdal/private/
// MathUtils.cpp): the Z at (x, y) of the plane through the triangle, +Inf
// when (x, y) lies outside it; a point outside an edge by less than 1e-14
// of the edge's scale counts as on it.
func barycentric(x1, y1, z1, x2, y2, z2, x3, y3, z3, x, y float64) float64 {
	total := (x2-x1)*(y3-y2) - (y2-y1)*(x3-x2)
	if total == 0 {
		return math.Inf(1)
	}
	neg := math.Signbit(total)
	// side is twice the signed area of (a, b, (x, y)); o and p are the
	// edge's points PDAL scales it by.
	side := func(ax, ay, bx, by, ox, oy, px, py float64) (float64, bool) {
		area := (bx-ax)*(y-ay) - (by-ay)*(x-ax)
		if area != 0 && math.Signbit(area) != neg {
			sum := dist2(ox, oy, px, py) + dist2(ox, oy, x, y)
			if math.Abs(area/sum) > 1e-14 {
				return 0, false
			}
			area = 0
		}
		return area, true
	}
	a12, ok := side(x1, y1, x2, y2, x1, y1, x2, y2)
	if !ok {
		return math.Inf(1)
	}
	a23, ok := side(x2, y2, x3, y3, x3, y3, x2, y2)
	if !ok {
		return math.Inf(1)
	}
	a31, ok := side(x3, y3, x1, y1, x3, y3, x1, y1)
	if !ok {
		return math.Inf(1)
	}
	return (a12*z3 + a23*z1 + a31*z2) / total
}
