package cuda

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/fntest"
)

// gpuOrSkip skips a GPU test where the backend cannot run, or fails it
// when $PCTK_REQUIRE_GPU is set (on the GPU test machine).
func gpuOrSkip(t testing.TB) {
	t.Helper()
	if _, err := Backend().Probe(); err != nil {
		if os.Getenv("PCTK_REQUIRE_GPU") != "" {
			t.Fatalf("PCTK_REQUIRE_GPU is set but the cuda backend cannot run: %v", err)
		}
		t.Skipf("no usable CUDA GPU here (%v): GPU test skipped", err)
	}
}

// TestCUDABackend compares every operation with brute force (fntest).
func TestCUDABackend(t *testing.T) {
	gpuOrSkip(t)
	fntest.CheckBackend(t, Backend())
}

// TestCUDAWindows runs the same comparison with the device memory budget
// cut so that every operation works in several windows of queries.
func TestCUDAWindows(t *testing.T) {
	gpuOrSkip(t)
	windowLimit, minWindow = 8<<10, 100
	defer func() { windowLimit, minWindow = 0, 1024 }()
	fntest.CheckBackendWith(t, Backend(), fntest.Config{Seeds: []uint64{11}, N: 900})
}

// terrain is a LiDAR-like scene: rolling ground, box buildings (roofs and
// walls) and trees (blobs on trunks), about 12 points per square metre.
func terrain(r *rand.Rand, n int, side float32) []float32 {
	xyz := make([]float32, 0, 3*n)
	type box struct{ x, y, w, d, h float32 }
	var houses []box
	for range 40 {
		houses = append(houses, box{r.Float32() * side, r.Float32() * side, 8 + 20*r.Float32(), 8 + 20*r.Float32(), 4 + 15*r.Float32()})
	}
	ground := func(x, y float32) float32 {
		return 3*float32(math.Sin(float64(x)/37)) + 2*float32(math.Cos(float64(y)/23)) + 0.03*float32(r.NormFloat64())
	}
	for len(xyz) < 3*n {
		switch u := r.Float32(); {
		case u < 0.6:
			x, y := r.Float32()*side, r.Float32()*side
			xyz = append(xyz, x, y, ground(x, y))
		case u < 0.85:
			h := houses[r.IntN(len(houses))]
			x, y := h.x+r.Float32()*h.w, h.y+r.Float32()*h.d
			z := ground(h.x, h.y) + h.h
			if r.Float32() < 0.3 { // a wall
				if r.Float32() < 0.5 {
					x = h.x
				} else {
					y = h.y
				}
				z = ground(h.x, h.y) + r.Float32()*h.h
			}
			xyz = append(xyz, x, y, z)
		default:
			tx, ty := float32(int(r.Float32()*side/10))*10, float32(int(r.Float32()*side/10))*10
			xyz = append(xyz, tx+1.5*float32(r.NormFloat64()), ty+1.5*float32(r.NormFloat64()), ground(tx, ty)+6+1.5*float32(r.NormFloat64()))
		}
	}
	return xyz
}

// largeCase is a cloud, a radius, and a query set for the CPU comparison.
type largeCase struct {
	name string
	xyz  []float32
	eps  float32
}

func largeCases(seed uint64) []largeCase {
	r := fntest.Rand(seed)
	side := float32(100)
	uni := fntest.Uniform(r, 300_000, side)
	// ~30 neighbours: 4/3 π ε³ ρ = 30 with ρ = n / side³.
	eps30 := side * float32(math.Cbrt(30/(4.0/3*math.Pi*300_000)))
	eps250 := side * float32(math.Cbrt(250/(4.0/3*math.Pi*300_000)))
	return []largeCase{
		{"uniform 300k, ~30 neighbours", uni, eps30},
		{"uniform 300k, ~250 neighbours (cells of ε/2)", uni, eps250},
		{"clustered 300k", fntest.Clustered(r, 300_000, 40, side, 2), 0.4},
		{"terrain 400k (LiDAR-like)", terrain(r, 400_000, 200), 0.5},
		{"flat 200k", fntest.Flat(r, 200_000, side), 0.3},
		{"sparse 200k (hashed cells)", fntest.Sparse(r, 200_000, 1e5), 2},
		{"duplicated 100k", fntest.Duplicated(r, 100_000, 5_000, side), 1.5},
	}
}

// TestCUDAMatchesCPU compares every operation with the cpu backend on
// clouds of 10⁵-10⁶ points. The results must be identical (the float32
// distance test is evaluated the same way on both); only moment sums,
// float64 additions in another order, get a tolerance.
func TestCUDAMatchesCPU(t *testing.T) {
	gpuOrSkip(t)
	cpu := findneighbor.CPU()
	seed := uint64(2026)
	for _, c := range largeCases(seed) {
		t.Run(c.name, func(t *testing.T) {
			ctx := fmt.Sprintf("%s (seed %d, ε %g)", c.name, seed, c.eps)
			want, err := cpu.Build(c.xyz, c.eps, findneighbor.BuildOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer want.Close()
			got, err := Backend().Build(c.xyz, c.eps, findneighbor.BuildOptions{})
			if err != nil {
				t.Fatalf("%s: Build: %v", ctx, err)
			}
			defer got.Close()
			tm := got.(*index).Timings()
			g := got.(*index).grid
			t.Logf("%s: upload %.2f ms, build %.2f ms, hashed=%d reach=%d", ctx, tm.Upload, tm.Build, g.Hashed, g.Reach)
			r := fntest.Rand(seed ^ 99)
			q := make([]float32, 0, 3*20_000)
			for range 20_000 {
				i := r.IntN(len(c.xyz) / 3)
				for a := range 3 {
					q = append(q, c.xyz[3*i+a]+(r.Float32()-0.5)*c.eps)
				}
			}
			q = append(q, 1e6, -1e6, 0, 0, 0, 1e7)
			for _, qs := range [][]float32{nil, q} {
				mode := "self"
				if qs != nil {
					mode = "query set"
				}
				compareAll(t, ctx+" "+mode, want, got, c.xyz, qs)
			}
		})
	}
}

// compareAll compares every query operation of got with want, both
// indexes of xyz.
func compareAll(t *testing.T, ctx string, want, got findneighbor.Index, xyz, q []float32) {
	t.Helper()
	n := len(xyz) / 3
	nq := n
	if q != nil {
		nq = len(q) / 3
	}
	wc, gc := make([]uint32, nq), make([]uint32, nq)
	must(t, want.Counts(q, wc))
	must(t, got.Counts(q, gc))
	diff(t, ctx+" Counts", wc, gc)
	for _, o := range []findneighbor.NeighborOptions{{}, {Sorted: true, WithDist: true}, {Cap: 7, WithDist: true}} {
		w, err := want.Neighbors(q, o)
		must(t, err)
		g, err := got.Neighbors(q, o)
		must(t, err)
		what := fmt.Sprintf("%s Neighbors%+v", ctx, o)
		diff(t, what+" offsets", w.Offsets, g.Offsets)
		diff(t, what+" indices", w.Indices, g.Indices)
		diff(t, what+" distances", w.Dist, g.Dist)
		diff(t, what+" capped", w.Capped, g.Capped)
	}
	for _, k := range []int{1, 16, 128, 150} {
		wi, gi := make([]int32, nq*k), make([]int32, nq*k)
		wd, gd := make([]float32, nq*k), make([]float32, nq*k)
		must(t, want.KNearest(q, k, wi, wd))
		must(t, got.KNearest(q, k, gi, gd))
		diff(t, fmt.Sprintf("%s KNearest(k=%d) indices", ctx, k), wi, gi)
		diff(t, fmt.Sprintf("%s KNearest(k=%d) distances", ctx, k), wd, gd)
	}
	for _, k := range []int{0, 16} {
		wm, gm := make([]findneighbor.Moment, nq), make([]findneighbor.Moment, nq)
		must(t, findneighbor.Moments(want, xyz, q, k, wm))
		must(t, findneighbor.Moments(got, xyz, q, k, gm))
		bad := 0
		for i := range wm {
			if !momentsClose(wm[i], gm[i]) {
				if bad++; bad <= 3 {
					t.Errorf("%s Moments(k=%d): query %d: got %+v, want %+v", ctx, k, i, gm[i], wm[i])
				}
			}
		}
	}
	if q != nil {
		return
	}
	for _, minPts := range []uint32{4, 12} {
		isCore := make([]bool, n)
		for i, c := range wc {
			isCore[i] = c+1 >= minPts
		}
		wl, gl := make([]int32, n), make([]int32, n)
		must(t, findneighbor.ClusterCores(want, xyz, isCore, wl))
		must(t, findneighbor.ClusterCores(got, xyz, isCore, gl))
		diff(t, fmt.Sprintf("%s ClusterCores(minPts %d)", ctx, minPts), wl, gl)
	}
}

// momentsClose: equal counts, sums within 1e-9 of the magnitude (float64
// sums of the same terms in another order).
func momentsClose(a, b findneighbor.Moment) bool {
	if a.N != b.N {
		return false
	}
	scale := 0.0
	for _, v := range a.Outer {
		scale = max(scale, math.Abs(v))
	}
	scale = math.Sqrt(scale)*float64(a.N) + 1e-30
	for i := range a.Sum {
		if math.Abs(a.Sum[i]-b.Sum[i]) > 1e-9*scale {
			return false
		}
	}
	for i := range a.Outer {
		if math.Abs(a.Outer[i]-b.Outer[i]) > 1e-9*(scale*scale/float64(max(a.N, 1))+1e-30) {
			return false
		}
	}
	return true
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// diff reports where got differs from want (first few positions).
func diff[T comparable](t *testing.T, what string, want, got []T) {
	t.Helper()
	if len(want) != len(got) {
		t.Errorf("%s: %d values, want %d", what, len(got), len(want))
		return
	}
	if slices.Equal(want, got) {
		return
	}
	bad := 0
	for i := range want {
		if want[i] != got[i] {
			if bad++; bad <= 5 {
				t.Errorf("%s: [%d] = %v, want %v", what, i, got[i], want[i])
			}
		}
	}
	t.Errorf("%s: %d of %d values differ", what, bad, len(want))
}

// TestCUDAStopRestart checks that Stop releases the device so that an
// index built before it fails rather than using freed memory, and that the
// next Build starts the GPU again and counts as before.
func TestCUDAStopRestart(t *testing.T) {
	gpuOrSkip(t)
	xyz := fntest.Uniform(fntest.Rand(5), 20_000, 10)
	count := func() ([]uint32, findneighbor.Index) {
		ix, err := Backend().Build(xyz, 0.5, findneighbor.BuildOptions{})
		must(t, err)
		out := make([]uint32, len(xyz)/3)
		must(t, ix.Counts(nil, out))
		return out, ix
	}
	want, old := count()
	Stop()
	if err := old.Counts(nil, make([]uint32, len(xyz)/3)); err == nil {
		t.Error("an index built before Stop still counts after it: want an error (its context is closed)")
	}
	old.Close()
	got, ix := count()
	defer ix.Close()
	diff(t, "counts after a restart", want, got)
	if st, ok := Started(); !ok || st.Context <= 0 {
		t.Errorf("Started after the restart: %+v, %v; want the new start-up's times", st, ok)
	}
	Stop()
	Stop() // a second Stop does nothing
}

// TestCUDAKNearestQueries holds findneighbor.KNearestQueries on the cuda
// backend (finite-radius rounds on the device, then +Inf on the host for
// the queries still short) to the cpu backend's kd-tree at ε = +Inf, as
// hag asks it: half of a LiDAR-like terrain flattened to Z = 0 as the
// indexed "ground", the other half and points far outside as queries.
func TestCUDAKNearestQueries(t *testing.T) {
	gpuOrSkip(t)
	r := fntest.Rand(2027)
	pts := terrain(r, 400_000, 200)
	var ground, q []float32
	for i := range len(pts) / 3 {
		if i%2 == 0 {
			ground = append(ground, pts[3*i], pts[3*i+1], 0)
		} else {
			q = append(q, pts[3*i], pts[3*i+1], 0)
		}
	}
	for i := range 8 {
		d := float32(math.Pow(4, float64(i+3))) // 256 to 4M away: later rounds, then +Inf
		q = append(q, -d, d/3, 0)
	}
	nq := len(q) / 3
	for _, k := range []int{1, 3, 12} {
		wi, wd := make([]int32, nq*k), make([]float32, nq*k)
		gi, gd := make([]int32, nq*k), make([]float32, nq*k)
		must(t, findneighbor.KNearestQueries(findneighbor.CPU(), ground, q, k, findneighbor.BuildOptions{}, wi, wd))
		must(t, findneighbor.KNearestQueries(Backend(), ground, q, k, findneighbor.BuildOptions{}, gi, gd))
		diff(t, fmt.Sprintf("k=%d indices", k), wi, gi)
		diff(t, fmt.Sprintf("k=%d distances", k), wd, gd)
	}
}
