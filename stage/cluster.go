package stage

import (
	"fmt"
	"math"

	"github.com/pctk/pctk/algos/cluster"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/tile"
)

// PDAL's filters.cluster: Euclidean clusters, numbered from 1 as PDAL
// numbers them, over the tiled DBSCAN's merge (cluster.Tiles) in tiles and
// out of core.

func init() {
	ids := []core.Dimension{{Name: core.DimClusterID, Type: core.Int64, Description: "DBSCAN cluster, 0-based, -1 noise; Euclidean cluster (filters.cluster), 1-based, 0 none"}}
	Register(&Stage{
		Name: "cluster", PDAL: "filters.cluster", Preview: "cluster", Writes: ids, IgnoreClass: true, Tiled: true,
		Usage: "Euclidean clusters: points closer than a tolerance (PDAL filters.cluster)",
		Description: `Labels every point with ClusterID (int64) as PDAL's filters.cluster does: two
points closer than --tolerance (strictly, in float64) are in one cluster;
clusters of fewer than --min-points or more than --max-points points are
dropped, the others numbered 1, 2, ... in the order of their first point;
points of no kept cluster get 0. --dims xy links points by their XY distance
(PDAL's is3d false). It is DBSCAN with min_pts 1 except for pairs exactly at
the tolerance (docs/cluster.md).`,
		Examples: []string{"pctk cluster scan.las out.las --tolerance 2 --min-points 3", "pctk cluster scan.las out.las --tolerance 3 --dims xy --min-points 10 --max-points 5000"},
		Options: []*Option{
			{Kind: Float, Name: "tolerance", PDAL: "tolerance", Value: cluster.DefaultTolerance, Usage: "link distance in coordinate units: points closer than it share a cluster"},
			{Kind: Int, Name: "min-points", PDAL: "min_points", Value: 1, Usage: "drop clusters of fewer points"},
			{Kind: Uint64, Name: "max-points", PDAL: "max_points", DefaultText: "no limit", Usage: "drop clusters of more points (0: no limit)"},
			// PDAL's is3d, as the --dims of the other stages.
			{Kind: String, Name: "dims", PDAL: "is3d", PDALValues: map[string]string{"true": "xyz", "false": "xy"}, Value: "xyz", Usage: DimsOption.Usage},
		},
		Params:  map[string]string{"tolerance": "tolerance", "min_points": "min-points", "max_points": "max-points"},
		Prepare: prepareCluster,
	})
}

func prepareCluster(c Values) (*Job, error) {
	_, flat, err := parseDims(c)
	if err != nil {
		return nil, err
	}
	o := cluster.Options{Tolerance: c.Float64("tolerance"), MinPoints: c.Int("min-points"), Flat: flat}
	if m := c.Uint64("max-points"); m <= math.MaxInt32 {
		// More than the int32 point indices allow is no limit.
		o.MaxPoints = int(m)
	}
	// 0 means the default to the algorithm; here it is out of range.
	if err := findneighbor.CheckRadius("cluster", "tolerance", o.Tolerance, false); err != nil {
		return nil, err
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	// The local stage is Beam's: a cluster spans the cloud, so its reach
	// is +Inf (one tile of every point, on one worker); memory, tiles and
	// out of core keep the tiled components and their exact merge.
	local := &Local{Columns: []core.Dimension{{Name: core.DimClusterID, Type: core.Int64}}, Halo: math.Inf(1),
		Compute: func(in *LocalInput) ([]*core.Attribute, []float64, error) {
			o := o
			o.Pos, o.Build = in.Abs, in.Build // absolute, as PDAL computes
			r, err := cluster.Cluster(in.XYZ, in.Backend, o)
			if err != nil {
				return nil, nil, err
			}
			return []*core.Attribute{core.NewColumn(core.DimClusterID, r.ClusterID)}, constReach(len(r.ClusterID), math.Inf(1)), nil
		}}
	return &Job{
		Local: local,
		Compute: func(p *Points) (*Result, error) {
			o := o
			o.Pos, o.Build, o.TileSize = p.abs(), p.Build, p.TileSize
			r, err := cluster.Cluster(p.XYZ, p.Backend, o)
			if err != nil {
				return nil, err
			}
			res := clusterSummary(o, r)
			res.Columns = []*core.Attribute{core.NewColumn(core.DimClusterID, r.ClusterID)}
			return res, nil
		},
		// The merge's union-find (5 bytes a point), then its labels and
		// the int64 ids (13 at the end).
		Stream: &Streamed{Halo: o.Tolerance, HaloIn: o.Reach, Pos: true, PointBytes: 5, PeakBytes: 13, Run: func(s *StreamRun) (*StreamResult, error) {
			o := o
			o.Build = s.Build
			r, err := cluster.Tiles(s.Store.Source(), int(s.N), s.Backend, func(t *tile.Points) ([]float64, error) {
				abs, _, err := s.Positions(t.ID)
				return abs, err
			}, o)
			if err != nil {
				return nil, err
			}
			sum := clusterSummary(o, r)
			return &StreamResult{Lines: sum.Lines, JSON: sum.JSON, Columns: func(rows []int64, _ []tile.Key) ([]*core.Attribute, error) {
				// Points left out by --ignore-class are in no cluster.
				ids := make([]int64, len(rows))
				for i, id := range rows {
					if id >= 0 {
						ids[i] = r.ClusterID[id]
					}
				}
				return []*core.Attribute{core.NewColumn(core.DimClusterID, ids)}, nil
			}}, nil
		}},
	}, nil
}

// clusterSummary describes a filters.cluster run.
func clusterSummary(o cluster.Options, r *cluster.Result) *Result {
	in := 0
	for _, s := range r.Sizes {
		in += s
	}
	dims := "xyz"
	if o.Flat {
		dims = "xy"
	}
	return &Result{
		Lines: []string{fmt.Sprintf("cluster: tolerance %g (%s): %d clusters, %d dropped by --min-points %d / --max-points %d; %d points in none",
			o.Tolerance, dims, len(r.Sizes), r.Dropped, o.MinPoints, o.MaxPoints, len(r.ClusterID)-in)},
		JSON: map[string]any{"tolerance": o.Tolerance, "dims": dims, "clusters": len(r.Sizes), "dropped": r.Dropped, "unclustered": len(r.ClusterID) - in},
	}
}
