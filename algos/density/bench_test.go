package density

import (
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/internal/peers"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// BenchmarkRadialPeers times Radial (cpu backend) and scipy's cKDTree
// (build, then query_ball_point with return_length, workers=-1: all
// threads; the closest peer computation, PDAL not being installed) on the
// same points, table_scene_lms400.pcd (460,400 points) at R = 0.01 (114
// points per sphere on average), in one run, and logs the ratio and both
// neighbour totals, which must agree. Each side is
// timed on the computation alone (index build and counts, no file I/O).
//
//	go test -run XXX -bench RadialPeers -benchtime 1x -v ./algos/density
func BenchmarkRadialPeers(b *testing.B) {
	const r = 0.01
	xyz := algotest.Scan(b, "pcd/table_scene_lms400.pcd")
	if err := exec.Command(peers.Python, "-c", "import scipy.spatial").Run(); err != nil {
		b.Skip("scipy missing (python3-scipy)")
	}
	raw := filepath.Join(b.TempDir(), "xyz.f32")
	buf := make([]byte, 4*len(xyz))
	for i, v := range xyz {
		binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(v))
	}
	if err := os.WriteFile(raw, buf, 0o644); err != nil {
		b.Fatal(err)
	}
	script := `import sys, time, numpy as np, scipy
from scipy.spatial import cKDTree
p = np.fromfile(sys.argv[1], dtype='<f4').reshape(-1, 3).astype(np.float64)
t = time.perf_counter()
n = cKDTree(p).query_ball_point(p, ` + strconv.FormatFloat(r, 'g', -1, 64) + `, return_length=True, workers=-1)
d = n * (1.0 / ((4.0 / 3.0) * 3.14159 * (0.01 * 0.01 * 0.01)))
print(time.perf_counter() - t, scipy.__version__, int(n.sum()))
`
	for range b.N {
		t := time.Now()
		got, err := Radial(xyz, findneighbor.CPU(), RadialOptions{Radius: r})
		if err != nil {
			b.Fatal(err)
		}
		ours := time.Since(t).Seconds()
		out, err := exec.Command(peers.Python, "-c", script, raw).Output()
		if err != nil {
			b.Fatal(err)
		}
		f := strings.Fields(string(out))
		theirs, _ := strconv.ParseFloat(f[0], 64)
		var sum float64
		factor := RadialFactor(r)
		for _, d := range got {
			sum += math.Round(d / factor)
		}
		b.Logf("%d points, R %g: pctk cpu %.3f s, scipy %s cKDTree %.3f s: pctk %.1f× (neighbours in all: pctk %.0f, scipy %s)",
			len(got), r, ours, f[1], theirs, theirs/ours, sum, f[2])
	}
}
