package denoise

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

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
	if _, err := exec.LookPath("pcl_outlier_removal"); err != nil {
		b.Skip("pcl_outlier_removal not installed (.ci/deps/debian-peers.sh)")
	}
	if exec.Command(python, "-c", "import open3d").Run() != nil {
		b.Skip("Open3D not installed (.ci/deps/debian-peers.sh)")
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
		open3d string
	}
	filters := []filter{
		{"statistical K=20 S=2", func() error {
			_, err := Statistical(xyz, be, StatisticalOptions{K: 20, StdRatio: 2})
			return err
		}, []string{"-method", "statistical", "-mean_k", "20", "-std_dev_mul", "2"},
			"pc.remove_statistical_outlier(nb_neighbors=21, std_ratio=2.0)"},
		{fmt.Sprintf("radius R=%g M=10", benchRadius), func() error {
			_, err := Radius(xyz, be, RadiusOptions{Radius: benchRadius, MinNeighbors: 10})
			return err
		}, []string{"-method", "radius", "-radius", strconv.FormatFloat(benchRadius, 'g', -1, 64), "-min_pts", "10"},
			fmt.Sprintf("pc.remove_radius_outlier(nb_points=10, radius=%g)", benchRadius)},
	}
	pclDone := regexp.MustCompile(`Computing filtered cloud.*\[done, ([0-9.e+]+) ms`)
	for range b.N {
		for _, f := range filters {
			t, c := time.Now(), cpuTime()
			if err := f.pctk(); err != nil {
				b.Fatal(err)
			}
			ours, oursCPU := time.Since(t).Seconds(), cpuTime()-c
			cmd := exec.Command("pcl_outlier_removal", append([]string{in, filepath.Join(b.TempDir(), "out.pcd")}, f.pcl...)...)
			out, err := cmd.CombinedOutput()
			m := pclDone.FindSubmatch(out)
			if err != nil || m == nil {
				b.Fatalf("pcl_outlier_removal: %v\n%s", err, out)
			}
			pclMs, _ := strconv.ParseFloat(string(m[1]), 64)
			pclCPU := (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
			script := fmt.Sprintf("import sys, time, open3d as o3d\npc = o3d.io.read_point_cloud(sys.argv[1])\nt, c = time.perf_counter(), time.process_time()\n%s\nprint(time.perf_counter() - t, time.process_time() - c)\n", f.open3d)
			out, err = exec.Command(python, "-c", script, in).Output()
			if err != nil {
				b.Fatalf("open3d: %v\n%s", err, out)
			}
			var o3d, o3dCPU float64
			if _, err := fmt.Sscan(string(out), &o3d, &o3dCPU); err != nil {
				b.Fatalf("open3d printed %q", out)
			}
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
