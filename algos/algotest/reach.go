package algotest

import (
	"math/rand/v2"
	"testing"

	"github.com/pctk/pctk/primitives/findneighbor"
)

// CheckReach holds a stage to the stage driver's contract on the points
// xyz: the outputs of a point depend only on the points within its Reach
// (in XY, Z uncut). compute runs the stage on the points pts of xyz (in
// increasing index order, all of them first) and returns one output and
// one Reach per point of pts. On several random XY boxes of the cloud,
// every point whose Reach disk lies inside the box must get, from the
// box's points alone, the whole cloud's output (==, so bit for bit for
// floats that are not NaN). It fails t when fewer than a tenth of the
// points were checked in all (boxes too small for the reaches).
func CheckReach[T comparable](t *testing.T, xyz []float32, seed uint64, compute func(pts []int32) ([]T, []float64, error)) {
	t.Helper()
	n := len(xyz) / 3
	all := make([]int32, n)
	for i := range all {
		all[i] = int32(i)
	}
	want, reach, err := compute(all)
	if err != nil {
		t.Fatal(err)
	}
	box := findneighbor.BoxOf(xyz)
	lo := [2]float64{float64(box.Min[0]), float64(box.Min[1])}
	hi := [2]float64{float64(box.Max[0]), float64(box.Max[1])}
	rng := rand.New(rand.NewPCG(seed, 7))
	checked := 0
	for b := range 8 {
		// A box of a third to two thirds of the cloud's side.
		var blo, bhi [2]float64
		for a := range 2 {
			w := (hi[a] - lo[a]) * (1 + rng.Float64()) / 3
			blo[a] = lo[a] + rng.Float64()*(hi[a]-lo[a]-w)
			bhi[a] = blo[a] + w
		}
		var pts []int32
		for i := range n {
			x, y := float64(xyz[3*i]), float64(xyz[3*i+1])
			if x >= blo[0] && x <= bhi[0] && y >= blo[1] && y <= bhi[1] {
				pts = append(pts, int32(i))
			}
		}
		got, _, err := compute(pts)
		if err != nil {
			t.Fatalf("box %d: %v", b, err)
		}
		bad := 0
		for j, i := range pts {
			x, y, r := float64(xyz[3*i]), float64(xyz[3*i+1]), reach[i]
			if x-r < blo[0] || x+r > bhi[0] || y-r < blo[1] || y+r > bhi[1] {
				continue
			}
			checked++
			if got[j] != want[i] {
				if bad++; bad <= 3 {
					t.Errorf("box %d: point %d (reach %g): %v from the box, %v from the whole cloud", b, i, r, got[j], want[i])
				}
			}
		}
		if bad > 3 {
			t.Errorf("box %d: %d points differ", b, bad)
		}
	}
	if checked < n/10 {
		t.Errorf("only %d point checks for %d points: boxes too small for the reaches", checked, n)
	}
	t.Logf("%d point checks over 8 boxes", checked)
}
