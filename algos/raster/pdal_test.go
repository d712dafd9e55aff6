package raster

import (
	"math"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/internal/peers"
	"github.com/pctk/pctk/io/geotiff"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// readGDAL reads a GeoTIFF with GDAL (peers.ReadRaster): its
// geotransform, width, height, nodata and bands.
func readGDAL(t *testing.T, path string) (gt [6]float64, w, h int, nodata []float64, bands [][]float64) {
	t.Helper()
	r, err := peers.ReadRaster(path)
	if err != nil {
		t.Fatal(err)
	}
	return r.GeoTransform, r.Width, r.Height, r.NoData, r.Bands
}

// TestAgainstPDAL runs PDAL 2.9.2's writers.gdal (output_type all) on LAS
// samples, reads its GeoTIFF back with GDAL and compares the grid frame
// and every cell of every band with Compute's (cpu backend, float64
// positions relative to the cloud's centre) within 1e-6. A cell may differ
// only where a point lies within 1e-9 of its radius (PDAL's distance from
// absolute coordinates, pctk's from relative ones, round apart); those are
// counted.
func TestAgainstPDAL(t *testing.T) {
	algotest.RequirePeer(t, "PDAL 2.9.2 (../shared/anchors/pdal, .ci/deps/pdal.sh)", peerErr())
	algotest.RequirePeer(t, "GDAL's Python bindings (.ci/deps/debian-gdal.sh)", peers.Available(peers.GDAL))
	for _, tc := range []struct {
		file  string
		stage map[string]any
		opts  Options
	}{
		{"pdal/las/autzen_trim.las", map[string]any{"resolution": 5}, Options{Resolution: 5}},
		{"pdal/las/autzen_trim.las", map[string]any{"resolution": 3, "radius": 2, "window_size": 3, "power": 2}, Options{Resolution: 3, Radius: 2, WindowSize: 3, Power: 2}},
		{"pdal/las/1.2-with-color.las", map[string]any{"resolution": 10, "radius": 6, "window_size": 2, "nodata": -1}, Options{Resolution: 10, Radius: 6, WindowSize: 2, NoData: ptr(-1.0)}},
	} {
		c, loc, pos := algotest.SharedCloud(t, tc.file)
		in, _ := peers.SharedData(tc.file)
		// The grid as an option, the whole run's frame: PDAL's pipeline
		// runs writers.gdal streaming, where its own grid starts at the
		// first point's cell (DefaultGrid is its standard mode's).
		b, _ := c.Bounds()
		ox, oy := math.Floor(b.Min[0])-0.5, math.Floor(b.Min[1])-0.25
		res := tc.opts.Resolution
		gw, gh := int((b.Max[0]-ox)/res)+2, int((b.Max[1]-oy)/res)+1
		tc.opts.Grid = Grid{ox - loc.Origin[0], oy - loc.Origin[1], gw, gh, res}
		tc.stage["origin_x"], tc.stage["origin_y"], tc.stage["width"], tc.stage["height"] = ox, oy, gw, gh
		dir := t.TempDir()
		out := filepath.Join(dir, "out.tif")
		stage := map[string]any{"type": "writers.gdal", "filename": out, "output_type": "all", "data_type": "double"}
		for k, v := range tc.stage {
			stage[k] = v
		}
		if _, err := peers.PDALPipeline(dir, in, stage); err != nil {
			t.Fatalf("PDAL %v: %v", stage, err)
		}
		gt, w, h, nodata, want := readGDAL(t, out)
		o := tc.opts
		o.Pos, o.Values = pos, c.Z
		r, err := Compute(loc.XYZ, findneighbor.CPU(), o)
		if err != nil {
			t.Fatal(err)
		}
		g := r.Grid
		if g.Width != w || g.Height != h || len(want) != len(r.Bands) {
			t.Fatalf("%s %v: %dx%d grid, %d bands; PDAL %dx%d, %d", tc.file, tc.stage, g.Width, g.Height, len(r.Bands), w, h, len(want))
		}
		mine := g.GeoTransform()
		mine[0] += loc.Origin[0]
		mine[3] += loc.Origin[1]
		for k := range gt {
			if math.Abs(mine[k]-gt[k]) > 1e-6 {
				t.Errorf("%s %v: geotransform %v, PDAL %v", tc.file, tc.stage, mine, gt)
				break
			}
		}
		boundary := edgeCells(pos, g, o.radius())
		tied, bad := 0, 0
		for b, band := range r.Bands {
			if nodata[b] != r.NoData {
				t.Errorf("%s: band %s nodata %v, PDAL %v", tc.file, band.Name, r.NoData, nodata[b])
			}
			for k, got := range band.Data {
				if w := want[b][k]; math.Abs(got-w) <= 1e-6*max(1, math.Abs(w)) {
					continue
				}
				if boundary[k] {
					tied++
					continue
				}
				if bad++; bad <= 5 {
					t.Errorf("%s %v: band %s cell %d (row %d col %d): %v, PDAL %v", tc.file, tc.stage, band.Name, k, k/g.Width, k%g.Width, got, want[b][k])
				}
			}
		}
		t.Logf("%s %v: %dx%d cells, %d bands: %d values differ at points on a radius, %d otherwise", tc.file, tc.stage, w, h, len(want), tied, bad)

		// The same raster through io/geotiff, read back with GDAL: the
		// frame, nodata, CRS and values of PDAL's file.
		img := &geotiff.Image{Width: g.Width, Height: g.Height, NoData: &r.NoData, GeoTransform: mine, CRS: c.Meta.CRS}
		for _, band := range r.Bands {
			img.Bands = append(img.Bands, band.Data)
			img.Names = append(img.Names, band.Name)
		}
		ours := filepath.Join(dir, "pctk.tif")
		if err := geotiff.WriteFile(ours, img, geotiff.Options{}); err != nil {
			t.Fatal(err)
		}
		gt2, w2, h2, nodata2, back := readGDAL(t, ours)
		if gt2 != gt || w2 != w || h2 != h || nodata2[0] != nodata[0] {
			t.Errorf("%s: io/geotiff's file reads %v %dx%d nodata %v; PDAL's %v %dx%d nodata %v", tc.file, gt2, w2, h2, nodata2[0], gt, w, h, nodata[0])
		}
		for b := range back {
			for k, v := range back[b] {
				if v != r.Bands[b].Data[k] {
					t.Fatalf("%s: io/geotiff's band %d cell %d reads %v, wrote %v", tc.file, b+1, k, v, r.Bands[b].Data[k])
				}
			}
		}
		if p, q := crsOf(t, out), crsOf(t, ours); p != q {
			t.Errorf("%s: io/geotiff's CRS %q, PDAL's %q", tc.file, q, p)
		}
	}
}

// crsOf returns the PROJ string GDAL gives a raster's CRS.
func crsOf(t *testing.T, path string) string {
	t.Helper()
	out, err := exec.Command("/usr/bin/python3", "-c", "import sys\nfrom osgeo import gdal\ns = gdal.Open(sys.argv[1]).GetSpatialRef()\nprint(s.ExportToProj4() if s else '')", path).CombinedOutput()
	if err != nil {
		t.Fatalf("GDAL reading %s: %v: %s", path, err, out)
	}
	return strings.TrimSpace(string(out))
}

func ptr[T any](v T) *T { return &v }

func peerErr() error {
	_, err := peers.PDALRun()
	return err
}

// edgeCells marks the cells (rows from the top) with a point within 1e-9
// of the radius from their centre, and (for the fill) every cell within
// reach of one: where rounding may decide membership differently.
func edgeCells(pos []float64, g Grid, radius float64) []bool {
	out := make([]bool, g.Width*g.Height)
	for i := range len(pos) / 3 {
		x, y := pos[3*i], pos[3*i+1]
		c0 := int(math.Floor((x-radius-g.OriginX)/g.Resolution)) - 1
		j0 := int(math.Floor((y-radius-g.OriginY)/g.Resolution)) - 1
		for c := max(0, c0); c < min(g.Width, c0+int(2*radius/g.Resolution)+3); c++ {
			for j := max(0, j0); j < min(g.Height, j0+int(2*radius/g.Resolution)+3); j++ {
				cx, cy := g.centre(c, g.Height-1-j)
				if math.Abs(math.Hypot(cx-x, cy-y)-radius) <= 1e-9*radius {
					out[(g.Height-1-j)*g.Width+c] = true
				}
			}
		}
	}
	return out
}
