package stage

import (
	"time"

	"github.com/pctk/pctk/algos/dbscan"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/tile"
)

// stream is pctk dbscan out of core (--max-memory): dbscan's tile kernels
// over the tiles on disk, one at a time or one per backend of a tile.Pool
// (tile.Each), merged in tile order (CountTile, whose counts go to the
// tiles' files and whose core flags stay in memory, a byte a point per
// --min-pts value; then ClusterTile into one dbscan.Merge per value), and
// the columns of the in-memory run for the output pass.
func (a *dbscanArgs) stream(s *StreamRun) (*StreamResult, error) {
	keys := s.Store.Keys()
	n := int(s.N)
	cores := make([][]bool, len(a.opts.MinPts))
	for j := range cores {
		cores[j] = make([]bool, n)
	}
	run := &dbscan.Run{Backend: s.Backend.Name()}
	t := time.Now()
	// Phase 1 (dbscan.CountTile's counts).
	_, err := s.StreamCounts(a.opts.Eps, dbscan.StageCount, func(tl *tile.Points, owned []int32, counts []uint32) {
		for j, i := range owned {
			for m, minPts := range a.opts.MinPts {
				cores[m][tl.ID[i]] = uint64(counts[j])+1 >= uint64(minPts)
			}
		}
	})
	if err != nil {
		return nil, err
	}
	run.Stage1 = time.Since(t)
	for m, minPts := range a.opts.MinPts {
		t := time.Now()
		merge := dbscan.NewMerge(cores[m])
		err := tile.Each(s.Backend, len(keys), func(w findneighbor.Backend, ti int) (*dbscan.Links, error) {
			tl, err := s.Store.Load(keys[ti])
			if err != nil {
				return nil, err
			}
			core := make([]bool, tl.Len())
			for i, id := range tl.ID {
				core[i] = cores[m][id]
			}
			return dbscan.ClusterTile(tl, core, w, a.opts.Eps, s.Build)
		}, func(ti int, links *dbscan.Links) error {
			s.Progress(dbscan.StageCluster, float64(ti+1)/float64(len(keys)))
			return merge.Add(links)
		})
		if err != nil {
			return nil, err
		}
		r, err := merge.Result(minPts, a.opts.MinClusterSize)
		if err != nil {
			return nil, err
		}
		r.Stage2 = time.Since(t)
		run.Results = append(run.Results, r)
	}
	s.Progress(dbscan.StageCluster, 1)

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
	res.Doc = func(t Timings) any {
		sum.Seconds.Read, sum.Seconds.Write = t.Read, t.Write
		return sum
	}
	return res, nil
}
