package main

import (
	"github.com/pctk/pctk/stage"
	"github.com/urfave/cli/v2"
)

// pctk raster: PDAL's writers.gdal (algos/raster, io/geotiff, docs/raster.md).

func init() {
	commands = append(commands, &cli.Command{
		Name:      "raster",
		Usage:     "grid a cloud into a GeoTIFF: DTM, DSM, CHM (PDAL writers.gdal)",
		ArgsUsage: "IN... OUT.tif",
		Description: `Grids the points as PDAL 2.9.2's writers.gdal does (docs/raster.md): every point
strictly within --radius of a cell's centre updates its min, max, mean, idw,
count and stdev (--output-type), empty cells get --nodata or, with
--window-size, the inverse-distance mean of the non-empty cells around. The
grid is PDAL's: origin at the chosen points' minimum X and Y. OUT is a
Cloud-Optimized GeoTIFF (float64 by default) in IN's CRS. --class and
--returns choose the points (a DTM from ground, a DSM from first returns);
--dimension grids another value (HeightAboveGround: a canopy height model).
--tile-size computes blocks of cells, each from the points within its reach:
the same bytes as one block. Several INs (or a glob) are one cloud, in order.
--max-memory reads IN as a stream, bins the chosen points into blocks of cells
on disk (--tmpdir) and grids one block at a time: the same bytes in about that
much memory, of which the image itself takes 8 bytes a cell and band.

Examples:
   pctk raster ground.laz dtm.tif --resolution 1 --class 2 --output-type idw --window-size 3
   pctk raster scan.laz dsm.tif --resolution 1 --returns first,only --output-type max
   pctk raster hag.laz chm.tif --resolution 1 --dimension HeightAboveGround --output-type max`,
		Flags:  append(flagsOf(stage.RasterOptions...), flagOf(stage.SalvageOption), flagOf(stage.ForceOption)),
		Action: runRaster,
	})
}

func runRaster(c *cli.Context) error {
	args := c.Args().Slice()
	if len(args) < 2 {
		return stage.Usagef("%s needs IN... and OUT.tif, got %d argument(s)", c.Command.Name, len(args))
	}
	ins, err := stage.ExpandInputs(args[:len(args)-1])
	if err != nil {
		return err
	}
	return stage.RunRaster(c, ins, args[len(args)-1])
}
