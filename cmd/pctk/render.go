package main

import (
	"io"
	"time"

	"github.com/pctk/pctk/algos/render"
	"github.com/pctk/pctk/internal/msg"
	"github.com/pctk/pctk/stage"
	"github.com/urfave/cli/v2"
)

func init() {
	commands = append(commands, &cli.Command{
		Name:      "render",
		Usage:     "draw a cloud as an orthographic PNG (or JPEG) picture with a legend and a scale bar",
		ArgsUsage: "IN OUT.png|OUT.jpg",
		Description: "Each pixel shows the nearest point of the view. Colours: z (height), intensity,\n" +
			"classification (ASPRS colours), cluster (ClusterID, neighbouring clusters differ), normal,\n" +
			"rgb, or any attribute on a colour bar (1st to 99th percentile).\n\n" +
			"Examples:\n" +
			"   pctk render clusters.las clusters.png --color cluster\n" +
			"   pctk render street.las front.png --view front --color classification --splat 2",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "view", Value: "top", Usage: "top, front or side"},
			&cli.StringFlag{Name: "color", Value: "z", Usage: "z, intensity, classification, cluster, normal, rgb or an attribute's name"},
			&cli.IntFlag{Name: "width", Value: 1024, Usage: "plot width in pixels"},
			&cli.IntFlag{Name: "splat", Usage: "side of each point's square in pixels (default: from the density, 1 to 4)"},
			flagOf(stage.SalvageOption), flagOf(stage.ForceOption),
		}, flagsOf(stage.QueryOptions...)...),
		Action: runRender,
	})
}

func runRender(c *cli.Context) error {
	in, out, err := stage.InOut(c.Command.Name, c.Args().Slice())
	if err != nil {
		return err
	}
	o, err := renderOptions(c)
	if err != nil {
		return err
	}
	if err := stage.CheckInOut(c, []string{in}, []string{out}, nil); err != nil {
		return err
	}
	if err := stage.CheckImagePath("OUT", out); err != nil {
		return err
	}
	cloud, _, err := stage.ReadCloudDims(c, in, render.Needs(o.Color))
	if err != nil {
		return err
	}
	start := time.Now()
	img, err := render.Render(cloud, o)
	if err != nil {
		return stage.Usagef("%v", err)
	}
	if err := stage.WriteFile(c, out, func(w io.Writer) error { return stage.EncodeImage(out, w, img) }); err != nil {
		return err
	}
	msg.Infof("drew %s of %s into %s (%dx%d) in %.2f s", stage.Count(cloud.Len(), "point"), in, out, img.Rect.Dx(), img.Rect.Dy(), time.Since(start).Seconds())
	return nil
}

// renderOptions reads the picture's flags.
func renderOptions(c *cli.Context) (render.Options, error) {
	v, err := render.ParseView(c.String("view"))
	if err != nil {
		return render.Options{}, stage.Usagef("--view: %v", err)
	}
	if c.Int("width") == 0 {
		return render.Options{}, stage.Usagef("--width 0: want 16 to %d pixels", render.MaxWidth)
	}
	return render.Options{View: v, Color: c.String("color"), Width: c.Int("width"), Splat: c.Int("splat")}, nil
}
