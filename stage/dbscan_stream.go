package stage

import (
	"github.com/pctk/pctk/algos/dbscan"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/primitives/tile"
)

// stream is pctk dbscan out of core (--max-memory): dbscan.ClusterTiles,
// the in-memory tiled run's driver, over the tiles on disk, one at a time
// or one per backend of a tile.Pool, the counts going to the tiles'
// files for the NeighborCount column, the core flags staying in memory (a
// byte a point per --min-pts value); then the columns of the in-memory run
// for the output pass.
func (a *dbscanArgs) stream(s *StreamRun) (*StreamResult, error) {
	n := int(s.N)
	opts := a.opts
	opts.Progress = s.Progress
	run, err := dbscan.ClusterTiles(s.Store.Source(), n, s.Backend, opts, s.Build, nil, func(t *tile.Points, _ []int32, c []uint32) error {
		return s.WriteOwned("counts", t.Key, putUint32s(c))
	})
	if err != nil {
		return nil, err
	}

	rec := s.CountsRecord(a.opts.Eps, a.geo)
	counts := countColumn(s, core.DimNeighborCount, 0, func(c uint32) uint32 { return c })
	res := &StreamResult{
		Columns: func(rows []int64, owners []tile.Key) ([]*core.Attribute, error) {
			cols, err := counts(rows, owners)
			if err != nil {
				return nil, err
			}
			for _, r := range run.Results {
				// Points left out by --ignore-class are in no cluster: -1.
				ids := make([]int64, len(rows))
				for i, id := range rows {
					ids[i] = int64(dbscan.Noise)
					if id >= 0 {
						ids[i] = int64(r.Labels[id])
					}
				}
				cols = append(cols, core.NewColumn(a.attributeFor(r.MinPts), ids))
			}
			return cols, nil
		},
		Meta: func(m *core.Metadata) { m.Comments = withCountsRecord(m.Comments, rec) },
	}
	if a.classify {
		labels := run.Results[0].Labels
		res.Edit = func(rows []int64, c *core.Cloud) (*core.Cloud, error) {
			// Noise of the first result; points left out are not.
			noise := make([]bool, c.Len())
			for i, id := range rows {
				noise[i] = id >= 0 && labels[id] == dbscan.Noise
			}
			return c, classifyNoise(c, noise)
		}
	}
	sum := newDBSCANSummary(a, s.In, s.Out, int(s.Total), n, s.Dims, run)
	res.Lines = sum.lines()
	res.Doc = sum.doc
	return res, nil
}
