package main

import (
	"fmt"
	"io"
	"os"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/internal/msg"
	"github.com/pctk/pctk/io/pcio"
	"github.com/pctk/pctk/io/stl"
	"github.com/pctk/pctk/stage"
	"github.com/urfave/cli/v2"
)

func init() {
	commands = append(commands, &cli.Command{
		Name:      "convert",
		Usage:     "convert between point-cloud formats, keeping every field",
		ArgsUsage: "IN... OUT",
		Description: "The output format comes from --format or OUT's extension. Conversions stream in\n" +
			"chunks when both formats can, so files larger than memory convert. - reads standard input\n" +
			"or writes standard output. Several INs, or a glob ('tiles/*.laz'), are merged into one OUT\n" +
			"in memory, in order (PDAL's filters.merge); they need the same dimensions. With OUT a\n" +
			"folder (an existing one, or ending in /) each IN is converted into it under its name\n" +
			"(with --format's extension), as a tile collection's filters write.\n\n" +
			"Examples:\n" +
			"   pctk convert scan.laz scan.ply\n" +
			"   pctk convert part.stl part.pcd --sample 100000 --seed 7\n" +
			"   pctk convert 'tiles/*.laz' all.laz\n" +
			"   pctk convert 'tiles/*.laz' ply/ --format ply",
		Flags: append([]cli.Flag{flagOf(stage.FormatOption), flagOf(stage.SalvageOption), flagOf(stage.ForceOption), flagOf(stage.InPlaceOption),
			&cli.IntFlag{Name: "sample", Usage: "for STL input: sample N points uniformly over the surface (area-weighted) instead of taking the vertices (0: the vertices)"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "random seed for --sample"},
		}, flagsOf(stage.QueryOptions...)...),
		Action: runConvert,
	})
}

func runConvert(c *cli.Context) error {
	args := c.Args().Slice()
	ins, outs, dir, err := stage.CollectionArgs(c, args)
	if err != nil {
		return err
	}
	if ins != nil {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := stage.CheckInOut(c, ins, outs, nil); err != nil {
			return err
		}
		for i, in := range ins {
			if err := convertFile(c, in, outs[i]); err != nil {
				return err
			}
		}
		return nil
	}
	if stage.IsMerge(args) {
		return mergeConvert(c, args)
	}
	in, out, err := stage.InOut(c.Command.Name, args)
	if err != nil {
		return err
	}
	if err := stage.CheckInOut(c, []string{in}, []string{out}, nil); err != nil {
		return err
	}
	return convertFile(c, in, out)
}

// convertFile converts in to out, both checked.
func convertFile(c *cli.Context, in, out string) error {
	if q, err := stage.QueryOf(c); err != nil || q != nil {
		if err != nil {
			return err
		}
		cloud, f, err := stage.ReadCloud(c, in)
		if err != nil {
			return err
		}
		if err := stage.WriteCloud(c, out, cloud, f); err != nil {
			return err
		}
		msg.Infof("converted %d points of %s selected by the query to %s", cloud.Len(), in, out)
		return nil
	}
	f, r, closer, err := pcio.Open(in)
	if err != nil {
		return err
	}
	defer closer.Close()
	of, variant, err := stage.OutputFormat(c, out, f)
	if err != nil {
		return err
	}
	if f, err = stage.WithText(c, f, true); err != nil {
		return err
	}
	if of.Encode == nil {
		return stage.Usagef("format %s cannot be written", of.Name)
	}
	if n := c.Int("sample"); c.IsSet("sample") {
		if f.Name != "stl" {
			return stage.Usagef("--sample applies to STL input, not %s", f.Name)
		}
		if n < 1 {
			return stage.Usagef("--sample needs a positive number of points")
		}
		cloud, err := stl.Sample(r, n, c.Uint64("seed"), stage.ReadOptions(c, in))
		if err != nil {
			return fmt.Errorf("%s: %w", pcio.Name(in), err)
		}
		if err := stage.WriteCloud(c, out, cloud, f); err != nil {
			return err
		}
		msg.Infof("sampled %d points from the surface of %s into %s (%s)", n, in, out, of.Name)
		return nil
	}
	// A salvaged read may find the cut only at the end of the data, when a
	// streaming encoder has announced the promised count: read it whole.
	if f.NewDecoder != nil && of.NewEncoder != nil && !c.Bool(stage.SalvageOption.Name) {
		n, err := streamConvert(c, in, f, r, of, variant, out)
		if err != nil {
			return err
		}
		msg.Infof("converted %d points from %s (%s) to %s (%s)", n, in, f.Name, out, of.Name)
		return nil
	}
	cloud, err := f.Decode(r, stage.ReadOptions(c, in))
	if err != nil {
		return fmt.Errorf("%s: %w", pcio.Name(in), err)
	}
	stage.WarnRead(in, f, &cloud.Meta)
	if err := stage.WriteCloud(c, out, cloud, f); err != nil {
		return err
	}
	msg.Infof("converted %d points from %s (%s) to %s (%s)", cloud.Len(), in, f.Name, out, of.Name)
	return nil
}

// mergeConvert writes the files args name but the last (globs expanded)
// as one cloud to the last, OUT (PDAL's filters.merge).
func mergeConvert(c *cli.Context, args []string) error {
	out := args[len(args)-1]
	ins, err := stage.ExpandInputs(args[:len(args)-1])
	if err != nil {
		return err
	}
	if err := stage.CheckInOut(c, ins, []string{out}, nil); err != nil {
		return err
	}
	cloud, f, err := stage.ReadClouds(c, ins)
	if err != nil {
		return err
	}
	if err := stage.WriteCloud(c, out, cloud, f); err != nil {
		return err
	}
	msg.Infof("merged %d points of %d files into %s", cloud.Len(), len(ins), out)
	return nil
}

// streamConvert copies points chunk by chunk from a decoder of format f
// reading in to an encoder of format of, writing path atomically. Errors
// name in when reading failed, path when writing did.
func streamConvert(c *cli.Context, in string, f *pcio.Format, r io.Reader, of *pcio.Format, variant, path string) (int64, error) {
	dec, err := f.NewDecoder(r)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", pcio.Name(in), err)
	}
	var n int64
	err = stage.StreamOut(c, in, dec, path, of, dec.Header(), variant, func(_ int64, ch *core.Cloud) (*core.Cloud, error) {
		n += int64(ch.Len())
		return ch, nil
	})
	if err != nil {
		return n, err
	}
	stage.WarnRead(in, f, &dec.Header().Meta)
	return n, nil
}
