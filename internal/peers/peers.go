// Package peers runs the tools pctk's algorithms are compared with —
// scikit-learn's DBSCAN and Open3D through Debian's /usr/bin/python3, PCL's
// command-line tools and CloudCompare's command line — on the same points,
// and reads back their answers and their own timings. It is the one place
// that holds the peers' scripts and invocations, shared by the cross-checks
// in algos/*/ tests and by "pctk bench --peers".
//
// Every function returns an error naming the tool when the tool fails; a
// missing tool is reported by Available, so that callers can skip (tests)
// or write "not installed" (bench) instead of failing.
package peers

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/pcd"
	"github.com/pctk/pctk/io/pcio"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// Python is Debian's interpreter, where python3-sklearn and python3-open3d
// install (.ci/deps/debian-peers.sh).
const Python = "/usr/bin/python3"

// The peers, by the names Available and Version take.
const (
	Sklearn      = "scikit-learn"
	Open3D       = "Open3D"
	PCL          = "PCL"
	CloudCompare = "CloudCompare"
)

// Available reports whether the peer can run here, and if not, why.
func Available(peer string) error {
	switch peer {
	case Sklearn:
		return pythonImport("sklearn")
	case Open3D:
		return pythonImport("open3d")
	case PCL:
		for _, exe := range []string{"pcl_outlier_removal", "pcl_normal_estimation"} {
			if _, err := exec.LookPath(exe); err != nil {
				return fmt.Errorf("%s not found (Debian pcl-tools)", exe)
			}
		}
		return nil
	case CloudCompare:
		if _, err := exec.LookPath("CloudCompare"); err != nil {
			return fmt.Errorf("CloudCompare not found (Debian cloudcompare)")
		}
		return nil
	case PDAL:
		_, err := PDALRun()
		return err
	case GDAL:
		return pythonImport("osgeo.gdal")
	}
	return fmt.Errorf("peers: unknown peer %q", peer)
}

func pythonImport(module string) error {
	out, err := exec.Command(Python, "-c", "import "+module).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s -c 'import %s': %v: %s", Python, module, err, lastLine(out))
	}
	return nil
}

// Version returns the peer's version as it reports it (the Python
// module's __version__) or as its Debian package names it (PCL's tools and
// CloudCompare print none); "unknown" when neither says.
func Version(peer string) string {
	var v []byte
	var err error
	switch peer {
	case Sklearn:
		v, err = exec.Command(Python, "-c", "import sklearn; print(sklearn.__version__)").Output()
	case Open3D:
		v, err = exec.Command(Python, "-c", "import open3d; print(open3d.__version__)").Output()
	case PCL:
		v, err = exec.Command("dpkg-query", "-W", "-f", "${Version}", "pcl-tools").Output()
	case CloudCompare:
		v, err = exec.Command("dpkg-query", "-W", "-f", "${Version}", "cloudcompare").Output()
	case PDAL:
		v = []byte(pdalVersion())
	case GDAL:
		v, err = exec.Command(Python, "-c", "from osgeo import gdal; print(gdal.__version__)").Output()
	}
	if s := strings.TrimSpace(string(v)); err == nil && s != "" {
		return s
	}
	return "unknown"
}

func lastLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// Timed is a peer's answer to one job: the operation's seconds as the peer
// times it (no file I/O), the whole process's wall time (shared by the jobs
// of one process) and the raw answer.
type Timed struct {
	// Seconds and CPU are the call's wall and process CPU seconds.
	Seconds, CPU float64
	Process      time.Duration
	raw          []byte
}

// Ints decodes an answer of little-endian int64 values (kept indices).
func (t Timed) Ints() []int {
	v := make([]int, len(t.raw)/8)
	for i := range v {
		v[i] = int(int64(binary.LittleEndian.Uint64(t.raw[8*i:])))
	}
	return v
}

// Float64s decodes an answer of little-endian float64 values.
func (t Timed) Float64s() []float64 {
	v := make([]float64, len(t.raw)/8)
	for i := range v {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(t.raw[8*i:]))
	}
	return v
}

// Int32s decodes an answer of little-endian int32 values (labels).
func (t Timed) Int32s() []int32 {
	v := make([]int32, len(t.raw)/4)
	for i := range v {
		v[i] = int32(binary.LittleEndian.Uint32(t.raw[4*i:]))
	}
	return v
}

// runJobs runs a Python script that writes each job's answer to
// DIR/<k> and prints "<k> <seconds> <cpu seconds>" per job, and reads the
// answers.
func runJobs(tool, script string, args []string, dir string, jobs int) ([]Timed, error) {
	start := time.Now()
	cmd := exec.Command(Python, append([]string{"-c", script}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	wall := time.Since(start)
	if err != nil {
		return nil, fmt.Errorf("%s: %v\n%s", tool, err, stderr.Bytes())
	}
	res := make([]Timed, jobs)
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var k int
		var s, cpu float64
		if _, err := fmt.Sscan(line, &k, &s, &cpu); err != nil || k < 0 || k >= jobs {
			return nil, fmt.Errorf("%s printed %q, want \"JOB SECONDS CPU-SECONDS\"", tool, line)
		}
		raw, err := os.ReadFile(filepath.Join(dir, strconv.Itoa(k)))
		if err != nil {
			return nil, fmt.Errorf("%s: %v", tool, err)
		}
		res[k] = Timed{Seconds: s, CPU: cpu, Process: wall, raw: raw}
		seen++
	}
	if seen != jobs {
		return nil, fmt.Errorf("%s answered %d of %d jobs:\n%s", tool, seen, jobs, out)
	}
	return res, nil
}

// sklearnScript runs scikit-learn's DBSCAN for each (eps, min_samples) job
// of argv[3] (JSON) on the float64 points in argv[1]; job k writes labels
// (int32) then core flags (uint8) into argv[2]/k and prints "k seconds
// cpu-seconds" of fit() alone.
const sklearnScript = `
import json, sys, time
import numpy as np
from sklearn.cluster import DBSCAN
X = np.fromfile(sys.argv[1], dtype="<f8").reshape(-1, 3)
for k, (eps, m) in enumerate(json.loads(sys.argv[3])):
    t, c = time.perf_counter(), time.process_time()
    db = DBSCAN(eps=eps, min_samples=m, n_jobs=-1).fit(X)
    s, c = time.perf_counter() - t, time.process_time() - c
    core = np.zeros(len(X), dtype="u1")
    core[db.core_sample_indices_] = 1
    with open(f"{sys.argv[2]}/{k}", "wb") as f:
        f.write(db.labels_.astype("<i4").tobytes() + core.tobytes())
    print(k, s, c, flush=True)
`

// DBSCANJob is one scikit-learn run: ε and min_samples (the point itself
// counts, as in pctk).
type DBSCANJob struct {
	Eps    float64
	MinPts int
}

// DBSCANAnswer is scikit-learn's clustering of one job.
type DBSCANAnswer struct {
	Timed
	Labels []int32
	Core   []bool
}

// SklearnDBSCAN runs scikit-learn's DBSCAN (n_jobs=-1) on xyz, converted
// exactly to float64, once per job in one process, working in dir.
func SklearnDBSCAN(dir string, xyz []float32, jobs []DBSCANJob) ([]DBSCANAnswer, error) {
	pts := make([]byte, 8*len(xyz))
	for i, v := range xyz {
		binary.LittleEndian.PutUint64(pts[8*i:], math.Float64bits(float64(v)))
	}
	in := filepath.Join(dir, "points.f64")
	if err := os.WriteFile(in, pts, 0o644); err != nil {
		return nil, err
	}
	pairs := make([][2]float64, len(jobs))
	for k, j := range jobs {
		pairs[k] = [2]float64{j.Eps, float64(j.MinPts)}
	}
	spec, _ := json.Marshal(pairs)
	res, err := runJobs(Sklearn, sklearnScript, []string{in, dir, string(spec)}, dir, len(jobs))
	if err != nil {
		return nil, err
	}
	n := len(xyz) / 3
	out := make([]DBSCANAnswer, len(res))
	for k, r := range res {
		if len(r.raw) != 5*n {
			return nil, fmt.Errorf("%s job %d: %d bytes for %d points", Sklearn, k, len(r.raw), n)
		}
		a := DBSCANAnswer{Timed: r, Labels: make([]int32, n), Core: make([]bool, n)}
		for i := range n {
			a.Labels[i] = int32(binary.LittleEndian.Uint32(r.raw[4*i:]))
			a.Core[i] = r.raw[4*n+i] == 1
		}
		out[k] = a
	}
	return out, nil
}

// open3DScript runs each job of argv[3:] on the PCD argv[1] (binary: Open3D
// parses ASCII floats straight to double, a few 1e-9 away from the float32
// the file means) and writes job k's answer into argv[2]/k:
//
//	r:M:R      remove_radius_outlier(nb_points=M, radius=R): kept indices, int64
//	s:K:S      remove_statistical_outlier(nb_neighbors=K, std_ratio=S): kept indices, int64
//	n:K:R      estimate_normals with KDTreeSearchParamKNN(K) (R = 0),
//	           KDTreeSearchParamRadius(R) (K = 0) or KDTreeSearchParamHybrid:
//	           normals then points, float64 triples
//	d:EPS:M    cluster_dbscan(eps=EPS, min_points=M): labels, int32
//
// and prints "k seconds cpu-seconds" of the call alone.
const open3DScript = `
import sys, time
import numpy as np
import open3d as o3d
pc = o3d.io.read_point_cloud(sys.argv[1])
G = o3d.geometry
for k, job in enumerate(sys.argv[3:]):
    kind, a, b = job.split(":")
    q = pc
    if kind == "n":
        q = o3d.geometry.PointCloud(pc)
        K, R = int(a), float(b)
        p = G.KDTreeSearchParamKNN(K) if R == 0 else G.KDTreeSearchParamRadius(R) if K == 0 else G.KDTreeSearchParamHybrid(radius=R, max_nn=K)
    t, c = time.perf_counter(), time.process_time()
    if kind == "r":
        _, ind = q.remove_radius_outlier(nb_points=int(a), radius=float(b))
    elif kind == "s":
        _, ind = q.remove_statistical_outlier(nb_neighbors=int(a), std_ratio=float(b))
    elif kind == "n":
        q.estimate_normals(p)
    else:
        labels = np.asarray(q.cluster_dbscan(eps=float(a), min_points=int(b)))
    s, c = time.perf_counter() - t, time.process_time() - c
    if kind in "rs":
        data = np.asarray(ind, dtype="<i8").tobytes()
    elif kind == "n":
        data = np.asarray(q.normals, dtype="<f8").tobytes() + np.asarray(q.points, dtype="<f8").tobytes()
    else:
        data = labels.astype("<i4").tobytes()
    with open(f"{sys.argv[2]}/{k}", "wb") as f:
        f.write(data)
    print(k, s, c, flush=True)
`

// RadiusJob is remove_radius_outlier(nb_points=minNeighbors, radius), for
// RunOpen3D.
func RadiusJob(minNeighbors int, radius float64) string {
	return fmt.Sprintf("r:%d:%s", minNeighbors, fmtFloat(radius))
}

// StatisticalJob is remove_statistical_outlier(nb_neighbors=k, std_ratio=s).
func StatisticalJob(k int, s float64) string { return fmt.Sprintf("s:%d:%s", k, fmtFloat(s)) }

// NormalsJob is estimate_normals with KNN k (radius 0), a radius search (k
// 0) or the hybrid search (both).
func NormalsJob(k int, radius float64) string { return fmt.Sprintf("n:%d:%s", k, fmtFloat(radius)) }

// DBSCANJobO3D is cluster_dbscan(eps, min_points).
func DBSCANJobO3D(eps float64, minPts int) string {
	return fmt.Sprintf("d:%s:%d", fmtFloat(eps), minPts)
}

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// RunOpen3D runs the jobs (RadiusJob, StatisticalJob, NormalsJob,
// DBSCANJobO3D) on the binary PCD pcd in one Python process, working in
// dir, and returns their answers in job order: decode a removal's with Ints
// (sorted kept indices), normals' with Float64s (3n normal components, then
// 3n coordinates as Open3D read them), DBSCAN's with Int32s.
func RunOpen3D(dir, pcd string, jobs ...string) ([]Timed, error) {
	return runJobs(Open3D, open3DScript, append([]string{pcd, dir}, jobs...), dir, len(jobs))
}

// ToolRun is a run of a peer's command-line tool.
type ToolRun struct {
	// Seconds is the operation's time as the tool prints it.
	Seconds float64
	// Process and CPU are the whole process's wall and CPU (user +
	// system) time.
	Process, CPU time.Duration
	// Output is what the tool printed (stdout and stderr).
	Output []byte
}

// Run runs exe with args and times the whole process.
func Run(exe string, args ...string) (ToolRun, error) { return runTool(exe, args, nil, nil, 0) }

// runTool runs exe with args and extracts the tool's own timing with re
// (its first group, in units of scale seconds).
func runTool(exe string, args []string, env []string, re *regexp.Regexp, scale float64) (ToolRun, error) {
	cmd := exec.Command(exe, args...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	start := time.Now()
	out, err := cmd.CombinedOutput()
	r := ToolRun{Process: time.Since(start), Output: out}
	if cmd.ProcessState != nil {
		r.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	if err != nil {
		return r, fmt.Errorf("%s %s: %v\n%s", exe, strings.Join(args, " "), err, out)
	}
	if re == nil {
		return r, nil
	}
	m := re.FindSubmatch(out)
	if m == nil {
		return r, fmt.Errorf("%s printed no timing matching %q:\n%s", exe, re, out)
	}
	v, err := strconv.ParseFloat(string(m[1]), 64)
	r.Seconds = v * scale
	return r, err
}

// pclFilterTime is pcl_outlier_removal's timing of the filter itself (its
// TicToc around filter(), printed in ms).
var pclFilterTime = regexp.MustCompile(`Computing filtered cloud.*\[done, ([0-9.eE+-]+) ms`)

// PCLOutlierRemoval runs pcl_outlier_removal in out with args ("-method
// radius -radius R -min_pts M" or "-method statistical -mean_k K
// -std_dev_mul S").
func PCLOutlierRemoval(in, out string, args ...string) (ToolRun, error) {
	return runTool("pcl_outlier_removal", append([]string{in, out}, args...), nil, pclFilterTime, 1e-3)
}

// pclNormalsTime matches pcl_normal_estimation's own timing of
// NormalEstimation.
var pclNormalsTime = regexp.MustCompile(`Computed normals in ([0-9.eE+-]+) ms`)

// PCLNormalEstimation runs pcl_normal_estimation in out with args ("-k K"
// or "-radius R").
func PCLNormalEstimation(in, out string, args ...string) (ToolRun, error) {
	return runTool("pcl_normal_estimation", append([]string{in, out}, args...), nil, pclNormalsTime, 1e-3)
}

// ccNormalsTime is CloudCompare's own timing of its octree normals.
var ccNormalsTime = regexp.MustCompile(`\[ComputeCloudNormals\] Timing: ([0-9.eE+-]+) s`)

// CloudCompareRun runs CloudCompare's command line headless
// (QT_QPA_PLATFORM=offscreen, -SILENT) on the ASCII cloud in ("x y z
// index" lines), applying op (nil: none; "-SOR K S"; "-OCTREE_NORMALS R"),
// and saves the result as ASCII (9 decimals; the index is its scalar
// field) to out. CloudCompare 2.11 times its octree normals
// ("[ComputeCloudNormals] Timing") but not its SOR filter: Seconds is then
// 0 and callers take the difference from a run without op.
func CloudCompareRun(in, out string, op ...string) (ToolRun, error) {
	args := []string{"-SILENT", "-NO_TIMESTAMP", "-AUTO_SAVE", "OFF", "-C_EXPORT_FMT", "ASC", "-PREC", "9", "-O", in}
	args = append(append(args, op...), "-SAVE_CLOUDS", "FILE", out)
	var re *regexp.Regexp
	if len(op) > 0 && op[0] == "-OCTREE_NORMALS" {
		re = ccNormalsTime
	}
	return runTool("CloudCompare", args, []string{"QT_QPA_PLATFORM=offscreen"}, re, 1)
}

// WriteASCII writes xyz as "x y z index" lines for CloudCompare, each
// coordinate with 9 significant digits, which read back (as double, then
// CloudCompare's float) to the same float32.
func WriteASCII(path string, xyz []float32) error {
	var b bytes.Buffer
	buf := make([]byte, 0, 64)
	for i := range len(xyz) / 3 {
		buf = buf[:0]
		for a := range 3 {
			buf = strconv.AppendFloat(buf, float64(xyz[3*i+a]), 'g', 9, 32)
			buf = append(buf, ' ')
		}
		buf = strconv.AppendInt(buf, int64(i), 10)
		b.Write(append(buf, '\n'))
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// ReadASCII reads CloudCompare's ASCII output of a cloud WriteASCII wrote:
// per line x y z, the index (its scalar field) and any further columns
// (normals), and returns the indices and the further columns.
func ReadASCII(path string) (index []int, extra [][]float64, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v (did CloudCompare write it?)", CloudCompare, err)
	}
	for ln, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Fields(line)
		if len(f) < 4 {
			if len(f) == 0 {
				continue
			}
			return nil, nil, fmt.Errorf("%s:%d: %d columns, want x y z index", path, ln+1, len(f))
		}
		idx, err := strconv.ParseFloat(f[3], 64)
		if err != nil {
			return nil, nil, fmt.Errorf("%s:%d: %v", path, ln+1, err)
		}
		row := make([]float64, len(f)-4)
		for k, s := range f[4:] {
			if row[k], err = strconv.ParseFloat(s, 64); err != nil {
				return nil, nil, fmt.Errorf("%s:%d: %v", path, ln+1, err)
			}
		}
		index, extra = append(index, int(idx)), append(extra, row)
	}
	return index, extra, nil
}

// Snap rounds xyz to multiples of a power of two u with eps ≤ 1024u and
// returns them and u; callers round their radii to multiples of u (or move
// them off the grid's distances, OffGrid). Then every squared distance
// that can decide "within ε" for ε ≤ eps (coordinate differences below
// 2·eps, so below 2¹¹u) is a sum of three squares below 2²²u² each: an
// integer multiple of u² under 2²⁴, held exactly by float32 (pctk) and
// float64 (scikit-learn, Open3D) alike, so the tools agree on every pair,
// including the many at exactly ε on a grid, where unsnapped float32 and
// float64 distances disagree on pairs within rounding of ε. Points move by
// at most u/2 ≤ eps/2048. It fails when a coordinate is too far from the
// origin (2²² steps) to snap exactly.
func Snap(xyz []float32, eps float64) ([]float32, float64, error) {
	u := math.Exp2(math.Ceil(math.Log2(eps / 1024)))
	out := make([]float32, len(xyz))
	for i, v := range xyz {
		q := math.Round(float64(v) / u)
		if math.Abs(q) >= 1<<22 {
			return nil, 0, fmt.Errorf("coordinate %g is %g grid steps of %g from the origin: too far to snap exactly", v, q, u)
		}
		out[i] = float32(q * u)
	}
	return out, u, nil
}

// OffGrid returns the distance nearest r, at least r−u/2, that no two
// points snapped to the grid u (Snap) are apart: r/u an odd multiple of
// 1/2, whose square is never an integer. Radius comparisons then have no
// ties, so tools that count a neighbour at exactly r (pctk, PCL,
// scikit-learn) and tools that do not (Open3D) agree.
func OffGrid(r, u float64) float64 {
	return (math.Floor(r/u) + 0.5) * u
}

// MedianSpacing returns the median of the distances from each point of xyz
// to its 4 nearest neighbours, leaving out duplicates, to scale a radius
// to a cloud. It uses backend b (brute is O(N²)).
func MedianSpacing(b findneighbor.Backend, xyz []float32) (float64, error) {
	const k = 4
	n := len(xyz) / 3
	idx, dist := make([]int32, k*n), make([]float32, k*n)
	if err := findneighbor.KNearestAll(b, xyz, k, findneighbor.BuildOptions{}, idx, dist); err != nil {
		return 0, err
	}
	dist = slices.DeleteFunc(dist, func(d float32) bool { return d == 0 || math.IsInf(float64(d), 1) })
	if len(dist) == 0 {
		return 0, fmt.Errorf("median spacing: every point coincides with its neighbours")
	}
	slices.Sort(dist)
	return float64(dist[len(dist)/2]), nil
}

// WriteIndexedPCD writes xyz as a binary PCD with an extra field "i" (U 4)
// holding each point's index, so that the points a peer keeps can be told
// apart (ReadKept). io/pcd writes coordinates that are all float32 values
// as F 4, so the peers read exactly xyz (binary: Open3D parses ASCII floats
// straight to double, a few 1e-9 away from the float32 the file means).
func WriteIndexedPCD(path string, xyz []float32) error {
	c := core.New(len(xyz) / 3)
	ids := make([]uint32, c.Len())
	for i := range c.Len() {
		c.X[i], c.Y[i], c.Z[i] = float64(xyz[3*i]), float64(xyz[3*i+1]), float64(xyz[3*i+2])
		ids[i] = uint32(i)
	}
	if err := c.SetAttr(core.NewColumn("i", ids)); err != nil {
		return err
	}
	return pcio.WriteAtomic(path, func(w io.Writer) error { return pcd.Encode(w, c, "binary") })
}

// ReadKept returns the sorted indices (field i) of the points a peer wrote
// to the PCD path, from an input WriteIndexedPCD wrote.
func ReadKept(path string) ([]int, error) {
	c, _, err := pcio.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%v (did the peer write it?)", err)
	}
	a := c.Attr("i")
	if a == nil {
		return nil, fmt.Errorf("%s: the peer wrote no field i", path)
	}
	kept := make([]int, c.Len())
	for k := range kept {
		kept[k] = int(a.Int64(k))
	}
	slices.Sort(kept)
	return kept, nil
}

// Kept returns the indices of the points not flagged as outliers, as a
// peer's kept set.
func Kept(outlier []bool) []int {
	kept := []int{}
	for i, o := range outlier {
		if !o {
			kept = append(kept, i)
		}
	}
	return kept
}

// Diff returns the indices in exactly one of the sorted sets a and b.
func Diff(a, b []int) []int {
	var d []int
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || (i < len(a) && a[i] < b[j]):
			d = append(d, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			d = append(d, b[j])
			j++
		default:
			i++
			j++
		}
	}
	return d
}

// sklearnLOFScript runs scikit-learn's LocalOutlierFactor(n_neighbors=k,
// algorithm="kd_tree": distances from coordinate differences, not the
// brute method's dot products) for each k of argv[3:] on the float64
// points in argv[1]; job j writes the k-distances, the local
// reachability densities and the positive outlier factors (float64,
// n each) into argv[2]/j and prints "j seconds cpu-seconds" of fit().
const sklearnLOFScript = `
import sys, time
import numpy as np
from sklearn.neighbors import LocalOutlierFactor
X = np.fromfile(sys.argv[1], dtype="<f8").reshape(-1, 3)
for j, k in enumerate(sys.argv[3:]):
    t, c = time.perf_counter(), time.process_time()
    m = LocalOutlierFactor(n_neighbors=int(k), algorithm="kd_tree").fit(X)
    s, c = time.perf_counter() - t, time.process_time() - c
    kd = m._distances_fit_X_[:, m.n_neighbors_ - 1]
    with open(f"{sys.argv[2]}/{j}", "wb") as f:
        f.write(np.concatenate([kd, m._lrd, -m.negative_outlier_factor_]).astype("<f8").tobytes())
    print(j, s, c, flush=True)
`

// SklearnLOF runs scikit-learn's LocalOutlierFactor on pos (interleaved
// float64 x, y, z) once per k in one process, working in dir; decode each
// answer with Float64s: n k-distances, n local reachability densities,
// then n outlier factors (-negative_outlier_factor_).
func SklearnLOF(dir string, pos []float64, ks ...int) ([]Timed, error) {
	pts := make([]byte, 8*len(pos))
	for i, v := range pos {
		binary.LittleEndian.PutUint64(pts[8*i:], math.Float64bits(v))
	}
	in := filepath.Join(dir, "points.f64")
	if err := os.WriteFile(in, pts, 0o644); err != nil {
		return nil, err
	}
	args := []string{in, dir}
	for _, k := range ks {
		args = append(args, strconv.Itoa(k))
	}
	return runJobs(Sklearn, sklearnLOFScript, args, dir, len(ks))
}
