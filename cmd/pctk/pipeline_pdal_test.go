package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/internal/peers"
	"github.com/pctk/pctk/io/pcio"
)

// TestPipelineFileLikePDAL runs PDAL pipelines of the kinds pctk maps (a
// translation with writer options, readers merged, the selections) on
// pctk, reading the JSON from standard input (--file -), and on PDAL
// 2.9.2, and wants the same points (coordinates, Classification,
// Intensity, in order) in the same format.
func TestPipelineFileLikePDAL(t *testing.T) {
	needPDAL(t)
	dir := t.TempDir()
	in, err := filepath.Abs(sample)
	if err != nil {
		t.Fatal(err)
	}
	type obj = map[string]any
	for name, stages := range map[string][]any{
		"translate": {in, obj{"type": "writers.las", "filename": "OUT", "compression": "laszip", "minor_version": 4, "forward": "all"}},
		"merge":     {in, in, obj{"type": "filters.merge"}, obj{"type": "filters.range", "limits": "Intensity[0:100],Z![0:50]"}, obj{"type": "writers.las", "filename": "OUT", "forward": "scale,offset"}},
		"select": {obj{"type": "readers.las", "filename": in},
			obj{"type": "filters.crop", "bounds": "([2230800,2231000],[252100,252300])"},
			obj{"type": "filters.assign", "assignment": "Classification[:]=2", "condition": "Z[0:50]"},
			obj{"type": "filters.decimation", "step": 3, "offset": 1},
			obj{"type": "filters.head", "count": 1000},
			obj{"type": "writers.las", "filename": "OUT", "forward": "all"}},
	} {
		t.Run(name, func(t *testing.T) {
			outs := map[string]string{}
			for _, tool := range []string{"pctk", "pdal"} {
				outs[tool] = filepath.Join(dir, name+"-"+tool+".las")
				run := make([]any, len(stages))
				for i, s := range stages {
					switch v := s.(type) {
					case string:
						if v == "OUT" {
							s = outs[tool]
						}
					case obj:
						if v["filename"] == "OUT" {
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
					if r, err := peers.PDALPipeline(t.TempDir(), run...); err != nil {
						t.Fatalf("PDAL: %v: %s", err, r.Output)
					}
					continue
				}
				pctkPipelineStdin(t, run)
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
			for i := range a.Len() {
				for _, d := range []string{core.DimClassification, core.DimIntensity} {
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
