package main

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/pctk/pctk/algos/normals"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/pcd"
	"github.com/urfave/cli/v2"
)

func init() {
	commands = append(commands, &cli.Command{
		Name:      "normals",
		Usage:     "estimate PCA surface normals and curvature, and orient them",
		ArgsUsage: "IN OUT",
		Description: `Adds NormalX, NormalY, NormalZ and Curvature (float32; PLY nx ny nz, PCD
normal_x ..., LAS extra bytes) to every point, replacing existing columns of
those names. With --eigenvalues also Eigenvalue0..2 (λ0 ≤ λ1 ≤ λ2).

The neighbourhood of a point is, with --knn K, the point itself plus its K-1
nearest others (K counts as PCL's -k and Open3D's knn/max_nn do); with
--radius R, the point and every point within R; with both, the point and its
K-1 nearest others within R (Open3D's hybrid search). The normal is the eigenvector of the smallest eigenvalue of the
neighbourhood's covariance, the curvature λ0/(λ0+λ1+λ2). Points whose
neighbourhood has fewer than 3 points get NaN normals and curvature; the
summary counts them.

--orient up points normals toward +Z (airborne LiDAR); viewpoint toward
--viewpoint X,Y,Z (the sensor, in the file's coordinates; --viewpoint alone
implies it), by default a PCD file's VIEWPOINT as in PCL; consistent propagates one orientation along a minimum spanning
tree of the --orient-knn nearest-neighbour graph, the highest point of each
connected part facing up (for closed objects: outward); none keeps the
solver's arbitrary signs.

Non-finite coordinates are an error; with --keep-nan (organised PCD clouds,
whose missing pixels are NaN points) such points take no part and get NaN
normals, as in PCL.`,
		Flags: backendFlags(
			&cli.Float64Flag{Name: "radius", Usage: "neighbourhood radius in coordinate units (0: none)"},
			&cli.IntFlag{Name: "knn", Usage: "neighbourhood size, the point itself included (0: none)"},
			&cli.StringFlag{Name: "orient", Usage: "up, viewpoint, consistent or none", Value: "up"},
			&cli.StringFlag{Name: "viewpoint", Usage: "sensor position `X,Y,Z` in the file's coordinates for --orient viewpoint"},
			&cli.IntFlag{Name: "orient-knn", Usage: "neighbours per point in the graph of --orient consistent", Value: normals.DefaultOrientK},
			&cli.BoolFlag{Name: "eigenvalues", Usage: "also write Eigenvalue0, Eigenvalue1, Eigenvalue2"},
			&cli.BoolFlag{Name: "keep-nan", Usage: "give points with non-finite coordinates (organised clouds) NaN normals instead of failing"},
		),
		Action: runNormals,
	})
}

// parseNormalsOptions checks the flags of pctk normals. The viewpoint is
// returned in the file's coordinates; runNormals moves it to the local frame.
func parseNormalsOptions(c *cli.Context) (normals.Options, error) {
	o := normals.Options{
		Radius:      c.Float64("radius"),
		K:           c.Int("knn"),
		OrientK:     c.Int("orient-knn"),
		Eigenvalues: c.Bool("eigenvalues"),
	}
	o.Build.Workers = c.Int("workers")
	var err error
	if o.Orient, err = normals.ParseOrientation(c.String("orient")); err != nil {
		return o, usagef("--orient: want up, viewpoint, consistent or none, got %q", c.String("orient"))
	}
	if vp := c.String("viewpoint"); vp != "" {
		if o.Viewpoint, err = parseXYZ(vp); err != nil {
			return o, usagef("--viewpoint: %v", err)
		}
		if !c.IsSet("orient") {
			o.Orient = normals.OrientViewpoint
		} else if o.Orient != normals.OrientViewpoint {
			return o, usagef("--viewpoint is only for --orient viewpoint, not %s", o.Orient)
		}
	}
	if o.K == 0 && (o.Radius == 0 || math.IsInf(o.Radius, 1)) {
		return o, usagef("normals needs --radius, --knn or both")
	}
	if o.OrientK < 1 {
		return o, usagef("--orient-knn: want ≥ 1, got %d", o.OrientK)
	}
	if err := o.Validate(); err != nil {
		return o, usagef("%s", strings.Replace(strings.TrimPrefix(err.Error(), "normals: "), "k = ", "--knn ", 1))
	}
	return o, nil
}

// fileViewpoint returns the sensor position a file records: the
// translation of a PCD file's VIEWPOINT, which PCL's NormalEstimation orients
// toward by default.
func fileViewpoint(c *core.Cloud) ([3]float64, error) {
	if h, ok := c.Meta.Extra["pcd"].(*pcd.Header); ok {
		return [3]float64{h.Viewpoint[0], h.Viewpoint[1], h.Viewpoint[2]}, nil
	}
	return [3]float64{}, errors.New("--orient viewpoint needs --viewpoint X,Y,Z (only PCD files record a viewpoint)")
}

// parseXYZ parses "X,Y,Z" into three finite numbers.
func parseXYZ(s string) ([3]float64, error) {
	var v [3]float64
	parts := strings.Split(s, ",")
	if len(parts) != 3 {
		return v, fmt.Errorf("want X,Y,Z, got %q", s)
	}
	for i, p := range parts {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return v, fmt.Errorf("%q is not a finite number", p)
		}
		v[i] = f
	}
	return v, nil
}

func runNormals(c *cli.Context) error {
	in, out, err := inOut(c)
	if err != nil {
		return err
	}
	opts, err := parseNormalsOptions(c)
	if err != nil {
		return err
	}
	var finite []int
	src, err := loadInput(c, in, true, func(cloud *core.Cloud) (err error) {
		finite, err = normalsInput(cloud, c.Bool("keep-nan"))
		return err
	})
	if err != nil {
		return err
	}
	cloud, b, t0 := src.cloud, src.backend, src.start
	pts := cloud
	if finite != nil {
		pts = core.New(len(finite))
		for k, i := range finite {
			pts.X[k], pts.Y[k], pts.Z[k] = cloud.X[i], cloud.Y[i], cloud.Z[i]
		}
	}
	if opts.Orient == normals.OrientViewpoint && !c.IsSet("viewpoint") {
		if opts.Viewpoint, err = fileViewpoint(cloud); err != nil {
			return usagef("%s: %v", in, err)
		}
	}
	t1 := time.Now()
	local := pts.Local(false)
	for i := range opts.Viewpoint {
		opts.Viewpoint[i] -= local.Origin[i]
	}
	update, finish := progress("normals")
	opts.Build.Progress = update
	res, err := normals.Estimate(local.XYZ, b, opts)
	finish()
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	local = core.Local{}
	t2 := time.Now()
	names := []string{core.DimNormalX, core.DimNormalY, core.DimNormalZ, core.DimCurvature}
	data := [][]float32{res.NormalX, res.NormalY, res.NormalZ, res.Curvature}
	if opts.Eigenvalues {
		names = append(names, core.DimEigenvalue0, core.DimEigenvalue1, core.DimEigenvalue2)
		data = append(data, res.Eigenvalues[:]...)
	}
	for i, name := range names {
		col := data[i]
		if finite != nil {
			col = scatterNaN(col, finite, cloud.Len())
		}
		if err := cloud.SetAttr(&core.Attribute{Name: name, Type: core.Float32, Data: col}); err != nil {
			return err
		}
	}
	if err := writeCloud(c, out, cloud, src.from); err != nil {
		return err
	}
	t3 := time.Now()
	orient := opts.Orient.String()
	if opts.Orient == normals.OrientConsistent {
		orient += fmt.Sprintf(" (%d connected parts)", res.Components)
	}
	skipped := ""
	if finite != nil {
		skipped = fmt.Sprintf(" and %d with non-finite coordinates", cloud.Len()-len(finite))
	}
	infof("normals: %d points, %d without a normal (fewer than %d points in the neighbourhood)%s, orient %s, backend %s; %.3fs (read %.3fs, normals %.3fs, write %.3fs)",
		cloud.Len(), res.Undefined, normals.MinPoints, skipped, orient, b.Name(),
		t3.Sub(t0).Seconds(), t1.Sub(t0).Seconds(), t2.Sub(t1).Seconds(), t3.Sub(t2).Seconds())
	return nil
}

// normalsInput checks the cloud. Non-finite coordinates are an error unless
// keepNaN; then it returns the indices of the finite points (nil when all
// are), which alone take part, the others getting NaN normals as in PCL.
// That suits organised clouds, whose missing pixels are NaN points.
func normalsInput(c *core.Cloud, keepNaN bool) ([]int, error) {
	err := c.Validate()
	if err == nil {
		return nil, nil
	}
	var finite []int
	for i := range c.X {
		if isFinite(c.X[i]) && isFinite(c.Y[i]) && isFinite(c.Z[i]) {
			finite = append(finite, i)
		}
	}
	if !keepNaN || len(finite) == c.Len() {
		if len(finite) < c.Len() {
			return nil, fmt.Errorf("%w (--keep-nan gives such points NaN normals)", err)
		}
		return nil, err
	}
	// Validate stopped at the first non-finite point; the columns must
	// still have one value per point.
	n := c.Len()
	if len(c.Y) != n || len(c.Z) != n {
		return nil, fmt.Errorf("X, Y, Z have %d, %d, %d values", n, len(c.Y), len(c.Z))
	}
	for _, a := range c.Attrs {
		if a.Len() != n {
			return nil, fmt.Errorf("attribute %s has %d values for %d points", a.Name, a.Len(), n)
		}
	}
	return finite, nil
}

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// scatterNaN spreads col, one value per index in idx, over n values, NaN
// elsewhere.
func scatterNaN(col []float32, idx []int, n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(math.NaN())
	}
	for k, i := range idx {
		out[i] = col[k]
	}
	return out
}
