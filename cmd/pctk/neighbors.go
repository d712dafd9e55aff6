package main

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/pctk/pctk/algos/dbscan"
	"github.com/pctk/pctk/algos/density"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/tile"
	"github.com/urfave/cli/v2"
)

func init() {
	commands = append(commands, neighborsFilter.Command())
}

var neighborsFilter = &Filter{
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
	Flags: []cli.Flag{
		&cli.Float64Flag{Name: "radius", Usage: "search radius in coordinate units (0 or unset: none, then --knn is plain kNN)"},
		&cli.IntFlag{Name: "knn", Usage: "also write KnnMeanDistance over the K nearest (within --radius, if given)"},
	},
	Dims: true, IgnoreClass: true, Tiled: true,
	Params: map[string]string{"radius": "radius", "k": "knn"},
	Prepare: func(c *cli.Context) (*Job, error) {
		radius, k := c.Float64("radius"), c.Int("knn")
		if err := findneighbor.CheckRadius("neighbors", "radius", radius, true); err != nil {
			return nil, err
		}
		if err := findneighbor.CheckMin("neighbors", "k", k, 0); err != nil {
			return nil, err
		}
		if radius == 0 && k == 0 {
			return nil, usagef("neighbors needs --radius, --knn or both")
		}
		return &Job{Compute: func(p *Points) (*Result, error) { return computeNeighbors(p, radius, k) }}, nil
	},
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
				c.Meta.Comments = append(slices.DeleteFunc(c.Meta.Comments, func(s string) bool {
					return strings.HasPrefix(s, dbscan.CountsRecordPrefix)
				}), dbscan.CountsRecord(c.X, c.Y, c.Z, radius, p.Dims, false))
				return c, nil
			}
		}
	}
	if k > 0 {
		p.WarnClamped("knn", k, max(p.Len()-1, 0), "other point")
		mean, err := density.KnnMeanDistance(p.XYZ, p.Backend, k, radius, p.TileSize, p.Build)
		if err != nil {
			return nil, err
		}
		res.Columns = append(res.Columns, core.NewColumn(core.DimKnnMeanDistance, mean))
		within := ""
		if radius > 0 {
			within = fmt.Sprintf(" within %g", radius)
		}
		st := newDensityStats(mean)
		fields["knn_mean_distance"] = st
		res.Lines = append(res.Lines, fmt.Sprintf("KnnMeanDistance, %d nearest%s (%s): %s", k, within, p.Dims, st))
	}
	res.JSON = fields
	return res, nil
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
	st := densityStats{NaN: len(v) - len(s), Values: len(s)}
	if len(s) == 0 {
		return st
	}
	slices.Sort(s)
	var sum float64
	for _, x := range s {
		sum += x
	}
	pct := func(p float64) float64 { return s[int(math.Round(p*float64(len(s)-1)))] }
	st.Min, st.P5, st.P25, st.Median, st.Mean = s[0], pct(0.05), pct(0.25), pct(0.5), sum/float64(len(s))
	st.P75, st.P95, st.Max = pct(0.75), pct(0.95), s[len(s)-1]
	return st
}

// String describes the distribution in one line.
func (st densityStats) String() string {
	if st.Values == 0 {
		return fmt.Sprintf("no values (%d NaN)", st.NaN)
	}
	out := fmt.Sprintf("min %s, p5 %s, p25 %s, median %s, mean %s, p75 %s, p95 %s, max %s",
		num(st.Min), num(st.P5), num(st.P25), num(st.Median), num(st.Mean), num(st.P75), num(st.P95), num(st.Max))
	if st.NaN > 0 {
		out += fmt.Sprintf(" (%s without any neighbour)", count(st.NaN, "point"))
	}
	return out
}
