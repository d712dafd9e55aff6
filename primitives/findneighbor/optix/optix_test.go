package optix

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unsafe"

	_ "github.com/pctk/pctk/io/las"
	_ "github.com/pctk/pctk/io/pcd"
	"github.com/pctk/pctk/io/pcio"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/fntest"
	"github.com/pctk/pctk/primitives/findneighbor/internal/hostkit"
	"github.com/pctk/pctk/rt/cuda"
	rt "github.com/pctk/pctk/rt/optix"
)

// TestPTXFresh fails when a device source changed after its PTX was built.
func TestPTXFresh(t *testing.T) {
	if err := cuda.CheckPTX("kernels/findneighbor.cu", "kernels/findneighbor.ptx"); err != nil {
		t.Fatal(err)
	}
}

func TestLaunchParamsLayout(t *testing.T) {
	if got := unsafe.Sizeof(launchParams{}); got != launchParamsSize {
		t.Errorf("sizeof launchParams = %d, want %d (struct Params in findneighbor.cu)", got, launchParamsSize)
	}
	var p launchParams
	if got := unsafe.Offsetof(p.NQ); got != 128 {
		t.Errorf("offsetof NQ = %d, want 128", got)
	}
}

func TestMortonOrder(t *testing.T) {
	r := fntest.Rand(7)
	xyz := fntest.Uniform(r, 5000, 10)
	perm := mortonOrder(xyz)
	if len(perm) != 5000 {
		t.Fatalf("len = %d, want 5000", len(perm))
	}
	seen := slices.Clone(perm)
	slices.Sort(seen)
	for i, v := range seen {
		if v != int32(i) {
			t.Fatalf("not a permutation: sorted[%d] = %d", i, v)
		}
	}
	// consecutive points along the curve are close: the mean squared step
	// must be far below that of the random input order (≈ 50 for side 10)
	step := func(s []float32) float64 {
		var sum float64
		for i := 1; i < len(s)/3; i++ {
			for a := range 3 {
				x := float64(s[3*i+a] - s[3*i-3+a])
				sum += x * x
			}
		}
		return sum / float64(len(s)/3-1)
	}
	sorted, random := step(gather(xyz, perm)), step(xyz)
	if sorted > random/20 {
		t.Errorf("mean squared step along the Morton order = %.3g, random order %.3g: want 20x smaller", sorted, random)
	}
}

// gpu returns the backend with cfg, skipping where OptiX cannot run.
func gpu(t testing.TB, cfg Config) *Backend {
	b := New(cfg)
	if _, err := b.Probe(); err != nil {
		if errors.Is(err, rt.ErrNoOptiX) || errors.Is(err, cuda.ErrNoDriver) {
			if os.Getenv("PCTK_REQUIRE_GPU") != "" {
				t.Fatalf("PCTK_REQUIRE_GPU is set but %s cannot run: %v", b.Name(), err)
			}
			t.Skipf("no GPU with OptiX here: %v", err)
		}
		t.Fatalf("probe %s: %v", b.Name(), err)
	}
	return b
}

// variants are the configurations the GPU tests cover: with -short only
// the two registered (sorted) ones.
func variants() []Config {
	v := []Config{{}, {Spheres: true}, {Unsorted: true}, {Spheres: true, Unsorted: true}}
	if testing.Short() {
		v = v[:2]
	}
	return v
}

// TestOptiXCheckBackend compares every operation of both variants, sorted
// and unsorted, with the brute-force reference.
func TestOptiXCheckBackend(t *testing.T) {
	for _, cfg := range variants() {
		b := gpu(t, cfg)
		t.Run(b.Name(), func(t *testing.T) { fntest.CheckBackend(t, b) })
	}
}

// TestOptiXLarge compares Counts, Neighbors, KNearest, Moments and
// ClusterCores on 100k-point random and clustered clouds with the cpu
// backend (or brute force where cpu is not registered).
func TestOptiXLarge(t *testing.T) {
	ref, err := findneighbor.Get("cpu")
	if err != nil {
		ref = findneighbor.Brute()
	}
	n := 100_000
	r := fntest.Rand(11)
	clouds := []struct {
		name string
		xyz  []float32
		eps  float32
	}{
		{"uniform", fntest.Uniform(r, n, 20), 0.9},
		{"clustered", fntest.Clustered(r, n, 40, 50, 0.8), 0.25},
	}
	for _, cfg := range variants()[:2] {
		b := gpu(t, cfg)
		for _, c := range clouds {
			t.Run(fmt.Sprintf("%s/%s", b.Name(), c.name), func(t *testing.T) {
				compareLarge(t, b, ref, c.xyz, c.eps)
			})
		}
	}
}

// TestOptiXRealClouds compares both variants with the cpu backend on the
// real scans in testdata: an airborne LiDAR tile and a terrestrial scan.
func TestOptiXRealClouds(t *testing.T) {
	ref, err := findneighbor.Get("cpu")
	if err != nil {
		ref = findneighbor.Brute()
	}
	for _, c := range []struct {
		file string
		eps  float32
	}{
		{"../../../testdata/haystack_rock.las", 2.5},
		{"../../../testdata/lamppost.pcd", 0.06},
	} {
		cloud, _, err := pcio.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		xyz := cloud.Local(false).XYZ
		for _, cfg := range variants()[:2] {
			b := gpu(t, cfg)
			t.Run(fmt.Sprintf("%s/%s", b.Name(), filepath.Base(c.file)), func(t *testing.T) {
				compareLarge(t, b, ref, xyz, c.eps)
			})
		}
	}
}

func compareLarge(t *testing.T, b, ref findneighbor.Backend, xyz []float32, eps float32) {
	got, err := b.Build(xyz, eps, findneighbor.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer got.Close()
	want, err := ref.Build(xyz, eps, findneighbor.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer want.Close()
	n := len(xyz) / 3
	gc, wc := make([]uint32, n), make([]uint32, n)
	if err := got.Counts(nil, gc); err != nil {
		t.Fatal(err)
	}
	if err := want.Counts(nil, wc); err != nil {
		t.Fatal(err)
	}
	diff, total := 0, 0
	for i := range gc {
		total += int(wc[i])
		if gc[i] != wc[i] {
			if diff < 5 {
				t.Errorf("Counts[%d] = %d, want %d", i, gc[i], wc[i])
			}
			diff++
		}
	}
	t.Logf("%d points, mean %.1f neighbours, %d counts differ; build %+v", n, float64(total)/float64(n), diff, got.(*Index).Stats())
	gl, err := got.Neighbors(nil, findneighbor.NeighborOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wl, err := want.Neighbors(nil, findneighbor.NeighborOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(gl.Offsets, wl.Offsets) || !slices.Equal(gl.Indices, wl.Indices) {
		t.Errorf("Neighbors differ from %s", ref.Name())
	}
	const k = 8
	gi, wi := make([]int32, n*k), make([]int32, n*k)
	gd, wd := make([]float32, n*k), make([]float32, n*k)
	if err := got.KNearest(nil, k, gi, gd); err != nil {
		t.Fatal(err)
	}
	if err := want.KNearest(nil, k, wi, wd); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(gi, wi) || !slices.Equal(gd, wd) {
		t.Errorf("KNearest differs from %s", ref.Name())
	}
	isCore := make([]bool, n)
	for i, c := range wc {
		isCore[i] = c+1 >= 10
	}
	gLab, wLab := make([]int32, n), make([]int32, n)
	if err := findneighbor.ClusterCores(got, xyz, isCore, gLab); err != nil {
		t.Fatal(err)
	}
	if err := findneighbor.ClusterCores(want, xyz, isCore, wLab); err != nil {
		t.Fatal(err)
	}
	bad := 0
	for i := range gLab {
		if gLab[i] != wLab[i] {
			if bad < 5 {
				t.Errorf("ClusterCores label[%d] = %d, want %d (core %v)", i, gLab[i], wLab[i], isCore[i])
			}
			bad++
		}
	}
	gm, wm := make([]findneighbor.Moment, n), make([]findneighbor.Moment, n)
	if err := findneighbor.Moments(got, xyz, nil, 0, gm); err != nil {
		t.Fatal(err)
	}
	if err := findneighbor.Moments(want, xyz, nil, 0, wm); err != nil {
		t.Fatal(err)
	}
	for i := range gm {
		if gm[i].N != wm[i].N || !nearMoment(gm[i], wm[i]) {
			t.Errorf("Moments[%d] = %+v, want %+v", i, gm[i], wm[i])
			break
		}
	}
}

func nearMoment(a, b findneighbor.Moment) bool {
	near := func(x, y float64) bool { d := x - y; return d*d <= 1e-16*(1+x*x+y*y) }
	for i := range a.Sum {
		if !near(a.Sum[i], b.Sum[i]) {
			return false
		}
	}
	for i := range a.Outer {
		if !near(a.Outer[i], b.Outer[i]) {
			return false
		}
	}
	return true
}

// TestOptiXProbe reports what the probe found (RT cores, ABI) and checks
// that OptiX ranks below the cuda grid backend where there are no RT cores.
func TestOptiXProbe(t *testing.T) {
	b := gpu(t, Config{})
	info, err := b.Probe()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(info.Details["rt cores"], "not checked") {
		t.Errorf("Probe's rt cores = %q, want \"not checked...\": Probe does not start OptiX", info.Details["rt cores"])
	}
	full, err := b.ProbeDevice()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s on %s: %v (priority %d)", full.Name, full.Device, full.Details, full.Priority)
	if full.Priority >= 50 {
		t.Errorf("priority %d, want below the cuda backend's 50", full.Priority)
	}
	if e := engines[0]; e == nil || full.Priority != b.priority(e.dc.RTCoreVersion() > 0) {
		t.Errorf("ProbeDevice: priority %d, want the one of the engine's RT cores", full.Priority)
	}
	if strings.HasPrefix(full.Details["rt cores"], "not checked") || info.Details["rt cores"] == full.Details["rt cores"] {
		t.Errorf("ProbeDevice's rt cores = %q: want the version read", full.Details["rt cores"])
	}
}

// TestOptiXProbeStartsNothing checks, in a fresh process (this test binary
// run again), that Probe finds OptiX usable without creating a CUDA or
// OptiX device context.
func TestOptiXProbeStartsNothing(t *testing.T) {
	if os.Getenv("PCTK_OPTIX_PROBE_CHILD") != "" {
		if _, err := New(Config{}).Probe(); err != nil {
			fmt.Println("probe failed:", err)
			return
		}
		if engines[0] != nil || engines[1] != nil {
			fmt.Println("probe created an OptiX engine")
			return
		}
		fmt.Println("probe ok, nothing started")
		return
	}
	gpu(t, Config{})
	cmd := exec.Command(os.Args[0], "-test.run=^TestOptiXProbeStartsNothing$")
	cmd.Env = append(os.Environ(), "PCTK_OPTIX_PROBE_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "probe ok, nothing started") {
		t.Errorf("child: %s", out)
	}
}

// TestOptiXPriority checks the priorities of the variants with and without
// RT cores: below the cuda backend's 50, spheres one below custom
// primitives, unsorted two below sorted, and MaxPriority a bound.
func TestOptiXPriority(t *testing.T) {
	tests := []struct {
		cfg              Config
		without, withRTC int
	}{
		{Config{}, 40, 45},
		{Config{Spheres: true}, 39, 44},
		{Config{Unsorted: true}, 38, 43},
		{Config{Spheres: true, Unsorted: true}, 37, 42},
	}
	for _, tc := range tests {
		b := New(tc.cfg)
		if got := b.priority(false); got != tc.without {
			t.Errorf("%s without RT cores: priority %d, want %d", b.Name(), got, tc.without)
		}
		if got := b.priority(true); got != tc.withRTC {
			t.Errorf("%s with RT cores: priority %d, want %d", b.Name(), got, tc.withRTC)
		}
		if b.MaxPriority() < tc.withRTC {
			t.Errorf("%s: MaxPriority %d below its priority %d", b.Name(), b.MaxPriority(), tc.withRTC)
		}
	}
}

// TestOptiXProbeWithoutGPU checks that where no driver or OptiX can be
// found, Probe and ProbeDevice fail as unavailable, for auto to pass over.
func TestOptiXProbeWithoutGPU(t *testing.T) {
	b := New(Config{})
	if _, err := b.Probe(); err == nil {
		t.Skip("OptiX is usable here")
	}
	for name, probe := range map[string]func() (findneighbor.Info, error){"Probe": b.Probe, "ProbeDevice": b.ProbeDevice} {
		if _, err := probe(); !errors.Is(err, findneighbor.ErrUnavailable) {
			t.Errorf("%s: %v, want an error wrapping findneighbor.ErrUnavailable", name, err)
		}
	}
}

// TestRadixSort30 checks the parallel radix sort against a stable sort.
func TestRadixSort30(t *testing.T) {
	r := fntest.Rand(3)
	for _, n := range []int{0, 1, 1000, 300_000} {
		keys := make([]uint32, n)
		for i := range keys {
			keys[i] = uint32(r.IntN(1 << 30))
			if i%7 == 0 {
				keys[i] &= 0x3ff00 // many equal keys: stability matters
			}
		}
		vals := make([]int32, n)
		for i := range vals {
			vals[i] = int32(i)
		}
		want := slices.Clone(vals)
		slices.SortStableFunc(want, func(a, b int32) int { return cmp.Compare(keys[a], keys[b]) })
		k := slices.Clone(keys)
		radixSort30(k, vals)
		if !slices.Equal(vals, want) {
			t.Errorf("n=%d: radixSort30 order differs from a stable sort", n)
		}
		if !slices.IsSorted(k) {
			t.Errorf("n=%d: keys not sorted", n)
		}
	}
}

// TestHostPrep checks the host-side helpers of Build: the finite check names
// the first bad point, and the primitive radius exceeds ε by a margin that
// scales with the coordinates (and is never 0).
func TestHostPrep(t *testing.T) {
	xyz := []float32{1, 2, 3, 4, 5, 6, 7, float32(math.NaN()), 9}
	if err := findneighbor.CheckFinite(pkg, "point", xyz); err == nil || !strings.Contains(err.Error(), "point 2 ") {
		t.Errorf("CheckFinite = %v, want an error naming point 2", err)
	}
	if err := findneighbor.CheckFinite(pkg, "point", xyz[:6]); err != nil {
		t.Errorf("CheckFinite(finite) = %v", err)
	}
	for _, c := range []struct {
		xyz []float32
		eps float32
	}{
		{[]float32{0, 0, 0}, 0},
		{[]float32{-1000, 2, 3, 5, 6, 7}, 0.5},
		{[]float32{1e5, 0, 0}, 0.01},
	} {
		r := paddedRadius(c.xyz, c.eps)
		lo, hi := hostkit.Bounds(c.xyz)
		m := max(-lo[0], -lo[1], -lo[2], hi[0], hi[1], hi[2])
		if !(r > c.eps) || float64(r-c.eps) < float64(m)/(1<<21) {
			t.Errorf("paddedRadius(%v, %g) = %g: want > ε by about max|coord|·2⁻²⁰ (%g)", c.xyz, c.eps, r, m)
		}
	}
}
