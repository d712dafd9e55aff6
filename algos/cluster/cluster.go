package cluster

import (
	"errors"
	"fmt"

	"github.com/pctk/pctk/algos/dbscan"
	"github.com/pctk/pctk/algos/internal/pairs"
	"github.com/pctk/pctk/internal/par"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/tile"
)

// NoCluster is the ClusterID of points in no kept cluster.
const NoCluster int64 = 0

// DefaultTolerance is PDAL's default tolerance.
const DefaultTolerance = 1.0

// Options are filters.cluster's options. The zero value is PDAL's
// defaults: tolerance 1, min_points 1, no max_points, is3d true.
type Options struct {
	// Tolerance is the link distance: points closer than it (strictly)
	// are in one cluster. 0 means DefaultTolerance.
	Tolerance float64
	// MinPoints drops clusters of fewer points (PDAL's min_points, default
	// 1; 0 is the same).
	MinPoints int
	// MaxPoints drops clusters of more points (PDAL's max_points); 0 means
	// no limit.
	MaxPoints int
	// Flat links points by their XY distance (PDAL's is3d=false).
	Flat bool
	// Pos, when not nil, holds the points' float64 coordinates in any
	// frame (interleaved x, y, z; PDAL's absolute ones give its bits): the
	// distance test runs on them, as PDAL's does on its own. nil: on xyz
	// widened to float64.
	Pos []float64
	// TileSize, when > 0, runs Cluster on square tiles of this side in XY
	// (Tiles over the tiles tile.Bin cuts), several at a time on the cpu
	// backend's Build.Workers: the same Result.
	TileSize float64
	// Build tunes the neighbour index.
	Build findneighbor.BuildOptions
}

func (o Options) tolerance() float64 {
	if o.Tolerance == 0 {
		return DefaultTolerance
	}
	return o.Tolerance
}

// Validate checks the options.
func (o Options) Validate() error {
	if err := findneighbor.CheckRadius("cluster", "tolerance", o.tolerance(), false); err != nil {
		return err
	}
	if err := findneighbor.CheckMin("cluster", "min_points", o.MinPoints, 0); err != nil {
		return err
	}
	return findneighbor.CheckMin("cluster", "max_points", o.MaxPoints, 0)
}

// Reach returns the distance in float32 coordinates within the box frame
// that holds every pair closer than Tolerance in float64: Tolerance
// widened by 1e-5 relative and by 1e-6 of the frame's largest coordinate,
// more than float32 rounding of the coordinates and of the distance can
// move a pair (pairs.Reach). Tiles are cut on the float32 coordinates, so
// a tile's halo must be at least Reach of the whole run's frame (XY; Z
// uncut).
func (o Options) Reach(frame findneighbor.Box) float64 {
	return pairs.Reach(o.tolerance(), frame)
}

// Result is filters.cluster's output.
type Result struct {
	// ClusterID holds each point's cluster, 1..Clusters, or NoCluster.
	ClusterID []int64
	// Sizes holds the number of points of each kept cluster (Sizes[id-1]).
	Sizes []int
	// Dropped is the number of clusters dropped by MinPoints or MaxPoints.
	Dropped int
}

// Cluster runs filters.cluster on the points xyz (interleaved x, y, z
// float32 relative to a local origin). The clusters are labelled on the
// host in float64 (pairs.Components) on every backend; b's workers run the
// tiles of Options.TileSize.
func Cluster(xyz []float32, b findneighbor.Backend, o Options) (*Result, error) {
	n, err := findneighbor.CheckPoints("cluster", xyz)
	if err != nil {
		return nil, err
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if b == nil {
		return nil, errors.New("cluster: no backend")
	}
	if o.Pos != nil && len(o.Pos) != len(xyz) {
		return nil, fmt.Errorf("cluster: %d float64 coordinates for %d points", len(o.Pos), n)
	}
	if o.TileSize > 0 {
		return clusterTiled(xyz, b, o)
	}
	least, err := pairs.Components(xyz, o.Pos, o.Flat, o.tolerance(), o.Build.Workers)
	if err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	// The components numbered 0.. in the order of their smallest index,
	// as Merge numbers them, in one pass (a point's smallest index comes
	// no later than the point).
	num := make([]int32, n)
	var sizes []int
	for i, l := range least {
		if l == int32(i) {
			num[i] = int32(len(sizes))
			sizes = append(sizes, 0)
		} else {
			num[i] = num[l]
		}
		sizes[num[i]]++
	}
	return number(num, sizes, o), nil
}

// Tile is the tile kernel of a tiled filters.cluster on the tile t, whose
// halo is at least o.Reach of the run's frame: it returns linked pairs of
// points of t whose components are those of all of t's links (a spanning
// forest, halo points included), as global ids, for a Merge. Every link
// of an owned point lies within its tile, so the tiles' forests together
// join what the whole cloud's links join. pos holds the tile's float64
// coordinates in the order of t's points (Options.Pos of the tile; nil:
// from t.XYZ); o.Pos is ignored.
func Tile(t *tile.Points, pos []float64, o Options) (*dbscan.Links, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if pos != nil && len(pos) != len(t.XYZ) {
		return nil, fmt.Errorf("cluster: tile %v: %d float64 coordinates for %d points", t.Key, len(pos), t.Len())
	}
	all := &dbscan.Links{}
	if t.Len() == 0 {
		return all, nil
	}
	// A pair between two halo points is kept: it is a true link, and the
	// forest may need it to join owned points.
	err := pairs.Forest(t.XYZ, pos, o.Flat, o.tolerance(), o.Build.Workers, func(i, j int) error {
		all.Edges = append(all.Edges, t.ID[i], t.ID[j])
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("cluster: tile %v: %w", t.Key, err)
	}
	return all, nil
}

// Tiles is filters.cluster of a run of n points over the tiles of ts,
// whose halo is at least o.Reach of the run's frame: Tile on every tile
// through dbscan.LinkTiles (tile.Each on b: a tile.Share of the cpu
// backend, a tile.Pool of GPUs), pos returning a tile's float64
// coordinates (nil: from its float32 ones), then Merge's numbering. It is
// every tiled run's driver, in memory (Options.TileSize) and out of core,
// and gives Cluster's Result on the whole cloud. o.Pos and o.TileSize are
// ignored.
func Tiles(ts tile.Source, n int, b findneighbor.Backend, pos func(t *tile.Points) ([]float64, error), o Options) (*Result, error) {
	m := NewMerge(n)
	err := dbscan.LinkTiles(ts, b, []*dbscan.Merge{m.m}, func(t *tile.Points, w findneighbor.Backend) ([]*dbscan.Links, error) {
		var p []float64
		if pos != nil {
			var err error
			if p, err = pos(t); err != nil {
				return nil, err
			}
		}
		l, err := Tile(t, p, o)
		return []*dbscan.Links{l}, err
	}, nil)
	if err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	return m.Result(o)
}

// clusterTiled is Cluster with o.TileSize > 0: Tiles over the tiles
// tile.Bin cuts in memory with a halo of o.Reach, their float64
// coordinates gathered from o.Pos.
func clusterTiled(xyz []float32, b findneighbor.Backend, o Options) (*Result, error) {
	g, err := tile.GridFor(o.TileSize, o.Reach(findneighbor.BoxOf(xyz)), xyz)
	if err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	tiles := tile.Bins(tile.Bin(xyz, g))
	var pos func(t *tile.Points) ([]float64, error)
	if o.Pos != nil {
		pos = func(t *tile.Points) ([]float64, error) {
			p := make([]float64, 3*t.Len())
			for j, id := range t.ID {
				copy(p[3*j:3*j+3], o.Pos[3*id:])
			}
			return p, nil
		}
	}
	return Tiles(tiles, len(xyz)/3, tile.Share(b, o.Build.Workers, len(tiles)), pos, o)
}

// Merge unites the links of a tiled filters.cluster run (the tiles' from
// Tile) in dbscan's union-find (dbscan.Merge, every point a
// core point), whose roots are each cluster's smallest index: 5 bytes a
// point.
type Merge struct{ m *dbscan.Merge }

// NewMerge returns the merge of a run over n points.
func NewMerge(n int) *Merge {
	core := make([]bool, n)
	for i := range core {
		core[i] = true
	}
	return &Merge{dbscan.NewMerge(core)}
}

// Add merges links (of any tile, in any order).
func (m *Merge) Add(l *dbscan.Links) error {
	if err := m.m.Add(l); err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	return nil
}

// Result numbers the clusters as filters.cluster does with o's MinPoints
// and MaxPoints. The merge must not be used afterwards.
func (m *Merge) Result(o Options) (*Result, error) {
	r, err := m.m.Result(1, 0)
	if err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	return number(r.Labels, r.Sizes, o), nil
}

// number returns the Result of the components num (each point's, 0.. in
// the order of their smallest index, as extractClusters finds them) of
// sizes points: those within o's MinPoints and MaxPoints numbered from 1
// in that order, the others NoCluster.
func number(num []int32, sizes []int, o Options) *Result {
	id := make([]int64, len(sizes))
	out := &Result{ClusterID: make([]int64, len(num)), Sizes: []int{}}
	for c, s := range sizes {
		if s < o.MinPoints || o.MaxPoints > 0 && s > o.MaxPoints {
			out.Dropped++
			continue
		}
		out.Sizes = append(out.Sizes, s)
		id[c] = int64(len(out.Sizes))
	}
	par.For(par.Ranges(len(num), par.Grain), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			out.ClusterID[i] = id[num[i]]
		}
	})
	return out
}
