package main

import (
	"time"

	"github.com/pctk/pctk/algos/synth"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/internal/msg"
	"github.com/pctk/pctk/stage"
	"github.com/urfave/cli/v2"
)

// synthKinds are the scenes pctk synth makes.
var synthKinds = map[string]func(synth.Options) (*core.Cloud, error){
	"uniform": synth.Uniform,
	"blobs":   synth.Blobs,
	"street":  synth.Street,
}

func init() {
	commands = append(commands, &cli.Command{
		Name:      "synth",
		Usage:     "make a deterministic synthetic cloud with ground truth: uniform, blobs or street",
		ArgsUsage: "KIND OUT",
		Description: "KIND is uniform (points in a cube), blobs (Gaussian clusters over 5% noise, truth in\n" +
			"ObjectID) or street (a LiDAR-like street: ground, buildings, trees, cars, poles and wires,\n" +
			"noise and outliers, with ASPRS Classification, Intensity and ObjectID). The same\n" +
			"--seed and --points give the same file.\n\n" +
			"Examples:\n" +
			"   pctk synth street street.las --points 2000000\n" +
			"   pctk synth blobs blobs.ply --points 100000 --clusters 20 --extent 500",
		Flags: []cli.Flag{flagOf(stage.FormatOption), flagOf(stage.ForceOption),
			&cli.IntFlag{Name: "points", Value: 1_000_000, Usage: "number of points"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "random seed: the same seed gives the same scene"},
			&cli.Float64Flag{Name: "extent", Usage: "uniform, blobs: side of the cube in cloud units (default: cube root of --points)"},
			&cli.IntFlag{Name: "clusters", Value: 8, Usage: "blobs: number of Gaussian clusters (at most --points)"},
		},
		Action: runSynth,
	})
}

func runSynth(c *cli.Context) error {
	if c.NArg() != 2 {
		return stage.Usagef("synth needs KIND and OUT, got %d argument(s)", c.NArg())
	}
	kind, out := c.Args().Get(0), c.Args().Get(1)
	gen, ok := synthKinds[kind]
	if !ok {
		return stage.Usagef("synth: unknown kind %q (uniform, blobs or street)", kind)
	}
	o := synth.Options{Points: c.Int("points"), Seed: c.Uint64("seed"), Extent: c.Float64("extent"), Clusters: blobsClusters(c, kind)}
	if err := o.Validate(); err != nil {
		return stage.Usagef("%v", err)
	}
	if err := stage.CheckOutputs(c, out); err != nil {
		return err
	}
	start := time.Now()
	cloud, err := gen(o)
	if err != nil {
		return err
	}
	if err := stage.WriteCloud(c, out, cloud, nil); err != nil {
		return err
	}
	msg.Infof("made %d points of %s (seed %d) into %s in %.2f s", cloud.Len(), kind, o.Seed, out, time.Since(start).Seconds())
	return nil
}

// blobsClusters is --clusters for kind: the number given for blobs, else
// 0, the algorithm's default (8, at most the points), so that a flag of
// blobs alone never fails a uniform or street cloud of a few points.
func blobsClusters(c *cli.Context, kind string) int {
	if kind != "blobs" || !c.IsSet("clusters") {
		return 0
	}
	return c.Int("clusters")
}
