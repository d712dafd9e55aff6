package cluster

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/algos/dbscan"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/fntest"
	"github.com/pctk/pctk/primitives/tile"
)

// run runs Cluster on the cpu backend.
func run(t *testing.T, xyz []float32, o Options) *Result {
	t.Helper()
	r, err := Cluster(xyz, findneighbor.CPU(), o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestPDALSegmentation holds Cluster to PDAL's own test of
// extractClusters (test/unit/SegmentationTest.cpp, BasicClustering and
// Clustering2D): the number of clusters and their sizes, in order.
func TestPDALSegmentation(t *testing.T) {
	three := []float32{0, 0, 0, 10, 10, 10, 0.5, 0.5, 0.5}
	flat := []float32{0, 0, 0, 10, 10, 10, 0, 0, 10}
	for _, c := range []struct {
		name string
		xyz  []float32
		o    Options
		want []int
	}{
		{"single point", three[:3], Options{MinPoints: 1, MaxPoints: 10}, []int{1}},
		{"two single points", three[:6], Options{MinPoints: 1, MaxPoints: 10}, []int{1, 1}},
		{"a pair and a point", three, Options{MinPoints: 1, MaxPoints: 10}, []int{2, 1}},
		{"min_points 2", three, Options{MinPoints: 2, MaxPoints: 10}, []int{2}},
		{"max_points 1", three, Options{MinPoints: 1, MaxPoints: 1}, []int{1}},
		{"2D single point", flat[:3], Options{MinPoints: 1, MaxPoints: 10, Flat: true}, []int{1}},
		{"2D two single points", flat[:6], Options{MinPoints: 1, MaxPoints: 10, Flat: true}, []int{1, 1}},
		{"2D stacked pair", flat, Options{MinPoints: 1, MaxPoints: 10, Flat: true}, []int{2, 1}},
		{"3D stacked pair", flat, Options{MinPoints: 1, MaxPoints: 10}, []int{1, 1, 1}},
	} {
		r := run(t, c.xyz, c.o)
		if !slices.Equal(r.Sizes, c.want) {
			t.Errorf("%s: sizes %v, want %v", c.name, r.Sizes, c.want)
		}
	}
	// The ids of the last 3D case: the pair 1, the point 2; with the pair
	// dropped (max_points 1) the point is cluster 1 and the pair 0.
	if got := run(t, three, Options{}).ClusterID; !slices.Equal(got, []int64{1, 2, 1}) {
		t.Errorf("ClusterID %v, want [1 2 1]", got)
	}
	if got := run(t, three, Options{MaxPoints: 1}).ClusterID; !slices.Equal(got, []int64{0, 1, 0}) {
		t.Errorf("ClusterID with max_points 1: %v, want [0 1 0]", got)
	}
}

// TestStrictTolerance checks that a pair exactly at the tolerance is not
// linked (PDAL's dist < r²) while a pair a rounding closer is, in 3D and
// in XY.
func TestStrictTolerance(t *testing.T) {
	for _, c := range []struct {
		name string
		xyz  []float32
		o    Options
		want []int64
	}{
		{"at tolerance", []float32{0, 0, 0, 2, 0, 0}, Options{Tolerance: 2}, []int64{1, 2}},
		{"below tolerance", []float32{0, 0, 0, 2, 0, 0}, Options{Tolerance: 2.0000001}, []int64{1, 1}},
		{"float64 position at tolerance", []float32{0, 0, 0, 1, 0, 0}, Options{Tolerance: 1, Pos: []float64{0, 0, 0, 1, 0, 0}}, []int64{1, 2}},
		{"float64 position just inside", []float32{0, 0, 0, 1, 0, 0}, Options{Tolerance: 1, Pos: []float64{0, 0, 0, 1 - 1e-15, 0, 0}}, []int64{1, 1}},
		{"XY at tolerance, far in Z", []float32{0, 0, 0, 3, 4, 100}, Options{Tolerance: 5, Flat: true}, []int64{1, 2}},
		{"XY within, far in Z", []float32{0, 0, 0, 3, 3.9, 100}, Options{Tolerance: 5, Flat: true}, []int64{1, 1}},
	} {
		if got := run(t, c.xyz, c.o).ClusterID; !slices.Equal(got, c.want) {
			t.Errorf("%s: ClusterID %v, want %v", c.name, got, c.want)
		}
	}
}

// bruteIDs is the reference: the components of the pairs at float64
// distance below tol, found in O(N²), numbered as extractClusters does.
func bruteIDs(xyz []float32, o Options) []int64 {
	n := len(xyz) / 3
	tol := o.tolerance()
	dims := 3
	if o.Flat {
		dims = 2
	}
	near := func(i, j int) bool {
		d2 := 0.0
		for a := range dims {
			d := float64(xyz[3*i+a]) - float64(xyz[3*j+a])
			d2 += d * d
		}
		return d2 < tol*tol
	}
	ids := make([]int64, n)
	seen := make([]bool, n)
	next := int64(1)
	for s := range n {
		if seen[s] {
			continue
		}
		queue := []int{s}
		seen[s] = true
		for q := 0; q < len(queue); q++ {
			for j := range n {
				if !seen[j] && near(queue[q], j) {
					seen[j] = true
					queue = append(queue, j)
				}
			}
		}
		if len(queue) < o.MinPoints || o.MaxPoints > 0 && len(queue) > o.MaxPoints {
			continue
		}
		for _, i := range queue {
			ids[i] = next
		}
		next++
	}
	return ids
}

// TestBackends holds Cluster to the brute-force reference on every usable
// backend, on fntest's random clouds at several tolerances and limits.
func TestBackends(t *testing.T) {
	for _, c := range fntest.Clouds(5, 1200) {
		for _, o := range []Options{
			{Tolerance: 0.3},
			{Tolerance: 0.71, MinPoints: 3},
			{Tolerance: 0.71, MinPoints: 2, MaxPoints: 40, Flat: true},
			{Tolerance: 0.05},
		} {
			name := fmt.Sprintf("%s/%+v", c.Name, o)
			algotest.Check(t, name, func(b findneighbor.Backend) ([]int64, error) {
				r, err := Cluster(c.XYZ, b, o)
				if err != nil {
					return nil, err
				}
				return r.ClusterID, nil
			}, bruteIDs(c.XYZ, o), algotest.Exact[int64])
		}
	}
}

// tiled runs Cluster's tile kernel over the tiles of side size (halo
// Reach of the whole cloud's box) and merges them in reverse tile order.
func tiled(xyz []float32, b findneighbor.Backend, o Options, size float64) (*Result, error) {
	g, err := tile.GridFor(size, o.Reach(findneighbor.BoxOf(xyz)), xyz)
	if err != nil {
		return nil, err
	}
	tiles := tile.Bin(xyz, g)
	m := NewMerge(len(xyz) / 3)
	for _, tl := range slices.Backward(tiles) {
		var pos []float64
		if o.Pos != nil {
			for _, id := range tl.ID {
				pos = append(pos, o.Pos[3*id:3*id+3]...)
			}
		}
		l, err := Tile(tl, pos, o)
		if err != nil {
			return nil, err
		}
		if err := m.Add(l); err != nil {
			return nil, err
		}
	}
	return m.Result(o)
}

// TestTiledEqualsInMemory holds the tile kernel and merge to Cluster on
// the whole cloud, id for id, at tile sizes down to twice the tolerance.
func TestTiledEqualsInMemory(t *testing.T) {
	algotest.CheckTiledExact(t, "../..", func(c algotest.TileCloud, size float64) (*Result, error) {
		o := Options{Tolerance: c.R, MinPoints: 2, MaxPoints: 500}
		if size == 0 {
			return Cluster(c.XYZ, findneighbor.CPU(), o)
		}
		// Options.TileSize (Tiles, tiles merged in order), and the
		// kernel's links merged in reverse order: the same result.
		back, err := tiled(c.XYZ, findneighbor.CPU(), o, size)
		if err != nil {
			return nil, err
		}
		o.TileSize = size
		r, err := Cluster(c.XYZ, findneighbor.CPU(), o)
		if err == nil && !slices.Equal(r.ClusterID, back.ClusterID) {
			err = fmt.Errorf("tile size %g: Options.TileSize and the tiles merged backwards differ", size)
		}
		return r, err
	}, func(t *testing.T, got, want *Result) {
		if !slices.Equal(got.ClusterID, want.ClusterID) || !slices.Equal(got.Sizes, want.Sizes) || got.Dropped != want.Dropped {
			t.Errorf("tiled: %d clusters (%d dropped), want %d (%d dropped); ids differ: %v",
				len(got.Sizes), got.Dropped, len(want.Sizes), want.Dropped, !slices.Equal(got.ClusterID, want.ClusterID))
		}
	})
}

// TestDBSCANMinPts1 checks the documented relation: with a tolerance
// just above ε (so that < tolerance is ≤ ε on these points), the clusters
// are DBSCAN's with min_pts 1, numbered from 1 instead of 0.
func TestDBSCANMinPts1(t *testing.T) {
	c := fntest.Clouds(9, 2000)[0]
	eps := 0.4
	d, err := dbscan.Cluster(c.XYZ, findneighbor.CPU(), dbscan.Options{Eps: eps, MinPts: []int{1}})
	if err != nil {
		t.Fatal(err)
	}
	r := run(t, c.XYZ, Options{Tolerance: eps * (1 + 1e-6)})
	for i, l := range d.Results[0].Labels {
		if r.ClusterID[i] != int64(l)+1 {
			t.Fatalf("point %d: ClusterID %d, DBSCAN label %d", i, r.ClusterID[i], l)
		}
	}
	if len(r.Sizes) != len(d.Results[0].Sizes) {
		t.Errorf("%d clusters, DBSCAN %d", len(r.Sizes), len(d.Results[0].Sizes))
	}
}

// TestValidate checks that bad options are ParamErrors naming PDAL's
// option.
func TestValidate(t *testing.T) {
	for _, c := range []struct {
		o     Options
		param string
	}{
		{Options{Tolerance: -1}, "tolerance"},
		{Options{MinPoints: -1}, "min_points"},
		{Options{MaxPoints: -2}, "max_points"},
	} {
		_, err := Cluster([]float32{0, 0, 0}, findneighbor.CPU(), c.o)
		var pe *findneighbor.ParamError
		if !errors.As(err, &pe) || pe.Param != c.param {
			t.Errorf("%+v: error %v, want a ParamError on %s", c.o, err, c.param)
		}
	}
	if _, err := Cluster([]float32{0, 0, 0}, findneighbor.CPU(), Options{Pos: []float64{0}}); err == nil {
		t.Error("Pos of the wrong length accepted")
	}
	r := run(t, nil, Options{})
	if len(r.ClusterID) != 0 || len(r.Sizes) != 0 {
		t.Errorf("empty cloud: %+v", r)
	}
}
