package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

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
	usage := func(c *cli.Context, err error, _ bool) error { return usageError{err.Error()} }
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
		Subcommands: []*cli.Command{
			{
				Name:      "statistical",
				Usage:     "outliers by mean distance to the K nearest neighbours (PCL / Open3D SOR)",
				ArgsUsage: "IN OUT",
				Flags: append([]cli.Flag{
					&cli.IntFlag{Name: "k", Usage: "neighbours whose distances are averaged (PCL mean_k; counts the point itself with --convention open3d)", Value: denoise.DefaultK},
					&cli.Float64Flag{Name: "std-ratio", Aliases: []string{"s"}, Usage: "threshold = mean + std-ratio·stddev", Value: denoise.DefaultStdRatio},
					&cli.StringFlag{Name: "std", Usage: "standard deviation: sample (n-1, PCL and Open3D) or population (n)", Value: "sample"},
					&cli.StringFlag{Name: "convention", Usage: "whose definition: pcl or open3d (see docs/denoise.md)", Value: "pcl"},
				}, denoiseFlags()...),
				OnUsageError: usage,
				Action:       runDenoiseStatistical,
			},
			{
				Name:      "radius",
				Usage:     "outliers by the number of neighbours within a radius (PCL / Open3D)",
				ArgsUsage: "IN OUT",
				Flags: append([]cli.Flag{
					&cli.Float64Flag{Name: "radius", Aliases: []string{"r"}, Usage: "search radius in coordinate units (required)"},
					&cli.IntFlag{Name: "min-neighbors", Aliases: []string{"m"}, Usage: "a point needs at least this many other points within the radius", Value: 2},
					&cli.BoolFlag{Name: "count-self", Usage: "count the point itself among its neighbours (PCL and Open3D do not)"},
				}, denoiseFlags()...),
				OnUsageError: usage,
				Action:       runDenoiseRadius,
			},
		},
	})
}

// denoiseFlags returns the flags both filters share.
func denoiseFlags() []cli.Flag {
	return backendFlags(
		&cli.StringFlag{Name: "mode", Usage: "remove, classify or flag (default: classify for LAS input, else remove)"},
		&cli.IntFlag{Name: "class", Usage: "Classification code --mode classify gives outliers", Value: denoiseNoiseClass},
		&cli.BoolFlag{Name: "invert", Usage: "with --mode remove, keep only the outliers"},
		&cli.StringFlag{Name: "ignore-class", Usage: "comma list of Classification codes whose points take no part (e.g. 7,18)"},
		dimsFlag,
	)
}

// denoiseArgs are the checked flags both filters share.
type denoiseArgs struct {
	in, out string
	mode    string // "" until the input format decides
	class   int
	invert  bool
	ignore  []int
	flat    bool
}

func parseDenoiseArgs(c *cli.Context) (*denoiseArgs, error) {
	in, out, err := inOut(c)
	if err != nil {
		return nil, err
	}
	a := &denoiseArgs{in: in, out: out, class: c.Int("class"), invert: c.Bool("invert")}
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
	if s := strings.TrimSpace(c.String("ignore-class")); s != "" {
		for _, f := range strings.Split(s, ",") {
			v, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || v < 0 || v > 255 {
				return nil, usagef("--ignore-class: %q is not a classification code (0-255); want e.g. 7,18", f)
			}
			a.ignore = append(a.ignore, v)
		}
	}
	if _, a.flat, err = parseDims(c); err != nil {
		return nil, err
	}
	return a, nil
}

// denoiseFilter runs one filter on the participating points' xyz and
// returns their outlier flags and a one-line description of the statistics.
type denoiseFilter func(xyz []float32, b findneighbor.Backend, bo findneighbor.BuildOptions) (outlier []bool, stats string, err error)

func runDenoiseStatistical(c *cli.Context) error {
	a, err := parseDenoiseArgs(c)
	if err != nil {
		return err
	}
	opts := denoise.StatisticalOptions{K: c.Int("k"), StdRatio: c.Float64("std-ratio")}
	switch strings.ToLower(c.String("std")) {
	case "sample":
	case "population":
		opts.PopulationStd = true
	default:
		return usagef("--std: want sample or population, got %q", c.String("std"))
	}
	if opts.Convention, err = denoise.ParseConvention(c.String("convention")); err != nil {
		return usagef("--convention: want pcl or open3d, got %q", c.String("convention"))
	}
	if c.IsSet("k") && opts.K == 0 || c.IsSet("std-ratio") && opts.StdRatio == 0 {
		return usagef("--k and --std-ratio must not be 0")
	}
	if err := opts.Validate(); err != nil {
		return usagef("%v", strings.TrimPrefix(err.Error(), "denoise: "))
	}
	return runDenoise(c, a, true, func(xyz []float32, b findneighbor.Backend, bo findneighbor.BuildOptions) ([]bool, string, error) {
		opts.Build = bo
		r, err := denoise.Statistical(xyz, b, opts)
		if err != nil {
			return nil, "", err
		}
		std := "sample"
		if opts.PopulationStd {
			std = "population"
		}
		return r.Outlier, fmt.Sprintf("K=%d, std ratio %g, %s convention: mean distance %.6g, %s std %.6g, threshold %.6g",
			opts.K, opts.StdRatio, opts.Convention, r.Mean, std, r.Std, r.Threshold), nil
	})
}

func runDenoiseRadius(c *cli.Context) error {
	a, err := parseDenoiseArgs(c)
	if err != nil {
		return err
	}
	if !c.IsSet("radius") {
		return usagef("denoise radius needs --radius R (in coordinate units)")
	}
	opts := denoise.RadiusOptions{Radius: c.Float64("radius"), MinNeighbors: c.Int("min-neighbors"), CountSelf: c.Bool("count-self")}
	if err := opts.Validate(); err != nil {
		return usagef("%v", strings.TrimPrefix(err.Error(), "denoise: "))
	}
	return runDenoise(c, a, false, func(xyz []float32, b findneighbor.Backend, bo findneighbor.BuildOptions) ([]bool, string, error) {
		opts.Build = bo
		r, err := denoise.Radius(xyz, b, opts)
		if err != nil {
			return nil, "", err
		}
		self := "other points"
		if opts.CountSelf {
			self = "points, itself included"
		}
		return r.Outlier, fmt.Sprintf("radius %g, at least %d %s", opts.Radius, opts.MinNeighbors, self), nil
	})
}

// runDenoise reads IN, runs filter on the points that take part, applies
// the mode and writes OUT; cpuWork says "auto" takes the cpu backend for
// the filter (statistical: k nearest with no radius; see backend).
func runDenoise(c *cli.Context, a *denoiseArgs, cpuWork bool, filter denoiseFilter) error {
	src, err := loadInput(c, a.in, cpuWork, nil)
	if err != nil {
		return err
	}
	cloud, from, b := src.cloud, src.from, src.backend
	if a.mode == "" {
		a.mode = "remove"
		if isLAS(from) {
			a.mode = "classify"
		}
		debugf("mode: %s (input format %s)", a.mode, from.Name)
		if a.invert && a.mode != "remove" {
			return usagef("--invert applies to --mode remove; %s input defaults to --mode %s, so say --mode remove", from.Name, a.mode)
		}
	}
	part, err := participants(cloud, a.ignore)
	if err != nil {
		return fmt.Errorf("%s: %w", a.in, err)
	}
	local := cloud.Local(a.flat)
	xyz := local.XYZ
	if part != nil {
		xyz = make([]float32, 0, 3*len(part))
		for _, i := range part {
			xyz = append(xyz, local.XYZ[3*i:3*i+3]...)
		}
	}
	update, finish := progress("denoise " + c.Command.Name)
	sub, stats, err := filter(xyz, b, findneighbor.BuildOptions{Workers: c.Int("workers"), Progress: update})
	finish()
	if err != nil {
		return err
	}
	outlier := sub
	if part != nil {
		outlier = make([]bool, cloud.Len())
		for k, i := range part {
			outlier[i] = sub[k]
		}
	}
	nOut := 0
	for _, o := range outlier {
		if o {
			nOut++
		}
	}
	out, did, err := applyDenoiseMode(cloud, outlier, a)
	if err != nil {
		return err
	}
	if err := writeCloud(c, a.out, out, from); err != nil {
		return err
	}
	n, nPart := cloud.Len(), cloud.Len()
	if part != nil {
		nPart = len(part)
	}
	infof("denoise %s: %d points, %d ignored by class, %d outliers, %d inliers; %s; %s; backend %s, %.2f s",
		c.Command.Name, n, n-nPart, nOut, nPart-nOut, did, stats, b.Name(), time.Since(src.start).Seconds())
	return nil
}

// isLAS reports whether f is LAS or LAZ, whose users expect noise to be
// classified rather than deleted.
func isLAS(f *pcio.Format) bool { return f != nil && (f.Name == "las" || f.Name == "laz") }

// participants returns the indices of the points whose Classification is
// not in ignore, or nil when every point takes part.
func participants(cloud *core.Cloud, ignore []int) ([]int, error) {
	if len(ignore) == 0 {
		return nil, nil
	}
	cls := cloud.Attr(core.DimClassification)
	if cls == nil {
		infof("warning: --ignore-class: the input has no %s attribute; every point takes part", core.DimClassification)
		return nil, nil
	}
	var skip [256]bool
	for _, v := range ignore {
		skip[v] = true
	}
	part := make([]int, 0, cloud.Len())
	for i := range cloud.Len() {
		if v := cls.Int64(i); v < 0 || v > 255 || !skip[v] {
			part = append(part, i)
		}
	}
	if len(part) == cloud.Len() {
		return nil, nil
	}
	return part, nil
}

// applyDenoiseMode returns the cloud to write and what was done to it.
func applyDenoiseMode(cloud *core.Cloud, outlier []bool, a *denoiseArgs) (*core.Cloud, string, error) {
	switch a.mode {
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
	return cloud.Select(keep), fmt.Sprintf("%s, %d points written", what, len(keep)), nil
}
