package sample

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

// open3dScript times Open3D's voxel_down_sample of the scan of argument 1
// with voxels of side argument 2 (no file I/O) and prints the wall and
// process CPU seconds and the number of points it keeps.
const open3dScript = `
import sys, time
import open3d as o3d
pc = o3d.io.read_point_cloud(sys.argv[1])
t, c = time.perf_counter(), time.process_time()
out = pc.voxel_down_sample(float(sys.argv[2]))
print(time.perf_counter() - t, time.process_time() - c, len(out.points))
`

var benchKeep []bool

// BenchmarkPeers thins the table scene at radii of 2 and 6 median
// spacings, in one run: pctk's Poisson; its Sampler (pctk sample
// --max-memory) in chunks; PDAL's own algorithm
// (SampleFilter::voxelize: the same pass over a std::map of voxels,
// written out in Go with a Go map as the tests' reference); and Open3D's
// voxel_down_sample
// with voxels of side R, the fastest peer thinning by distance (it keeps
// one averaged point per voxel, not a Poisson-disk sample). It logs the
// times and counts side by side.
func BenchmarkPeers(b *testing.B) {
	c, local, _ := algotest.SharedCloud(b, benchScan)
	xyz, pts := c.Relative([3]float64{}), Points{X: c.X, Y: c.Y, Z: c.Z}
	path := filepath.Join(algotest.SharedData, benchScan)
	cpu, err := findneighbor.Get("cpu")
	if err != nil {
		b.Skip(err)
	}
	n, spacing := len(xyz)/3, algotest.MedianSpacing(b, cpu, local.XYZ)
	for _, f := range []float64{2, 6} {
		r := f * spacing
		name := fmt.Sprintf("r%gx", f)
		// times holds each tool's wall and CPU time per run.
		times := map[string][2]time.Duration{}
		kept := map[string]int{}
		timed := func(tool string, run func() int) {
			b.Run(name+"/"+tool, func(b *testing.B) {
				times[tool] = algotest.Timed(b, func() { kept[tool] = run() })
			})
		}
		timed("pctk", func() int {
			res, err := Poisson(pts, Options{Radius: r})
			if err != nil {
				b.Fatal(err)
			}
			benchKeep = res.Keep
			return res.Kept
		})
		timed("pctk-sampler", func() int {
			// The Sampler of --max-memory, in chunks of 64Ki points.
			s, err := NewSampler(Options{Radius: r})
			if err != nil {
				b.Fatal(err)
			}
			keep := make([]bool, 0, n)
			for i := 0; i < n; i += 1 << 16 {
				if keep, err = s.Add(Points{X: c.X[i:min(n, i+1<<16)], Y: c.Y[i:min(n, i+1<<16)], Z: c.Z[i:min(n, i+1<<16)]}, keep); err != nil {
					b.Fatal(err)
				}
			}
			benchKeep = keep
			return s.Kept()
		})
		timed("pdal-rule-go", func() int {
			benchKeep = pdalSample(xyz, r)
			k := 0
			for _, v := range benchKeep {
				if v {
					k++
				}
			}
			return k
		})
		b.Run(name+"/open3d-voxel", func(b *testing.B) {
			if err := peers.Available(peers.Open3D); err != nil {
				b.Skipf("Open3D for %s is not available: %v", peers.Python, err)
			}
			var wall, cpu float64
			for b.Loop() {
				out, err := exec.Command(peers.Python, "-c", open3dScript, path, strconv.FormatFloat(r, 'g', -1, 64)).Output()
				if err != nil {
					b.Fatal(err)
				}
				var w, c float64
				var k int
				if _, err := fmt.Sscan(string(out), &w, &c, &k); err != nil {
					b.Fatalf("open3d printed %q: %v", out, err)
				}
				wall, cpu = wall+w, cpu+c
				kept["open3d-voxel"] = k
			}
			n := float64(b.N)
			times["open3d-voxel"] = [2]time.Duration{time.Duration(wall / n * 1e9), time.Duration(cpu / n * 1e9)}
			b.ReportMetric(wall/n*1e3, "ms/op")
			b.ReportMetric(cpu/n*1e3, "cpu-ms/op")
		})
		p := times["pctk"]
		for _, tool := range []string{"pctk", "pctk-sampler", "pdal-rule-go", "open3d-voxel"} {
			if t, ok := times[tool]; ok {
				b.Logf("%d points, r = %.4g (%g spacings): %s %.3f s (%.3f s CPU), %d kept; pctk %.1f× faster, %.1f× in CPU time",
					n, r, f, tool, t[0].Seconds(), t[1].Seconds(), kept[tool], float64(t[0])/float64(p[0]), float64(t[1])/float64(p[1]))
			}
		}
	}
}
