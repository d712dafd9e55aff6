package cluster

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// ties counts the pairs at exactly the tolerance in float64 (PDAL does
// not link them; a ≤ test would) and the pairs a float32 ≤ test links
// that the float64 < test does not.
func ties(t *testing.T, xyz []float32, pos []float64, o Options) (exact, f32 int) {
	dims := 3
	if o.Flat {
		dims = 2
		xyz = slices.Clone(xyz)
		for i := 2; i < len(xyz); i += 3 {
			xyz[i] = 0
		}
	}
	ix, err := findneighbor.CPU().Build(xyz, float32(o.Reach(findneighbor.BoxOf(xyz))), findneighbor.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	csr, err := ix.Neighbors(nil, findneighbor.NeighborOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tol := o.tolerance()
	for i := range len(csr.Offsets) - 1 {
		for _, j := range csr.Indices[csr.Offsets[i]:csr.Offsets[i+1]] {
			if int(j) < i {
				continue
			}
			d2 := 0.0
			for a := range dims {
				d := pos[3*i+a] - pos[3*int(j)+a]
				d2 += d * d
			}
			exact += b2i(d2 == tol*tol)
			f32 += b2i(d2 >= tol*tol && algotest.Within(xyz, i, int(j), float32(tol)))
		}
	}
	return exact, f32
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestPDAL runs filters.cluster on PDAL 2.9.2 and Cluster on the same
// LAS files, and holds every point's ClusterID equal, counting the pairs
// exactly at the tolerance (left unlinked by both).
func TestPDAL(t *testing.T) {
	for _, c := range []struct {
		file string
		o    Options
	}{
		{"../../testdata/haystack_rock.las", Options{Tolerance: 0.5, MinPoints: 5, MaxPoints: 2000}},
		{"autzen", Options{Tolerance: 2}},
		{"autzen", Options{Tolerance: 3, MinPoints: 10, MaxPoints: 5000, Flat: true}},
	} {
		t.Run(fmt.Sprintf("%s/%g", c.file, c.o.Tolerance), func(t *testing.T) {
			file := c.file
			if file == "autzen" {
				file = algotest.SharedFile(t, "pdal/las/autzen_trim.las")
			}
			stage := map[string]any{"type": "filters.cluster", "tolerance": c.o.Tolerance,
				"min_points": max(c.o.MinPoints, 1), "is3d": !c.o.Flat}
			if c.o.MaxPoints > 0 {
				stage["max_points"] = c.o.MaxPoints
			}
			pc, ptook := algotest.PDALFilter(t, file, stage)
			l := algotest.ReadLocal(t, file)
			xyz, pos := l.XYZ, l.Pos
			o := c.o
			o.Pos = pos
			start := time.Now()
			r, err := Cluster(xyz, findneighbor.CPU(), o)
			if err != nil {
				t.Fatal(err)
			}
			took := time.Since(start)
			want := algotest.Column(t, pc, "ClusterID")
			if len(want) != len(r.ClusterID) {
				t.Fatalf("PDAL wrote %d points, want %d", len(want), len(r.ClusterID))
			}
			bad := 0
			for i, id := range r.ClusterID {
				if p := int64(want[i]); p != id {
					if bad++; bad <= 3 {
						t.Errorf("point %d: ClusterID %d, PDAL %d", i, id, p)
					}
				}
			}
			exact, f32 := ties(t, xyz, pos, o)
			t.Logf("%d points, %d clusters (%d dropped), %d ids differ; %d pairs exactly at the tolerance, %d a float32 ≤ test would link; pctk %v, PDAL pipeline %v",
				len(r.ClusterID), len(r.Sizes), r.Dropped, bad, exact, f32, took.Round(time.Millisecond), ptook.Round(time.Millisecond))
		})
	}
}
