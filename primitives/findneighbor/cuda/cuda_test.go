package cuda

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/pctk/pctk/primitives/findneighbor"
	rt "github.com/pctk/pctk/rt/cuda"
)

// TestPTXFresh fails when kernels/grid.cu changed without its PTX and
// fatbin being rebuilt by scripts/build-ptx.sh.
func TestPTXFresh(t *testing.T) {
	if err := rt.CheckPTX("kernels/grid.cu", "kernels/grid.ptx"); err != nil {
		t.Fatal(err)
	}
	if err := rt.CheckFatbin("kernels/grid.cu", "kernels/grid.fatbin"); err != nil {
		t.Fatal(err)
	}
}

// TestGridLayout pins gridParams to struct Grid of grid.cu.
func TestGridLayout(t *testing.T) {
	var g gridParams
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"sizeof", unsafe.Sizeof(g), 64},
		{"inv", unsafe.Offsetof(g.Inv), 24},
		{"nx", unsafe.Offsetof(g.NX), 32},
		{"hashed", unsafe.Offsetof(g.Hashed), 44},
		{"mask", unsafe.Offsetof(g.Mask), 48},
		{"buckets", unsafe.Offsetof(g.Buckets), 52},
		{"eps2", unsafe.Offsetof(g.Eps2), 56},
		{"reach", unsafe.Offsetof(g.Reach), 60},
	} {
		if c.got != c.want {
			t.Errorf("gridParams %s = %d, want %d", c.name, c.got, c.want)
		}
	}
}

// cellOf computes a coordinate's cell as grid.cu's cellCoord does.
func cellOf(x float32, mn, inv float64, n int32) int {
	c := math.Floor((float64(x) - mn) * inv)
	return int(min(max(c, -2), float64(n)+1))
}

// TestGridCoversEps checks the property the kernels rely on: two points
// that pass the float32 distance test lie in adjacent cells, including at
// huge offsets from the origin and for pairs right at ε.
func TestGridCoversEps(t *testing.T) {
	seed := uint64(7)
	r := rand.New(rand.NewPCG(seed, 1))
	for _, c := range []struct {
		name   string
		offset float32
		side   float32
		eps    float32
		n      int
	}{
		{"unit", 0, 1, 0.01, 1000},
		{"far", 3e5, 100, 0.37, 1000},
		{"tiny eps", 1e4, 1e4, 1e-3, 1000},
		{"eps 0", 5, 10, 0, 1000},
		{"dense, half cells", -5, 10, 1, 100_000},
	} {
		lo := [3]float32{c.offset, c.offset, c.offset}
		hi := [3]float32{c.offset + c.side, c.offset + c.side, c.offset + c.side}
		g := newGrid(lo, hi, c.eps, c.n)
		nc := [3]int32{g.NX, g.NY, g.NZ}
		mn := [3]float64{g.MinX, g.MinY, g.MinZ}
		for i := range 200000 {
			var p, q [3]float32
			for a := range 3 {
				p[a] = c.offset + r.Float32()*c.side
			}
			// q at distance ≈ ε (just inside or outside) in a random direction.
			var d [3]float64
			var norm float64
			for a := range 3 {
				d[a] = r.NormFloat64()
				norm += d[a] * d[a]
			}
			scale := float64(c.eps) * (1 + (r.Float64()-0.5)*1e-6) / math.Sqrt(norm)
			for a := range 3 {
				q[a] = float32(float64(p[a]) + d[a]*scale)
			}
			dx, dy, dz := q[0]-p[0], q[1]-p[1], q[2]-p[2]
			if dx*dx+dy*dy+dz*dz > c.eps*c.eps {
				continue
			}
			for a := range 3 {
				cp, cq := cellOf(p[a], mn[a], g.Inv, nc[a]), cellOf(q[a], mn[a], g.Inv, nc[a])
				if cp-cq > int(g.Reach) || cq-cp > int(g.Reach) {
					t.Fatalf("%s (seed %d, pair %d): %v and %v pass the ε=%g test but lie in cells %d and %d of axis %d (reach %d)",
						c.name, seed, i, p, q, c.eps, cp, cq, a, g.Reach)
				}
			}
		}
	}
}

func TestNewGridModes(t *testing.T) {
	for _, c := range []struct {
		name       string
		side, eps  float32
		n          int
		wantHashed bool
		wantReach  int32
	}{
		{"dense cube", 10, 1, 1000, false, 1},
		{"one cell", 1, 90, 900, false, 2},
		{"sparse", 1e4, 0.01, 1000, true, 1},
		{"eps 0", 10, 0, 1000, true, 1},
		{"dense, half cells", 10, 1, 100_000, false, 2},
	} {
		g := newGrid([3]float32{-c.side / 2, -c.side / 2, -c.side / 2}, [3]float32{c.side / 2, c.side / 2, c.side / 2}, c.eps, c.n)
		if (g.Hashed != 0) != c.wantHashed {
			t.Errorf("%s: hashed = %d, want %v", c.name, g.Hashed, c.wantHashed)
		}
		if g.Hashed != 0 && (g.Buckets&(g.Buckets-1) != 0 || g.Mask != g.Buckets-1 || g.Buckets < uint32(2*c.n)) {
			t.Errorf("%s: %d buckets, mask %#x: want a power of two ≥ 2n and mask = buckets-1", c.name, g.Buckets, g.Mask)
		}
		if g.Hashed == 0 && uint64(g.Buckets) != uint64(g.NX)*uint64(g.NY)*uint64(g.NZ) {
			t.Errorf("%s: %d buckets for %dx%dx%d cells", c.name, g.Buckets, g.NX, g.NY, g.NZ)
		}
		if g.Reach != c.wantReach {
			t.Errorf("%s: reach %d, want %d", c.name, g.Reach, c.wantReach)
		}
		if g.NX > maxAxisCells || g.NY > maxAxisCells || g.NZ > maxAxisCells {
			t.Errorf("%s: %dx%dx%d cells exceed %d per axis", c.name, g.NX, g.NY, g.NZ, maxAxisCells)
		}
	}
}

// TestFrameGrid checks the grid of a tile laid out in its run's frame:
// the whole run's origin, cell size, cell counts and reach (here a dense
// run of ε/2 cells, and a sparse hashed one), in hashed buckets for the
// tile's own points, and no frame grid for points outside the frame.
func TestFrameGrid(t *testing.T) {
	frame := findneighbor.Box{Min: [3]float32{-5, -5, -1}, Max: [3]float32{5, 5, 1}}
	lo, hi := [3]float32{-1, 0, -1}, [3]float32{1, 2, 0.5}
	for _, c := range []struct {
		name      string
		frameN    int
		wantReach int32
	}{
		{"dense run", 400_000, 2},
		{"sparse run", 2_000, 1},
	} {
		whole := newGrid(frame.Min, frame.Max, 0.5, c.frameN)
		g, ok := frameGrid(frame, c.frameN, lo, hi, 0.5, 3000)
		if !ok {
			t.Fatalf("%s: a tile within the frame has no frame grid", c.name)
		}
		if g.MinX != whole.MinX || g.MinY != whole.MinY || g.MinZ != whole.MinZ || g.Inv != whole.Inv ||
			g.NX != whole.NX || g.NY != whole.NY || g.NZ != whole.NZ || g.Reach != whole.Reach || g.Eps2 != whole.Eps2 {
			t.Errorf("%s: tile grid %+v, whole run's %+v", c.name, g, whole)
		}
		if g.Reach != c.wantReach {
			t.Errorf("%s: reach %d, want %d", c.name, g.Reach, c.wantReach)
		}
		if g.Hashed != 1 || g.Buckets != 8192 || g.Mask != 8191 {
			t.Errorf("%s: hashed %d, %d buckets, mask %d; want hashed, 8192 and 8191 for 3000 points", c.name, g.Hashed, g.Buckets, g.Mask)
		}
	}
	if _, ok := frameGrid(frame, 1000, lo, [3]float32{1, 2, 1.5}, 0.5, 3000); ok {
		t.Error("a frame grid for points beyond the frame")
	}
}

// TestNewGridLinkedCells checks that a reach-2 grid always has cells of
// ε/2 (so that cellsLinked holds: any two points of a cell pass the ε
// test), also for a long, dense line whose ε/2 cells would exceed 2²⁰ an
// axis: that one keeps reach 1.
func TestNewGridLinkedCells(t *testing.T) {
	for _, c := range []struct {
		name      string
		hi        [3]float32
		eps       float32
		n         int
		wantReach int32
	}{
		{"dense cube", [3]float32{10, 10, 10}, 1, 100_000, 2},
		{"dense long line", [3]float32{1 << 20, 1, 1}, 1, 40 << 20, 1},
	} {
		g := newGrid([3]float32{}, c.hi, c.eps, c.n)
		if g.Reach != c.wantReach {
			t.Errorf("%s: reach %d, want %d", c.name, g.Reach, c.wantReach)
		}
		if g.cellsLinked() {
			if d := math.Sqrt(3) / g.Inv; d >= float64(c.eps) {
				t.Errorf("%s: linked cells with a diagonal of %g, not under ε = %g", c.name, d, c.eps)
			}
		}
	}
}

// TestNoDriver checks the backend's answer where no CUDA driver exists.
func TestNoDriver(t *testing.T) {
	if rt.Load() == nil {
		t.Skip("a CUDA driver is present; this test checks the answer without one")
	}
	info, err := Backend().Probe()
	if !errors.Is(err, findneighbor.ErrUnavailable) {
		t.Fatalf("Probe() error = %v, want ErrUnavailable", err)
	}
	if info.Details["reason"] == "" || info.Priority != 0 {
		t.Errorf("Probe() = %+v, want a reason and priority 0", info)
	}
	if _, err := Backend().Build([]float32{0, 0, 0, 1, 1, 1}, 1, findneighbor.BuildOptions{}); !errors.Is(err, findneighbor.ErrUnavailable) {
		t.Errorf("Build() error = %v, want ErrUnavailable", err)
	}
	if b, err := findneighbor.Auto(); err == nil && b.Name() == Name {
		t.Errorf("Auto() picked %s without a driver", Name)
	}
}

// TestDeviceStartStop checks the device's start-up cycle, with or without
// a GPU: a start-up is made once until stop, stop forgets it (keeping it
// for Started), and the next start makes a new one; stop without a
// start-up does nothing.
func TestDeviceStartStop(t *testing.T) {
	d := newDevice(0)
	d.stop() // nothing started: nothing to do
	s1, err1 := d.ready()
	if again, _ := d.ready(); again != s1 {
		t.Fatal("a second ready made another start-up before stop")
	}
	d.stop()
	if d.current != nil || d.last != s1 {
		t.Fatalf("after stop: current %p, last %p; want nil and the stopped start-up %p", d.current, d.last, s1)
	}
	s2, err2 := d.ready()
	defer d.stop()
	if s2 == s1 {
		t.Fatal("ready after stop returned the stopped start-up, want a new one")
	}
	if (err1 == nil) != (err2 == nil) {
		t.Errorf("first start-up: %v; second: %v; want the same outcome", err1, err2)
	}
	if err1 == nil && (s1.ctx == s2.ctx || s2.ctx == nil) {
		t.Error("the new start-up did not make a context of its own")
	}
}
