package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pctk/pctk/algos/denoise"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/pcio"
	"github.com/pctk/pctk/primitives/findneighbor"
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
	Name:  "statistical",
	Label: "denoise statistical",
	Usage: "outliers by mean distance to the K nearest neighbours (PCL / Open3D SOR)",
	Description: `An outlier's mean distance to its K nearest neighbours exceeds mean +
S·stddev over the cloud (PCL's StatisticalOutlierRemoval; --convention open3d
for Open3D's remove_statistical_outlier, whose K counts the point itself).
--k is at least 1; a K beyond the cloud uses every point (with a warning), as
PCL and Open3D do. --std-ratio is a finite number > 0 (Open3D's rule).`,
	Examples: []string{"pctk denoise statistical scan.pcd clean.pcd --k 50 --std-ratio 1"},
	Flags: denoiseFlags(
		&cli.IntFlag{Name: "k", Usage: "neighbours whose distances are averaged (PCL mean_k; counts the point itself with --convention open3d)", Value: denoise.DefaultK},
		&cli.Float64Flag{Name: "std-ratio", Aliases: []string{"s"}, Usage: "threshold = mean + std-ratio·stddev; a finite number > 0", Value: denoise.DefaultStdRatio},
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
				p.WarnClamped("k", opts.K, p.Len(), "point") // K counts the point itself
			} else {
				p.WarnClamped("k", opts.K, max(p.Len()-1, 0), "other point")
			}
			opts.Build, opts.TileSize = p.Build, p.TileSize
			r, err := denoise.Statistical(p.XYZ, p.Backend, opts)
			if err != nil {
				return nil, err
			}
			std := "sample"
			if opts.PopulationStd {
				std = "population"
			}
			stats := fmt.Sprintf("K=%d, std ratio %g, %s convention: mean distance %.6g, %s std %.6g, threshold %.6g",
				opts.K, opts.StdRatio, opts.Convention, r.Mean, std, r.Std, r.Threshold)
			return a.result(p, r.Outlier, stats, map[string]any{"mean": r.Mean, "std": r.Std, "threshold": r.Threshold})
		}}, nil
	},
}

var denoiseRadius = &Filter{
	Name:  "radius",
	Label: "denoise radius",
	Usage: "outliers by the number of neighbours within a radius (PCL / Open3D)",
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
			self := "other points"
			if opts.CountSelf {
				self = "points, itself included"
			}
			return a.result(p, r.Outlier, fmt.Sprintf("radius %g, at least %d %s", opts.Radius, opts.MinNeighbors, self), nil)
		}}, nil
	},
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

// result applies the mode to the outlier flags of the points that take
// part (sub) and describes the outcome.
func (a *denoiseArgs) result(p *Points, sub []bool, stats string, fields map[string]any) (*Result, error) {
	mode := a.mode
	if mode == "" {
		mode = "remove"
		if isLAS(p.From) {
			mode = "classify"
		}
		debugf("mode: %s (input format %s)", mode, p.From.Name)
		if a.invert && mode != "remove" {
			return nil, usagef("--invert applies to --mode remove; %s input defaults to --mode %s, so say --mode remove", p.From.Name, mode)
		}
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
		out, did, err := applyDenoiseMode(c, outlier, mode, a)
		if err != nil {
			return nil, err
		}
		res.Lines = []string{fmt.Sprintf("%s: %d ignored by class, %d outliers, %d inliers; %s; %s",
			a.name, n-p.Len(), nOut, p.Len()-nOut, did, stats)}
		if fields == nil {
			fields = map[string]any{}
		}
		fields["outliers"], fields["mode"], fields["written"] = nOut, mode, out.Len()
		res.JSON = fields
		return out, nil
	}
	return res, nil
}

// isLAS reports whether f is LAS or LAZ, whose users expect noise to be
// classified rather than deleted.
func isLAS(f *pcio.Format) bool { return f != nil && (f.Name == "las" || f.Name == "laz") }

// applyDenoiseMode returns the cloud to write and what was done to it.
func applyDenoiseMode(cloud *core.Cloud, outlier []bool, mode string, a *denoiseArgs) (*core.Cloud, string, error) {
	switch mode {
	case "classify":
		cls := cloud.Attr(core.DimClassification)
		if cls == nil {
			var err error
			if cls, err = cloud.AddAttr(core.DimClassification, core.Uint8); err != nil {
				return nil, "", err
			}
		}
		for i, o := range outlier {
			if o {
				cls.SetFloat64(i, float64(a.class))
			}
		}
		return cloud, fmt.Sprintf("outliers classified %d", a.class), nil
	case "flag":
		flag, err := cloud.AddAttr(core.DimOutlier, core.Uint8)
		if err != nil {
			return nil, "", err
		}
		for i, o := range outlier {
			v := 0.0
			if o {
				v = 1
			}
			flag.SetFloat64(i, v)
		}
		return cloud, "outliers flagged in " + core.DimOutlier, nil
	}
	keep := make([]int, 0, len(outlier))
	for i, o := range outlier {
		if o == a.invert {
			keep = append(keep, i)
		}
	}
	what := "outliers removed"
	if a.invert {
		what = "only outliers kept"
	}
	return cloud.Select(keep), fmt.Sprintf("%s, %s written", what, count(len(keep), "point")), nil
}
