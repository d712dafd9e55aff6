package normals

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// Thresholds of the comparison with PCL and Open3D (issue 8): unoriented
// normals agree to a median angle below 0.5°, curvature to 1e-4.
const (
	peerMedianDeg = 0.5
	peerCurvTol   = 1e-4
)

// peerK is the neighbourhood size used with both peers (PCL's -k, Open3D's
// KDTreeSearchParamKNN): the point and its 9 nearest.
const peerK = 10

// pcdDir holds the real scans, relative to this package.
const pcdDir = "../../../shared/data/pcd"

// scans are the real clouds compared with the peers.
var scans = []string{"table_scene_lms400.pcd", "bun0.pcd"}

// maxBrutePoints bounds the subsample compared when only the brute backend
// runs (O(N²)), or with -short.
const maxBrutePoints = 15000

// peerInput picks the backend and the points for a peer comparison: the
// whole scan with the cpu backend, else (or with -short) every s-th point,
// s chosen so at most maxBrutePoints remain, written to a temporary PCD so
// that the peer reads exactly those points. It skips when the scans are
// absent (they live in ../shared/data, outside the repository).
func peerInput(t *testing.T, name string) (b findneighbor.Backend, path string, xyz []float32) {
	t.Helper()
	path = filepath.Join(pcdDir, name)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("real scans not found (%v): they live in ../shared/data, outside the repository", err)
	}
	_, xyz, err := readPCD(path)
	if err != nil {
		t.Fatal(err)
	}
	n := len(xyz) / 3
	b, err = findneighbor.Get("cpu")
	if err == nil && !testing.Short() {
		return b, path, xyz
	}
	b = findneighbor.Brute()
	stride := (n + maxBrutePoints - 1) / maxBrutePoints
	var sub []float32
	for i := 0; i < n; i += stride {
		sub = append(sub, xyz[3*i:3*i+3]...)
	}
	t.Logf("comparing every %d-th point (%d of %d) with the brute backend", stride, len(sub)/3, n)
	path = filepath.Join(t.TempDir(), "sub.pcd")
	if err := writePCD(path, sub); err != nil {
		t.Fatal(err)
	}
	return b, path, sub
}

// peerStats compares our result with a peer's normals (and curvature when
// peerCurv is not nil) on the points where both are defined.
type peerStats struct {
	compared, nanMismatch  int
	mismatches             []int // the first few points of nanMismatch
	medianDeg, p99Deg      float64
	curvWithin             float64 // fraction with |Δcurvature| ≤ peerCurvTol
	curvMedian, curvP99    float64
	curvMax                float64
	worstCurvPoint         int
	ourCurv, peerCurvAtMax float64
}

func comparePeer(r *Result, px, py, pz, peerCurv []float32) peerStats {
	var s peerStats
	var angles, dc []float64
	within := 0
	for i := range r.NormalX {
		ourNaN := math.IsNaN(float64(r.NormalX[i]))
		peerNaN := math.IsNaN(float64(px[i]))
		if ourNaN || peerNaN {
			if ourNaN != peerNaN {
				s.nanMismatch++
				if len(s.mismatches) < 5 {
					s.mismatches = append(s.mismatches, i)
				}
			}
			continue
		}
		s.compared++
		angles = append(angles, angleDeg(r, i, unit([3]float64{float64(px[i]), float64(py[i]), float64(pz[i])}), true))
		if peerCurv != nil {
			d := math.Abs(float64(r.Curvature[i]) - float64(peerCurv[i]))
			dc = append(dc, d)
			if d <= peerCurvTol {
				within++
			}
			if d > s.curvMax {
				s.curvMax, s.worstCurvPoint = d, i
				s.ourCurv, s.peerCurvAtMax = float64(r.Curvature[i]), float64(peerCurv[i])
			}
		}
	}
	slices.Sort(angles)
	slices.Sort(dc)
	if len(angles) > 0 {
		s.medianDeg, s.p99Deg = angles[len(angles)/2], angles[len(angles)*99/100]
	}
	if len(dc) > 0 {
		s.curvWithin = float64(within) / float64(len(dc))
		s.curvMedian, s.curvP99 = dc[len(dc)/2], dc[len(dc)*99/100]
	}
	return s
}

// collinearTol bounds λ1/λ2 of the neighbourhoods where PCL's float32
// eigen33 finds no eigenvector: for (nearly) collinear points every cross
// product of rows of C - λ0 I vanishes and PCL normalises a zero vector.
const collinearTol = 1e-4

// collinearPCL counts the points where PCL gives NaN but we do not, and
// checks that each is such a neighbourhood: PCL's NaN there is an artefact
// of its solver, not a definition (we return a unit normal orthogonal to
// the line, as Open3D does).
func collinearPCL(t *testing.T, r *Result, pclX []float32) int {
	t.Helper()
	n := 0
	for i := range pclX {
		if !math.IsNaN(float64(pclX[i])) || math.IsNaN(float64(r.NormalX[i])) {
			continue
		}
		l1, l2 := r.Eigenvalues[1][i], r.Eigenvalues[2][i]
		if l1 > collinearTol*l2 {
			t.Errorf("point %d: PCL gives NaN, we %v with eigenvalues %g %g %g, not a collinear neighbourhood",
				i, r.normal(i), r.Eigenvalues[0][i], l1, l2)
			continue
		}
		n++
	}
	if n > 0 {
		t.Logf("%d points with collinear or coincident neighbourhoods (λ1 ≤ %g·λ2): PCL NaN, ours a unit normal", n, collinearTol)
	}
	return n
}

// radiusScan is the scan also compared with a radius neighbourhood: PCL's
// radius search on bun0.pcd, whose points are all duplicated, takes a
// minute.
const radiusScan = "table_scene_lms400.pcd"

// TestAgainstPCL runs pcl_normal_estimation on the real scans with -k 10,
// and on radiusScan with -radius (3 median spacings, so some points have
// fewer than 3 points and get NaN), and compares normals and curvature
// point by point. A
// neighbourhood of K others instead of the point and K-1 others must fail
// the curvature check: that is what makes the comparison meaningful.
func TestAgainstPCL(t *testing.T) {
	exe, err := exec.LookPath("pcl_normal_estimation")
	algotest.RequirePeer(t, "pcl_normal_estimation (Debian pcl-tools)", err)
	for _, name := range scans {
		t.Run(name, func(t *testing.T) {
			b, path, xyz := peerInput(t, name)
			cases := []Options{{K: peerK}}
			if name == radiusScan {
				cases = append(cases, Options{Radius: 3 * algotest.MedianSpacing(t, b, xyz)})
			}
			for _, opts := range cases {
				args := []string{"-k", strconv.Itoa(opts.K)}
				if opts.K == 0 {
					args = []string{"-radius", strconv.FormatFloat(opts.Radius, 'g', -1, 64)}
				}
				out := filepath.Join(t.TempDir(), "pcl.pcd")
				cmd := exec.Command(exe, append([]string{path, out}, args...)...)
				if msg, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%v: %v\n%s", cmd, err, msg)
				}
				pc, pxyz, err := readPCD(out)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(pxyz, xyz) {
					t.Fatalf("PCL's output holds %d points, not the %d input points in order", len(pxyz)/3, len(xyz)/3)
				}
				var cols [4][]float32
				for k, name := range []string{core.DimNormalX, core.DimNormalY, core.DimNormalZ, core.DimCurvature} {
					if cols[k], err = float32Column(pc, name); err != nil {
						t.Fatalf("PCL's output %s: %v", out, err)
					}
				}
				nx, ny, nz, curv := cols[0], cols[1], cols[2], cols[3]
				opts.Eigenvalues = true
				r, err := Estimate(xyz, b, opts)
				if err != nil {
					t.Fatal(err)
				}
				s := comparePeer(r, nx, ny, nz, curv)
				s.nanMismatch -= collinearPCL(t, r, nx)
				t.Logf("%s vs PCL %v: %d points compared, %d undefined, %d NaN mismatches; angle median %.4f° p99 %.4f°; curvature |Δ| ≤ %g for %.4f%%, median %.3g, p99 %.3g, max %.3g (point %d: ours %.6g, PCL %.6g)",
					name, args, s.compared, r.Undefined, s.nanMismatch, s.medianDeg, s.p99Deg, peerCurvTol, 100*s.curvWithin, s.curvMedian, s.curvP99, s.curvMax, s.worstCurvPoint, s.ourCurv, s.peerCurvAtMax)
				if s.nanMismatch != 0 || s.medianDeg >= peerMedianDeg || s.curvP99 > peerCurvTol {
					t.Errorf("%s vs PCL %v: %d NaN mismatches (want 0), median angle %.4f° (want < %g°), curvature p99 |Δ| %.3g (want ≤ %g)",
						name, args, s.nanMismatch, s.medianDeg, peerMedianDeg, s.curvP99, peerCurvTol)
				}
				if opts.K == 0 {
					continue
				}
				wrong, err := Estimate(xyz, b, Options{K: opts.K + 1})
				if err != nil {
					t.Fatal(err)
				}
				if w := comparePeer(wrong, nx, ny, nz, curv); w.curvP99 <= peerCurvTol {
					t.Errorf("%s: a neighbourhood of k others also matches PCL's -k %d (curvature p99 |Δ| %.3g): the check cannot tell the conventions apart", name, opts.K, w.curvP99)
				} else {
					t.Logf("%s: k others instead of k-1: curvature p99 |Δ| %.3g, %.2f%% within %g, angle median %.3f°", name, w.curvP99, 100*w.curvWithin, peerCurvTol, w.medianDeg)
				}
			}
		})
	}
}

// open3dScript estimates normals with Open3D's KNN search (argument 3 is
// K) or its hybrid search (arguments 3 and 4 are K and the radius) and
// writes them, then the points, as little-endian float64 triples.
const open3dScript = `
import sys
import numpy as np
import open3d as o3d
pc = o3d.io.read_point_cloud(sys.argv[1])
k = int(sys.argv[3])
if len(sys.argv) > 4:
    pc.estimate_normals(o3d.geometry.KDTreeSearchParamHybrid(radius=float(sys.argv[4]), max_nn=k))
else:
    pc.estimate_normals(o3d.geometry.KDTreeSearchParamKNN(k))
np.asarray(pc.normals, dtype='<f8').tofile(sys.argv[2])
np.asarray(pc.points, dtype='<f8').tofile(sys.argv[2] + '.xyz')
`

// python3 is Debian's interpreter, where python3-open3d installs.
const python3 = "/usr/bin/python3"

// TestAgainstOpen3D runs Open3D's estimate_normals with KNN 10 on the real
// scans, and on radiusScan with its hybrid search (10 nearest within 3
// median spacings), and compares unoriented normals (Open3D has no
// curvature). Open3D gives a neighbourhood of fewer than 3 points the normal
// (0, 0, 1) where pctk gives NaN; the test requires exactly that there.
func TestAgainstOpen3D(t *testing.T) {
	err := exec.Command(python3, "-c", "import open3d").Run()
	algotest.RequirePeer(t, "Open3D for "+python3+" (Debian python3-open3d)", err)
	for _, name := range scans {
		t.Run(name, func(t *testing.T) {
			b, path, xyz := peerInput(t, name)
			cases := []Options{{K: peerK}}
			if name == radiusScan {
				cases = append(cases, Options{K: peerK, Radius: 3 * algotest.MedianSpacing(t, b, xyz)})
			}
			for _, opts := range cases {
				out := filepath.Join(t.TempDir(), "o3d.bin")
				args := []string{"-c", open3dScript, path, out, strconv.Itoa(opts.K)}
				if opts.Radius > 0 {
					args = append(args, strconv.FormatFloat(opts.Radius, 'g', -1, 64))
				}
				if msg, err := exec.Command(python3, args...).CombinedOutput(); err != nil {
					t.Fatalf("open3d: %v\n%s", err, msg)
				}
				n := len(xyz) / 3
				nrm, pts := readFloat64s(t, out, 3*n), readFloat64s(t, out+".xyz", 3*n)
				for i := range pts {
					if float32(pts[i]) != xyz[i] {
						t.Fatalf("Open3D read coordinate %d as %g, we as %g", i, pts[i], xyz[i])
					}
				}
				r, err := Estimate(xyz, b, opts)
				if err != nil {
					t.Fatal(err)
				}
				px, py, pz := make([]float32, n), make([]float32, n), make([]float32, n)
				for i := range n {
					px[i], py[i], pz[i] = float32(nrm[3*i]), float32(nrm[3*i+1]), float32(nrm[3*i+2])
					if math.IsNaN(float64(r.NormalX[i])) && px[i] == 0 && py[i] == 0 && pz[i] == 1 {
						// Open3D's stand-in for "fewer than 3 points".
						px[i], py[i], pz[i] = nan32, nan32, nan32
					}
				}
				s := comparePeer(r, px, py, pz, nil)
				t.Logf("%s vs Open3D k=%d radius=%g: %d points compared, %d undefined, %d NaN mismatches; angle median %.4f° p99 %.4f°",
					name, opts.K, opts.Radius, s.compared, r.Undefined, s.nanMismatch, s.medianDeg, s.p99Deg)
				if s.nanMismatch != 0 || s.medianDeg >= peerMedianDeg {
					t.Errorf("%s vs Open3D k=%d radius=%g: %d NaN mismatches (want 0), median angle %.4f° (want < %g°)", name, opts.K, opts.Radius, s.nanMismatch, s.medianDeg, peerMedianDeg)
				}
			}
		})
	}
}

func readFloat64s(t *testing.T, path string, n int) []float64 {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) != 8*n {
		t.Fatalf("%s: %d bytes, want %d float64", path, len(raw), n)
	}
	v := make([]float64, n)
	for i := range v {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
	}
	return v
}

// benchCloud returns 1,000,000 points of real scan: table_scene_lms400.pcd
// (460,400 points) tiled along X, each copy shifted past the previous one's
// bounding box so every neighbourhood is one of the scan's own, then cut.
func benchCloud(b *testing.B) []float32 {
	b.Helper()
	const n = 1_000_000
	_, src, err := readPCD(filepath.Join(pcdDir, radiusScan))
	if err != nil {
		b.Skipf("real scans not found (%v): they live in ../shared/data", err)
	}
	lo, hi := float32(math.Inf(1)), float32(math.Inf(-1))
	for i := 0; i < len(src); i += 3 {
		lo, hi = min(lo, src[i]), max(hi, src[i])
	}
	xyz := make([]float32, 0, 3*n)
	for copyN := 0; len(xyz) < 3*n; copyN++ {
		shift := float32(copyN) * (hi - lo + 1)
		for i := 0; i < len(src) && len(xyz) < 3*n; i += 3 {
			xyz = append(xyz, src[i]+shift, src[i+1], src[i+2])
		}
	}
	return xyz
}

var benchResult *Result

// BenchmarkEstimate times normals of 1M points of real scan, KNN 30 (the
// point and its 29 nearest), on every backend that runs here: index build,
// moments and eigen-solve, no file I/O; with each orientation, whose cost is
// the difference from "none".
func BenchmarkEstimate(b *testing.B) {
	xyz := benchCloud(b)
	for _, be := range findneighbor.Backends() {
		if _, err := be.Probe(); err != nil || be.Name() == "brute" {
			continue
		}
		for _, o := range []Orientation{OrientNone, OrientUp, OrientConsistent} {
			b.Run(be.Name()+"/"+o.String(), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					r, err := Estimate(xyz, be, Options{K: 30, Orient: o})
					if err != nil {
						b.Fatal(err)
					}
					benchResult = r
				}
			})
		}
	}
}

// open3dBenchScript times Open3D's estimate_normals alone (no file I/O),
// with KNN K (argument 2) or a radius search (argument 3 > 0), and prints its
// wall and process CPU seconds.
const open3dBenchScript = `
import sys, time
import open3d as o3d
pc = o3d.io.read_point_cloud(sys.argv[1])
k, r = int(sys.argv[2]), float(sys.argv[3])
p = o3d.geometry.KDTreeSearchParamRadius(r) if r > 0 else o3d.geometry.KDTreeSearchParamKNN(k)
t, c = time.perf_counter(), time.process_time()
pc.estimate_normals(p)
print(time.perf_counter() - t, time.process_time() - c)
`

// pclTime matches pcl_normal_estimation's own timing of NormalEstimation.
var pclTime = regexp.MustCompile(`Computed normals in ([0-9.eE+-]+) ms`)

// cpuTime returns the CPU time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchRadius is the radius of BenchmarkPeers' radius mode: about 30
// neighbours per point on the table scene, like KNN 30.
const benchRadius = 0.005

// BenchmarkPeers times normals of the same 1M points of real scan in one
// run, with KNN 30 (the point and its 29 nearest) and with a radius of
// benchRadius: pctk (each backend that runs here but brute), Open3D's
// estimate_normals (OpenMP, all cores) and PCL's NormalEstimation (one
// thread, pcl_normal_estimation). ms/op is the estimation alone as each tool
// times it (kd-tree or index build, neighbour search, eigen-solve; no file
// I/O); cpu-ms/op its CPU time: in-process for pctk, process_time() around
// the call for Open3D, and for PCL the whole process's user+system time
// (its load and compressed save included, so an upper bound). ns/op for the
// peers is the whole process run. After each mode it logs pctk's speed-up
// over the faster peer, in wall and in CPU time.
func BenchmarkPeers(b *testing.B) {
	xyz := benchCloud(b)
	path := filepath.Join(b.TempDir(), "bench.pcd")
	if err := writePCD(path, xyz); err != nil {
		b.Fatal(err)
	}
	for _, mode := range []Options{{K: 30}, {Radius: benchRadius}} {
		// times holds each tool's wall and CPU time per run, by name.
		times := map[string][2]time.Duration{}
		name := "knn" + strconv.Itoa(mode.K)
		pclArgs := []string{"-k", strconv.Itoa(mode.K)}
		if mode.K == 0 {
			r := strconv.FormatFloat(mode.Radius, 'g', -1, 64)
			name, pclArgs = "radius"+r, []string{"-radius", r}
		}
		for _, be := range findneighbor.Backends() {
			if _, err := be.Probe(); err != nil || be.Name() == "brute" {
				continue
			}
			b.Run(name+"/pctk-"+be.Name(), func(b *testing.B) {
				times["pctk-"+be.Name()] = peerLoop(b, func() (wall, cpu time.Duration, err error) {
					t, c := time.Now(), cpuTime()
					benchResult, err = Estimate(xyz, be, mode)
					return time.Since(t), cpuTime() - c, err
				})
			})
		}
		b.Run(name+"/open3d", func(b *testing.B) {
			if err := exec.Command(python3, "-c", "import open3d").Run(); err != nil {
				b.Skipf("Open3D for %s is not available: %v", python3, err)
			}
			times["open3d"] = peerLoop(b, func() (wall, cpu time.Duration, err error) {
				out, err := exec.Command(python3, "-c", open3dBenchScript, path, strconv.Itoa(mode.K), strconv.FormatFloat(mode.Radius, 'g', -1, 64)).Output()
				if err != nil {
					return 0, 0, err
				}
				var w, c float64
				if _, err := fmt.Sscan(string(out), &w, &c); err != nil {
					return 0, 0, fmt.Errorf("open3d printed %q: %v", out, err)
				}
				return time.Duration(w * float64(time.Second)), time.Duration(c * float64(time.Second)), nil
			})
		})
		b.Run(name+"/pcl", func(b *testing.B) {
			exe, err := exec.LookPath("pcl_normal_estimation")
			if err != nil {
				b.Skipf("pcl_normal_estimation is not available: %v", err)
			}
			out := filepath.Join(b.TempDir(), "pcl.pcd")
			times["pcl"] = peerLoop(b, func() (wall, cpu time.Duration, err error) {
				cmd := exec.Command(exe, append([]string{path, out}, pclArgs...)...)
				msg, err := cmd.CombinedOutput()
				if err != nil {
					return 0, 0, fmt.Errorf("%v\n%s", err, msg)
				}
				m := pclTime.FindSubmatch(msg)
				if m == nil {
					return 0, 0, fmt.Errorf("no timing in pcl_normal_estimation's output:\n%s", msg)
				}
				ms, err := strconv.ParseFloat(string(m[1]), 64)
				return time.Duration(ms * float64(time.Millisecond)), cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), err
			})
		})
		logSpeedUp(b, name, times)
	}
}

// logSpeedUp logs each pctk backend's speed-up over the faster peer (the
// smaller wall time), in wall and in CPU time, where both ran.
func logSpeedUp(b *testing.B, mode string, times map[string][2]time.Duration) {
	var peer string
	for _, p := range []string{"open3d", "pcl"} {
		if t, ok := times[p]; ok && (peer == "" || t[0] < times[peer][0]) {
			peer = p
		}
	}
	if peer == "" {
		return
	}
	for tool, t := range times {
		if strings.HasPrefix(tool, "pctk-") && t[0] > 0 && t[1] > 0 {
			b.Logf("%s: %s %.3f s (%.3f s CPU), %s %.3f s (%.3f s CPU): %.1f× faster, %.1f× in CPU time",
				mode, tool, t[0].Seconds(), t[1].Seconds(), peer, times[peer][0].Seconds(), times[peer][1].Seconds(),
				float64(times[peer][0])/float64(t[0]), float64(times[peer][1])/float64(t[1]))
		}
	}
}

// peerLoop runs one tool b.N times, reports the wall and CPU time of the
// estimation per run and returns them.
func peerLoop(b *testing.B, run func() (wall, cpu time.Duration, err error)) [2]time.Duration {
	var wall, cpu time.Duration
	for b.Loop() {
		w, c, err := run()
		if err != nil {
			b.Fatal(err)
		}
		wall += w
		cpu += c
	}
	b.ReportMetric(float64(wall.Nanoseconds())/float64(b.N)/1e6, "ms/op")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/1e6, "cpu-ms/op")
	return [2]time.Duration{wall / time.Duration(b.N), cpu / time.Duration(b.N)}
}
