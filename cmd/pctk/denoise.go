package main

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pctk/pctk/algos/denoise"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/pcio"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/tile"
	"github.com/urfave/cli/v2"
)

// denoiseNoiseClass is the ASPRS classification "low point (noise)", the
// default of --class.
const denoiseNoiseClass = 7

func init() {
	commands = append(commands, &cli.Command{
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

--mode remove leaves outliers out, classify sets their Classification to
--class (7, low noise; the attribute is added when missing), flag adds an
Outlier attribute (uint8, 1 for outliers). The default is classify for LAS
input, so nothing is lost, and remove otherwise. --invert (remove mode) keeps
only the outliers, to inspect them. --ignore-class 7,18 leaves points of those
classes out entirely: they are nobody's neighbours, never outliers, and are
written unchanged (dropped only by --invert, which keeps outliers alone).`,
		Subcommands: []*cli.Command{denoiseStatistical.Command(), denoiseRadius.Command()},
	})
}

// denoiseFlags returns flags followed by the flags both filters share.
func denoiseFlags(flags ...cli.Flag) []cli.Flag {
	return append(flags,
		&cli.StringFlag{Name: "mode", Usage: "remove, classify or flag (default: classify for LAS input, else remove)"},
		&cli.IntFlag{Name: "class", Usage: "Classification code --mode classify gives outliers", Value: denoiseNoiseClass},
		&cli.BoolFlag{Name: "invert", Usage: "with --mode remove, keep only the outliers"},
	)
}

var denoiseStatistical = &Filter{
	Name:    "statistical",
	Label:   "denoise statistical",
	Preview: "classification",
	Usage:   "outliers by mean distance to the K nearest neighbours (PCL / Open3D SOR)",
	Description: `An outlier's mean distance to its K nearest neighbours exceeds mean +
S·stddev over the cloud (PCL's StatisticalOutlierRemoval; --convention open3d
for Open3D's remove_statistical_outlier, whose K counts the point itself).
--k is at least 1; a K beyond the cloud uses every point (with a warning), as
PCL and Open3D do. --std-ratio is a finite number > 0 (Open3D's rule).`,
	Examples: []string{"pctk denoise statistical scan.pcd clean.pcd --k 50 --std-ratio 1"},
	Flags: denoiseFlags(
		&cli.IntFlag{Name: "k", Usage: "neighbours whose distances are averaged (PCL mean_k; counts the point itself with --convention open3d)", Value: denoise.DefaultK},
		&cli.Float64Flag{Name: "std-ratio", Aliases: []string{"s"}, Usage: "multiplier of the standard deviation: threshold = mean + std-ratio·stddev; a finite number > 0", Value: denoise.DefaultStdRatio},
		&cli.StringFlag{Name: "std", Usage: "standard deviation: sample (n-1, PCL and Open3D) or population (n)", Value: "sample"},
		&cli.StringFlag{Name: "convention", Usage: "whose definition: pcl or open3d (see docs/denoise.md)", Value: "pcl"},
	),
	Dims: true, IgnoreClass: true, Tiled: true,
	Params: map[string]string{"k": "k", "std_ratio": "std-ratio"},
	Prepare: func(c *cli.Context) (*Job, error) {
		a, err := parseDenoiseArgs(c, "denoise statistical")
		if err != nil {
			return nil, err
		}
		opts := denoise.StatisticalOptions{K: c.Int("k"), StdRatio: c.Float64("std-ratio")}
		switch strings.ToLower(c.String("std")) {
		case "sample":
		case "population":
			opts.PopulationStd = true
		default:
			return nil, usagef("--std: want sample or population, got %q", c.String("std"))
		}
		if opts.Convention, err = denoise.ParseConvention(c.String("convention")); err != nil {
			return nil, usagef("--convention: want pcl or open3d, got %q", c.String("convention"))
		}
		// K 0 and ratio 0 mean the defaults to the algorithm; here they
		// are values out of range, like any other.
		if err := findneighbor.CheckMin("denoise statistical", "k", opts.K, 1); err != nil {
			return nil, err
		}
		if r := opts.StdRatio; !(r > 0) || math.IsInf(r, 1) {
			return nil, &findneighbor.ParamError{Op: "denoise statistical", Param: "std_ratio", Value: strconv.FormatFloat(r, 'g', -1, 64), Want: "a finite number > 0"}
		}
		if err := opts.Validate(); err != nil {
			return nil, err
		}
		return &Job{CPUWork: true, Compute: func(p *Points) (*Result, error) {
			if opts.Convention == denoise.Open3D {
				warnClamped("k", opts.K, p.Len(), "point") // K counts the point itself
			} else {
				warnClamped("k", opts.K, max(p.Len()-1, 0), "other point")
			}
			opts.Build, opts.TileSize = p.Build, p.TileSize
			r, err := denoise.Statistical(p.XYZ, p.Backend, opts)
			if err != nil {
				return nil, err
			}
			stats, fields := statisticalStats(opts, r.Mean, r.Std, r.Threshold)
			return a.result(p, r.Outlier, stats, fields)
		}, Stream: &Streamed{KNN: opts.K, PointBytes: 1, Run: func(s *StreamRun) (*StreamResult, error) {
			return a.streamStatistical(s, opts)
		}}}, nil
	},
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
func (a *denoiseArgs) streamStatistical(s *StreamRun, opts denoise.StatisticalOptions) (*StreamResult, error) {
	mode, err := a.modeFor(s.From)
	if err != nil {
		return nil, err
	}
	k := opts.K
	if opts.Convention == denoise.Open3D {
		warnClamped("k", opts.K, int(s.N), "point") // K counts the point itself
		k--
	} else {
		warnClamped("k", opts.K, max(int(s.N)-1, 0), "other point")
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

var denoiseRadius = &Filter{
	Name:    "radius",
	Label:   "denoise radius",
	Preview: "classification",
	Usage:   "outliers by the number of neighbours within a radius (PCL / Open3D)",
	Description: `An outlier has fewer than M other points within R (PCL's RadiusOutlierRemoval
and Open3D's remove_radius_outlier). --radius is required, a finite number > 0.`,
	Examples: []string{"pctk denoise radius scan.las out.las --radius 0.5 --min-neighbors 4"},
	Flags: denoiseFlags(
		&cli.Float64Flag{Name: "radius", Aliases: []string{"r"}, Usage: "search radius in coordinate units (required)"},
		&cli.IntFlag{Name: "min-neighbors", Aliases: []string{"m"}, Usage: "a point needs at least this many other points within the radius", Value: 2},
		&cli.BoolFlag{Name: "count-self", Usage: "count the point itself among its neighbours (PCL and Open3D do not)"},
	),
	Dims: true, IgnoreClass: true, Tiled: true,
	Params: map[string]string{"radius": "radius", "min_neighbors": "min-neighbors"},
	Prepare: func(c *cli.Context) (*Job, error) {
		a, err := parseDenoiseArgs(c, "denoise radius")
		if err != nil {
			return nil, err
		}
		if !c.IsSet("radius") {
			return nil, usagef("denoise radius needs --radius R (in coordinate units)")
		}
		opts := denoise.RadiusOptions{Radius: c.Float64("radius"), MinNeighbors: c.Int("min-neighbors"), CountSelf: c.Bool("count-self")}
		if err := opts.Validate(); err != nil {
			return nil, err
		}
		return &Job{Compute: func(p *Points) (*Result, error) {
			opts.Build, opts.TileSize = p.Build, p.TileSize
			r, err := denoise.Radius(p.XYZ, p.Backend, opts)
			if err != nil {
				return nil, err
			}
			return a.result(p, r.Outlier, radiusStats(opts), nil)
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
func (a *denoiseArgs) streamRadius(s *StreamRun, opts denoise.RadiusOptions) (*StreamResult, error) {
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

// streamOutliers is the out-of-core result of a denoise filter that found
// the outliers outlier (nOut of them): the mode applied chunk by chunk.
func (a *denoiseArgs) streamOutliers(s *StreamRun, outlier []bool, nOut int, mode, stats string, fields map[string]any) *StreamResult {
	n, total := int(s.N), int(s.Total)
	written := total
	if mode == "remove" {
		written = total - nOut // points left out are written, unless --invert
		if a.invert {
			written = nOut
		}
	}
	line, doc := a.summary(total, n, nOut, written, mode, a.did(mode, written), stats, fields)
	// Points left out by --ignore-class are no outliers.
	outliers := func(rows []int64) []bool {
		out := make([]bool, len(rows))
		for i, id := range rows {
			out[i] = id >= 0 && outlier[id]
		}
		return out
	}
	res := &StreamResult{
		Columns: func([]int64, []tile.Key) ([]*core.Attribute, error) { return nil, nil },
		Lines:   []string{line}, JSON: doc,
	}
	if mode != "remove" {
		res.Edit = func(rows []int64, c *core.Cloud) (*core.Cloud, error) {
			return applyDenoiseMode(c, outliers(rows), mode, a)
		}
	} else {
		res.Keep = func(rows []int64) ([]bool, error) { return a.kept(outliers(rows)), nil }
		res.Count = func(first, n, others int64) int64 {
			kept := int64(0)
			for _, o := range outlier[first : first+n] {
				if o == a.invert {
					kept++
				}
			}
			if !a.invert {
				kept += others
			}
			return kept
		}
	}
	return res
}

// denoiseArgs are the checked flags both filters share.
type denoiseArgs struct {
	name   string // "denoise statistical", "denoise radius"
	mode   string // "" until the input format decides
	class  int
	invert bool
}

func parseDenoiseArgs(c *cli.Context, name string) (*denoiseArgs, error) {
	a := &denoiseArgs{name: name, class: c.Int("class"), invert: c.Bool("invert")}
	switch a.mode = strings.ToLower(c.String("mode")); a.mode {
	case "", "remove", "classify", "flag":
	default:
		return nil, usagef("--mode: want remove, classify or flag, got %q", c.String("mode"))
	}
	if a.class < 0 || a.class > 255 {
		return nil, usagef("--class: want a code from 0 to 255, got %d", a.class)
	}
	if a.invert && (a.mode == "classify" || a.mode == "flag") {
		return nil, usagef("--invert applies to --mode remove (keep only the outliers), not to --mode %s", a.mode)
	}
	return a, nil
}

// modeFor returns --mode, or its default for input format from.
func (a *denoiseArgs) modeFor(from *pcio.Format) (string, error) {
	if a.mode != "" {
		return a.mode, nil
	}
	mode := "remove"
	if isLAS(from) {
		mode = "classify"
	}
	debugf("mode: %s (input format %s)", mode, from.Name)
	if a.invert && mode != "remove" {
		return "", usagef("--invert applies to --mode remove; %s input defaults to --mode %s, so say --mode remove", from.Name, mode)
	}
	return mode, nil
}

// summary returns the summary line and JSON of a run that found nOut
// outliers among used points (of points), did what it did and wrote
// written points.
func (a *denoiseArgs) summary(points, used, nOut, written int, mode, did, stats string, fields map[string]any) (string, map[string]any) {
	if fields == nil {
		fields = map[string]any{}
	}
	fields["outliers"], fields["mode"], fields["written"] = nOut, mode, written
	return fmt.Sprintf("%s: %d ignored by class, %d outliers, %d inliers; %s; %s",
		a.name, points-used, nOut, used-nOut, did, stats), fields
}

// result applies the mode to the outlier flags of the points that take
// part (sub) and describes the outcome.
func (a *denoiseArgs) result(p *Points, sub []bool, stats string, fields map[string]any) (*Result, error) {
	mode, err := a.modeFor(p.From)
	if err != nil {
		return nil, err
	}
	n := p.Cloud.Len()
	outlier := p.Spread(sub, false)
	nOut := 0
	for _, o := range outlier {
		if o {
			nOut++
		}
	}
	res := &Result{}
	res.Edit = func(c *core.Cloud) (*core.Cloud, error) {
		out, err := applyDenoiseMode(c, outlier, mode, a)
		if err != nil {
			return nil, err
		}
		line, doc := a.summary(n, p.Len(), nOut, out.Len(), mode, a.did(mode, out.Len()), stats, fields)
		res.Lines, res.JSON = []string{line}, doc
		return out, nil
	}
	return res, nil
}

// isLAS reports whether f is LAS or LAZ, whose users expect noise to be
// classified rather than deleted.
func isLAS(f *pcio.Format) bool { return f != nil && (f.Name == "las" || f.Name == "laz") }

// did says what mode did, written points being written.
func (a *denoiseArgs) did(mode string, written int) string {
	switch mode {
	case "classify":
		return fmt.Sprintf("outliers classified %d", a.class)
	case "flag":
		return "outliers flagged in " + core.DimOutlier
	case "remove":
		if a.invert {
			return fmt.Sprintf("only outliers kept, %s written", count(written, "point"))
		}
		return fmt.Sprintf("outliers removed, %s written", count(written, "point"))
	}
	return ""
}

// applyDenoiseMode returns the cloud to write: cloud with mode applied to
// the outliers.
func applyDenoiseMode(cloud *core.Cloud, outlier []bool, mode string, a *denoiseArgs) (*core.Cloud, error) {
	switch mode {
	case "classify":
		cls := cloud.Attr(core.DimClassification)
		if cls == nil {
			var err error
			if cls, err = cloud.AddAttr(core.DimClassification, core.Uint8); err != nil {
				return nil, err
			}
		}
		for i, o := range outlier {
			if o {
				cls.SetFloat64(i, float64(a.class))
			}
		}
		return cloud, nil
	case "flag":
		flag, err := cloud.AddAttr(core.DimOutlier, core.Uint8)
		if err != nil {
			return nil, err
		}
		for i, o := range outlier {
			v := 0.0
			if o {
				v = 1
			}
			flag.SetFloat64(i, v)
		}
		return cloud, nil
	}
	return selectMask(cloud, a.kept(outlier)), nil
}

// kept returns which points the remove mode keeps: those that are no
// outliers, or with --invert the outliers alone.
func (a *denoiseArgs) kept(outlier []bool) []bool {
	keep := make([]bool, len(outlier))
	for i, o := range outlier {
		keep[i] = o == a.invert
	}
	return keep
}
