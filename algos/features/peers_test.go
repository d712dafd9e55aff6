package features

import (
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/internal/peers"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/fntest"
)

// peerQueries is about how many points of a scan the numpy reference
// computes (brute force over the whole scan for each).
const peerQueries = 400

// peerPoints bounds the points of a scan the comparison runs on.
const peerPoints = 10000

// pdalScript computes PDAL's covariance features of some points of a cloud
// in numpy, from PDAL's source (filters/CovarianceFeaturesFilter.cpp,
// setDimensionality; pdal/private/MathUtils.cpp, computeCentroid and
// computeCovariance) with brute-force neighbourhoods: the k+1 nearest (the
// point first) or those with d² < r² (nanoflann's strict test), skipped
// below min_k 3. Arguments: the cloud (float64 x, y, z), the query indices
// (int64), then for each run k, r (0: k nearest), mode and an output
// file. Per query it writes rowLen float64: the 10 features in the order
// of the Feature constants from offsets kept in float64; the gaps
// (λ1-λ2)/λ1, (λ2-λ3)/λ1 and λ3/λ1; a flag: 0 computed, 1 skipped, 2
// ambiguous (a neighbour within 1e-6 relative of the radius or of the k-th
// distance, where float32 and float64 distances may choose differently);
// then the 10 features again with PDAL's rounding of the offsets from the
// centroid to float, which pctk does not reproduce (docs/features.md).
const pdalScript = `
import sys
import numpy as np
xyz = np.fromfile(sys.argv[1], dtype='<f8').reshape(-1, 3)
qs = np.fromfile(sys.argv[2], dtype='<i8')

def feats(a, mode):
  b = a.T @ a / (len(a) - 1)
  if np.all(np.abs(b) <= 1e-12):
    return None, None
  ev, vec = np.linalg.eigh(b)
  lam = np.maximum(ev[::-1], 0.0)
  s = lam.sum()
  gaps = [(lam[0] - lam[1]) / lam[0], (lam[1] - lam[2]) / lam[0], lam[2] / lam[0]]
  if mode == 'sqrt':
    lam = np.sqrt(lam)
  elif mode == 'normalized':
    lam = lam / s
  v1, v2, v3 = vec[:, 2], vec[:, 1], vec[:, 0]
  u = lam[0] * np.abs(v1) + lam[1] * np.abs(v2) + lam[2] * np.abs(v3)
  with np.errstate(divide='ignore', invalid='ignore'):
    ent = -(lam[2] * np.log(lam[2]) + lam[1] * np.log(lam[1]) + lam[0] * np.log(lam[0]))
  return [(lam[0] - lam[1]) / lam[0], (lam[1] - lam[2]) / lam[0], lam[2] / lam[0],
          u[2] / np.linalg.norm(u), np.cbrt(lam[2] * lam[1] * lam[0]), (lam[0] - lam[2]) / lam[0],
          ent, s, lam[2] / s, 1 - abs(v3[2])], gaps

def run(k, r, mode):
  out = np.zeros((len(qs), 24))
  for row, i in enumerate(qs):
    d2 = ((xyz - xyz[i]) ** 2).sum(axis=1)
    if r > 0:
      ids = np.nonzero(d2 < r * r)[0]
      amb = np.any(np.abs(np.sqrt(d2) - r) <= 1e-6 * r)
      if len(ids) < 3:
        out[row, 13] = 1
        continue
    else:
      order = np.argsort(d2, kind='stable')
      kk = min(len(xyz), k + 1)
      ids = order[:kk]
      amb = kk < len(xyz) and d2[order[kk]] - d2[order[kk - 1]] <= 2e-6 * d2[order[kk]]
    p = xyz[ids]
    a = p - p.mean(axis=0)
    f, gaps = feats(a, mode)
    if f is None:
      out[row, 13] = 1
      continue
    out[row, :10], out[row, 10:13], out[row, 13] = f, gaps, 2 if amb else 0
    f32, _ = feats(a.astype(np.float32).astype(np.float64), mode)
    out[row, 14:] = f32 if f32 is not None else 0
  return out

args = sys.argv[3:]
for j in range(0, len(args), 4):
  run(int(args[j]), float(args[j + 1]), args[j + 2]).astype('<f8').tofile(args[j + 3])
`

// rowLen is the number of float64 pdalScript writes per query.
const rowLen = 24

// TestAgainstPDALDefinition compares every backend with a numpy
// implementation of PDAL's filter on real scans (PDAL itself is not
// packaged by Debian 12), for k nearest and radius neighbourhoods and each
// mode, on about peerQueries points of each scan.
func TestAgainstPDALDefinition(t *testing.T) {
	algotest.RequirePeer(t, "numpy for "+peers.Python+" (Debian python3-numpy)", exec.Command(peers.Python, "-c", "import numpy").Run())
	for _, scan := range []string{"pcd/bun0.pcd", "las/haystack_rock.las"} {
		xyz := algotest.Scan(t, scan)
		n := len(xyz) / 3
		bs := fntest.Usable(t)
		if n > peerPoints {
			// The brute backend is O(N²): every s-th point, so that the
			// test takes seconds.
			s := (n + peerPoints - 1) / peerPoints
			var sub []float32
			for i := 0; i < n; i += s {
				sub = append(sub, xyz[3*i:3*i+3]...)
			}
			xyz, n = sub, len(sub)/3
		}
		spacing := algotest.MedianSpacing(t, findneighbor.Brute(), xyz)
		dir := t.TempDir()
		cloud, queries := filepath.Join(dir, "xyz.f64"), filepath.Join(dir, "q.i64")
		stride := max(1, n/peerQueries)
		var qs []int
		for i := 0; i < n; i += stride {
			qs = append(qs, i)
		}
		writeLE(t, cloud, len(xyz), func(i int) uint64 { return math.Float64bits(float64(xyz[i])) })
		writeLE(t, queries, len(qs), func(i int) uint64 { return uint64(qs[i]) })
		opts := []Options{{K: 10}, {K: 30, Mode: Raw}, {Radius: 4 * spacing}, {Radius: 8 * spacing, Mode: Normalized}}
		args := []string{"-c", pdalScript, cloud, queries}
		for j, o := range opts {
			args = append(args, strconv.Itoa(o.K), strconv.FormatFloat(o.Radius, 'g', -1, 64), o.Mode.String(), filepath.Join(dir, strconv.Itoa(j)))
		}
		if msg, err := exec.Command(peers.Python, args...).CombinedOutput(); err != nil {
			t.Fatalf("numpy reference: %v\n%s", err, msg)
		}
		for j, o := range opts {
			o.Features = All()
			ref := readLE(t, filepath.Join(dir, strconv.Itoa(j)), rowLen*len(qs))
			for _, b := range bs {
				r, err := Compute(xyz, b, o)
				if err != nil {
					t.Fatal(err)
				}
				compared, ambiguous, bad, rounding := 0, 0, 0, 0
				for q, i := range qs {
					row := ref[rowLen*q : rowLen*q+rowLen]
					switch row[13] {
					case 2:
						ambiguous++
						continue
					case 1:
						row = make([]float64, rowLen) // PDAL leaves 0
					}
					compared++
					cond := [3]float64(row[10:13])
					wrong, rounded := false, false
					for j, f := range r.Features {
						got := r.Values[j][i]
						rounded = rounded || !agree(f, got, row[14+f], cond)
						if !agree(f, got, row[f], cond) {
							if wrong = true; bad < 5 {
								t.Errorf("%s %s (%d points) K %d radius %g mode %s: point %d %s = %.12g, numpy %.12g (gaps, λ3/λ1 %.3g)",
									b.Name(), scan, n, o.K, o.Radius, o.Mode, i, f, got, row[f], cond)
							}
						}
					}
					if wrong {
						bad++
					}
					if rounded {
						rounding++
					}
				}
				if compared < len(qs)*9/10 {
					t.Errorf("%s %s %+v: only %d of %d points compared (%d ambiguous)", b.Name(), scan, o, compared, len(qs), ambiguous)
				}
				t.Logf("%s %s (%d points) K %d radius %.4g mode %s: %d points agree with numpy, %d differ, %d ambiguous left out; %d beyond the tolerances from PDAL's float offsets",
					b.Name(), scan, n, o.K, o.Radius, o.Mode, compared-bad, bad, ambiguous, rounding)
			}
		}
	}
}

func writeLE(t *testing.T, path string, n int, v func(i int) uint64) {
	t.Helper()
	buf := make([]byte, 8*n)
	for i := range n {
		binary.LittleEndian.PutUint64(buf[8*i:], v(i))
	}
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		t.Fatal(err)
	}
}

func readLE(t *testing.T, path string, n int) []float64 {
	t.Helper()
	buf, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(buf) != 8*n {
		t.Fatalf("%s: %d bytes, want %d", path, len(buf), 8*n)
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = math.Float64frombits(binary.LittleEndian.Uint64(buf[8*i:]))
	}
	return out
}
