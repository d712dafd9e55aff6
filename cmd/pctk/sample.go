package main

import (
	"fmt"

	poisson "github.com/pctk/pctk/algos/sample" // convert_test.go has a func sample
	"github.com/pctk/pctk/core"
	"github.com/urfave/cli/v2"
)

func init() {
	commands = append(commands, (&Filter{
		Name:    "sample",
		Preview: "z",
		Usage:   "thin to a Poisson-disk sample, kept points at least --radius apart (PDAL filters.sample)",
		Description: `Keeps, in input order, each point no kept point is closer to than --radius R,
as PDAL's filters.sample: kept points are at least R apart and every dropped
point lies within R of a kept one (docs/sample.md). --dimension NAME keeps
every point and writes 1 (kept) or 0 in a new uint8 field instead, as PDAL's
dimension option. --dims xy thins in plan view; points --ignore-class leaves
out are kept. No neighbour index is used: --backend changes nothing.`,
		Examples: []string{"pctk sample scan.las thin.las --radius 0.5"},
		Flags: []cli.Flag{
			&cli.Float64Flag{Name: "radius", Usage: "smallest distance between kept points (required)"},
			&cli.StringFlag{Name: "dimension", Usage: "flag kept points in this new field instead of dropping the others"},
		},
		Dims: true, IgnoreClass: true,
		Params: map[string]string{"radius": "radius"},
		Prepare: func(c *cli.Context) (*Job, error) {
			opts, flag := poisson.Options{Radius: c.Float64("radius")}, c.String("dimension")
			if err := opts.Validate(); err != nil {
				return nil, err
			}
			return &Job{CPUWork: true, Compute: func(p *Points) (*Result, error) {
				opts.Progress = p.Build.Progress
				r, err := poisson.Poisson(p.XYZ, opts)
				if err != nil {
					return nil, err
				}
				keep, flags := p.Spread(r.Keep, true), make([]uint8, p.Cloud.Len())
				var idx []int // the kept points, and those that take no part
				for i, k := range keep {
					if k {
						idx, flags[i] = append(idx, i), 1
					}
				}
				return &Result{JSON: map[string]any{"radius": opts.Radius, "kept": r.Kept},
					Lines: []string{fmt.Sprintf("radius %g: %d of %d points kept", opts.Radius, r.Kept, p.Len())},
					Edit: func(c *core.Cloud) (*core.Cloud, error) {
						if flag != "" {
							return c, c.SetAttr(core.NewColumn(flag, flags))
						}
						return c.Select(idx), nil
					}}, nil
			}}, nil
		},
	}).Command())
}
