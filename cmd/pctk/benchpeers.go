package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pctk/pctk/algos/dbscan"
	"github.com/pctk/pctk/algos/denoise"
	"github.com/pctk/pctk/algos/normals"
	"github.com/pctk/pctk/algos/synth"
	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/internal/msg"
	"github.com/pctk/pctk/internal/peers"
	"github.com/pctk/pctk/internal/scratch"
	"github.com/pctk/pctk/io/pcio"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/stage"
	"github.com/urfave/cli/v2"
)

// benchPeerFlags are bench's flags for --peers (benchpeers.go).
var benchPeerFlags = []cli.Flag{
	&cli.BoolFlag{Name: "peers", Usage: "compare pctk's dbscan, normals, sor and ror with scikit-learn, Open3D, PCL and CloudCompare where installed, on FILEs and --synth scenes"},
	&cli.StringFlag{Name: "synth", Usage: "with --peers: comma list of synthetic scenes of --points points: street, blobs, uniform (default: street without FILE, none with FILEs)"},
	&cli.StringFlag{Name: "markdown", Usage: "with --peers: also write the table as Markdown to `FILE`"},
	&cli.StringFlag{Name: "chart", Usage: "with --peers: write a bar chart of the peers' time ratios to pctk as PNG to `FILE`"},
}

// peerOps are the operations bench --peers compares.
var peerOps = []string{"dbscan", "normals", "sor", "ror"}

// Parameters of the comparisons, in units of the cloud's median spacing s
// (the median distance to the 4 nearest other points) where they are
// lengths.
const (
	peerMinPts   = 10  // DBSCAN min_pts (min_samples, min_points)
	peerEps      = 3.0 // DBSCAN ε, × s
	peerNormalsK = 10  // normals: the point and its 9 nearest
	peerNormalsR = 3.0 // normals by radius (CloudCompare), × s
	peerSORK     = 20  // statistical removal: PCL mean_k, Open3D nb_neighbors
	peerSORS     = 2.0 // its std_ratio
	peerRORR     = 2.0 // radius removal radius, × s
	peerRORM     = 4   // its min_pts / nb_points
)

// peerRow is one tool's run of one operation on one cloud.
type peerRow struct {
	Op, Cloud string
	Points    int
	Tool      string
	Version   string
	Params    string
	// Seconds is the operation as the tool times itself (no file I/O);
	// Process the whole process (pctk: the same command line run
	// in-process, reading and writing the file).
	Seconds, Process float64
	// Ref is the seconds of the pctk run the row is compared with; Ratio
	// is Seconds / Ref.
	Ref   float64
	Agree string
	// Note marks how Seconds was taken when it is not the tool's own timing.
	Note string
}

// Ratio returns Seconds over the reference pctk run's; 0 when either is missing.
func (r peerRow) Ratio() float64 {
	if r.Seconds <= 0 || r.Ref <= 0 {
		return 0
	}
	return r.Seconds / r.Ref
}

// peerCloud is a cloud bench --peers compares on.
type peerCloud struct {
	name    string
	xyz     []float32 // snapped local coordinates
	spacing float64
	unit    float64 // the snap grid (0: not snapped)
	dir     string  // the cloud's files for the peers
	pcd     string  // binary PCD, x y z as F 4 and the index i as U 4
	ascii   string  // "x y z index" lines for CloudCompare
}

// peerBench is one run of bench --peers.
type peerBench struct {
	c        *cli.Context
	backends []findneighbor.Backend
	have     map[string]error  // peer -> why unavailable (nil: available)
	versions map[string]string // tool -> version
	rows     []peerRow
}

func runBenchPeers(c *cli.Context) error {
	ops := peerOps
	if c.IsSet("ops") {
		ops = strings.Split(c.String("ops"), ",")
		for _, op := range ops {
			if !slices.Contains(peerOps, op) {
				return stage.Usagef("--ops with --peers: unknown op %q (want %s)", op, strings.Join(peerOps, ", "))
			}
		}
	}
	var scenes []string
	if s := c.String("synth"); s != "" {
		scenes = strings.Split(s, ",")
	} else if c.NArg() == 0 {
		scenes = []string{"street"}
	}
	for _, s := range scenes {
		if _, ok := synthKinds[s]; !ok {
			return stage.Usagef("--synth: unknown scene %q (street, blobs, uniform)", s)
		}
	}
	if c.Int("points") < 1 {
		return stage.Usagef("--points must be positive")
	}
	if err := stage.CheckOutputs(c, c.String("markdown"), c.String("chart")); err != nil {
		return err
	}
	pb := &peerBench{c: c, have: map[string]error{}, versions: map[string]string{"pctk": version()}}
	var err error
	if pb.backends, err = peerBackends(c); err != nil {
		return err
	}
	for _, p := range []string{peers.Sklearn, peers.Open3D, peers.PCL, peers.CloudCompare} {
		pb.have[p] = peers.Available(p)
		if pb.have[p] == nil {
			pb.versions[p] = peers.Version(p)
		}
	}
	tmp, err := scratch.MkdirTemp("", "bench-peers")
	if err != nil {
		return err
	}
	defer scratch.Remove(tmp)

	var clouds []string
	for _, s := range scenes {
		clouds = append(clouds, "synth:"+s)
	}
	clouds = append(clouds, c.Args().Slice()...)
	for k, name := range clouds {
		pc, err := pb.loadCloud(name, filepath.Join(tmp, strconv.Itoa(k)))
		if err != nil {
			return err
		}
		msg.Infof("bench --peers: %s, %s, median spacing %.4g", pc.name, stage.Count(len(pc.xyz)/3, "point"), pc.spacing)
		for _, op := range ops {
			if err := pb.runOp(op, pc); err != nil {
				return fmt.Errorf("bench --peers %s on %s: %w", op, pc.name, err)
			}
		}
		// The cloud's files are not needed any more.
		os.RemoveAll(pc.dir)
	}
	pb.printTable(os.Stdout)
	if p := c.String("markdown"); p != "" {
		if err := stage.WriteFile(c, p, pb.writeMarkdown); err != nil {
			return err
		}
	}
	if p := c.String("chart"); p != "" {
		if err := stage.WriteFile(c, p, pb.writeChart); err != nil {
			return err
		}
	}
	return nil
}

// peerBackends returns the backends to time: --backends when given, else
// every backend that runs here but brute force (brute alone when none does).
func peerBackends(c *cli.Context) ([]findneighbor.Backend, error) {
	var out []findneighbor.Backend
	if c.IsSet("backends") {
		for _, name := range strings.Split(c.String("backends"), ",") {
			if err := stage.CheckBackend("--backends", name); err != nil {
				return nil, err
			}
			b, err := findneighbor.Get(name)
			if err != nil {
				return nil, err
			}
			out = append(out, b)
		}
		return out, nil
	}
	for _, b := range findneighbor.Backends() {
		if _, err := b.Probe(); err == nil && b.Name() != "brute" {
			out = append(out, b)
		}
	}
	if len(out) == 0 {
		out = append(out, findneighbor.Brute())
	}
	return out, nil
}

// loadCloud makes or reads a cloud, snaps it (peers.Snap) to a grid fine
// enough for the largest radius of the comparisons, and writes it for the
// peers into dir.
func (pb *peerBench) loadCloud(name, dir string) (*peerCloud, error) {
	var cloud *core.Cloud
	var err error
	label := name
	if scene, ok := strings.CutPrefix(name, "synth:"); ok {
		label = fmt.Sprintf("synth %s", scene)
		cloud, err = synthKinds[scene](synth.Options{Points: pb.c.Int("points"), Seed: pb.c.Uint64("seed")})
	} else {
		label = filepath.Base(name)
		cloud, _, err = stage.ReadCloud(pb.c, name)
		if err == nil {
			cloud = finitePoints(cloud)
		}
	}
	if err != nil {
		return nil, err
	}
	if cloud.Len() < 2 {
		return nil, fmt.Errorf("%s: %d finite points, want at least 2", name, cloud.Len())
	}
	xyz := cloud.Local(false).XYZ
	pc := &peerCloud{name: label, dir: dir}
	if pc.spacing, err = peers.MedianSpacing(pb.backends[0], xyz); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	maxR := pc.spacing * max(peerEps, peerNormalsR, peerRORR)
	if pc.xyz, pc.unit, err = peers.Snap(xyz, maxR); err != nil {
		msg.Infof("warning: %s: %v; comparing unsnapped points (float32 and float64 may disagree at ties)", name, err)
		pc.xyz, pc.unit = xyz, 0
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	pc.pcd = filepath.Join(dir, "in.pcd")
	if err := peers.WriteIndexedPCD(pc.pcd, pc.xyz); err != nil {
		return nil, err
	}
	if pb.have[peers.CloudCompare] == nil {
		pc.ascii = filepath.Join(dir, "in.xyz")
		if err := peers.WriteASCII(pc.ascii, pc.xyz); err != nil {
			return nil, err
		}
	}
	return pc, nil
}

// radius returns f median spacings, moved off the snap grid's distances
// (peers.OffGrid) so that no pair of points is at exactly that distance.
func (pc *peerCloud) radius(f float64) float64 {
	r := f * pc.spacing
	if pc.unit > 0 {
		r = peers.OffGrid(r, pc.unit)
	}
	return float64(float32(r))
}

// finitePoints drops points with a non-finite coordinate (the NaN pixels of
// organised scans), which no peer takes.
func finitePoints(c *core.Cloud) *core.Cloud {
	var keep []int
	for i := range c.Len() {
		if !math.IsNaN(c.X[i]+c.Y[i]+c.Z[i]) && !math.IsInf(c.X[i]+c.Y[i]+c.Z[i], 0) {
			keep = append(keep, i)
		}
	}
	if len(keep) == c.Len() {
		return c
	}
	return c.Select(keep)
}

// pctkProcess runs a pctk command line in this process, on the cloud's PCD,
// quietly, and returns its wall time: reading, computing and writing, as a
// user running it would see, less the process start.
func pctkProcess(pc *peerCloud, args ...string) (float64, error) {
	out := filepath.Join(pc.dir, "pctk-out.pcd")
	saved := msg.Current
	defer func() { msg.Current = saved }()
	start := time.Now()
	argv := append(append([]string{"pctk", "-q"}, args...), pc.pcd, out, "--force")
	if st := run(argv); st != 0 {
		return 0, fmt.Errorf("%s: exit status %d", strings.Join(argv, " "), st)
	}
	return time.Since(start).Seconds(), nil
}

// add appends a row, filling in the cloud and the version.
func (pb *peerBench) add(pc *peerCloud, r peerRow) {
	r.Cloud, r.Points = pc.name, len(pc.xyz)/3
	if r.Version == "" {
		tool, _, _ := strings.Cut(r.Tool, " ")
		r.Version = pb.versions[tool]
	}
	pb.rows = append(pb.rows, r)
}

// peer runs one peer's comparison, run, when the peer is installed; else it
// adds a "not installed" row. A peer that fails gets a "failed" row and a
// warning, so that one tool's trouble does not lose the others' results.
func (pb *peerBench) peer(pc *peerCloud, op, peer string, run func() error) {
	if err := pb.have[peer]; err != nil {
		msg.Infof("bench --peers: %s: %v", peer, err)
		pb.add(pc, peerRow{Op: op, Tool: peer, Version: "-", Agree: "not installed"})
		return
	}
	if err := run(); err != nil {
		msg.Infof("warning: bench --peers: %s %s on %s: %v", peer, op, pc.name, err)
		msg, _, _ := strings.Cut(err.Error(), "\n")
		pb.add(pc, peerRow{Op: op, Tool: peer, Agree: "failed: " + msg})
	}
}

func (pb *peerBench) runOp(op string, pc *peerCloud) error {
	switch op {
	case "dbscan":
		return pb.benchDBSCAN(pc)
	case "normals":
		return pb.benchNormals(pc)
	case "sor":
		return pb.benchSOR(pc)
	default:
		return pb.benchROR(pc)
	}
}

// timed runs f and returns its wall time in seconds.
func timed(f func() error) (float64, error) {
	t := time.Now()
	err := f()
	return time.Since(t).Seconds(), err
}

// pctkRuns times run on every backend, and args, the same operation as a
// pctk command line without IN and OUT, as the whole-process time
// (pctkProcess); it adds a row for each backend and returns the first
// backend's answer and seconds; the other backends' answers are checked
// against it with agree.
func pctkRuns[T any](pb *peerBench, pc *peerCloud, op, params string, args []string, run func(b findneighbor.Backend) (T, error), agree func(ref, got T) string) (T, float64, error) {
	var ref T
	var refSec float64
	for k, b := range pb.backends {
		var got T
		sec, err := timed(func() (err error) { got, err = run(b); return err })
		if err != nil {
			return ref, 0, fmt.Errorf("pctk %s: %w", b.Name(), err)
		}
		proc, err := pctkProcess(pc, append(slices.Clone(args), "--backend", b.Name())...)
		if err != nil {
			return ref, 0, err
		}
		row := peerRow{Op: op, Tool: "pctk " + b.Name(), Params: params, Seconds: sec, Process: proc, Agree: "reference"}
		if k == 0 {
			ref, refSec = got, sec
		} else {
			row.Agree = agree(ref, got)
		}
		row.Ref = refSec
		pb.add(pc, row)
	}
	return ref, refSec, nil
}

func (pb *peerBench) benchDBSCAN(pc *peerCloud) error {
	eps := pc.radius(peerEps)
	params := fmt.Sprintf("eps %.4g, min_pts %d", eps, peerMinPts)
	cliArgs := []string{"dbscan", "--eps", strconv.FormatFloat(eps, 'g', -1, 64), "--min-pts", strconv.Itoa(peerMinPts)}
	ref, refSec, err := pctkRuns(pb, pc, "dbscan", params, cliArgs, func(b findneighbor.Backend) (*dbscan.Result, error) {
		r, err := dbscan.Cluster(pc.xyz, b, dbscan.Options{Eps: eps, MinPts: []int{peerMinPts}})
		if err != nil {
			return nil, err
		}
		return &r.Results[0], nil
	}, func(ref, got *dbscan.Result) string { return compareClusters(ref, got.Labels, got.Core) })
	if err != nil {
		return err
	}
	pb.peer(pc, "dbscan", peers.Sklearn, func() error {
		a, err := peers.SklearnDBSCAN(pc.dir, pc.xyz, []peers.DBSCANJob{{Eps: eps, MinPts: peerMinPts}})
		if err != nil {
			return err
		}
		pb.add(pc, peerRow{Op: "dbscan", Tool: peers.Sklearn + " DBSCAN", Params: params + ", n_jobs=-1", Seconds: a[0].Seconds,
			Process: a[0].Process.Seconds(), Ref: refSec, Agree: compareClusters(ref, a[0].Labels, a[0].Core)})
		return nil
	})
	pb.peer(pc, "dbscan", peers.Open3D, func() error {
		a, err := peers.RunOpen3D(pc.dir, pc.pcd, peers.DBSCANJobO3D(eps, peerMinPts))
		if err != nil {
			return err
		}
		pb.add(pc, peerRow{Op: "dbscan", Tool: peers.Open3D + " cluster_dbscan", Params: params, Seconds: a[0].Seconds,
			Process: a[0].Process.Seconds(), Ref: refSec, Agree: compareClusters(ref, a[0].Int32s(), nil)})
		return nil
	})
	return nil
}

// compareClusters compares a peer's clustering with pctk's: the partition
// of the core points up to renumbering (pctk's core points when the peer
// names none) and the noise sets. Border points may join any neighbouring
// cluster, so their labels are not compared.
func compareClusters(ref *dbscan.Result, labels []int32, core []bool) string {
	n := len(ref.Labels)
	if len(labels) != n || core != nil && len(core) != n {
		return fmt.Sprintf("answered %d points of %d", len(labels), n)
	}
	coreDiff, noiseDiff, split := 0, 0, 0
	fwd, back := map[int32]int32{}, map[int32]int32{}
	for i := range n {
		if (ref.Labels[i] == dbscan.Noise) != (labels[i] < 0) {
			noiseDiff++
		}
		isCore := ref.Core[i]
		if core != nil && core[i] != isCore {
			coreDiff++
			continue
		}
		if !isCore {
			continue
		}
		a, b := ref.Labels[i], labels[i]
		if m, ok := fwd[a]; ok && m != b {
			split++
			continue
		}
		if m, ok := back[b]; ok && m != a {
			split++
			continue
		}
		fwd[a], back[b] = b, a
	}
	if coreDiff == 0 && noiseDiff == 0 && split == 0 {
		what := "core partition"
		if core == nil {
			what = "partition of pctk's core points"
		}
		return fmt.Sprintf("%s and noise identical (%d clusters, %d noise)", what, len(ref.Sizes), ref.NoiseCount)
	}
	return fmt.Sprintf("%d core flags, %d core labels (renumbered), %d noise flags differ", coreDiff, split, noiseDiff)
}

func (pb *peerBench) benchNormals(pc *peerCloud) error {
	params := fmt.Sprintf("knn %d", peerNormalsK)
	cliArgs := []string{"normals", "--knn", strconv.Itoa(peerNormalsK), "--orient", "none"}
	estimate := func(o normals.Options) func(b findneighbor.Backend) (*normals.Result, error) {
		return func(b findneighbor.Backend) (*normals.Result, error) { return normals.Estimate(pc.xyz, b, o) }
	}
	agree := func(ref, got *normals.Result) string {
		return compareNormals(ref, got.NormalX, got.NormalY, got.NormalZ)
	}
	ref, refSec, err := pctkRuns(pb, pc, "normals", params, cliArgs, estimate(normals.Options{K: peerNormalsK}), agree)
	if err != nil {
		return err
	}
	n := len(pc.xyz) / 3
	pb.peer(pc, "normals", peers.Open3D, func() error {
		a, err := peers.RunOpen3D(pc.dir, pc.pcd, peers.NormalsJob(peerNormalsK, 0))
		if err != nil {
			return err
		}
		v := a[0].Float64s()
		if len(v) != 6*n {
			return fmt.Errorf("%s answered %d values for %d points", peers.Open3D, len(v), n)
		}
		nx, ny, nz := make([]float32, n), make([]float32, n), make([]float32, n)
		for i := range n {
			nx[i], ny[i], nz[i] = float32(v[3*i]), float32(v[3*i+1]), float32(v[3*i+2])
		}
		pb.add(pc, peerRow{Op: "normals", Tool: peers.Open3D + " estimate_normals", Params: params + " (KDTreeSearchParamKNN)", Seconds: a[0].Seconds,
			Process: a[0].Process.Seconds(), Ref: refSec, Agree: compareNormals(ref, nx, ny, nz)})
		return nil
	})
	pb.peer(pc, "normals", peers.PCL, func() error {
		out := filepath.Join(pc.dir, "pcl-normals.pcd")
		r, err := peers.PCLNormalEstimation(pc.pcd, out, "-k", strconv.Itoa(peerNormalsK))
		if err != nil {
			return err
		}
		cols, err := readColumns(out, n, core.DimNormalX, core.DimNormalY, core.DimNormalZ)
		if err != nil {
			return err
		}
		pb.add(pc, peerRow{Op: "normals", Tool: peers.PCL + " pcl_normal_estimation", Params: params + " (-k)", Seconds: r.Seconds,
			Process: r.Process.Seconds(), Ref: refSec, Agree: compareNormals(ref, cols[0], cols[1], cols[2])})
		return nil
	})
	pb.peer(pc, "normals", peers.CloudCompare, func() error {
		// CloudCompare takes a radius: compare with pctk's radius normals.
		rad := pc.radius(peerNormalsR)
		rp := fmt.Sprintf("radius %.4g", rad)
		rref, rsec, err := pctkRuns(pb, pc, "normals", rp, []string{"normals", "--radius", strconv.FormatFloat(rad, 'g', -1, 64), "--orient", "none"},
			estimate(normals.Options{Radius: rad}), agree)
		if err != nil {
			return err
		}
		out := filepath.Join(pc.dir, "cc-normals.asc")
		r, err := peers.CloudCompareRun(pc.ascii, out, "-OCTREE_NORMALS", strconv.FormatFloat(rad, 'g', -1, 64), "-MODEL", "LS")
		if err != nil {
			return err
		}
		idx, extra, err := peers.ReadASCII(out)
		if err != nil {
			return err
		}
		nx, ny, nz := nanColumns(n)
		for k, i := range idx {
			if i >= 0 && i < n && len(extra[k]) >= 3 {
				nx[i], ny[i], nz[i] = float32(extra[k][0]), float32(extra[k][1]), float32(extra[k][2])
			}
		}
		pb.add(pc, peerRow{Op: "normals", Tool: peers.CloudCompare + " -OCTREE_NORMALS", Params: rp + " (LS plane)", Seconds: r.Seconds,
			Process: r.Process.Seconds(), Ref: rsec, Agree: compareNormals(rref, nx, ny, nz)})
		return nil
	})
	return nil
}

func nanColumns(n int) (x, y, z []float32) {
	x, y, z = make([]float32, n), make([]float32, n), make([]float32, n)
	nan := float32(math.NaN())
	for i := range n {
		x[i], y[i], z[i] = nan, nan, nan
	}
	return x, y, z
}

// readColumns reads float columns of a peer's PCD output, which must hold
// n points in order.
func readColumns(path string, n int, names ...string) ([][]float32, error) {
	c, _, err := pcio.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if c.Len() != n {
		return nil, fmt.Errorf("%s: %d points, want the %d written", path, c.Len(), n)
	}
	out := make([][]float32, len(names))
	for k, name := range names {
		a := c.Attr(name)
		if a == nil {
			return nil, fmt.Errorf("%s: no field %s", path, name)
		}
		out[k] = make([]float32, n)
		for i := range n {
			out[k][i] = float32(a.Float64(i))
		}
	}
	return out, nil
}

// compareNormals returns the median and 99th percentile of the unoriented
// angle between pctk's normals and a peer's where both are defined, and the
// points where only one is (a zero or (0,0,1) stand-in counts as
// undefined only where pctk's is NaN: Open3D's stand-in for fewer than 3
// points).
func compareNormals(ref *normals.Result, nx, ny, nz []float32) string {
	var angles []float64
	onlyPctk, onlyPeer := 0, 0
	for i := range ref.NormalX {
		a := [3]float64{float64(ref.NormalX[i]), float64(ref.NormalY[i]), float64(ref.NormalZ[i])}
		b := [3]float64{float64(nx[i]), float64(ny[i]), float64(nz[i])}
		na := math.IsNaN(a[0])
		lb := math.Sqrt(b[0]*b[0] + b[1]*b[1] + b[2]*b[2])
		nb := math.IsNaN(lb) || lb == 0 || na && b == [3]float64{0, 0, 1}
		if na || nb {
			if na && !nb {
				onlyPeer++
			} else if nb && !na {
				onlyPctk++
			}
			continue
		}
		dot := math.Abs(a[0]*b[0]+a[1]*b[1]+a[2]*b[2]) / lb
		angles = append(angles, math.Acos(min(1, dot))*180/math.Pi)
	}
	if len(angles) == 0 {
		return fmt.Sprintf("no point with both normals (%d defined by pctk only, %d by the peer only)", onlyPctk, onlyPeer)
	}
	slices.Sort(angles)
	s := fmt.Sprintf("median angle %.3g°, p99 %.3g°", angles[len(angles)/2], angles[len(angles)*99/100])
	if onlyPctk+onlyPeer > 0 {
		s += fmt.Sprintf("; normal defined by pctk only at %d points, by the peer only at %d", onlyPctk, onlyPeer)
	}
	return s
}

func (pb *peerBench) benchSOR(pc *peerCloud) error {
	params := fmt.Sprintf("k %d, std_ratio %g", peerSORK, peerSORS)
	cliArgs := []string{"denoise", "statistical", "--k", strconv.Itoa(peerSORK), "--std-ratio", strconv.FormatFloat(peerSORS, 'g', -1, 64)}
	sor := func(o denoise.StatisticalOptions) func(b findneighbor.Backend) ([]int, error) {
		return func(b findneighbor.Backend) ([]int, error) {
			o.K, o.StdRatio = peerSORK, peerSORS
			r, err := denoise.Statistical(pc.xyz, b, o)
			if err != nil {
				return nil, err
			}
			return peers.Kept(r.Outlier), nil
		}
	}
	pcl := params + " (PCL convention)"
	kept, sec, err := pctkRuns(pb, pc, "sor", pcl, cliArgs, sor(denoise.StatisticalOptions{}), compareKept)
	if err != nil {
		return err
	}
	pb.peer(pc, "sor", peers.PCL, func() error {
		return pb.pclRemoval(pc, "sor", pcl, kept, sec, "-method", "statistical", "-mean_k", strconv.Itoa(peerSORK), "-std_dev_mul", strconv.FormatFloat(peerSORS, 'g', -1, 64))
	})
	pb.peer(pc, "sor", peers.Open3D, func() error {
		o3p := params + " (Open3D convention)"
		okept, osec, err := pctkRuns(pb, pc, "sor", o3p, append(cliArgs, "--convention", "open3d"), sor(denoise.StatisticalOptions{Convention: denoise.Open3D}), compareKept)
		if err != nil {
			return err
		}
		return pb.open3DRemoval(pc, "sor", "remove_statistical_outlier", o3p, peers.StatisticalJob(peerSORK, peerSORS), okept, osec)
	})
	pb.peer(pc, "sor", peers.CloudCompare, func() error {
		// CloudCompare's -SOR K S averages the distances to the K-1 nearest
		// others (its K counts the point) and uses the population deviation
		// (docs/benchmarks.md).
		ccp := params + " (CloudCompare: -SOR " + strconv.Itoa(peerSORK+1) + ", population std)"
		ckept, csec, err := pctkRuns(pb, pc, "sor", ccp, append(cliArgs, "--std", "population"), sor(denoise.StatisticalOptions{PopulationStd: true}), compareKept)
		if err != nil {
			return err
		}
		out := filepath.Join(pc.dir, "cc-sor.asc")
		base, err := peers.CloudCompareRun(pc.ascii, out)
		if err != nil {
			return err
		}
		r, err := peers.CloudCompareRun(pc.ascii, out, "-SOR", strconv.Itoa(peerSORK+1), strconv.FormatFloat(peerSORS, 'g', -1, 64))
		if err != nil {
			return err
		}
		idx, _, err := peers.ReadASCII(out)
		if err != nil {
			return err
		}
		slices.Sort(idx)
		note, sec := "process minus a load-and-save run", (r.Process - base.Process).Seconds()
		if sec <= 0 {
			note, sec = note+", below the noise here", 0
		}
		pb.add(pc, peerRow{Op: "sor", Tool: peers.CloudCompare + " -SOR", Params: ccp, Seconds: sec,
			Process: r.Process.Seconds(), Ref: csec, Agree: compareKept(ckept, idx), Note: note})
		return nil
	})
	return nil
}

func (pb *peerBench) benchROR(pc *peerCloud) error {
	rad := pc.radius(peerRORR)
	rs := strconv.FormatFloat(rad, 'g', -1, 64)
	params := fmt.Sprintf("radius %.4g, min_pts %d", rad, peerRORM)
	cliArgs := []string{"denoise", "radius", "--radius", rs, "--min-neighbors", strconv.Itoa(peerRORM)}
	kept, sec, err := pctkRuns(pb, pc, "ror", params, cliArgs, func(b findneighbor.Backend) ([]int, error) {
		r, err := denoise.Radius(pc.xyz, b, denoise.RadiusOptions{Radius: rad, MinNeighbors: peerRORM})
		if err != nil {
			return nil, err
		}
		return peers.Kept(r.Outlier), nil
	}, compareKept)
	if err != nil {
		return err
	}
	pb.peer(pc, "ror", peers.PCL, func() error {
		return pb.pclRemoval(pc, "ror", params, kept, sec, "-method", "radius", "-radius", rs, "-min_pts", strconv.Itoa(peerRORM))
	})
	pb.peer(pc, "ror", peers.Open3D, func() error {
		return pb.open3DRemoval(pc, "ror", "remove_radius_outlier", params, peers.RadiusJob(peerRORM, rad), kept, sec)
	})
	return nil
}

// pclRemoval runs pcl_outlier_removal with args and adds its row, compared
// with pctk's kept set and seconds.
func (pb *peerBench) pclRemoval(pc *peerCloud, op, params string, kept []int, sec float64, args ...string) error {
	out := filepath.Join(pc.dir, "pcl-"+op+".pcd")
	r, err := peers.PCLOutlierRemoval(pc.pcd, out, args...)
	if err != nil {
		return err
	}
	got, err := peers.ReadKept(out)
	if err != nil {
		return err
	}
	pb.add(pc, peerRow{Op: op, Tool: peers.PCL + " pcl_outlier_removal", Params: params, Seconds: r.Seconds,
		Process: r.Process.Seconds(), Ref: sec, Agree: compareKept(kept, got)})
	return nil
}

// open3DRemoval runs one Open3D removal job (the function fn) and adds its
// row, compared with pctk's kept set and seconds.
func (pb *peerBench) open3DRemoval(pc *peerCloud, op, fn, params, job string, kept []int, sec float64) error {
	a, err := peers.RunOpen3D(pc.dir, pc.pcd, job)
	if err != nil {
		return err
	}
	pb.add(pc, peerRow{Op: op, Tool: peers.Open3D + " " + fn, Params: params, Seconds: a[0].Seconds,
		Process: a[0].Process.Seconds(), Ref: sec, Agree: compareKept(kept, a[0].Ints())})
	return nil
}

// compareKept compares two sorted sets of kept indices.
func compareKept(ref, got []int) string {
	if d := len(peers.Diff(ref, got)); d > 0 {
		return fmt.Sprintf("%d points differ (pctk keeps %d, peer %d)", d, len(ref), len(got))
	}
	return fmt.Sprintf("kept sets identical (%d kept)", len(ref))
}
