package knn

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/pctk/pctk/internal/par"

	"github.com/pctk/pctk/primitives/findneighbor"
)

// Table holds every point's K nearest other points, closest first, ties
// broken by the smaller index (findneighbor's KNearest order): point i's
// are Idx[i*K:(i+1)*K] at float32 distances Dist[i*K:(i+1)*K].
type Table struct {
	K    int
	Idx  []int32
	Dist []float32
	// Far, on a table from Ranked, holds each point's farthest candidate's
	// float32 distance: Kth's reach, since the ranking looked that far.
	Far []float64
	// Short says Find was asked for more neighbours than the cloud has:
	// each point's are all the others, whose number depends on points
	// however far, so Kth is +Inf (a tile of the stage driver with too few
	// points then leaves them to wider tiles).
	Short bool
}

// Find returns the k nearest other points of every point of xyz, with k
// reduced to n-1 where the cloud has no more (PDAL's KD3Index reduces it
// to n, the point itself counted). op names the caller in errors.
func Find(op string, xyz []float32, b findneighbor.Backend, k int, opts findneighbor.BuildOptions) (*Table, error) {
	n, err := findneighbor.CheckPoints(op, xyz)
	if err != nil {
		return nil, err
	}
	t := &Table{K: max(min(k, n-1), 0), Short: k > n-1}
	k = t.K
	if k <= 0 {
		return t, nil
	}
	t.Idx, t.Dist = make([]int32, n*k), make([]float32, n*k)
	if err := findneighbor.KNearestAll(b, xyz, k, opts, t.Idx, t.Dist); err != nil {
		return nil, fmt.Errorf("%s: %d nearest (%s): %w", op, k, b.Name(), err)
	}
	return t, nil
}

// Len returns the number of points.
func (t *Table) Len() int {
	if t.K == 0 {
		return 0
	}
	return len(t.Idx) / t.K
}

// Of returns point i's neighbours and their float32 distances.
func (t *Table) Of(i int) ([]int32, []float32) {
	return t.Idx[i*t.K : (i+1)*t.K], t.Dist[i*t.K : (i+1)*t.K]
}

// Kth returns for every point of n the float32 distance to its K-th
// nearest other point, as float64: the Reach of a stage whose outputs
// depend on a point's K nearest alone; +Inf on a Short table.
func (t *Table) Kth(n int) []float64 {
	r := make([]float64, n)
	switch {
	case t.Short:
		for i := range r {
			r[i] = math.Inf(1)
		}
		return r
	case t.Far != nil:
		copy(r, t.Far)
		return r
	case t.K == 0:
		return r
	}
	for i := range r {
		r[i] = float64(t.Dist[i*t.K+t.K-1])
	}
	return r
}

// Hop returns for every point p the reach of an output made of the
// outputs of p itself and of its K nearest o, whose reach is r:
// max(r[p], max over o of d(p, o) + r[o]), with the float32 distances of
// the table summed in float64 (the triangle inequality bounds where every
// point o's output looked).
func (t *Table) Hop(r []float64) []float64 {
	out := make([]float64, len(r))
	for p := range r {
		m := r[p]
		for j := range t.K {
			o := t.Idx[p*t.K+j]
			m = max(m, float64(t.Dist[p*t.K+j])+r[o])
		}
		out[p] = m
	}
	return out
}

// Positions returns the float64 coordinates a stage computes with, as
// PDAL computes with its absolute double coordinates: pos (checked to hold
// three per point of xyz), or xyz widened to float64 when pos is nil, plus
// origin, the local origin both are relative to. Where pos was made as
// absolute - origin without rounding (Sterbenz: coordinates within a
// factor 2 of the origin, as projected ones are), this gives PDAL's
// coordinates back to the bit, and with them its centroids' rounding. The
// option is named "pos" in errors.
func Positions(op string, xyz []float32, pos []float64, origin [3]float64) ([]float64, error) {
	if pos != nil && len(pos) != len(xyz) {
		return nil, &findneighbor.ParamError{Op: op, Param: "pos", Value: fmt.Sprintf("of %d coordinates", len(pos)),
			Want: fmt.Sprintf("%d, three per point like xyz", len(xyz))}
	}
	p := make([]float64, len(xyz))
	for i, v := range xyz {
		if pos != nil {
			p[i] = pos[i] + origin[i%3]
		} else {
			p[i] = float64(v) + origin[i%3]
		}
	}
	return p, nil
}

// Spare is the number of nearest neighbours beyond K a PDAL stage asks
// the float32 index for, so that the K nearest in float64 (PDAL's
// nanoflann ranks in float64) are among the candidates even where float32
// rounding reorders neighbours about the K-th distance.
const Spare = 4

// Ranked returns the table of every point's k nearest in float64 (Dist
// from pos; the smaller index first on an exact tie, where nanoflann's
// order is unspecified) among t's candidates, which should be k + Spare
// (fewer where the cloud has fewer points): PDAL's neighbourhoods. Dist
// keeps the chosen neighbours' float32 distances and Far each point's
// farthest candidate's.
func (t *Table) Ranked(pos []float64, k int) *Table {
	n := t.Len()
	k = min(k, t.K)
	if k <= 0 {
		return &Table{Short: t.Short}
	}
	r := &Table{K: k, Idx: make([]int32, n*k), Dist: make([]float32, n*k), Far: make([]float64, n), Short: t.Short}
	par.For(par.Ranges(n, par.Grain/t.K), func(_, lo, hi int) {
		cs := make([]rankCand, t.K)
		for p := lo; p < hi; p++ {
			idx, dist := t.Of(p)
			for j, o := range idx {
				cs[j] = rankCand{math.Inf(1), dist[j], o}
				if o >= 0 {
					cs[j].d = Dist(pos, int32(p), o)
				}
			}
			// The candidates come in float32 order, which the float64
			// distances change only at near ties: an insertion sort does
			// little more than one pass.
			for i := 1; i < len(cs); i++ {
				for j := i; j > 0 && cs[j].before(cs[j-1]); j-- {
					cs[j], cs[j-1] = cs[j-1], cs[j]
				}
			}
			for j := range k {
				r.Idx[p*k+j], r.Dist[p*k+j] = cs[j].o, cs[j].f
			}
			r.Far[p] = float64(dist[t.K-1])
		}
	})
	return r
}

// rankCand is a candidate of Ranked: its float64 and float32 distances
// and its index.
type rankCand struct {
	d float64
	f float32
	o int32
}

// before orders candidates by float64 distance (cmp.Compare's order), ties
// by the smaller index.
func (a rankCand) before(b rankCand) bool {
	c := cmp.Compare(a.d, b.d)
	return c < 0 || c == 0 && a.o < b.o
}

// Dists returns in d (reused) the float64 distances (Dist) from point p
// of pos to its candidates in t, sorted increasing: nanoflann's order.
func (t *Table) Dists(pos []float64, p int, d []float64) []float64 {
	d = d[:0]
	for _, o := range t.Idx[p*t.K : (p+1)*t.K] {
		if o >= 0 {
			d = append(d, Dist(pos, int32(p), o))
		}
	}
	slices.Sort(d)
	return d
}

// Dist returns the distance between points i and j of pos as PDAL's
// KD3Index computes it, sqrt(d0*d0 + d1*d1 + d2*d2) in float64 added left
// to right, each product rounded (no fused multiply-add).
func Dist(pos []float64, i, j int32) float64 {
	d0 := pos[3*i] - pos[3*j]
	d1 := pos[3*i+1] - pos[3*j+1]
	d2 := pos[3*i+2] - pos[3*j+2]
	return math.Sqrt(float64(d0*d0) + float64(d1*d1) + float64(d2*d2))
}
