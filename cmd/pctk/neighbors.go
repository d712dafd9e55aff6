package main

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/pctk/pctk/algos/dbscan"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/urfave/cli/v2"
)

func init() {
	commands = append(commands, &cli.Command{
		Name:      "neighbors",
		Aliases:   []string{"neighbours"},
		Usage:     "write per-point neighbour counts and k-nearest distances, to inspect density",
		ArgsUsage: "IN OUT",
		Description: `Adds NeighborCount (uint32: the number of OTHER points within --radius) and,
with --knn K, KnnMeanDistance (float32: the mean distance to the K nearest
other points; with --radius only those within it count, so a point with
fewer than K neighbours averages over what it has, and one with none gets
NaN; without --radius it is plain K-nearest-neighbour distance). Existing
columns of those names are replaced. A density summary (min, median, mean,
max and percentiles) goes to stderr, to help choose DBSCAN's --eps and
--min-pts: a point is a DBSCAN core point when NeighborCount + 1 ≥ min_pts.

With --radius the counts carry the same record as "pctk dbscan" writes, so
"pctk dbscan OUT ... --eps R" with the same --dims reuses them.

--dims xy measures distance in the XY plane only (2D and geospatial data).`,
		Flags: backendFlags(
			&cli.Float64Flag{Name: "radius", Usage: "search radius in coordinate units (0 or unset: none, then --knn is plain kNN)"},
			&cli.IntFlag{Name: "knn", Usage: "also write KnnMeanDistance over the K nearest (within --radius, if given)"},
			dimsFlag,
		),
		Action: runNeighbors,
	})
}

// neighborsArgs are the checked flags of pctk neighbors.
type neighborsArgs struct {
	radius  float64 // 0: none
	k       int
	dims    string
	flat    bool // dims is xy
	workers int
}

func parseNeighborsArgs(c *cli.Context) (neighborsArgs, error) {
	a := neighborsArgs{radius: c.Float64("radius"), k: c.Int("knn"), workers: c.Int("workers")}
	if math.IsNaN(a.radius) || a.radius < 0 || math.IsInf(a.radius, 0) || float32(a.radius) > math.MaxFloat32 {
		return a, usagef("--radius: want a finite number ≥ 0, got %g", a.radius)
	}
	if a.k < 0 {
		return a, usagef("--knn: want ≥ 0, got %d", a.k)
	}
	if a.radius == 0 && a.k == 0 {
		return a, usagef("neighbors needs --radius, --knn or both")
	}
	var err error
	a.dims, a.flat, err = parseDims(c)
	return a, err
}

// neighborStats is what pctk neighbors computes for a cloud.
type neighborStats struct {
	// Counts are the numbers of other points within the radius (nil
	// without a radius).
	Counts []uint32
	// KnnMean are the mean distances to the k nearest (nil without k).
	KnnMean []float32
}

// computeNeighbors runs the searches of pctk neighbors on local float32
// coordinates xyz: counts within radius (> 0) and the mean distance to the
// k (> 0) nearest other points, within radius when it is > 0. Without k,
// xyz is handed to the index (BuildOptions.Reuse) and must not be used
// afterwards.
func computeNeighbors(b findneighbor.Backend, xyz []float32, radius float64, k int, opts findneighbor.BuildOptions) (neighborStats, error) {
	var s neighborStats
	eps := float32(math.Inf(1))
	if radius > 0 {
		eps = float32(radius)
	}
	// Counts alone need xyz no more after Build: let the index take it over
	// instead of copying it (a third less memory on the cpu backend).
	opts.Reuse = k == 0
	ix, err := b.Build(xyz, eps, opts)
	if err != nil {
		return s, err
	}
	defer ix.Close()
	n := len(xyz) / 3
	if radius > 0 {
		s.Counts = make([]uint32, n)
		if err := ix.Counts(nil, s.Counts); err != nil {
			return s, err
		}
	}
	if k > 0 {
		if s.KnnMean, err = knnMeanDistance(ix, xyz, k); err != nil {
			return s, err
		}
	}
	return s, nil
}

// knnChunkEntries bounds the k-nearest slots held at once (32 MiB), so
// that memory stays O(N) for any k.
const knnChunkEntries = 1 << 22

// knnMeanDistance returns for every indexed point (xyz, the points ix was
// built on) the mean distance to its k nearest other points, NaN when it
// has none. Points are queried in chunks as a separate query set, asking
// for k+1 and leaving out each point's own hit (or, where more than k
// copies with smaller indices hide it, the last).
func knnMeanDistance(ix findneighbor.Index, xyz []float32, k int) ([]float32, error) {
	n := len(xyz) / 3
	out := make([]float32, n)
	k1 := k + 1
	chunk := max(1, knnChunkEntries/k1)
	idx := make([]int32, min(n, chunk)*k1)
	dist := make([]float32, len(idx))
	for lo := 0; lo < n; lo += chunk {
		hi := min(n, lo+chunk)
		m := hi - lo
		if err := ix.KNearest(xyz[3*lo:3*hi], k1, idx[:m*k1], dist[:m*k1]); err != nil {
			return nil, err
		}
		for i := range m {
			var sum float64
			used := 0
			for j := i * k1; j < (i+1)*k1 && used < k; j++ {
				if idx[j] < 0 {
					break
				}
				if int(idx[j]) == lo+i {
					continue
				}
				sum += float64(dist[j])
				used++
			}
			out[lo+i] = float32(math.NaN())
			if used > 0 {
				out[lo+i] = float32(sum / float64(used))
			}
		}
	}
	return out, nil
}

// densitySummary describes a distribution of counts or distances in one
// line: min, percentiles, median, mean and max; NaN values are counted
// apart.
func densitySummary(v []float64) string {
	s := slices.DeleteFunc(slices.Clone(v), math.IsNaN)
	nan := len(v) - len(s)
	if len(s) == 0 {
		return fmt.Sprintf("no values (%d NaN)", nan)
	}
	slices.Sort(s)
	var sum float64
	for _, x := range s {
		sum += x
	}
	pct := func(p float64) float64 { return s[int(math.Round(p*float64(len(s)-1)))] }
	out := fmt.Sprintf("min %.4g, p5 %.4g, p25 %.4g, median %.4g, mean %.4g, p75 %.4g, p95 %.4g, max %.4g",
		s[0], pct(0.05), pct(0.25), pct(0.5), sum/float64(len(s)), pct(0.75), pct(0.95), s[len(s)-1])
	if nan > 0 {
		out += fmt.Sprintf(" (%d points without any neighbour)", nan)
	}
	return out
}

func runNeighbors(c *cli.Context) error {
	in, out, err := inOut(c)
	if err != nil {
		return err
	}
	a, err := parseNeighborsArgs(c)
	if err != nil {
		return err
	}
	src, err := loadInput(c, in, false, nil)
	if err != nil {
		return err
	}
	cloud, b, t0, t1 := src.cloud, src.backend, src.start, time.Now()
	local := cloud.Local(a.flat)
	update, finish := progress("neighbors")
	st, err := computeNeighbors(b, local.XYZ, a.radius, a.k, findneighbor.BuildOptions{Workers: a.workers, Progress: update})
	finish()
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	local = core.Local{}
	t2 := time.Now()
	if st.Counts != nil {
		if err := cloud.SetAttr(&core.Attribute{Name: core.DimNeighborCount, Type: core.Uint32, Data: st.Counts}); err != nil {
			return err
		}
		// The record pctk dbscan looks for before it recounts.
		rec := countsRecord(cloud, &dbscanArgs{opts: dbscan.Options{Eps: a.radius}, dims: a.dims})
		cloud.Meta.Comments = append(slices.DeleteFunc(cloud.Meta.Comments, func(s string) bool {
			return strings.HasPrefix(s, countsRecordPrefix)
		}), rec)
		v := make([]float64, len(st.Counts))
		for i, n := range st.Counts {
			v[i] = float64(n)
		}
		infof("NeighborCount within %g (%s): %s", a.radius, a.dims, densitySummary(v))
	}
	if st.KnnMean != nil {
		if err := cloud.SetAttr(&core.Attribute{Name: core.DimKnnMeanDistance, Type: core.Float32, Data: st.KnnMean}); err != nil {
			return err
		}
		v := make([]float64, len(st.KnnMean))
		for i, d := range st.KnnMean {
			v[i] = float64(d)
		}
		within := ""
		if a.radius > 0 {
			within = fmt.Sprintf(" within %g", a.radius)
		}
		infof("KnnMeanDistance, %d nearest%s (%s): %s", a.k, within, a.dims, densitySummary(v))
	}
	if err := writeCloud(c, out, cloud, src.from); err != nil {
		return err
	}
	t3 := time.Now()
	infof("neighbors: %d points, backend %s; %.3fs (read %.3fs, search %.3fs, write %.3fs)",
		cloud.Len(), b.Name(), t3.Sub(t0).Seconds(), t1.Sub(t0).Seconds(), t2.Sub(t1).Seconds(), t3.Sub(t2).Seconds())
	return nil
}
