package stage

import (
	"encoding/binary"
	"fmt"
	"github.com/pctk/pctk/primitives/tile"
	"math"
	"strconv"
	"strings"

	"github.com/pctk/pctk/algos/denoise"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/primitives/findneighbor"
)

func init() {
	RegisterGroup(&Group{
		Name:  "denoise",
		Usage: "find outliers with PCL's and Open3D's statistical or radius filter; remove, classify or flag them",
		Description: `Both filters reproduce their peers exactly (docs/denoise.md):

  pctk denoise statistical --k 50 --std-ratio 1 in.pcd out.pcd
      an outlier's mean distance to its K nearest neighbours exceeds
      mean + S·stddev over the cloud (PCL's StatisticalOutlierRemoval;
      --convention open3d for remove_statistical_outlier).
  pctk denoise radius --radius 0.05 --min-neighbors 5 in.las out.las
      an outlier has fewer than M other points within R (PCL's
      RadiusOutlierRemoval and Open3D's remove_radius_outlier).

--convention pdal follows PDAL's filters.outlier instead (its mean, its
threshold, points strictly within R; outliers classified by default), as
filters.outlier in pipeline JSON does.

--mode remove leaves outliers out, classify sets their Classification to
--class (7, low noise; the attribute is added when missing), flag adds an
Outlier attribute (uint8, 1 for outliers). The default is classify for LAS
input, so nothing is lost, and remove otherwise. --invert (remove mode) keeps
only the outliers, to inspect them. --ignore-class 7,18 leaves points of those
classes out entirely: they are nobody's neighbours, never outliers, and are
written unchanged (dropped only by --invert, which keeps outliers alone).`,
	})
	Register(denoiseStatistical)
	Register(denoiseRadius)
}

var denoiseStatistical = &Stage{
	Name:     "denoise statistical",
	PDAL:     "filters.outlier",
	PDALMode: "statistical",
	PDALArgs: []string{"--convention", "pdal"},
	Preview:  "classification",
	Usage:    "outliers by mean distance to the K nearest neighbours (PCL / Open3D SOR)",
	Description: `An outlier's mean distance to its K nearest neighbours exceeds mean +
S·stddev over the cloud (PCL's StatisticalOutlierRemoval; --convention open3d
for Open3D's remove_statistical_outlier, whose K counts the point itself).
--k is at least 1; a K beyond the cloud uses every point (with a warning), as
PCL and Open3D do. --std-ratio is a finite number > 0 (Open3D's rule).`,
	Examples: []string{"pctk denoise statistical scan.las out.las --k 12 --std-ratio 1.5 --convention pdal", "pctk denoise statistical scan.pcd clean.pcd --k 50 --std-ratio 1"},
	Options: OutcomeOptions(
		&Option{Kind: Int, Name: "k", PDAL: "mean_k", Usage: "neighbours whose distances are averaged (PCL mean_k; counts the point itself with --convention open3d)", Value: denoise.DefaultK},
		&Option{Kind: Float, Name: "std-ratio", PDAL: "multiplier", Aliases: []string{"s"}, Usage: "multiplier of the standard deviation: threshold = mean + std-ratio·stddev; a finite number > 0", Value: denoise.DefaultStdRatio},
		&Option{Kind: String, Name: "std", Usage: "standard deviation: sample (n-1, PCL and Open3D) or population (n)", Value: "sample"},
		&Option{Kind: String, Name: "convention", Usage: "whose definition: pcl, open3d or pdal (see docs/denoise.md)", Value: "pcl"},
	),
	Dims: true, IgnoreClass: true, Tiled: true,
	Params: map[string]string{"k": "k", "std_ratio": "std-ratio"},
	Prepare: func(c Values) (*Job, error) {
		a, err := ParseOutcome(c, "denoise statistical")
		if err != nil {
			return nil, err
		}
		opts := denoise.StatisticalOptions{K: c.Int("k"), StdRatio: c.Float64("std-ratio")}
		switch strings.ToLower(c.String("std")) {
		case "sample":
		case "population":
			opts.PopulationStd = true
		default:
			return nil, Usagef("--std: want sample or population, got %q", c.String("std"))
		}
		if opts.Convention, err = denoise.ParseConvention(c.String("convention")); err != nil {
			return nil, Usagef("--convention: want pcl, open3d or pdal, got %q", c.String("convention"))
		}
		// K 0 and ratio 0 mean the defaults to the algorithm; here they
		// are values out of range, like any other.
		if err := findneighbor.CheckMin("denoise statistical", "k", opts.K, 1); err != nil {
			return nil, err
		}
		// PDAL's multiplier may be 0 or negative.
		if r := opts.StdRatio; !(r > 0) && opts.Convention != denoise.PDAL || math.IsInf(r, 0) || math.IsNaN(r) {
			return nil, &findneighbor.ParamError{Op: "denoise statistical", Param: "std_ratio", Value: strconv.FormatFloat(r, 'g', -1, 64), Want: "a finite number > 0 (any finite number under --convention pdal)"}
		}
		if err := opts.Validate(); err != nil {
			return nil, err
		}
		if opts.Convention == denoise.PDAL {
			return pdalStatistical(c, a, opts)
		}
		// In memory the local stage runs on the whole cloud; its tiles and
		// out-of-core rounds measured 2.8 and 13 times slower than the
		// k-nearest kernels kept for them (docs/benchmarks.md), which give
		// the same sums to the same Reduction.
		l := statisticalLocal(a, opts)
		return &Job{CPUWork: true, Local: l, Compute: func(p *Points) (*Result, error) {
			if p.TileSize == 0 {
				return l.computeJob(p)
			}
			statisticalWarn(opts, p.Len())
			o := opts
			o.Build, o.TileSize = p.Build, p.TileSize
			r, err := denoise.Statistical(p.XYZ, p.Backend, o)
			if err != nil {
				return nil, err
			}
			stats, fields := statisticalStats(o, r.Mean, r.Std, r.Threshold)
			return a.result(p, r.Outlier, stats, fields)
		}, Stream: &Streamed{KNN: opts.K, PointBytes: 1, Run: func(s *StreamRun) (*StreamResult, error) {
			return a.streamStatistical(s, opts)
		}}}, nil
	},
}

// statisticalColumns are statistical removal's per-point values: the sum
// of the distances to a point's k nearest and their number (hidden).
var statisticalColumns = []core.Dimension{{Name: "KnnDistanceSum", Type: core.Float64}, {Name: "KnnFound", Type: core.Uint32}}

// statisticalAt returns point i's values of statisticalColumns in cols
// (as their declared types: a column is made of its declared type on every
// path), read directly: the Attribute accessors cost 5% of the whole
// command on a 1M-point cloud. The reduction reads the typed columns of
// each range itself.
func statisticalAt(cols []*core.Attribute, i int) (sum float64, found int) {
	return cols[0].Data.([]float64)[i], int(cols[1].Data.([]uint32)[i])
}

// statisticalLocal is statistical removal as a local stage with a global
// reduction: each point's k nearest (their distance sum and number), then
// denoise.Reduction over every point in order (the threshold), then the
// outcome.
func statisticalLocal(a *Outcome, opts denoise.StatisticalOptions) *Local {
	k := opts.K
	if opts.Convention == denoise.Open3D {
		k-- // K counts the point itself
	}
	var red *denoise.Reduction // the outcome's, made once for its g
	return &Local{Columns: statisticalColumns, Hidden: len(statisticalColumns), KNN: k, XYZOnly: true, Outcome: a,
		Compute: func(in *LocalInput) ([]*core.Attribute, []float64, error) {
			n := len(in.XYZ) / 3
			sum, found := make([]float64, n), make([]uint32, n)
			reach, err := knnMoments("denoise", in, k, func(pts []int32, m []findneighbor.Moment) {
				for j, i := range pts {
					sum[i], found[i] = m[j].Dist, m[j].N
				}
			})
			if err != nil {
				return nil, nil, err
			}
			return []*core.Attribute{core.NewColumn(statisticalColumns[0].Name, sum), core.NewColumn(statisticalColumns[1].Name, found)}, reach, nil
		},
		Reduce: &Reduction{
			Run: func(each Each) ([]float64, error) {
				red, n := opts.NewReduction(), 0
				for pass := range red.Passes() {
					n = 0
					err := each(func(cols []*core.Attribute, lo, hi int) {
						sum, found := cols[0].Data.([]float64), cols[1].Data.([]uint32)
						red.AddAll(pass, sum[lo:hi], found[lo:hi])
						n += hi - lo
					})
					if err != nil {
						return nil, err
					}
					red.EndPass(pass)
				}
				statisticalWarn(opts, n)
				return []float64{red.Mean, red.Std, red.Threshold}, nil
			},
			Outlier: func(g []float64, cols []*core.Attribute, i int) bool {
				if red == nil || math.Float64bits(red.Threshold) != math.Float64bits(g[2]) {
					red = opts.NewReduction()
					red.Threshold = g[2]
				}
				sum, found := statisticalAt(cols, i)
				return red.Outlier(red.MeanDist(sum, found), found)
			},
			Stats: func(g []float64) (string, map[string]any) { return statisticalStats(opts, g[0], g[1], g[2]) },
		},
	}
}

// statisticalWarn warns when K exceeds the n points' neighbours.
func statisticalWarn(opts denoise.StatisticalOptions, n int) {
	if opts.Convention == denoise.Open3D {
		warnClamped("k", opts.K, n, "point") // K counts the point itself
	} else {
		warnClamped("k", opts.K, max(n-1, 0), "other point")
	}
}

// statisticalStats describes statistical removal's outcome for the summary.
func statisticalStats(opts denoise.StatisticalOptions, mean, sd, threshold float64) (string, map[string]any) {
	std := "sample"
	if opts.PopulationStd {
		std = "population"
	}
	return fmt.Sprintf("K=%d, std ratio %g, %s convention: mean distance %.6g, %s std %.6g, threshold %.6g",
			opts.K, opts.StdRatio, opts.Convention, mean, std, sd, threshold),
		map[string]any{"mean": mean, "std": sd, "threshold": threshold}
}

// streamStatistical is pctk denoise statistical out of core: each point's
// k nearest, tile by tile (StreamRun.StreamMoments, the sum of
// their distances and their number), then denoise.Reduction over the
// points in input order (the owners file gives each point's tile), so the
// threshold is the in-memory one to the bit, and the mode applied chunk by
// chunk.
func (a *Outcome) streamStatistical(s *StreamRun, opts denoise.StatisticalOptions) (*StreamResult, error) {
	mode, err := a.modeFor(s.From)
	if err != nil {
		return nil, err
	}
	k := opts.K
	statisticalWarn(opts, int(s.N))
	if opts.Convention == denoise.Open3D {
		k--
	}
	k = int(min(int64(k), s.N-1))
	if k > 0 {
		err := s.StreamMoments("knn", 0, k, 12, func(m []findneighbor.Moment, _ []float32, dst []byte) {
			for j := range m {
				binary.LittleEndian.PutUint64(dst[12*j:], math.Float64bits(m[j].Dist))
				binary.LittleEndian.PutUint32(dst[12*j+8:], m[j].N)
			}
		})
		if err != nil {
			return nil, err
		}
	}
	// each calls fn with every point's distance sum and count, in order.
	each := func(fn func(id int64, sum float64, found int)) error {
		if k <= 0 {
			for id := range s.N {
				fn(id, 0, 0)
			}
			return nil
		}
		rd := s.OwnedReader("knn", 12)
		return s.EachOwner(func(id int64, key tile.Key) error {
			v, err := rd.Next(key, id)
			if err != nil {
				return err
			}
			fn(id, math.Float64frombits(binary.LittleEndian.Uint64(v)), int(binary.LittleEndian.Uint32(v[8:])))
			return nil
		})
	}
	red := opts.NewReduction()
	for pass := range red.Passes() {
		if err := each(func(_ int64, sum float64, found int) { red.Add(pass, sum, found) }); err != nil {
			return nil, err
		}
		red.EndPass(pass)
	}
	outlier := make([]bool, s.N)
	nOut := 0
	if err := each(func(id int64, sum float64, found int) {
		if red.Outlier(red.MeanDist(sum, found), found) {
			outlier[id] = true
			nOut++
		}
	}); err != nil {
		return nil, err
	}
	stats, fields := statisticalStats(opts, red.Mean, red.Std, red.Threshold)
	return a.streamOutliers(s, outlier, nOut, mode, stats, fields), nil
}

var denoiseRadius = &Stage{
	Name:     "denoise radius",
	PDAL:     "filters.outlier",
	PDALMode: "radius",
	PDALArgs: []string{"--convention", "pdal"},
	Preview:  "classification",
	Usage:    "outliers by the number of neighbours within a radius (PCL / Open3D)",
	Description: `An outlier has fewer than M other points within R (PCL's RadiusOutlierRemoval
and Open3D's remove_radius_outlier). --radius is required, a finite number > 0.`,
	Examples: []string{"pctk denoise radius scan.las out.las --radius 2 --min-neighbors 4 --convention pdal", "pctk denoise radius scan.las out.las --radius 0.5 --min-neighbors 4"},
	Options: OutcomeOptions(
		&Option{Kind: Float, Name: "radius", PDAL: "radius", Aliases: []string{"r"}, Usage: "search radius in coordinate units (required, but for --convention pdal: PDAL's 1)"},
		&Option{Kind: Int, Name: "min-neighbors", PDAL: "min_k", Aliases: []string{"m"}, Usage: "a point needs at least this many other points within the radius", Value: 2},
		&Option{Kind: Bool, Name: "count-self", Usage: "count the point itself among its neighbours (PCL and Open3D do not)"},
		&Option{Kind: String, Name: "convention", Usage: "whose definition: pcl (Open3D's too, but for points exactly at R) or pdal (see docs/denoise.md)", Value: "pcl"},
	),
	Dims: true, IgnoreClass: true, Tiled: true,
	Params: map[string]string{"radius": "radius", "min_neighbors": "min-neighbors"},
	Prepare: func(c Values) (*Job, error) {
		a, err := ParseOutcome(c, "denoise radius")
		if err != nil {
			return nil, err
		}
		opts := denoise.RadiusOptions{Radius: c.Float64("radius"), MinNeighbors: c.Int("min-neighbors"), CountSelf: c.Bool("count-self")}
		if opts.Convention, err = denoise.ParseConvention(c.String("convention")); err != nil || opts.Convention == denoise.Open3D {
			return nil, Usagef("--convention: want pcl or pdal, got %q", c.String("convention"))
		}
		switch {
		case c.IsSet("radius"):
		case opts.Convention == denoise.PDAL:
			opts.Radius = denoise.PDALRadius
		default:
			return nil, Usagef("denoise radius needs --radius R (in coordinate units)")
		}
		if err := opts.Validate(); err != nil {
			return nil, err
		}
		if opts.Convention == denoise.PDAL {
			return pdalRadius(c, a, opts)
		}
		count := []core.Dimension{{Name: "RadiusCount", Type: core.Uint32}}
		// The local stage is Beam's; in memory, on tiles and out of core the
		// counts kernels kept here measured 4-15% faster (docs/benchmarks.md)
		// and give the same flags.
		l := &Local{Columns: count, Hidden: 1, Halo: opts.Radius, XYZOnly: true, Outcome: a, Stats: radiusStats(opts),
			Compute: func(in *LocalInput) ([]*core.Attribute, []float64, error) {
				o := opts
				o.Build = in.Build
				r, err := denoise.Radius(in.XYZ, in.Backend, o)
				if err != nil {
					return nil, nil, err
				}
				return []*core.Attribute{core.NewColumn(count[0].Name, r.Counts)}, constReach(len(r.Counts), opts.Radius), nil
			},
			Outlier: func(cols []*core.Attribute, i int) bool { return opts.Outlier(uint32(cols[0].Uint64(i))) },
		}
		return &Job{Local: l, Compute: func(p *Points) (*Result, error) {
			o := opts
			o.Build, o.TileSize = p.Build, p.TileSize
			r, err := denoise.Radius(p.XYZ, p.Backend, o)
			if err != nil {
				return nil, err
			}
			return a.result(p, r.Outlier, radiusStats(o), nil)
		}, Stream: &Streamed{Halo: opts.Radius, PointBytes: 1, Run: func(s *StreamRun) (*StreamResult, error) {
			return a.streamRadius(s, opts)
		}}}, nil
	},
}

// radiusStats describes the radius filter's parameters for the summary.
func radiusStats(opts denoise.RadiusOptions) string {
	self := "other points"
	if opts.CountSelf {
		self = "points, itself included"
	}
	return fmt.Sprintf("radius %g, at least %d %s", opts.Radius, opts.MinNeighbors, self)
}

// streamRadius is pctk denoise radius out of core: the counts tile by
// tile (StreamRun.StreamCounts), an outlier flag a point in memory, and
// the mode applied chunk by chunk as result applies it to the cloud.
func (a *Outcome) streamRadius(s *StreamRun, opts denoise.RadiusOptions) (*StreamResult, error) {
	mode, err := a.modeFor(s.From)
	if err != nil {
		return nil, err
	}
	outlier := make([]bool, s.N)
	nOut := 0
	_, err = s.StreamCounts(opts.Radius, "", func(t *tile.Points, owned []int32, counts []uint32) {
		for j, i := range owned {
			if opts.Outlier(counts[j]) {
				outlier[t.ID[i]] = true
				nOut++
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return a.streamOutliers(s, outlier, nOut, mode, radiusStats(opts), nil), nil
}
