package cpu_test

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	fn "github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/cpu"
)

// BenchmarkVsCKDTree runs pctk's cpu backend and scipy's cKDTree
// (bench/ckdtree.py, Debian's python3-scipy) side by side in one run, on
// the same points file and radius, each in its own process so that peak
// memory is measured alike (VmHWM over the resident size before loading,
// as a multiple of the float32 input's size; the input itself counts). It reports both times and their
// ratio; bench/compare.sh runs it.
func BenchmarkVsCKDTree(b *testing.B) {
	if _, err := exec.Command("/usr/bin/python3", "-c", "import scipy.spatial").CombinedOutput(); err != nil {
		b.Skip("/usr/bin/python3 with scipy not found (apt-get install python3-scipy)")
	}
	for _, sz := range benchSizes {
		for _, k := range []int{30, 250} {
			b.Run(fmt.Sprintf("N=%s/k=%d", sz.name, k), func(b *testing.B) {
				xyz := uniformCloud(sz.n)
				eps := epsFor(sz.n, k)
				path := filepath.Join(b.TempDir(), "points.f32")
				if err := writePoints(path, xyz); err != nil {
					b.Fatal(err)
				}
				input := float64(len(xyz) * 4)
				for b.Loop() {
					peer, err := runPeer(path, eps, compareRepeat(sz.n))
					if err != nil {
						b.Fatal(err)
					}
					own, err := runOwn(path, eps, compareRepeat(sz.n), false)
					if err != nil {
						b.Fatal(err)
					}
					reuse, err := runOwn(path, eps, compareRepeat(sz.n), true)
					if err != nil {
						b.Fatal(err)
					}
					if own.Sum != peer.Sum {
						// Only pairs at distance ε (float32 here, float64 there) may differ.
						b.Logf("neighbour sums differ: pctk %d, cKDTree %d", own.Sum, peer.Sum)
					}
					b.ReportMetric(own.CountsS, "pctk-counts-s")
					b.ReportMetric(peer.CountsS, "ckdtree-counts-s")
					b.ReportMetric(peer.CountsS/own.CountsS, "counts-speedup")
					b.ReportMetric((peer.BuildS+peer.CountsS)/(own.BuildS+own.CountsS), "build+counts-speedup")
					b.ReportMetric(float64(own.PeakBytes)/input, "pctk-peak-x-input")
					b.ReportMetric(float64(peer.PeakBytes)/input, "ckdtree-peak-x-input")
					b.ReportMetric(reuse.CountsS, "pctk-reuse-counts-s")
					b.ReportMetric(float64(reuse.PeakBytes)/input, "pctk-reuse-peak-x-input")
				}
			})
		}
	}
}

// compareResult is what each side of the comparison reports.
type compareResult struct {
	N         int     `json:"n"`
	BuildS    float64 `json:"build_s"`
	CountsS   float64 `json:"counts_s"`
	Sum       int64   `json:"sum"`
	PeakBytes int64   `json:"peak_bytes"`
}

// compareRepeat is how often each side repeats build and count (best
// kept): twice up to a million points, once above (cKDTree needs many
// minutes for ten million).
func compareRepeat(n int) int {
	if n > 1_000_000 {
		return 1
	}
	return 2
}

func writePoints(path string, xyz []float32) error {
	buf := make([]byte, 4*len(xyz))
	for i, v := range xyz {
		binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(v))
	}
	return os.WriteFile(path, buf, 0o644)
}

func runPeer(path string, eps float32, repeat int) (compareResult, error) {
	out, err := exec.Command("/usr/bin/python3", "bench/ckdtree.py", path, strconv.FormatFloat(float64(eps), 'g', -1, 32), strconv.Itoa(repeat)).Output()
	var r compareResult
	if err != nil {
		return r, fmt.Errorf("ckdtree.py: %v", err)
	}
	return r, json.Unmarshal(out, &r)
}

// runOwn runs TestCompareChild in a fresh copy of this test binary, with
// BuildOptions.Reuse when reuse is set.
func runOwn(path string, eps float32, repeat int, reuse bool) (compareResult, error) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestCompareChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "PCTK_COMPARE_CHILD="+path+":"+strconv.FormatFloat(float64(eps), 'g', -1, 32)+":"+strconv.Itoa(repeat)+":"+strconv.FormatBool(reuse))
	out, err := cmd.Output()
	var r compareResult
	if err != nil {
		return r, fmt.Errorf("child: %v: %s", err, out)
	}
	line, _, _ := strings.Cut(string(out), "\n")
	return r, json.Unmarshal([]byte(line), &r)
}

// TestCompareChild is pctk's side of BenchmarkVsCKDTree, run in a child
// process; it does nothing otherwise.
func TestCompareChild(t *testing.T) {
	spec := os.Getenv("PCTK_COMPARE_CHILD")
	if spec == "" {
		t.Skip("only run by BenchmarkVsCKDTree")
	}
	parts := strings.Split(spec, ":")
	if len(parts) != 4 {
		t.Fatalf("PCTK_COMPARE_CHILD = %q, want PATH:EPS:REPEAT:REUSE", spec)
	}
	reuse := parts[3] == "true"
	eps, err := strconv.ParseFloat(parts[1], 32)
	if err != nil {
		t.Fatal(err)
	}
	repeat, err := strconv.Atoi(parts[2])
	if err != nil {
		t.Fatal(err)
	}
	base := procStatus("VmRSS")
	xyz, err := readPoints(parts[0])
	if err != nil {
		t.Fatal(err)
	}
	r := compareResult{N: len(xyz) / 3, BuildS: math.Inf(1), CountsS: math.Inf(1)}
	counts := make([]uint32, r.N)
	for it := range repeat {
		if reuse && it > 0 {
			// The last round's Build rearranged the points in place.
			if xyz, err = readPoints(parts[0]); err != nil {
				t.Fatal(err)
			}
		}
		t0 := time.Now()
		ix, err := cpu.Backend().Build(xyz, float32(eps), fn.BuildOptions{Reuse: reuse})
		if err != nil {
			t.Fatal(err)
		}
		t1 := time.Now()
		if err := ix.Counts(nil, counts); err != nil {
			t.Fatal(err)
		}
		r.BuildS, r.CountsS = min(r.BuildS, t1.Sub(t0).Seconds()), min(r.CountsS, time.Since(t1).Seconds())
		if it == 0 {
			// The peak of one build and count: later repeats would add
			// the previous index, not yet collected.
			r.PeakBytes = procStatus("VmHWM") - base
		}
		ix.Close()
	}
	for _, c := range counts {
		r.Sum += int64(c)
	}
	out, _ := json.Marshal(r)
	fmt.Println(string(out))
}

// readPoints reads a file of little-endian float32 values straight into
// the slice, as numpy.fromfile does, so the input is held once.
func readPoints(path string) ([]float32, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	xyz := make([]float32, st.Size()/4)
	if len(xyz) == 0 {
		return xyz, nil
	}
	_, err = io.ReadFull(f, unsafe.Slice((*byte)(unsafe.Pointer(&xyz[0])), 4*len(xyz)))
	if binary.NativeEndian.Uint16([]byte{1, 0}) != 1 {
		for k, v := range xyz {
			xyz[k] = math.Float32frombits(bits.ReverseBytes32(math.Float32bits(v)))
		}
	}
	return xyz, err
}

// procStatus returns a memory field of /proc/self/status (VmRSS, VmHWM) in
// bytes. Not getrusage: Linux carries ru_maxrss over from the forking
// parent across exec, which hid the child's own peak.
func procStatus(field string) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb * 1024
		}
	}
	return 0
}
