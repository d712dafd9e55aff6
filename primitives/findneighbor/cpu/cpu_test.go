package cpu_test

import (
	"math"
	"slices"
	"sync/atomic"
	"testing"

	fn "github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/cpu"
	"github.com/pctk/pctk/primitives/findneighbor/fntest"
)

func TestCPULine(t *testing.T)   { fntest.CheckLine(t, cpu.Backend()) }
func TestCPUErrors(t *testing.T) { fntest.CheckErrors(t, cpu.Backend()) }

// TestCPUExact is the property test: every operation equals brute force on
// the kit's clouds, radii and seeds.
func TestCPUExact(t *testing.T) { fntest.CheckBackend(t, cpu.Backend()) }

// TestCPUExactWithoutAVX512 runs the property test and the lattice ties
// with the AVX-512 kernels off, so that the Go loops that other CPUs run
// are tested on every machine.
func TestCPUExactWithoutAVX512(t *testing.T) {
	defer cpu.WithoutAVX512()()
	fntest.CheckBackend(t, cpu.Backend())
	TestKNearestTiesOnALattice(t)
}

func TestAutoPrefersCPU(t *testing.T) {
	a, err := fn.Get("auto")
	if err != nil {
		t.Fatal(err)
	}
	if a.Name() == "brute" {
		t.Errorf("auto picked brute; it must never be preferred")
	}
}

// TestCPUExactManySeeds runs the kit on many seeds with smaller clouds, where
// rare configurations (ties, empty rows, clouds of one cell) turn up.
func TestCPUExactManySeeds(t *testing.T) {
	if testing.Short() {
		t.Skip("many seeds: skipped with -short")
	}
	seeds := make([]uint64, 24)
	for i := range seeds {
		seeds[i] = uint64(100 + i)
	}
	fntest.CheckBackendWith(t, cpu.Backend(), fntest.Config{Seeds: seeds, N: 150})
}

// TestCPUEdgeCases compares cpu with brute on clouds that break naive
// grids: all points equal, UTM-sized coordinates moved to a local origin,
// two far groups (a huge extent next to ε), an exact lattice (pairs at
// exactly ε), and points on one axis.
func TestCPUEdgeCases(t *testing.T) {
	r := fntest.Rand(42)
	same := make([]float32, 3*300)
	for i := range 300 {
		copy(same[3*i:], []float32{1.25, -3.5, 7})
	}
	// UTM easting/northing with millimetre detail, centred in float64 first
	// as core.Cloud.Local does.
	utm := make([]float32, 3*600)
	for i := range 600 {
		x, y, z := 500000+r.Float64()*50, 4100000+r.Float64()*50, 100+r.Float64()*5
		utm[3*i], utm[3*i+1], utm[3*i+2] = float32(x-500025), float32(y-4100025), float32(z-102.5)
	}
	far := fntest.Clustered(r, 400, 2, 10, 0.3)
	for i := 0; i < len(far); i += 6 {
		far[i] += 1e6
	}
	var lattice []float32
	for x := range 8 {
		for y := range 8 {
			for z := range 4 {
				lattice = append(lattice, float32(x), float32(y), float32(z))
			}
		}
	}
	axis := make([]float32, 3*500)
	for i := range 500 {
		axis[3*i] = float32(r.IntN(200)) * 0.25
	}
	clouds := []fntest.Cloud{{Name: "same", XYZ: same}, {Name: "utm", XYZ: utm}, {Name: "far", XYZ: far}, {Name: "lattice", XYZ: lattice}, {Name: "axis", XYZ: axis}}
	fntest.CheckClouds(t, cpu.Backend(), clouds, []float32{0, 0.001, 0.25, 1, 1.5, 3, 1e7}, 42)
}

// TestCPUExactlyEps checks that a pair at exactly ε (exact in float32)
// counts, as it does in brute force: distance ≤ ε.
func TestCPUExactlyEps(t *testing.T) {
	xyz := []float32{0, 0, 0, 1, 0, 0, 2, 0, 0, 2, 1, 0}
	for _, b := range []fn.Backend{fn.Brute(), cpu.Backend()} {
		ix, err := b.Build(xyz, 1, fn.BuildOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got := make([]uint32, 4)
		if err := ix.Counts(nil, got); err != nil {
			t.Fatal(err)
		}
		if want := []uint32{1, 2, 2, 1}; !slices.Equal(got, want) {
			t.Errorf("%s: counts %v, want %v", b.Name(), got, want)
		}
	}
}

// reuseCPU is the cpu backend building with BuildOptions.Reuse on a copy
// of the points (the kit keeps using its own), so that the kit checks the
// in-place layout too.
type reuseCPU struct{ fn.Backend }

func (reuseCPU) Name() string { return "cpu-reuse" }

func (b reuseCPU) Build(xyz []float32, eps float32, opts fn.BuildOptions) (fn.Index, error) {
	opts.Reuse = true
	return b.Backend.Build(slices.Clone(xyz), eps, opts)
}

func TestCPUReuseExact(t *testing.T) {
	fntest.CheckBackendWith(t, reuseCPU{cpu.Backend()}, fntest.Config{Seeds: []uint64{9}, N: 400})
}

// TestCPUWorkersAndProgress checks that the result does not depend on the
// number of workers and that Progress reaches 1.
func TestCPUWorkersAndProgress(t *testing.T) {
	xyz := fntest.Clustered(fntest.Rand(77), 5000, 5, 10, 0.5)
	var want []uint32
	for _, w := range []int{1, 3, 8} {
		var last atomic.Uint64
		ix, err := cpu.Backend().Build(xyz, 0.3, fn.BuildOptions{Workers: w, Progress: func(done float64) {
			for {
				old := last.Load()
				if done <= math.Float64frombits(old) || last.CompareAndSwap(old, math.Float64bits(done)) {
					return
				}
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		got := make([]uint32, 5000)
		if err := ix.Counts(nil, got); err != nil {
			t.Fatal(err)
		}
		if p := math.Float64frombits(last.Load()); p != 1 {
			t.Errorf("workers %d: progress ended at %g, want 1", w, p)
		}
		if want == nil {
			want = got
		} else if !slices.Equal(got, want) {
			t.Errorf("workers %d: counts differ from 1 worker", w)
		}
	}
}
