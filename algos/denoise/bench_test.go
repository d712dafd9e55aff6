package denoise

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/pctk/pctk/internal/peers"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// benchScan returns n points like an airborne scan: a gently rolling
// surface over a square of side metres at about 100 points/m², 2 cm of
// range noise, and 1% of points scattered up to 5 m above it (birds, haze).
func benchScan(seed uint64, n int) []float32 {
	r := rand.New(rand.NewPCG(seed, 2))
	side := math.Sqrt(float64(n) / 100)
	xyz := make([]float32, 3*n)
	for i := range n {
		x, y := r.Float64()*side, r.Float64()*side
		z := 0.5*math.Sin(x/7)*math.Cos(y/5) + r.NormFloat64()*0.02
		if r.IntN(100) == 0 {
			z += r.Float64() * 5
		}
		xyz[3*i], xyz[3*i+1], xyz[3*i+2] = float32(x-side/2), float32(y-side/2), float32(z)
	}
	return xyz
}

// benchRadius gives about 30 neighbours at 100 points/m² on a surface: π R² · 100 = 30.
const benchRadius = 0.309

func benchBackend(b *testing.B) findneighbor.Backend {
	name := os.Getenv(findneighbor.EnvBackend)
	if name == "" {
		name = "cpu"
	}
	be, err := findneighbor.Get(name)
	if err != nil {
		b.Skipf("backend %s: %v", name, err)
	}
	return be
}

// BenchmarkStatistical1M times Statistical with K=20, S=2 (Open3D's
// tutorial values) on 1M points.
func BenchmarkStatistical1M(b *testing.B) {
	be := benchBackend(b)
	xyz := benchScan(1, 1_000_000)
	b.ResetTimer()
	for range b.N {
		if _, err := Statistical(xyz, be, StatisticalOptions{K: 20, StdRatio: 2}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRadius1M times Radius with about 30 neighbours per point on 1M points.
func BenchmarkRadius1M(b *testing.B) {
	be := benchBackend(b)
	xyz := benchScan(1, 1_000_000)
	b.ResetTimer()
	for range b.N {
		if _, err := Radius(xyz, be, RadiusOptions{Radius: benchRadius, MinNeighbors: 10}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPeers1M runs pctk, pcl_outlier_removal and Open3D one after the
// other on the same 1M points and reports each one's filter time (file
// reading excluded: PCL's tool prints its filter time, Open3D is timed
// around the call) and pctk's speed-up over each. Run it once:
//
//	go test -run - -bench Peers1M -benchtime 1x ./algos/denoise
func BenchmarkPeers1M(b *testing.B) {
	for _, p := range []string{peers.PCL, peers.Open3D} {
		if err := peers.Available(p); err != nil {
			b.Skipf("%v (.ci/deps/debian-peers.sh)", err)
		}
	}
	be := benchBackend(b)
	xyz := benchScan(1, 1_000_000)
	in := filepath.Join(b.TempDir(), "in.pcd")
	writePCD(b, in, xyz)
	r, err := Radius(xyz, be, RadiusOptions{Radius: benchRadius})
	if err != nil {
		b.Fatal(err)
	}
	var sum float64
	for _, c := range r.Counts {
		sum += float64(c)
	}
	b.Logf("1M points, radius %g: %.1f neighbours per point on average; backend %s, GOMAXPROCS %d", benchRadius, sum/float64(len(r.Counts)), be.Name(), runtime.GOMAXPROCS(0))
	type filter struct {
		name   string
		pctk   func() error
		pcl    []string
		open3d string // a peers.RunOpen3D job
	}
	filters := []filter{
		{"statistical K=20 S=2", func() error {
			_, err := Statistical(xyz, be, StatisticalOptions{K: 20, StdRatio: 2})
			return err
		}, []string{"-method", "statistical", "-mean_k", "20", "-std_dev_mul", "2"},
			peers.StatisticalJob(21, 2)},
		{fmt.Sprintf("radius R=%g M=10", benchRadius), func() error {
			_, err := Radius(xyz, be, RadiusOptions{Radius: benchRadius, MinNeighbors: 10})
			return err
		}, []string{"-method", "radius", "-radius", strconv.FormatFloat(benchRadius, 'g', -1, 64), "-min_pts", "10"},
			peers.RadiusJob(10, benchRadius)},
	}
	for range b.N {
		for _, f := range filters {
			t, c := time.Now(), cpuTime()
			if err := f.pctk(); err != nil {
				b.Fatal(err)
			}
			ours, oursCPU := time.Since(t).Seconds(), cpuTime()-c
			pcl, err := peers.PCLOutlierRemoval(in, filepath.Join(b.TempDir(), "out.pcd"), f.pcl...)
			if err != nil {
				b.Fatal(err)
			}
			pclMs, pclCPU := pcl.Seconds*1000, pcl.CPU.Seconds()
			res, err := peers.RunOpen3D(b.TempDir(), in, f.open3d)
			if err != nil {
				b.Fatal(err)
			}
			o3d, o3dCPU := res[0].Seconds, res[0].CPU
			b.Logf("%-22s wall: pctk %.3f s | PCL %.3f s (%.1fx) | Open3D %.3f s (%.1fx)", f.name, ours, pclMs/1000, pclMs/1000/ours, o3d, o3d/ours)
			b.Logf("%-22s CPU:  pctk %.3f s | PCL process %.3f s (%.1fx) | Open3D %.3f s (%.1fx)", f.name, oursCPU, pclCPU, pclCPU/oursCPU, o3dCPU, o3dCPU/oursCPU)
		}
	}
}

// cpuTime returns the CPU time this process has used, all threads.
func cpuTime() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
