package features

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/internal/peers"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// benchScan is the real scan of the benchmarks: 460,400 points of a
// Kinect-like table scene.
const benchScan = "pcd/table_scene_lms400.pcd"

// benchK is PDAL's default knn: the point and its 10 nearest.
const benchK = 10

// open3dScript times, on the scan of argument 1, Open3D's
// estimate_covariances with the point and its k nearest (argument 2; the
// per-point covariances, the part of the job Open3D does), then the rest
// of the job in numpy: the batched eigen-decomposition and PDAL's four
// default features in sqrt mode. It prints the wall seconds of each part,
// then their process CPU seconds.
const open3dScript = `
import sys, time
import numpy as np
import open3d as o3d
pc = o3d.io.read_point_cloud(sys.argv[1])
k = int(sys.argv[2])
t, c = time.perf_counter(), time.process_time()
pc.estimate_covariances(o3d.geometry.KDTreeSearchParamKNN(k + 1))
t1, c1 = time.perf_counter(), time.process_time()
cov = np.asarray(pc.covariances)
ev, vec = np.linalg.eigh(cov)
lam = np.sqrt(np.maximum(ev[:, ::-1], 0))
lin = (lam[:, 0] - lam[:, 1]) / lam[:, 0]
pla = (lam[:, 1] - lam[:, 2]) / lam[:, 0]
sca = lam[:, 2] / lam[:, 0]
u = (lam[:, None, :] * np.abs(vec[:, :, ::-1])).sum(axis=2)
ver = u[:, 2] / np.linalg.norm(u, axis=1)
t2, c2 = time.perf_counter(), time.process_time()
print(t1 - t, t2 - t1, c1 - c, c2 - c1)
`

var benchResult *Result

// BenchmarkPeers times the default features (PDAL's Dimensionality set,
// sqrt mode) of the table scene with the point and its benchK nearest, in
// one run: pctk on each backend that runs here but brute, and Open3D's
// per-point covariances (estimate_covariances, OpenMP) alone and followed
// by numpy's eigen-decomposition and the features. ms/op is the
// computation alone (no file I/O), cpu-ms/op its CPU time. It logs pctk's
// speed-up over Open3D.
func BenchmarkPeers(b *testing.B) {
	xyz := algotest.Scan(b, benchScan)
	path := filepath.Join(algotest.SharedData, benchScan)
	var pctk = map[string][2]time.Duration{}
	for _, be := range findneighbor.Backends() {
		if _, err := be.Probe(); err != nil || be.Name() == "brute" {
			continue
		}
		b.Run("pctk-"+be.Name(), func(b *testing.B) {
			b.ReportAllocs()
			pctk[be.Name()] = algotest.Timed(b, func() {
				r, err := Compute(xyz, be, Options{K: benchK})
				if err != nil {
					b.Fatal(err)
				}
				benchResult = r
			})
		})
	}
	b.Run("open3d", func(b *testing.B) {
		if err := peers.Available(peers.Open3D); err != nil {
			b.Skipf("Open3D for %s is not available: %v", peers.Python, err)
		}
		// Wall and CPU seconds of the covariances and of the rest.
		var cov, rest, covCPU, restCPU float64
		for b.Loop() {
			out, err := exec.Command(peers.Python, "-c", open3dScript, path, strconv.Itoa(benchK)).Output()
			if err != nil {
				b.Fatal(err)
			}
			var w1, w2, c1, c2 float64
			if _, err := fmt.Sscan(string(out), &w1, &w2, &c1, &c2); err != nil {
				b.Fatalf("open3d printed %q: %v", out, err)
			}
			cov, rest, covCPU, restCPU = cov+w1, rest+w2, covCPU+c1, restCPU+c2
		}
		n := float64(b.N)
		cov, rest, covCPU, restCPU = cov/n, rest/n, covCPU/n, restCPU/n
		b.ReportMetric((cov+rest)*1e3, "ms/op")
		b.ReportMetric((covCPU+restCPU)*1e3, "cpu-ms/op")
		for name, t := range pctk {
			w, c := t[0].Seconds(), t[1].Seconds()
			b.Logf("%d points, knn %d: pctk-%s %.3f s (%.3f s CPU); Open3D covariances %.3f s (%.3f s CPU), with numpy's features %.3f s (%.3f s CPU): pctk %.1f× / %.1f× in wall time, %.1f× / %.1f× in CPU time",
				len(xyz)/3, benchK, name, w, c, cov, covCPU, cov+rest, covCPU+restCPU, cov/w, (cov+rest)/w, covCPU/c, (covCPU+restCPU)/c)
		}
	})
}
