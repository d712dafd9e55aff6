package raster

import (
	"path/filepath"
	"testing"

	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/internal/peers"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// BenchmarkPDAL times Compute (cpu backend, all six statistics) on
// autzen_trim.las (110,000 points) at resolution 1 (radius √2, about
// 660,000 cells), and logs the whole PDAL process running writers.gdal on
// it on the same grid (reading and writing the GeoTIFF included: PDAL
// times no stage alone).
//
//	go test -run XXX -bench PDAL -benchtime 3x -v ./algos/raster
func BenchmarkPDAL(b *testing.B) {
	c, loc, pos := algotest.SharedCloud(b, "pdal/las/autzen_trim.las")
	in, _ := peers.SharedData("pdal/las/autzen_trim.las")
	opts := Options{Resolution: 1, Pos: pos, Values: c.Z}
	var g Grid
	t := algotest.Timed(b, func() {
		r, err := Compute(loc.XYZ, findneighbor.CPU(), opts)
		if err != nil {
			b.Fatal(err)
		}
		g = r.Grid
	})
	cells := g.Width * g.Height
	// The grid given, as a tiled run gives it: streaming PDAL would
	// otherwise grow its grid point by point, which costs it minutes.
	dir := b.TempDir()
	run, err := peers.PDALPipeline(dir, in, map[string]any{"type": "writers.gdal", "resolution": 1, "filename": filepath.Join(dir, "out.tif"),
		"origin_x": g.OriginX + loc.Origin[0], "origin_y": g.OriginY + loc.Origin[1], "width": g.Width, "height": g.Height})
	if err != nil {
		b.Logf("pctk %v (cpu %v); PDAL: %v", t[0], t[1], err)
		return
	}
	b.Logf("%d points, %d cells: pctk %v wall (%v cpu); PDAL 2.9.2 process %v wall (%v cpu), reading and writing included", c.Len(), cells, t[0], t[1], run.Process, run.CPU)
}
