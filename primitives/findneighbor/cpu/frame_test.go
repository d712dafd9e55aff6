package cpu_test

import (
	"fmt"
	"math"
	"testing"

	fn "github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/cpu"
	"github.com/pctk/pctk/primitives/findneighbor/fntest"
)

// TestCPUFrameTileMoments cuts boxes out of clouds as a tiled run does
// (every point within TileHalo of the box in XY, Z whole, in index order),
// indexes each in the whole cloud's box (InFrame), and holds
// the moments of the box's own points, with a radius and with k within it,
// to the whole cloud's index's, bit for bit, with and without AVX-512.
// Without the frame and with a halo of ε only, as tiles had before, the
// cells and their contents differ and some sums differ in their last bits
// (checked too, so that the comparison is known to see them).
func TestCPUFrameTileMoments(t *testing.T) {
	r := fntest.Rand(7)
	far := fntest.Clustered(r, 2000, 6, 10, 0.4)
	for i := 0; i < len(far); i += 9 {
		far[i] += 3e6 // a huge extent next to ε: cells (2.9) wider than ε
	}
	clouds := append(fntest.Clouds(11, 3000), fntest.Cloud{Name: "far", XYZ: far})
	for _, noAVX := range []bool{false, true} {
		restore := func() {}
		if noAVX {
			restore = cpu.WithoutAVX512()
		}
		loose := 0
		for _, c := range clouds {
			for _, eps := range []float32{0.5, 1.3} {
				for _, k := range []int{0, 5} {
					name := fmt.Sprintf("%s/eps%g/k%d/noavx%v", c.Name, eps, k, noAVX)
					d, l := checkFrameTiles(t, name, c.XYZ, eps, k)
					if d > 0 {
						t.Errorf("%s: %d moments of tiles differ from the whole cloud's", name, d)
					}
					loose += l
				}
			}
		}
		restore()
		t.Logf("noavx %v: %d moments of tiles without the frame differ", noAVX, loose)
		if loose == 0 {
			t.Errorf("noavx %v: tiles without the frame gave every moment bit for bit: the test cannot see a difference", noAVX)
		}
	}
}

// checkFrameTiles cuts xyz into boxes of 3ε and returns how many of their
// points' moments differ from the whole index's with the frame and the
// TileHalo, and how many differ without either (ε halo, own box).
func checkFrameTiles(t *testing.T, name string, xyz []float32, eps float32, k int) (differ, loose int) {
	t.Helper()
	n := len(xyz) / 3
	if n == 0 {
		return 0, 0
	}
	whole, err := cpu.Backend().Build(xyz, eps, fn.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := make([]fn.Moment, n)
	if err := fn.Moments(whole, xyz, nil, k, want); err != nil {
		t.Fatal(err)
	}
	frame := fn.BoxOf(xyz)
	size := 3 * float64(eps)
	for _, exact := range []bool{true, false} {
		halo := float64(eps) * (1 + 1e-5)
		be := cpu.Backend()
		if exact {
			halo = cpu.TileHalo(eps, frame.Extent()) * (1 + 1e-5)
			be = fn.InFrame(be, fn.Frame{Box: frame})
		}
		tiles := map[[2]int64][]int32{}
		for i := range n {
			x, y := float64(xyz[3*i]), float64(xyz[3*i+1])
			cell := func(v float64) int64 { return int64(math.Floor(v / size)) }
			for j := cell(y - halo); j <= cell(y+halo); j++ {
				for i2 := cell(x - halo); i2 <= cell(x+halo); i2++ {
					lx, ly := float64(i2)*size, float64(j)*size
					if x >= lx-halo && x <= lx+size+halo && y >= ly-halo && y <= ly+size+halo {
						tiles[[2]int64{i2, j}] = append(tiles[[2]int64{i2, j}], int32(i))
					}
				}
			}
		}
		for key, pts := range tiles {
			sub := make([]float32, 0, 3*len(pts))
			for _, i := range pts {
				sub = append(sub, xyz[3*i:3*i+3]...)
			}
			ix, err := be.Build(sub, eps, fn.BuildOptions{})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			got := make([]fn.Moment, len(pts))
			if err := fn.Moments(ix, sub, nil, k, got); err != nil {
				t.Fatal(err)
			}
			for j, i := range pts {
				x, y := float64(xyz[3*i]), float64(xyz[3*i+1])
				if int64(math.Floor(x/size)) != key[0] || int64(math.Floor(y/size)) != key[1] {
					continue // a halo point
				}
				if got[j] != want[i] {
					if exact {
						differ++
					} else {
						loose++
					}
				}
			}
		}
	}
	return differ, loose
}

// TestCPUFrameRefused checks that a frame that does not hold the points
// is an error, not a grid that clamps them.
func TestCPUFrameRefused(t *testing.T) {
	xyz := []float32{0, 0, 0, 1, 2, 3}
	f := fn.Box{Max: [3]float32{1, 2, 2.5}}
	if _, err := fn.InFrame(cpu.Backend(), fn.Frame{Box: f}).Build(xyz, 1, fn.BuildOptions{}); err == nil {
		t.Fatal("Build with a frame that leaves a point out: no error")
	}
	f.Max[2] = 3
	if _, err := fn.InFrame(cpu.Backend(), fn.Frame{Box: f}).Build(xyz, 1, fn.BuildOptions{}); err != nil {
		t.Fatalf("Build with a frame that holds the points: %v", err)
	}
}
