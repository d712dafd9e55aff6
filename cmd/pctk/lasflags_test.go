package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pctk/pctk/io/las"
	"github.com/pctk/pctk/io/pcio"
)

// TestLASOutputFlags runs the LAS output options on commands that write
// LAS: the header they ask for, in memory, out of core (--max-memory) and
// as a stream (convert); the usage errors (exit 2) and a coordinate that
// does not fit (exit 1).
func TestLASOutputFlags(t *testing.T) {
	dir := t.TempDir()
	mid := func(lo, hi float64) float64 { return 0.5*lo + 0.5*hi } // PDAL's auto offset
	for _, c := range []struct {
		args    []string // OUT last
		code    int
		version string
		pf      int
		scale   [3]float64
		offset  [3]float64
	}{
		{[]string{"convert", sample, "--las-scale", "0.001,0.001,0.0001", "--las-offset", "2230000,252000,0", "--point-format", "6", "a.las"}, 0, "1.4", 6, [3]float64{0.001, 0.001, 0.0001}, [3]float64{2230000, 252000, 0}},
		{[]string{"convert", sample, "--las-offset", "auto", "--las-version", "1.3", "b.laz"}, 0, "1.3", 0, [3]float64{0.01, 0.01, 0.001}, [3]float64{mid(2230738.84, 2231104.52), mid(252070.78, 252410.1), mid(-1.316, 80.815)}},
		{[]string{"nndistance", sample, "--las-scale", "0.005", "--point-format", "1", "c.las"}, 0, "1.4", 1, [3]float64{0.005, 0.005, 0.005}, [3]float64{2e6, 2e5, 0}},
		{[]string{"nndistance", sample, "--max-memory", "64MiB", "--las-scale", "0.005", "--point-format", "1", "d.las"}, 0, "1.4", 1, [3]float64{0.005, 0.005, 0.005}, [3]float64{2e6, 2e5, 0}},
		{[]string{"nndistance", sample, "--max-memory", "64MiB", "--las-offset", "auto", "e.las"}, 2, "", 0, [3]float64{}, [3]float64{}},
		{[]string{"convert", sample, "--las-scale", "0.01", "f.ply"}, 2, "", 0, [3]float64{}, [3]float64{}},
		{[]string{"convert", sample, "--las-version", "1.2", "--point-format", "6", "g.las"}, 2, "", 0, [3]float64{}, [3]float64{}},
		{[]string{"convert", sample, "--las-version", "1.4", "--format", "las-1.2", "h.las"}, 2, "", 0, [3]float64{}, [3]float64{}},
		{[]string{"convert", sample, "--point-format", "11", "i.las"}, 2, "", 0, [3]float64{}, [3]float64{}},
		{[]string{"convert", sample, "--extra-dims", "Foo", "j.las"}, 2, "", 0, [3]float64{}, [3]float64{}},
		{[]string{"convert", sample, "--las-scale", "1e-6", "--las-offset", "0", "k.las"}, 1, "", 0, [3]float64{}, [3]float64{}},
		{[]string{"convert", sample, "--las-version", "1.4", "--point-format", "9", "l.copc.laz"}, 2, "", 0, [3]float64{}, [3]float64{}},
	} {
		args := append([]string(nil), c.args...)
		out := filepath.Join(dir, args[len(args)-1])
		args[len(args)-1] = out
		pctkRun(t, c.code, args...)
		if c.code != 0 {
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%v: exit %d left %s", c.args, c.code, out)
			}
			continue
		}
		cloud, _, err := pcio.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		h := las.InfoOf(&cloud.Meta).Header
		if h.Version() != c.version || h.DataFormat() != c.pf || h.Scale != c.scale || h.Offset != c.offset {
			t.Errorf("%v: LAS %s format %d scale %v offset %v, want %s %d %v %v", c.args, h.Version(), h.DataFormat(), h.Scale, h.Offset, c.version, c.pf, c.scale, c.offset)
		}
	}
}

// TestPipelineChainedWriters runs a JSON pipeline whose first writer
// passes the points on, as PDAL's do: it holds every point, the last only
// those the head after it keeps.
func TestPipelineChainedWriters(t *testing.T) {
	dir := t.TempDir()
	first, last := filepath.Join(dir, "all.las"), filepath.Join(dir, "seven.laz")
	p := filepath.Join(dir, "p.json")
	json := `{"pipeline": ["` + sample + `", {"type": "writers.las", "filename": "` + first + `", "scale_x": 0.001, "tag": "w"},
		{"type": "filters.head", "count": 7, "inputs": "w"}, "` + last + `"]}`
	if err := os.WriteFile(p, []byte(json), 0o644); err != nil {
		t.Fatal(err)
	}
	pctkRun(t, 0, "pipeline", "--file", p)
	for _, f := range []struct {
		path   string
		n      int
		scaleX float64
	}{{first, 21932, 0.001}, {last, 7, 0.01}} {
		c, _, err := pcio.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		if h := las.InfoOf(&c.Meta).Header; c.Len() != f.n || h.Scale[0] != f.scaleX {
			t.Errorf("%s: %d points, scale %v; want %d, %v", f.path, c.Len(), h.Scale[0], f.n, f.scaleX)
		}
	}
}
