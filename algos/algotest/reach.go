package algotest

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/fntest"
)

// ReachFunc runs a stage on the points xyz with backend b and returns its
// per-point outputs as columns (converted to float64) and its Reach.
type ReachFunc func(xyz []float32, b findneighbor.Backend) (cols [][]float64, reach []float64, err error)

// CheckReach holds a stage to the promise of its Reach, the one the stage
// driver tiles by: on random clouds (fntest's, and a lattice full of exact
// ties) and for boxes cut out of each, the outputs of every point whose
// disc of radius Reach in XY (from the whole-cloud run) lies inside the
// box (cut in XY as the driver's tiles are, Z uncut),
// computed on the box's points alone (in increasing index order), equal
// the whole-cloud outputs and Reach bit for bit, on every usable backend.
// It fails t too when too few points pass that test for it to mean much.
func CheckReach(t *testing.T, compute ReachFunc) {
	t.Helper()
	r := rand.New(rand.NewPCG(7, 3))
	clouds := fntest.Clouds(11, 1200)
	lat := make([]float32, 0, 3*1500)
	for range 1500 {
		lat = append(lat, float32(r.IntN(20))*0.25, float32(r.IntN(20))*0.25, float32(r.IntN(3))*0.25)
	}
	clouds = append(clouds, fntest.Cloud{Name: "lattice", XYZ: lat})
	for _, b := range fntest.Usable(t) {
		for _, c := range clouds {
			checkReach(t, r, b, c.Name, c.XYZ, compute)
		}
	}
}

func checkReach(t *testing.T, r *rand.Rand, b findneighbor.Backend, name string, xyz []float32, compute ReachFunc) {
	t.Helper()
	all, reach, err := compute(xyz, b)
	if err != nil {
		t.Fatalf("%s on %s: %v", name, b.Name(), err)
	}
	box := findneighbor.BoxOf(xyz)
	checked := 0
	for try := range 4 {
		// A box of 0.6 to 0.9 of the cloud's extent in x and y, all of z
		// (the driver's tiles are cut in XY), placed at random.
		var lo, hi [2]float64
		for a := range 2 {
			l, h := float64(box.Min[a]), float64(box.Max[a])
			w := (h - l) * (0.6 + 0.3*r.Float64())
			lo[a] = l + (h-l-w)*r.Float64()
			hi[a] = lo[a] + w
		}
		var sub []float32
		var orig []int
		inside := func(i int, m float64) bool {
			for a := range 2 {
				v := float64(xyz[3*i+a])
				if v-m < lo[a] || v+m > hi[a] {
					return false
				}
			}
			return true
		}
		for i := range len(xyz) / 3 {
			if inside(i, 0) {
				sub = append(sub, xyz[3*i:3*i+3]...)
				orig = append(orig, i)
			}
		}
		part, preach, err := compute(sub, b)
		if err != nil {
			t.Fatalf("%s box %d on %s: %v", name, try, b.Name(), err)
		}
		bad := 0
		for j, i := range orig {
			if !inside(i, reach[i]) {
				continue
			}
			checked++
			same := math.Float64bits(preach[j]) == math.Float64bits(reach[i])
			for c := range all {
				same = same && math.Float64bits(part[c][j]) == math.Float64bits(all[c][i])
			}
			if !same {
				if bad++; bad <= 3 {
					got, want := []float64{preach[j]}, []float64{reach[i]}
					for c := range all {
						got, want = append(got, part[c][j]), append(want, all[c][i])
					}
					t.Errorf("%s box %d on %s: point %d (reach %g) in the box alone: reach and outputs %v, want %v", name, try, b.Name(), i, reach[i], got, want)
				}
			}
		}
	}
	if checked < len(xyz)/3/50 {
		t.Errorf("%s on %s: only %d points had their reach inside a box: the test says little", name, b.Name(), checked)
	}
}
