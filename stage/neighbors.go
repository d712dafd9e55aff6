package stage

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/pctk/pctk/algos/dbscan"
	"github.com/pctk/pctk/algos/density"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/internal/par"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/tile"
)

func init() {
	Register(neighborsFilter)
}

var neighborsFilter = &Stage{
	Name:    "neighbors",
	Aliases: []string{"neighbours"},
	Usage:   "write per-point neighbour counts and k-nearest distances, to inspect density",
	Description: `Adds NeighborCount (uint32: the number of OTHER points within --radius) and,
with --knn K, KnnMeanDistance (float32: the mean distance to the K nearest
other points; with --radius only those within it count, so a point with
fewer than K neighbours averages over what it has, and one with none gets
NaN; without --radius it is plain K-nearest-neighbour distance). Existing
columns of those names are replaced. A density summary (min, median, mean,
max and percentiles) goes to stderr, to help choose DBSCAN's --eps and
--min-pts: a point is a DBSCAN core point when NeighborCount + 1 ≥ min_pts.
--radius is a finite number > 0 (0: none); a K beyond the cloud uses every
point (with a warning).

With --radius the counts carry the same record as "pctk dbscan" writes, so
"pctk dbscan OUT ... --eps R" with the same --dims reuses them (not with
--ignore-class, whose ignored points get no count).

--dims xy measures distance in the XY plane only (2D and geospatial data).`,
	Examples: []string{"pctk neighbors scan.las out.las --radius 2 --knn 8"},
	Options: []*Option{
		&Option{Kind: Float, Name: "radius", Usage: "search radius in coordinate units (0 or unset: none, then --knn is plain kNN)"},
		&Option{Kind: Int, Name: "knn", Usage: "also write KnnMeanDistance over the K nearest points (within --radius, if given; 0: not written)"},
	},
	Dims: true, IgnoreClass: true, Tiled: true,
	Params: map[string]string{"radius": "radius", "k": "knn"},
	Prepare: func(c Values) (*Job, error) {
		radius, k := c.Float64("radius"), c.Int("knn")
		if err := findneighbor.CheckRadius("neighbors", "radius", radius, true); err != nil {
			return nil, err
		}
		if err := findneighbor.CheckMin("neighbors", "k", k, 0); err != nil {
			return nil, err
		}
		if radius == 0 && k == 0 {
			return nil, Usagef("neighbors needs --radius, --knn or both")
		}
		job := &Job{Local: neighborsLocal(radius, k), Compute: func(p *Points) (*Result, error) { return computeNeighbors(p, radius, k) }}
		// Out of core: KnnMeanDistance's summary sorts the values, 12
		// bytes a point.
		job.Stream = &Streamed{Halo: radius, KNN: k, Moments: k > 0, PointBytes: 12, Record: radius > 0, Run: func(s *StreamRun) (*StreamResult, error) { return streamNeighbors(s, radius, k) }}
		return job, nil
	},
}

// neighborsLocal is neighbors as a local stage, for Beam (memory, tiles
// and out of core keep their paths, which add the summary): the counts
// within radius, the mean distance to the k nearest from their moments
// (as density.KnnMeanDistance), and the counts record of a one-file run.
func neighborsLocal(radius float64, k int) *Local {
	l := &Local{Halo: radius, KNN: k, Moments: k > 0 && radius > 0, XYZOnly: true}
	if radius > 0 {
		l.Columns = append(l.Columns, core.Dimension{Name: core.DimNeighborCount, Type: core.Uint32})
		l.File = func(c *core.Cloud, dims string) error {
			c.Meta.Comments = withCountsRecord(c.Meta.Comments, dbscan.CountsRecord(c.X, c.Y, c.Z, radius, dims, false))
			return nil
		}
	}
	if k > 0 {
		l.Columns = append(l.Columns, core.Dimension{Name: core.DimKnnMeanDistance, Type: core.Float32})
	}
	l.Compute = func(in *LocalInput) ([]*core.Attribute, []float64, error) {
		n := len(in.XYZ) / 3
		var cols []*core.Attribute
		reach := constReach(n, radius)
		if radius > 0 {
			counts, err := findneighbor.Counts(in.Backend, in.XYZ, radius, in.Build)
			if err != nil {
				return nil, nil, err
			}
			cols = append(cols, core.NewColumn(core.DimNeighborCount, counts))
		}
		if k > 0 {
			mean := make([]float32, n)
			r, err := localMoments("neighbors", in, radius, k, func(pts []int32, m []findneighbor.Moment) {
				for j, i := range pts {
					mean[i] = float32(math.NaN())
					if m[j].N > 0 {
						mean[i] = float32(m[j].Dist / float64(m[j].N))
					}
				}
			})
			if err != nil {
				return nil, nil, err
			}
			for i := range r {
				reach[i] = max(reach[i], r[i])
			}
			cols = append(cols, core.NewColumn(core.DimKnnMeanDistance, mean))
		}
		if in.Whole {
			reach = nil
		}
		return cols, reach, nil
	}
	return l
}

// streamNeighbors is pctk neighbors out of core: the columns of
// computeNeighbors, tile by tile (counts within radius; the mean distance
// to the k nearest, within radius or with no limit), with the same summary
// and record.
func streamNeighbors(s *StreamRun, radius float64, k int) (*StreamResult, error) {
	res := &StreamResult{Columns: func([]int64, []tile.Key) ([]*core.Attribute, error) { return nil, nil }}
	fields := map[string]any{"radius": radius, "knn": k, "dims": s.Dims}
	if radius > 0 {
		hist, err := s.StreamCounts(radius, "", nil)
		if err != nil {
			return nil, err
		}
		st := countStats(hist, func(c uint32) float64 { return float64(c) })
		rec := s.CountsRecord(radius, false)
		res.Columns = countColumn(s, core.DimNeighborCount, 0, func(c uint32) uint32 { return c })
		res.Meta = func(m *core.Metadata) { m.Comments = withCountsRecord(m.Comments, rec) }
		fields["neighbor_count"] = st
		res.Lines = append(res.Lines, fmt.Sprintf("NeighborCount within %g (%s): %s", radius, s.Dims, st))
	}
	if k > 0 {
		warnClamped("knn", k, max(int(s.N)-1, 0), "other point")
		// KnnMeanDistance as density.KnnMeanDistance computes it.
		err := s.StreamMoments("knn", radius, k, 4, func(m []findneighbor.Moment, _ []float32, dst []byte) {
			for j := range m {
				v := float32(math.NaN())
				if m[j].N > 0 {
					v = float32(m[j].Dist / float64(m[j].N))
				}
				binary.LittleEndian.PutUint32(dst[4*j:], math.Float32bits(v))
			}
		})
		if err != nil {
			return nil, err
		}
		all := make([]float32, 0, s.N)
		rd := s.OwnedReader("knn", 4)
		if err := s.EachOwner(func(id int64, key tile.Key) error {
			v, err := rd.Next(key, id)
			all = append(all, math.Float32frombits(binary.LittleEndian.Uint32(v)))
			return err
		}); err != nil {
			return nil, err
		}
		counts := res.Columns
		res.Columns = func(rows []int64, owners []tile.Key) ([]*core.Attribute, error) {
			cols, err := counts(rows, owners)
			if err != nil {
				return nil, err
			}
			mean := make([]float32, len(rows))
			for i, id := range rows {
				mean[i] = float32(math.NaN()) // left out, as the runner scatters columns
				if id >= 0 {
					mean[i] = all[id]
				}
			}
			return append(cols, core.NewColumn(core.DimKnnMeanDistance, mean)), nil
		}
		res.Lines = append(res.Lines, knnSummary(fields, all, k, radius, s.Dims))
	}
	res.JSON = fields
	return res, nil
}

// withCountsRecord returns comments with dbscan's counts record rec in
// place of any earlier one (rec "": none).
func withCountsRecord(comments []string, rec string) []string {
	comments = slices.DeleteFunc(comments, func(s string) bool {
		return strings.HasPrefix(s, dbscan.CountsRecordPrefix)
	})
	if rec == "" {
		return comments
	}
	return append(comments, rec)
}

// computeNeighbors counts the neighbours within radius (> 0) and the mean
// distance to the k (> 0) nearest, within radius when it is > 0.
func computeNeighbors(p *Points, radius float64, k int) (*Result, error) {
	res := &Result{}
	fields := map[string]any{"radius": radius, "knn": k, "dims": p.Dims}
	if radius > 0 {
		// Counts alone need xyz no more after Build: let the index take it
		// over instead of copying it (a third less memory on the cpu
		// backend).
		bo := p.Build
		bo.Reuse = k == 0
		var counts []uint32
		var err error
		if p.TileSize > 0 {
			counts, err = tile.CountsTiled(p.XYZ, p.Backend, radius, p.TileSize, bo)
		} else {
			counts, err = findneighbor.Counts(p.Backend, p.XYZ, radius, bo)
		}
		if err != nil {
			return nil, err
		}
		res.Columns = append(res.Columns, core.NewColumn(core.DimNeighborCount, counts))
		st := newDensityStats(counts)
		fields["neighbor_count"] = st
		res.Lines = append(res.Lines, fmt.Sprintf("NeighborCount within %g (%s): %s", radius, p.Dims, st))
		if p.Index == nil {
			// The record pctk dbscan looks for before it recounts.
			res.Edit = func(c *core.Cloud) (*core.Cloud, error) {
				c.Meta.Comments = withCountsRecord(c.Meta.Comments, dbscan.CountsRecord(c.X, c.Y, c.Z, radius, p.Dims, false))
				return c, nil
			}
		}
	}
	if k > 0 {
		warnClamped("knn", k, max(p.Len()-1, 0), "other point")
		mean, err := density.KnnMeanDistance(p.XYZ, p.Backend, k, radius, p.TileSize, p.Build)
		if err != nil {
			return nil, err
		}
		res.Columns = append(res.Columns, core.NewColumn(core.DimKnnMeanDistance, mean))
		res.Lines = append(res.Lines, knnSummary(fields, mean, k, radius, p.Dims))
	}
	res.JSON = fields
	return res, nil
}

// knnSummary describes the KnnMeanDistance values mean in fields (its
// JSON) and returns its summary line.
func knnSummary(fields map[string]any, mean []float32, k int, radius float64, dims string) string {
	within := ""
	if radius > 0 {
		within = fmt.Sprintf(" within %g", radius)
	}
	st := newDensityStats(mean)
	fields["knn_mean_distance"] = st
	return fmt.Sprintf("KnnMeanDistance, %d nearest%s (%s): %s", k, within, dims, st)
}

// densityStats describes a distribution of counts or distances: min,
// percentiles, median, mean and max; NaN values are counted apart.
type densityStats struct {
	Min    float64 `json:"min"`
	P5     float64 `json:"p5"`
	P25    float64 `json:"p25"`
	Median float64 `json:"median"`
	Mean   float64 `json:"mean"`
	P75    float64 `json:"p75"`
	P95    float64 `json:"p95"`
	Max    float64 `json:"max"`
	NaN    int     `json:"without_neighbors"`
	Values int     `json:"values"`
}

func newDensityStats[T uint32 | float32 | float64](v []T) densityStats {
	s := make([]float64, 0, len(v))
	for _, x := range v {
		if x == x { // not NaN
			s = append(s, float64(x))
		}
	}
	par.Sort(s) // all cores: a sequential sort of 4M values takes 0.3 s
	var runs []valueRun
	for _, x := range s {
		if len(runs) > 0 && runs[len(runs)-1].v == x {
			runs[len(runs)-1].n++
		} else {
			runs = append(runs, valueRun{x, 1})
		}
	}
	return statsOfRuns(runs, len(v)-len(s))
}

// valueRun is n values v of a sorted distribution.
type valueRun struct {
	v float64
	n int
}

// statsOfRuns describes the sorted distribution runs, and nan NaN values:
// the mean sums the values one by one in increasing order, percentiles
// take the value of rank round(p·(n-1)).
func statsOfRuns(runs []valueRun, nan int) densityStats {
	n := 0
	for _, r := range runs {
		n += r.n
	}
	st := densityStats{NaN: nan, Values: n}
	if n == 0 {
		return st
	}
	var sum float64
	for _, r := range runs {
		for range r.n {
			sum += r.v
		}
	}
	pct := func(p float64) float64 {
		rank := int(math.Round(p * float64(n-1)))
		for _, r := range runs {
			if rank < r.n {
				return r.v
			}
			rank -= r.n
		}
		return runs[len(runs)-1].v
	}
	st.Min, st.P5, st.P25, st.Median, st.Mean = runs[0].v, pct(0.05), pct(0.25), pct(0.5), sum/float64(n)
	st.P75, st.P95, st.Max = pct(0.75), pct(0.95), runs[len(runs)-1].v
	return st
}

// countStats describes the distribution of value(c) over counts c that
// hist holds (count -> points), value increasing in c: what
// newDensityStats gives on the values, from a histogram of the counts.
func countStats(hist map[uint32]int, value func(c uint32) float64) densityStats {
	cs := make([]uint32, 0, len(hist))
	for c := range hist {
		cs = append(cs, c)
	}
	slices.Sort(cs)
	runs := make([]valueRun, len(cs))
	for i, c := range cs {
		runs[i] = valueRun{value(c), hist[c]}
	}
	return statsOfRuns(runs, 0)
}

// String describes the distribution in one line.
func (st densityStats) String() string {
	if st.Values == 0 {
		return fmt.Sprintf("no values (%d NaN)", st.NaN)
	}
	out := fmt.Sprintf("min %s, p5 %s, p25 %s, median %s, mean %s, p75 %s, p95 %s, max %s",
		num(st.Min), num(st.P5), num(st.P25), num(st.Median), num(st.Mean), num(st.P75), num(st.P95), num(st.Max))
	if st.NaN > 0 {
		out += fmt.Sprintf(" (%s without any neighbour)", Count(st.NaN, "point"))
	}
	return out
}
