package main

import (
	"cmp"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/internal/peers"
	"github.com/pctk/pctk/io/las"
	"github.com/pctk/pctk/io/pcio"
)

// TestPipelineFileLikePDAL runs PDAL pipelines of the kinds pctk maps (a
// translation with writer options, each writers.las and writers.copc
// option, readers merged, tag and inputs, the selections) on pctk, reading
// the JSON from standard input (--file -), and on PDAL 2.9.2, and wants
// the same header (version, point format, scale, offset, bounds) and the
// same points (coordinates, Classification, Intensity and the GpsTime,
// Red, ScanAngleRank and ReturnNumber both have, in order) in the same
// format.
func TestPipelineFileLikePDAL(t *testing.T) {
	needPDAL(t)
	dir := t.TempDir()
	in, err := filepath.Abs(sample)
	if err != nil {
		t.Fatal(err)
	}
	pdalLAS, err := filepath.Abs("../../../shared/data/pdal/las")
	if err != nil {
		t.Fatal(err)
	}
	_, noShared := os.Stat(pdalLAS)
	autzen := filepath.Join(pdalLAS, "autzen_trim.las")
	simple, color := filepath.Join(pdalLAS, "simple.las"), filepath.Join(pdalLAS, "1.2-with-color.las")
	type obj = map[string]any
	type pdalCase struct {
		stages []any
		header bool // the pipeline sets the header, so pctk's and PDAL's agree
		sorted bool // the points in another order (COPC's octree)
	}
	for name, tc := range map[string]pdalCase{
		"translate": {stages: []any{in, obj{"type": "writers.las", "filename": "OUT", "compression": "laszip", "minor_version": 4, "forward": "all"}}},
		"merge":     {stages: []any{in, in, obj{"type": "filters.merge"}, obj{"type": "filters.range", "limits": "Intensity[0:100],Z![0:50]"}, obj{"type": "writers.las", "filename": "OUT", "forward": "scale,offset"}}},
		"select": {stages: []any{obj{"type": "readers.las", "filename": in},
			obj{"type": "filters.crop", "bounds": "([2230800,2231000],[252100,252300])"},
			obj{"type": "filters.assign", "assignment": "Classification[:]=2", "condition": "Z[0:50]"},
			obj{"type": "filters.decimation", "step": 3, "offset": 1},
			obj{"type": "filters.head", "count": 1000},
			obj{"type": "writers.las", "filename": "OUT", "forward": "all"}}},
		// The writer's options, one kind a case (docs/pipeline.md).
		"scale-offset": {header: true, stages: []any{in, obj{"type": "writers.las", "filename": "OUT", "scale_x": 0.001, "scale_y": 0.001, "scale_z": 0.0001,
			"offset_x": 2230000, "offset_y": 252000, "offset_z": -10, "minor_version": 2, "dataformat_id": 1}}},
		"auto": {header: true, stages: []any{in, obj{"type": "writers.las", "filename": "OUT", "scale_x": "auto", "scale_y": "auto", "scale_z": 0.01,
			"offset_x": "auto", "offset_y": "auto", "offset_z": 0, "minor_version": 4, "dataformat_id": 6}}},
		"extra-dims": {header: true, stages: []any{autzen, obj{"type": "filters.head", "count": 5000}, obj{"type": "writers.las", "filename": "OUT", "scale_x": 0.01, "scale_y": 0.01, "scale_z": 0.01,
			"offset_x": 0, "offset_y": 0, "offset_z": 0, "minor_version": 4, "dataformat_id": 0, "extra_dims": "GpsTime=double,Red=uint16"}}},
		"copc": {header: true, sorted: true, stages: []any{autzen, obj{"type": "writers.copc", "filename": "OUT.copc.laz", "scale_x": 0.001, "scale_y": 0.001, "scale_z": 0.001,
			"offset_x": 637000, "offset_y": 849000, "offset_z": 0, "forward": "all"}}},
		// tag and inputs: readers merged in the order the merge names them.
		"tags": {stages: []any{obj{"type": "readers.las", "filename": simple, "tag": "A"}, obj{"type": "readers.las", "filename": color, "tag": "B"},
			obj{"type": "filters.merge", "inputs": []string{"B", "A"}, "tag": "m"},
			obj{"type": "filters.range", "limits": "Classification[1:1]", "inputs": "m"},
			obj{"type": "writers.las", "filename": "OUT", "forward": "all"}}},
	} {
		t.Run(name, func(t *testing.T) {
			if noShared != nil && slices.ContainsFunc(tc.stages, func(s any) bool { return strings.Contains(fmt.Sprint(s), pdalLAS) }) {
				t.Skipf("../shared/data/pdal/las is missing (the shared reference data): %v", noShared)
			}
			outs := map[string]string{}
			for _, tool := range []string{"pctk", "pdal"} {
				outs[tool] = filepath.Join(dir, name+"-"+tool+".las")
				if name == "copc" {
					outs[tool] = filepath.Join(dir, name+"-"+tool+".copc.laz")
				}
				run := make([]any, len(tc.stages))
				for i, s := range tc.stages {
					switch v := s.(type) {
					case string:
						if v == "OUT" {
							s = outs[tool]
						}
					case obj:
						if f, _ := v["filename"].(string); strings.HasPrefix(f, "OUT") {
							w := obj{}
							for k, x := range v {
								w[k] = x
							}
							w["filename"] = outs[tool]
							s = w
						}
					}
					run[i] = s
				}
				if tool == "pdal" {
					if r, err := peers.PDALPipelineNoStream(t.TempDir(), run...); err != nil {
						t.Fatalf("PDAL: %v: %s", err, r.Output)
					}
					continue
				}
				pctkPipeline(t, run...)
			}
			a, fa, err := pcio.ReadFile(outs["pctk"])
			if err != nil {
				t.Fatal(err)
			}
			b, fb, err := pcio.ReadFile(outs["pdal"])
			if err != nil {
				t.Fatal(err)
			}
			if fa.Name != fb.Name || a.Len() != b.Len() || a.Len() == 0 {
				t.Fatalf("pctk wrote %d points (%s), PDAL %d (%s)", a.Len(), fa.Name, b.Len(), fb.Name)
			}
			ha, hb := las.InfoOf(&a.Meta).Header, las.InfoOf(&b.Meta).Header
			near := func(x, y [3]float64) bool { // the bounds, to PDAL's rounding
				for k := range 3 {
					if math.Abs(x[k]-y[k]) > 1e-9*max(1, math.Abs(y[k])) {
						return false
					}
				}
				return true
			}
			if tc.header && (ha.Version() != hb.Version() || ha.DataFormat() != hb.DataFormat() || ha.Scale != hb.Scale || ha.Offset != hb.Offset || !near(ha.Min, hb.Min) || !near(ha.Max, hb.Max)) {
				t.Errorf("pctk wrote LAS %s format %d scale %v offset %v bounds %v %v\nPDAL      LAS %s format %d scale %v offset %v bounds %v %v",
					ha.Version(), ha.DataFormat(), ha.Scale, ha.Offset, ha.Min, ha.Max, hb.Version(), hb.DataFormat(), hb.Scale, hb.Offset, hb.Min, hb.Max)
			}
			dims := []string{core.DimClassification, core.DimIntensity}
			for _, d := range []string{core.DimGpsTime, core.DimRed, core.DimScanAngleRank, core.DimReturnNumber} {
				if a.Attr(d) != nil && b.Attr(d) != nil {
					dims = append(dims, d)
				}
			}
			if tc.sorted {
				a, b = byPosition(a), byPosition(b)
			}
			for i := range a.Len() {
				for _, d := range dims {
					if x, y := a.Attr(d).Float64(i), b.Attr(d).Float64(i); x != y {
						t.Fatalf("point %d: %s %v, PDAL %v", i, d, x, y)
					}
				}
				if a.X[i] != b.X[i] || a.Y[i] != b.Y[i] || a.Z[i] != b.Z[i] {
					t.Fatalf("point %d: (%v %v %v), PDAL (%v %v %v)", i, a.X[i], a.Y[i], a.Z[i], b.X[i], b.Y[i], b.Z[i])
				}
			}
			t.Logf("%s: %d points (%s), as PDAL", name, a.Len(), fa.Name)
		})
	}
}

// byPosition returns c's points sorted by X, then Y, then Z.
func byPosition(c *core.Cloud) *core.Cloud {
	idx := make([]int, c.Len())
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(i, j int) int {
		return cmp.Or(cmp.Compare(c.X[i], c.X[j]), cmp.Compare(c.Y[i], c.Y[j]), cmp.Compare(c.Z[i], c.Z[j]))
	})
	return c.Select(idx)
}

// TestConvertMerges merges files given one by one and by a glob, and
// refuses files of other dimensions (exit 2).
func TestConvertMerges(t *testing.T) {
	dir := t.TempDir()
	tiles := filepath.Join(dir, "tiles")
	if err := os.Mkdir(tiles, 0o755); err != nil {
		t.Fatal(err)
	}
	pctkRun(t, 0, "head", sample, filepath.Join(tiles, "a.las"), "--count", "500")
	pctkRun(t, 0, "head", sample, filepath.Join(tiles, "b.las"), "--count", "500", "--invert")
	pctkRun(t, 0, "convert", filepath.Join(tiles, "*.las"), filepath.Join(dir, "glob.las"))
	pctkRun(t, 0, "convert", filepath.Join(tiles, "a.las"), filepath.Join(tiles, "b.las"), filepath.Join(dir, "list.ply"))
	whole, _, err := pcio.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"glob.las", "list.ply"} {
		c, _, err := pcio.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if c.Len() != whole.Len() || c.X[500] != whole.X[500] || c.Z[c.Len()-1] != whole.Z[whole.Len()-1] {
			t.Errorf("%s: %d points, want the %d of %s in order", name, c.Len(), whole.Len(), sample)
		}
	}
	more := filepath.Join(dir, "more.las") // a.las with NNDistance
	pctkRun(t, 0, "nndistance", filepath.Join(tiles, "a.las"), more)
	pctkRun(t, 2, "convert", more, filepath.Join(tiles, "b.las"), filepath.Join(dir, "bad.las"))
}
