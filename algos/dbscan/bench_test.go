package dbscan_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pctk/pctk/algos/dbscan"
	"github.com/pctk/pctk/internal/peers"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// benchEps and benchMinPts are the benchmark's parameters: on the scene's
// surfaces, at 100 points/m², π·0.31²·100 ≈ 30 neighbours per point.
const (
	benchEps    = 0.31
	benchMinPts = 10
)

// scene returns n points like a terrestrial or airborne scan of a street:
// 70% on rolling ground at about 100 points/m², 29% on the surfaces of
// objects (spheres 1-3 m across hovering 1-4 m above the ground, like tree
// crowns, at the same surface density), 1% scattered in the air. DBSCAN finds
// the ground, one cluster per object, and noise.
func scene(seed uint64, n int) []float32 {
	r := rand.New(rand.NewPCG(seed, 5))
	nGround, nAir := n*70/100, n/100
	side := math.Sqrt(float64(nGround) / 100)
	ground := func(x, y float64) float64 { return 0.6 * math.Sin(x/9) * math.Cos(y/6) }
	xyz := make([]float32, 0, 3*n)
	put := func(x, y, z float64) { xyz = append(xyz, float32(x-side/2), float32(y-side/2), float32(z)) }
	for range nGround {
		x, y := r.Float64()*side, r.Float64()*side
		put(x, y, ground(x, y)+r.NormFloat64()*0.02)
	}
	for left := n - nGround - nAir; left > 0; {
		// A sphere of radius rad holds 4π rad²·100 points at 100/m².
		rad := 0.5 + r.Float64()
		cx, cy := r.Float64()*side, r.Float64()*side
		cz := ground(cx, cy) + 1 + rad + 3*r.Float64()
		for k := min(left, int(4*math.Pi*rad*rad*100)); k > 0; k-- {
			// A uniform direction: normalised Gaussian vector.
			dx, dy, dz := r.NormFloat64(), r.NormFloat64(), r.NormFloat64()
			s := rad / math.Sqrt(dx*dx+dy*dy+dz*dz)
			put(cx+dx*s, cy+dy*s, cz+dz*s)
			left--
		}
	}
	for len(xyz) < 3*n {
		x, y := r.Float64()*side, r.Float64()*side
		put(x, y, ground(x, y)+1+8*r.Float64())
	}
	return xyz
}

// writeF64 writes points as little-endian float64 triples, the form the
// peers' numpy reads with np.fromfile.
func writeF64(tb testing.TB, path string, xyz []float32) {
	buf := make([]byte, 8*len(xyz))
	for i, v := range xyz {
		binary.LittleEndian.PutUint64(buf[8*i:], math.Float64bits(float64(v)))
	}
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		tb.Fatal(err)
	}
}

// benchChildEnv names the points file the benchmark child process clusters.
const benchChildEnv = "PCTK_DBSCAN_BENCH_POINTS"

// TestBenchChild is not a test: BenchmarkPeers runs the test binary again
// with benchChildEnv set, so that pctk's peak memory is measured in a
// process of its own, like the peers'. It reads the float64 points (kept,
// as the CLI keeps the cloud), clusters them on the cpu backend and prints
// its time and results.
func TestBenchChild(t *testing.T) {
	path := os.Getenv(benchChildEnv)
	if path == "" {
		t.Skip("runs only as BenchmarkPeers' child process")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	xyz64 := make([]float64, len(data)/8)
	for i := range xyz64 {
		xyz64[i] = math.Float64frombits(binary.LittleEndian.Uint64(data[8*i:]))
	}
	data = nil
	xyz := make([]float32, len(xyz64))
	for i, v := range xyz64 {
		xyz[i] = float32(v)
	}
	b, err := findneighbor.Get("cpu")
	if err != nil {
		t.Fatal(err)
	}
	cpu0 := cpuSeconds()
	start := time.Now()
	run, err := dbscan.Cluster(xyz, b, dbscan.Options{Eps: benchEps, MinPts: []int{benchMinPts}})
	if err != nil {
		t.Fatal(err)
	}
	secs, cpu := time.Since(start).Seconds(), cpuSeconds()-cpu0
	r := run.Results[0]
	total := 0
	for _, c := range run.Counts {
		total += int(c)
	}
	fmt.Printf("RESULT seconds=%.3f cpu=%.3f clusters=%d core=%d noise=%d build=%.3f stage1=%.3f stage2=%.3f neighbours=%.1f\n",
		secs, cpu, len(r.Sizes), r.CoreCount, r.NoiseCount, run.Build.Seconds(), run.Stage1.Seconds(), r.Stage2.Seconds(),
		float64(total)/float64(len(run.Counts)))
	runtime.KeepAlive(xyz64)
}

// cpuSeconds returns the CPU time (user and system, all threads) this
// process has used.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// peerScript clusters the float64 points in argv[2] with scikit-learn
// (n_jobs=-1) or Open3D (argv[1]) and prints the clustering's wall and CPU
// time (all threads; file reading excluded) and results in TestBenchChild's
// format.
const peerScript = `
import sys, time
import numpy as np
X = np.fromfile(sys.argv[2], dtype="<f8").reshape(-1, 3)
eps, m = float(sys.argv[3]), int(sys.argv[4])
if sys.argv[1] == "sklearn":
    from sklearn.cluster import DBSCAN
    t, c = time.perf_counter(), time.process_time()
    db = DBSCAN(eps=eps, min_samples=m, n_jobs=-1).fit(X)
    secs, cpu = time.perf_counter() - t, time.process_time() - c
    labels, core = db.labels_, len(db.core_sample_indices_)
else:
    import open3d as o3d
    pc = o3d.geometry.PointCloud(o3d.utility.Vector3dVector(X))
    t, c = time.perf_counter(), time.process_time()
    labels = np.asarray(pc.cluster_dbscan(eps=eps, min_points=m, print_progress=False))
    secs, cpu = time.perf_counter() - t, time.process_time() - c
    core = -1  # Open3D does not report core points
print(f"RESULT seconds={secs:.3f} cpu={cpu:.3f} clusters={labels.max() + 1} core={core} noise={(labels < 0).sum()}")
`

var resultRE = regexp.MustCompile(`RESULT (.*)`)
var maxRSSRE = regexp.MustCompile(`Maximum resident set size \(kbytes\): (\d+)`)

// measure runs cmd under /usr/bin/time -v and returns the RESULT fields it
// printed and its peak resident memory in MiB.
func measure(b *testing.B, env []string, cmd ...string) (map[string]string, float64) {
	b.Helper()
	c := exec.Command("/usr/bin/time", append([]string{"-v"}, cmd...)...)
	c.Env = append(os.Environ(), env...)
	out, err := c.CombinedOutput()
	if err != nil {
		b.Fatalf("%s: %v\n%s", cmd[0], err, out)
	}
	m := resultRE.FindSubmatch(out)
	rss := maxRSSRE.FindSubmatch(out)
	if m == nil || rss == nil {
		b.Fatalf("%s printed no RESULT or peak memory:\n%s", cmd[0], out)
	}
	fields := map[string]string{}
	for _, f := range strings.Fields(string(m[1])) {
		k, v, _ := strings.Cut(f, "=")
		fields[k] = v
	}
	kb, _ := strconv.ParseFloat(string(rss[1]), 64)
	return fields, kb / 1024
}

// BenchmarkPeers clusters the same scene with pctk (cpu backend), scikit-learn
// (n_jobs=-1) and Open3D's cluster_dbscan, each in its own process on the
// same cores, one after the other, at 1M and 4M points. Times are of the
// clustering alone (each tool's own timers, file reading excluded): wall
// time, and CPU time of all threads, which shared cores distort less; memory
// is each process's peak RSS, reading included. Run it once:
//
//	go test -run - -bench Peers -benchtime 1x -timeout 60m ./algos/dbscan
func BenchmarkPeers(b *testing.B) {
	if _, err := os.Stat("/usr/bin/time"); err != nil {
		b.Skip("/usr/bin/time (GNU time) is needed for peak memory")
	}
	for _, mod := range []string{"sklearn", "open3d"} {
		if exec.Command(peers.Python, "-c", "import "+mod).Run() != nil {
			b.Skipf("%s not installed for %s (.ci/deps/debian-peers.sh)", mod, peers.Python)
		}
	}
	if _, err := findneighbor.Get("cpu"); err != nil {
		b.Skipf("cpu backend: %v", err)
	}
	load, _ := os.ReadFile("/proc/loadavg")
	b.Logf("GOMAXPROCS %d, %d CPUs, load average at start: %s", runtime.GOMAXPROCS(0), runtime.NumCPU(), strings.TrimSpace(string(load)))
	for _, n := range []int{1_000_000, 4_000_000} {
		b.Run(fmt.Sprintf("%dM", n/1_000_000), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "points.f64")
			writeF64(b, path, scene(1, n))
			args := []string{path, strconv.FormatFloat(benchEps, 'g', -1, 64), strconv.Itoa(benchMinPts)}
			for range b.N {
				pctk, pctkMem := measure(b, []string{benchChildEnv + "=" + path}, os.Args[0], "-test.run=^TestBenchChild$", "-test.count=1")
				sk, skMem := measure(b, nil, append([]string{peers.Python, "-c", peerScript, "sklearn"}, args...)...)
				o3d, o3dMem := measure(b, nil, append([]string{peers.Python, "-c", peerScript, "open3d"}, args...)...)
				secs := func(f map[string]string) float64 { v, _ := strconv.ParseFloat(f["seconds"], 64); return v }
				cpu := func(f map[string]string) float64 { v, _ := strconv.ParseFloat(f["cpu"], 64); return v }
				b.Logf("%d points, eps %g, min_pts %d: %s neighbours per point on average", n, benchEps, benchMinPts, pctk["neighbours"])
				b.Logf("| tool | wall s | CPU s | peak MiB | clusters | core | noise |")
				for _, row := range []struct {
					name string
					f    map[string]string
					mem  float64
				}{{"pctk (cpu)", pctk, pctkMem}, {"scikit-learn", sk, skMem}, {"Open3D", o3d, o3dMem}} {
					b.Logf("| %s | %.2f | %s | %.0f | %s | %s | %s |", row.name, secs(row.f), row.f["cpu"], row.mem, row.f["clusters"], row.f["core"], row.f["noise"])
				}
				b.Logf("pctk stages: build %ss, count %ss, cluster %ss", pctk["build"], pctk["stage1"], pctk["stage2"])
				faster := min(secs(sk), secs(o3d))
				b.Logf("pctk is %.1fx faster (wall) than the faster peer, %.1fx in CPU time, and uses %.2fx the memory of the leaner one",
					faster/secs(pctk), min(cpu(sk), cpu(o3d))/cpu(pctk), pctkMem/min(skMem, o3dMem))
				b.ReportMetric(secs(pctk), "pctk-s")
				b.ReportMetric(secs(sk), "sklearn-s")
				b.ReportMetric(secs(o3d), "open3d-s")
			}
		})
	}
}

// benchBackend returns the backend $PCTK_BACKEND names (default cpu), or
// skips b.
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

// BenchmarkCluster times Cluster alone on the scene at several sizes, on
// $PCTK_BACKEND (default cpu).
func BenchmarkCluster(b *testing.B) {
	be := benchBackend(b)
	for _, n := range []int{100_000, 1_000_000} {
		xyz := scene(1, n)
		b.Run(fmt.Sprintf("%dk/%s", n/1000, be.Name()), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if _, err := dbscan.Cluster(xyz, be, dbscan.Options{Eps: benchEps, MinPts: []int{benchMinPts}}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkClusterTiled times Cluster in memory and on tiles of 10 m
// (Options.TileSize; 10 by 10 tiles on the 1M-point scene, 84 m across)
// and 25 m (4 by 4), at several ε, on $PCTK_BACKEND (default cpu). Each
// iteration runs the three side by side, in a rotating order, so that the
// load of a shared machine falls on all alike; the benchmark reports the
// median wall time of each (mem-s, tile10-s, tile25-s), the ratios of the
// tiled medians to the in-memory one (tile10/mem, tile25/mem: the cost of
// tiling), and the same ratios of CPU time (all threads; tile10/mem-cpu,
// tile25/mem-cpu), which other processes on shared cores distort less.
//
//	go test -run - -bench ClusterTiled -benchtime 7x ./algos/dbscan
func BenchmarkClusterTiled(b *testing.B) {
	be := benchBackend(b)
	xyz := scene(1, 1_000_000)
	sizes := []float64{0, 10, 25}
	for _, eps := range []float64{benchEps, 0.5, 1} {
		b.Run(fmt.Sprintf("1000k/%s/eps%g", be.Name(), eps), func(b *testing.B) {
			wall := make([][]float64, len(sizes))
			cpu := make([][]float64, len(sizes))
			for it := range b.N {
				for j := range sizes {
					k := (it + j) % len(sizes)
					runtime.GC()
					start, cpu0 := time.Now(), cpuSeconds()
					if _, err := dbscan.Cluster(xyz, be, dbscan.Options{Eps: eps, MinPts: []int{benchMinPts}, TileSize: sizes[k]}); err != nil {
						b.Fatal(err)
					}
					wall[k] = append(wall[k], time.Since(start).Seconds())
					cpu[k] = append(cpu[k], cpuSeconds()-cpu0)
				}
			}
			median := func(s []float64) float64 {
				slices.Sort(s)
				return s[len(s)/2]
			}
			b.ReportMetric(median(wall[0]), "mem-s")
			for k, size := range sizes[1:] {
				b.ReportMetric(median(wall[k+1]), fmt.Sprintf("tile%g-s", size))
				b.ReportMetric(median(wall[k+1])/median(wall[0]), fmt.Sprintf("tile%g/mem", size))
				b.ReportMetric(median(cpu[k+1])/median(cpu[0]), fmt.Sprintf("tile%g/mem-cpu", size))
			}
		})
	}
}
