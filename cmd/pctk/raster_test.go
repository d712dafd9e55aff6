package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestRasterTiles checks that --tile-size gives the GeoTIFF bytes of one
// block, with and without a window fill, a class and a return selection.
func TestRasterTiles(t *testing.T) {
	dir := t.TempDir()
	classed := filepath.Join(dir, "ground.las")
	pctkRun(t, 0, "ground", "pmf", sample, classed)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"all", []string{"--resolution", "2"}},
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
