package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/pctk/pctk/algos/features"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/urfave/cli/v2"
)

func init() {
	commands = append(commands, (&Filter{
		Name:  "features",
		Usage: "write covariance features of each point's neighbourhood (PDAL filters.covariancefeatures)",
		Description: `Adds PDAL's covariance features (float64) of the point and its --knn K
nearest, or of the points within --radius R (at least --min-k, itself
counted). --features: names, "dimensionality" (Linearity, Planarity,
Scattering, Verticality; the default) or "all" (also Omnivariance, Anisotropy,
Eigenentropy, EigenvalueSum, SurfaceVariation, DemantkeVerticality). --mode:
sqrt (default), raw or normalized eigenvalues. Skipped points get 0, as in
PDAL (docs/features.md).`,
		Examples: []string{"pctk features scan.las out.las --knn 10 --features all"},
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "knn", Usage: "neighbours besides the point itself (PDAL knn)"},
			&cli.Float64Flag{Name: "radius", Usage: "neighbourhood radius, instead of --knn"},
			&cli.IntFlag{Name: "min-k", Usage: "with --radius, the fewest points that get features", Value: features.DefaultMinK},
			&cli.StringFlag{Name: "mode", Usage: "sqrt, raw or normalized", Value: "sqrt"},
			&cli.StringFlag{Name: "features", Usage: "names, dimensionality or all", Value: "dimensionality"},
		},
		IgnoreClass: true, Tiled: true,
		Params: map[string]string{"k": "knn", "radius": "radius", "min_k": "min-k"},
		Prepare: func(c *cli.Context) (*Job, error) {
			opts := features.Options{K: c.Int("knn"), Radius: c.Float64("radius"), MinK: c.Int("min-k")}
			var err, ferr error
			opts.Mode, err = features.ParseMode(c.String("mode"))
			opts.Features, ferr = features.ParseFeatures(c.String("features"))
			switch { // 0 is "not given" to the algorithm, out of range when given
			case c.IsSet("knn") == c.IsSet("radius"):
				return nil, usagef("features needs --knn K or --radius R, one of them")
			case err != nil || ferr != nil:
				return nil, usagef("%v", errors.Join(err, ferr))
			case c.IsSet("knn") && opts.K == 0:
				return nil, findneighbor.CheckMin("features", "k", 0, 1)
			case c.IsSet("radius") && opts.Radius == 0:
				return nil, findneighbor.CheckRadius("features", "radius", 0, false)
			}
			if err := opts.Validate(); err != nil {
				return nil, err
			}
			// Moments, as for normals, where the cpu backend measured faster.
			return &Job{CPUWork: true, Compute: func(p *Points) (*Result, error) {
				p.WarnClamped("knn", opts.K, max(p.Len()-1, 0), "other point")
				opts.Build, opts.TileSize = p.Build, p.TileSize
				r, err := features.Compute(p.XYZ, p.Backend, opts)
				if err != nil {
					return nil, err
				}
				res, names := &Result{}, make([]string, len(r.Features))
				for j, f := range r.Features {
					names[j] = f.String()
					res.Columns = append(res.Columns, core.NewColumn(names[j], r.Values[j]))
				}
				res.JSON = map[string]any{"features": names, "mode": opts.Mode.String(), "skipped": r.Skipped}
				res.Lines = []string{fmt.Sprintf("%s (%s) of %d points; %d skipped (0, as in PDAL)", strings.Join(names, ", "), opts.Mode, p.Len(), r.Skipped)}
				return res, nil
			}}, nil
		},
	}).Command())
}
