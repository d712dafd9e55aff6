package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pctk/pctk/internal/peers"
)

// TestRasterTiles checks that --tile-size gives the GeoTIFF bytes of one
// block, with and without a window fill, a class, a return selection and
// a fixed grid.
func TestRasterTiles(t *testing.T) {
	dir := t.TempDir()
	classed := filepath.Join(dir, "ground.las")
	pctkRun(t, 0, "ground", "pmf", sample, classed)
	b, _ := readTestCloud(t, classed).Bounds()
	// A fixed grid beyond the points on the left and through them on top.
	grid := []string{"--origin-x", fmt.Sprint(b.Min[0] - 7.3), "--origin-y", fmt.Sprint(b.Min[1] + 3.1),
		"--width", fmt.Sprint(int((b.Max[0]-b.Min[0])/1.5) + 9), "--height", fmt.Sprint(int((b.Max[1] - b.Min[1]) / 3))}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"all", []string{"--resolution", "2"}},
		{"grid", append([]string{"--resolution", "1.5", "--window-size", "2"}, grid...)},
		{"fill", []string{"--resolution", "1.5", "--radius", "1", "--window-size", "3", "--output-type", "idw,count"}},
		{"dtm", []string{"--resolution", "2", "--class", "2", "--output-type", "min", "--data-type", "float32"}},
		{"dsm", []string{"--resolution", "2", "--returns", "first,only", "--output-type", "max", "--deflate"}},
	} {
		whole, tiled := filepath.Join(dir, tc.name+".tif"), filepath.Join(dir, tc.name+"-tiled.tif")
		pctkRun(t, 0, append([]string{"raster", classed, whole}, tc.args...)...)
		pctkRun(t, 0, append([]string{"raster", classed, tiled, "--tile-size", "7"}, tc.args...)...)
		a, err := os.ReadFile(whole)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(tiled)
		if err != nil {
			t.Fatal(err)
		}
		if len(a) < 1000 || !bytes.Equal(a, b) {
			t.Errorf("%s: whole run %d bytes, --tile-size 7 %d bytes: want the same bytes", tc.name, len(a), len(b))
		}
		// Out of core, one block and blocks of 7 (more than one binning
		// pass), and two files (the same points twice: counts double)
		// against their merge in memory.
		for _, extra := range [][]string{{"--max-memory", "1GiB"}, {"--max-memory", "1GiB", "--tile-size", "7"}} {
			ooc := filepath.Join(dir, tc.name+"-ooc.tif")
			pctkRun(t, 0, append(append([]string{"raster", classed, ooc}, extra...), tc.args...)...)
			if b, err := os.ReadFile(ooc); err != nil || !bytes.Equal(a, b) {
				t.Errorf("%s %v: %d bytes (%v), want the whole run's %d bytes", tc.name, extra, len(b), err, len(a))
			}
		}
		two, twoOOC := filepath.Join(dir, tc.name+"-2.tif"), filepath.Join(dir, tc.name+"-2-ooc.tif")
		pctkRun(t, 0, append([]string{"raster", classed, sample, two}, tc.args...)...)
		pctkRun(t, 0, append([]string{"raster", classed, sample, twoOOC, "--max-memory", "1GiB", "--tile-size", "50"}, tc.args...)...)
		a2, err1 := os.ReadFile(two)
		b2, err2 := os.ReadFile(twoOOC)
		if err1 != nil || err2 != nil || len(a2) < 1000 || !bytes.Equal(a2, b2) {
			t.Errorf("%s, two files: in memory %d bytes, out of core %d (%v, %v): want the same bytes", tc.name, len(a2), len(b2), err1, err2)
		}
	}
	pctkRun(t, 2, "raster", sample, filepath.Join(dir, "x.tif"), "--resolution", "1", "--max-memory", "1MiB")
	pctkRun(t, 2, "raster", sample, filepath.Join(dir, "x.tif"))
	pctkRun(t, 2, "raster", sample, filepath.Join(dir, "x.tif"), "--resolution", "1", "--output-type", "median")
}

// TestRasterGDAL reads a grid of haystack_rock.las with GDAL's gdalinfo
// and gdallocationinfo: size, geotransform (PDAL's grid from the points'
// minimum), nodata, band names, and a cell's count against the points
// counted here.
func TestRasterGDAL(t *testing.T) {
	if _, err := exec.LookPath("gdalinfo"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("gdalinfo (Debian gdal-bin, .ci/deps/debian-gdal.sh): %v", err)
		}
		t.Skipf("gdalinfo missing (Debian gdal-bin, .ci/deps/debian-gdal.sh): %v", err)
	}
	const res = 4.0
	out := filepath.Join(t.TempDir(), "r.tif")
	pctkRun(t, 0, "raster", sample, out, "--resolution", "4", "--output-type", "count,max", "--nodata", "-1")
	info, err := exec.Command("gdalinfo", "-json", out).Output()
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Size         []int
		GeoTransform []float64
		Bands        []struct {
			Description string
			NoDataValue float64
			Type        string
		}
	}
	if err := json.Unmarshal(info, &d); err != nil {
		t.Fatal(err)
	}
	cloud := readTestCloud(t, sample)
	b, _ := cloud.Bounds()
	w, h := int(math.Floor((b.Max[0]-b.Min[0])/res))+1, int(math.Floor((b.Max[1]-b.Min[1])/res))+1
	if d.Size[0] != w || d.Size[1] != h {
		t.Errorf("size %v, want %d×%d", d.Size, w, h)
	}
	if want := []float64{b.Min[0], res, 0, b.Min[1] + res*float64(h), 0, -res}; len(d.GeoTransform) != 6 || math.Abs(d.GeoTransform[0]-want[0]) > 1e-6 || math.Abs(d.GeoTransform[3]-want[3]) > 1e-6 || d.GeoTransform[1] != res || d.GeoTransform[5] != -res {
		t.Errorf("geotransform %v, want %v", d.GeoTransform, want)
	}
	if len(d.Bands) != 2 || d.Bands[0].Description != "max" || d.Bands[1].Description != "count" || d.Bands[0].NoDataValue != -1 || d.Bands[0].Type != "Float64" {
		t.Errorf("bands %+v, want max and count, nodata -1, Float64", d.Bands)
	}
	// The count of the middle cell: the points strictly within res·√2 of its centre.
	col, row := w/2, h/2
	cx, cy := b.Min[0]+(float64(col)+0.5)*res, b.Min[1]+res*float64(h)-(float64(row)+0.5)*res
	want := 0
	for i := range cloud.Len() {
		if dx, dy := cloud.X[i]-cx, cloud.Y[i]-cy; dx*dx+dy*dy < 2*res*res {
			want++
		}
	}
	v, err := exec.Command("gdallocationinfo", "-valonly", "-b", "2", out, strconv.Itoa(col), strconv.Itoa(row)).Output()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := strconv.ParseFloat(strings.TrimSpace(string(v)), 64); err != nil || got != float64(want) || want == 0 {
		t.Errorf("count of cell (%d, %d): GDAL reads %q, want %d (and not 0)", col, row, v, want)
	}
}

// TestRasterPipeline runs writers.gdal in JSON pipelines: last, with
// PDAL's option names (a fixed grid, gdalopts), it writes the bytes of
// pctk raster given the same options as flags; in the middle of the chain
// it writes the same raster and passes the points on, as PDAL's writers
// do; what it cannot write is a usage error (exit 2).
func TestRasterPipeline(t *testing.T) {
	dir := t.TempDir()
	classed := filepath.Join(dir, "ground.las")
	pctkRun(t, 0, "ground", "pmf", sample, classed)
	b, _ := readTestCloud(t, classed).Bounds()
	ox, oy := math.Floor(b.Min[0])-3.25, math.Floor(b.Min[1])+5.5
	w, h := int((b.Max[0]-b.Min[0])/2)+4, int((b.Max[1]-b.Min[1])/4)
	want := filepath.Join(dir, "want.tif")
	pctkRun(t, 0, "raster", classed, want, "--resolution", "2", "--class", "2", "--output-type", "idw,count", "--window-size", "2",
		"--deflate", "--data-type", "float32", "--origin-x", fmt.Sprint(ox), "--origin-y", fmt.Sprint(oy), "--width", fmt.Sprint(w), "--height", fmt.Sprint(h))
	type obj = map[string]any
	gdal := func(file string, more ...any) obj {
		o := obj{"type": "writers.gdal", "filename": file, "resolution": 2, "output_type": "idw,count", "window_size": 2, "data_type": "float",
			"gdaldriver": "GTiff", "gdalopts": "COMPRESS=DEFLATE,TILED=YES", "origin_x": ox, "origin_y": oy, "width": w, "height": h}
		for i := 0; i+1 < len(more); i += 2 {
			o[more[i].(string)] = more[i+1]
		}
		return o
	}
	pipe := func(stages ...any) string {
		data, err := json.Marshal(stages)
		if err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(dir, "p.json")
		if err := os.WriteFile(f, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	sameFile := func(what, path string) {
		t.Helper()
		a, err1 := os.ReadFile(want)
		b, err2 := os.ReadFile(path)
		if err1 != nil || err2 != nil || len(a) < 1000 || !bytes.Equal(a, b) {
			t.Errorf("%s: %d bytes (%v, %v), want pctk raster's %d bytes", what, len(b), err1, err2, len(a))
		}
	}
	ground := obj{"type": "filters.range", "limits": "Classification[2:2]"}
	last := filepath.Join(dir, "last.tif")
	pctkRun(t, 0, "pipeline", "--file", pipe(classed, ground, gdal(last)))
	sameFile("writers.gdal last", last)
	mid, cut := filepath.Join(dir, "mid.tif"), filepath.Join(dir, "cut.las")
	pctkRun(t, 0, "pipeline", "--file", pipe(classed, ground, gdal(mid), obj{"type": "filters.head", "count": 10}, cut))
	sameFile("writers.gdal in the middle", mid)
	if n := readTestCloud(t, cut).Len(); n != 10 {
		t.Errorf("after writers.gdal: %d points written, want filters.head's 10", n)
	}
	x := filepath.Join(dir, "x.tif")
	for _, stages := range [][]any{
		{classed, obj{"type": "writers.gdal", "filename": x}},
		{classed, obj{"type": "writers.gdal", "filename": x, "resolution": 1, "origin_x": 5}},
		{classed, obj{"type": "writers.gdal", "filename": "-", "resolution": 1}},
		{classed, obj{"type": "writers.gdal", "filename": x, "resolution": 1, "binmode": true}},
		{classed, obj{"type": "writers.gdal", "filename": x, "resolution": 1, "gdaldriver": "PNG"}},
		{classed, obj{"type": "writers.gdal", "filename": x, "resolution": 1, "gdalopts": "COMPRESS=LZW"}},
	} {
		pctkRun(t, 2, "pipeline", "--file", pipe(stages...))
	}
	// Out of core the cloud is never whole: pctk raster --max-memory grids it.
	pctkRun(t, 2, "pipeline", "--file", pipe(classed, ground, obj{"type": "writers.gdal", "filename": x, "resolution": 1}), "--max-memory", "1GiB")
	if _, err := os.Stat(x); err == nil {
		t.Errorf("refused, yet %s was written", x)
	}
}

// TestRasterPipelineLikePDAL runs PDAL JSON pipelines of a DTM
// (filters.range on ground, writers.gdal with every statistic and a fixed
// grid: origin_x, origin_y, width and height, or the deprecated bounds) on
// PDAL 2.9.2 and on pctk, reads both GeoTIFFs with GDAL and wants the same
// frame, band names, nodata and cells (within 1e-6).
func TestRasterPipelineLikePDAL(t *testing.T) {
	needPDAL(t)
	if err := peers.Available(peers.GDAL); err != nil {
		t.Skipf("GDAL's Python bindings (.ci/deps/debian-gdal.sh): %v", err)
	}
	in, err := peers.SharedData("pdal/las/autzen_trim.las")
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	for name, grid := range map[string]map[string]any{
		"origin": {"origin_x": 636001, "origin_y": 848900, "width": 600, "height": 300, "window_size": 3},
		"bounds": {"bounds": "([636001.5, 637200],[848900.25, 849499])", "power": 2},
	} {
		pipe := func(out string) []any {
			w := map[string]any{"type": "writers.gdal", "filename": out, "resolution": 2, "output_type": "all"}
			maps.Copy(w, grid)
			return []any{in, map[string]any{"type": "filters.range", "limits": "Classification[2:2]"}, w}
		}
		theirs, ours := filepath.Join(dir, name+"-pdal.tif"), filepath.Join(dir, name+"-pctk.tif")
		if _, err := peers.PDALPipeline(dir, pipe(theirs)...); err != nil {
			t.Fatalf("PDAL: %v", err)
		}
		data, err := json.Marshal(pipe(ours))
		if err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(dir, "p.json")
		if err := os.WriteFile(f, data, 0o644); err != nil {
			t.Fatal(err)
		}
		pctkRun(t, 0, "pipeline", "--file", f)
		want, err := peers.ReadRaster(theirs)
		if err != nil {
			t.Fatal(err)
		}
		got, err := peers.ReadRaster(ours)
		if err != nil {
			t.Fatal(err)
		}
		if got.GeoTransform != want.GeoTransform || got.Width != want.Width || got.Height != want.Height || !slices.Equal(got.Names, want.Names) || !slices.Equal(got.NoData, want.NoData) {
			t.Fatalf("%s: pctk %v %dx%d %v nodata %v; PDAL %v %dx%d %v nodata %v", name, got.GeoTransform, got.Width, got.Height, got.Names, got.NoData,
				want.GeoTransform, want.Width, want.Height, want.Names, want.NoData)
		}
		filled := 0
		for b := range want.Bands {
			for k, w := range want.Bands[b] {
				if g := got.Bands[b][k]; math.Abs(g-w) > 1e-6*max(1, math.Abs(w)) {
					t.Fatalf("%s: band %s cell %d: pctk %v, PDAL %v", name, want.Names[b], k, g, w)
				}
				if w != want.NoData[b] {
					filled++
				}
			}
		}
		if filled < 50000 {
			t.Errorf("%s: only %d cells with a value: the test compares too little", name, filled)
		}
	}
}
