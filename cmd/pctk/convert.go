package main

import (
	"fmt"
	"io"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/pcio"
	"github.com/pctk/pctk/io/stl"
	"github.com/urfave/cli/v2"
)

// chunkPoints is how many points a streaming conversion, or an out-of-core
// pass, holds at a time (a variable for tests, which make clouds of many
// chunks from small files).
var chunkPoints = 1 << 20

func init() {
	commands = append(commands, &cli.Command{
		Name:      "convert",
		Usage:     "convert between point-cloud formats, keeping every field",
		ArgsUsage: "IN OUT",
		Description: "The output format comes from --format or OUT's extension. Conversions stream in\n" +
			"chunks when both formats can, so files larger than memory convert. - reads standard input\n" +
			"or writes standard output.\n\n" +
			"Examples:\n" +
			"   pctk convert scan.laz scan.ply\n" +
			"   pctk convert part.stl part.pcd --sample 100000 --seed 7",
		Flags: append([]cli.Flag{formatFlag, salvageFlag, forceFlag, inPlaceFlag,
			&cli.IntFlag{Name: "sample", Usage: "for STL input: sample N points uniformly over the surface (area-weighted) instead of taking the vertices (0: the vertices)"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "random seed for --sample"},
		}, queryFlags...),
		Action: runConvert,
	})
}

func runConvert(c *cli.Context) error {
	in, out, err := inOut(c)
	if err != nil {
		return err
	}
	if err := checkInOut(c, []string{in}, []string{out}, nil); err != nil {
		return err
	}
	if q, err := queryOf(c); err != nil || q != nil {
		if err != nil {
			return err
		}
		cloud, f, err := readCloud(c, in)
		if err != nil {
			return err
		}
		if err := writeCloud(c, out, cloud, f); err != nil {
			return err
		}
		infof("converted %d points of %s selected by the query to %s", cloud.Len(), in, out)
		return nil
	}
	f, r, closer, err := pcio.Open(in)
	if err != nil {
		return err
	}
	defer closer.Close()
	of, variant, err := pcio.OutputFormat(out, c.String("format"), f)
	if err != nil {
		return usagef("%v", err)
	}
	if f, err = withText(c, f, true); err != nil {
		return err
	}
	if of, err = withText(c, of, false); err != nil {
		return err
	}
	if of.Encode == nil {
		return usagef("format %s cannot be written", of.Name)
	}
	if n := c.Int("sample"); c.IsSet("sample") {
		if f.Name != "stl" {
			return usagef("--sample applies to STL input, not %s", f.Name)
		}
		if n < 1 {
			return usagef("--sample needs a positive number of points")
		}
		cloud, err := stl.Sample(r, n, c.Uint64("seed"), readOptions(c, in))
		if err != nil {
			return fmt.Errorf("%s: %w", pcio.Name(in), err)
		}
		if err := writeCloud(c, out, cloud, f); err != nil {
			return err
		}
		infof("sampled %d points from the surface of %s into %s (%s)", n, in, out, of.Name)
		return nil
	}
	// A salvaged read may find the cut only at the end of the data, when a
	// streaming encoder has announced the promised count: read it whole.
	if f.NewDecoder != nil && of.NewEncoder != nil && !c.Bool(salvageFlag.Name) {
		n, err := streamConvert(c, in, f, r, of, variant, out)
		if err != nil {
			return err
		}
		infof("converted %d points from %s (%s) to %s (%s)", n, in, f.Name, out, of.Name)
		return nil
	}
	cloud, err := f.Decode(r, readOptions(c, in))
	if err != nil {
		return fmt.Errorf("%s: %w", pcio.Name(in), err)
	}
	warnRead(in, f, &cloud.Meta)
	if err := writeCloud(c, out, cloud, f); err != nil {
		return err
	}
	infof("converted %d points from %s (%s) to %s (%s)", cloud.Len(), in, f.Name, out, of.Name)
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
	err = streamOut(c, in, dec, path, of, dec.Header(), variant, func(_ int64, ch *core.Cloud) (*core.Cloud, error) {
		n += int64(ch.Len())
		return ch, nil
	})
	if err != nil {
		return n, err
	}
	warnRead(in, f, &dec.Header().Meta)
	return n, nil
}
