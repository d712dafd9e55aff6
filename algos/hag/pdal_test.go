package hag

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/internal/peers"
	_ "github.com/pctk/pctk/io/las"
	"github.com/pctk/pctk/io/pcio"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// pdalStage is one filters.hag_* run for the side-by-side test.
type pdalStage struct {
	stage map[string]any
	opts  Options
}

var pdalStages = []pdalStage{
	{map[string]any{"type": "filters.hag_nn"}, Options{}},
	{map[string]any{"type": "filters.hag_nn", "count": 6}, Options{Count: 6}},
	{map[string]any{"type": "filters.hag_nn", "count": 8, "max_distance": 4, "allow_extrapolation": false}, Options{Count: 8, MaxDistance: 4, NoExtrapolation: true}},
	{map[string]any{"type": "filters.hag_delaunay"}, Options{Method: Delaunay}},
	{map[string]any{"type": "filters.hag_delaunay", "count": 4, "allow_extrapolation": false}, Options{Method: Delaunay, Count: 4, NoExtrapolation: true}},
}

// TestAgainstPDAL runs PDAL 2.9.2's filters.hag_nn and filters.hag_delaunay
// on autzen_trim.las, writing HeightAboveGround as a float64 extra
// dimension, and compares every point's height with Compute's (cpu
// backend, float64 positions relative to the cloud's centre) within 1e-9
// relative. A point may differ only where two of its Count+1 nearest
// ground points are tied within 1e-9 relative in float64 (PDAL's nanoflann
// orders exact ties its own way); those are counted.
func TestAgainstPDAL(t *testing.T) {
	c, loc, pos := algotest.SharedCloud(t, autzenLAS)
	autzen, _ := peers.SharedData(autzenLAS)
	algotest.RequirePeer(t, "PDAL 2.9.2 (../shared/anchors/pdal, .ci/deps/pdal.sh)", peerErr())
	class := classes(c)
	for n, s := range pdalStages {
		dir := t.TempDir()
		out := filepath.Join(dir, "out.las")
		if _, err := peers.PDALPipeline(dir, autzen, s.stage,
			map[string]any{"type": "writers.las", "filename": out, "extra_dims": "HeightAboveGround=double", "forward": "all"}); err != nil {
			t.Fatalf("PDAL %v: %v", s.stage, err)
		}
		p, _, err := pcio.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		want := p.Attr(core.DimHeightAboveGround)
		if want == nil || p.Len() != c.Len() {
			t.Fatalf("PDAL %v: %d points, HeightAboveGround %v", s.stage, p.Len(), want != nil)
		}
		opts := s.opts
		opts.Pos = pos
		res, err := Compute(loc.XYZ, class, findneighbor.CPU(), opts)
		if err != nil {
			t.Fatal(err)
		}
		tied, bad := 0, 0
		for i := range c.Len() {
			if p.X[i] != c.X[i] || p.Y[i] != c.Y[i] || p.Z[i] != c.Z[i] {
				t.Fatalf("PDAL wrote point %d elsewhere: (%v %v %v), read (%v %v %v)", i, p.X[i], p.Y[i], p.Z[i], c.X[i], c.Y[i], c.Z[i])
			}
			g, w := res.HeightAboveGround[i], want.Float64(i)
			if math.Abs(g-w) <= 1e-9*max(1, math.Abs(w)) || math.IsNaN(g) && math.IsNaN(w) {
				continue
			}
			if tiedAt(pos, class, i, opts.count()) {
				tied++
				continue
			}
			if bad++; bad <= 5 {
				t.Errorf("%v: point %d (class %d): HeightAboveGround %v, PDAL %v", s.stage, i, class[i], g, w)
			}
		}
		if bad > 5 {
			t.Errorf("%v: %d heights differ", s.stage, bad)
		}
		t.Logf("%s: %d points agree with PDAL within 1e-9, %d differ at tied ground neighbours, %d otherwise",
			fmt.Sprint(s.stage["type"], " #", n), c.Len()-tied-bad, tied, bad)
	}
}

// autzenLAS is PDAL's autzen_trim.las in the shared data: 110,000
// points, classes 1 and 2.
const autzenLAS = "pdal/las/autzen_trim.las"

// classes returns the cloud's Classification column as bytes.
func classes(c *core.Cloud) []uint8 {
	cls := c.Attr(core.DimClassification)
	out := make([]uint8, c.Len())
	for i := range out {
		out[i] = uint8(cls.Uint64(i))
	}
	return out
}

func peerErr() error {
	_, err := peers.PDALRun()
	return err
}

// tiedAt reports whether point i's count-th and (count+1)-th nearest ground
// points are at float64 XY distances within 1e-9 relative.
func tiedAt(pos []float64, class []uint8, i, count int) bool {
	var d []float64
	for g, c := range class {
		if c == Ground {
			dx, dy := pos[3*i]-pos[3*g], pos[3*i+1]-pos[3*g+1]
			d = append(d, dx*dx+dy*dy)
		}
	}
	slices.Sort(d)
	for j := 1; j < min(len(d), count+1); j++ {
		if d[j]-d[j-1] <= 1e-9*d[j] {
			return true
		}
	}
	return false
}
