package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/pctk/pctk/internal/msg"
	"github.com/pctk/pctk/internal/par"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/stage"
	"github.com/urfave/cli/v2"
)

func init() {
	commands = append(commands, &cli.Command{
		Name:      "bench",
		Usage:     "time neighbour-search backends side by side on the same points",
		ArgsUsage: "[FILE]",
		Description: "Without FILE, bench generates --points uniform random points in a unit cube and\n" +
			"picks ε so that each point has about --neighbors neighbours. Every backend runs the\n" +
			"same operations on the same points; times are medians of --repeat runs and each\n" +
			"row's ratio is relative to the first backend listed.\n\n" +
			"With --peers, bench runs dbscan, normals, sor and ror on FILEs and --synth scenes with\n" +
			"pctk's backends and, where installed, scikit-learn, Open3D, PCL and CloudCompare, on the\n" +
			"same points; it checks that the answers agree and writes a table (--markdown) and a\n" +
			"chart of the time ratios (--chart). docs/benchmarks.md says how each tool is timed.\n\n" +
			"Examples:\n" +
			"   pctk bench --points 2000000 --backends cpu,cuda\n" +
			"   pctk bench --peers --synth street --points 1000000 scan.pcd --markdown peers.md --chart peers.png",
		Flags: append([]cli.Flag{
			&cli.IntFlag{Name: "points", Value: 1_000_000, Usage: "number of generated points"},
			&cli.Float64Flag{Name: "neighbors", Value: 30, Usage: "mean neighbours per generated point"},
			&cli.Float64Flag{Name: "eps", Usage: "radius (required with FILE; overrides --neighbors)"},
			&cli.StringFlag{Name: "backends", Value: "cpu", Usage: "comma-separated backends to compare, first is the baseline"},
			&cli.StringFlag{Name: "ops", Value: "counts,knn,moments,dbscan", Usage: "operations: counts, knn, moments, dbscan, kmoments (the moments of every point's k nearest with no radius, as statistical outlier removal and KNN normals ask: findneighbor.KNearestMoments, its index builds included); with --peers: dbscan, normals, sor, ror (default there: all four)"},
			&cli.IntFlag{Name: "k", Value: 16, Usage: "neighbours per point for knn and kmoments"},
			&cli.IntFlag{Name: "min-pts", Value: 10, Usage: "min_pts for dbscan (the point itself counts)"},
			&cli.IntFlag{Name: "repeat", Value: 5, Usage: "runs per operation (median reported)"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "random seed for generated points"},
			&cli.BoolFlag{Name: "json", Usage: "print results as JSON"},
			flagOf(stage.SalvageOption),
			&cli.StringFlag{Name: "cpuprofile", Usage: "with --e2e: write a CPU profile of the runs to `FILE` (go tool pprof)"},
			&cli.BoolFlag{Name: "pdal", Usage: "run PDAL's stages that pctk mirrors (or those --ops names: lof, cluster, smrf, ...) on FILEs (LAS, LAZ) with PDAL's `pdal pipeline` and with `pctk pipeline --file`, whole processes alternated --repeat times, and compare their outputs (with --markdown FILE)"},
			&cli.BoolFlag{Name: "e2e", Usage: "time whole `pctk dbscan` commands on FILE (--eps, --min-pts, --backends, --repeat) split into start-up, read, upload, build, query, download, write, next to `pctk convert` of FILE; with --steps, whole `pctk pipeline` runs over the tile collection FILEs"},
			&cli.StringFlag{Name: "steps", Usage: "with --e2e: the `STEPS` of a pipeline over the tile collection FILEs, separated by ';' (\"denoise statistical --k 8; dbscan --eps 1\"): each backend's runs split into reading, each step's compute (and the device's busy time in it, on a GPU backend that times it), writing, next to `pctk convert` of the collection"},
			&cli.StringFlag{Name: "max-memory", Usage: "with --e2e --steps: the pipeline's --max-memory (`SIZE`)"},
		}, benchPeerFlags...),
		Action: runBench,
	})
}

// benchRow is one backend's timing of one operation.
type benchRow struct {
	Backend string  `json:"backend"`
	Op      string  `json:"op"`
	BuildMS float64 `json:"build_ms"`
	MS      float64 `json:"ms"`
	Ratio   float64 `json:"speedup_vs_baseline"`
	Check   string  `json:"check"`
}

func runBench(c *cli.Context) error {
	if c.Bool("peers") {
		return runBenchPeers(c)
	}
	if c.Bool("pdal") {
		return runBenchPDAL(c)
	}
	names := strings.Split(c.String("backends"), ",")
	for _, name := range names {
		if err := stage.CheckBackend("--backends", name); err != nil {
			return err
		}
	}
	if c.Int("repeat") < 1 {
		return stage.Usagef("--repeat: want at least 1 run, got %d", c.Int("repeat"))
	}
	if c.Bool("e2e") {
		return runBenchE2E(c)
	}
	ops := strings.Split(c.String("ops"), ",")
	for _, op := range ops {
		if !slices.Contains([]string{"counts", "knn", "moments", "dbscan", "kmoments"}, op) {
			return stage.Usagef("unknown op %q", op)
		}
	}
	xyz, eps, err := benchPoints(c)
	if err != nil {
		return err
	}
	n := len(xyz) / 3
	msg.Infof("bench: %d points, eps %g, backends %s, ops %s, repeat %d", n, eps, strings.Join(names, ","), strings.Join(ops, ","), c.Int("repeat"))
	var rows []benchRow
	base := map[string]float64{}
	baseCounts := []uint32(nil)
	for bi, name := range names {
		b, err := findneighbor.Get(name)
		if err != nil {
			return err
		}
		for _, op := range ops {
			row, counts, err := benchOp(c, b, op, xyz, float32(eps))
			if err != nil {
				return fmt.Errorf("bench %s %s: %w", name, op, err)
			}
			if op == "counts" {
				if bi == 0 {
					baseCounts = counts
				} else if baseCounts != nil {
					row.Check = compareCounts(baseCounts, counts)
				}
			}
			if bi == 0 {
				base[op] = row.MS
			}
			if row.MS > 0 {
				row.Ratio = base[op] / row.MS
			}
			rows = append(rows, row)
		}
	}
	if c.Bool("json") {
		return stage.PrintJSON(struct {
			Points int        `json:"points"`
			Eps    float64    `json:"eps"`
			Rows   []benchRow `json:"rows"`
		}{n, eps, rows})
	}
	fmt.Printf("%-10s %-8s %10s %10s %9s  %s\n", "backend", "op", "build ms", "op ms", "speedup", "check")
	for _, r := range rows {
		fmt.Printf("%-10s %-8s %10.2f %10.2f %8.2fx  %s\n", r.Backend, r.Op, r.BuildMS, r.MS, r.Ratio, r.Check)
	}
	return nil
}

// benchPoints returns the points to time and the radius.
func benchPoints(c *cli.Context) ([]float32, float64, error) {
	if c.NArg() > 1 {
		return nil, 0, stage.Usagef("bench takes at most one FILE")
	}
	if c.NArg() == 1 {
		if c.Float64("eps") <= 0 {
			return nil, 0, stage.Usagef("bench FILE needs --eps")
		}
		cloud, _, err := stage.ReadCloud(c, c.Args().First())
		if err != nil {
			return nil, 0, err
		}
		if err := cloud.Validate(); err != nil {
			return nil, 0, err
		}
		return cloud.Local(false).XYZ, c.Float64("eps"), nil
	}
	n := c.Int("points")
	if n < 1 {
		return nil, 0, stage.Usagef("--points must be positive")
	}
	rng := rand.New(rand.NewPCG(c.Uint64("seed"), 0x70637466))
	xyz := make([]float32, 3*n)
	for i := range xyz {
		xyz[i] = rng.Float32()
	}
	eps := c.Float64("eps")
	if eps <= 0 {
		// n·(4/3)πε³ neighbours in a unit cube, ignoring the boundary.
		eps = math.Cbrt(c.Float64("neighbors") / (float64(n) * 4 / 3 * math.Pi))
	}
	return xyz, eps, nil
}

// benchOp builds an index and times one operation; counts are returned for
// the "counts" op so backends can be checked against each other.
func benchOp(c *cli.Context, b findneighbor.Backend, op string, xyz []float32, eps float32) (benchRow, []uint32, error) {
	n := len(xyz) / 3
	row := benchRow{Backend: b.Name(), Op: op}
	var builds, runs []float64
	var counts []uint32
	var out *benchOutputs
	k := c.Int("k")
	for range max(1, c.Int("repeat")) {
		if op == "kmoments" {
			// No index of its own: KNearestMoments builds what it needs.
			t := time.Now()
			if err := findneighbor.KNearestMoments(b, xyz, k, findneighbor.BuildOptions{}, make([]findneighbor.Moment, n)); err != nil {
				return row, nil, err
			}
			runs = append(runs, ms(time.Since(t)))
			continue
		}
		if out == nil {
			out = newBenchOutputs(op, n, k)
		}
		t0 := time.Now()
		ix, err := b.Build(xyz, eps, findneighbor.BuildOptions{})
		if err != nil {
			return row, nil, err
		}
		t1 := time.Now()
		switch op {
		case "counts":
			err = ix.Counts(nil, out.counts)
			counts = out.counts
		case "knn":
			err = ix.KNearest(nil, k, out.idx, out.dist)
		case "moments":
			err = findneighbor.Moments(ix, xyz, nil, 0, out.moments)
		case "dbscan":
			err = benchDBSCAN(ix, xyz, out, c.Int("min-pts"))
		}
		t2 := time.Now()
		if cerr := ix.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return row, nil, err
		}
		builds = append(builds, ms(t1.Sub(t0)))
		runs = append(runs, ms(t2.Sub(t1)))
	}
	row.MS = median(runs)
	if len(builds) > 0 {
		row.BuildMS = median(builds)
	}
	return row, counts, nil
}

// benchOutputs are an operation's output buffers, allocated once outside
// the timed region and reused by every repeat (as the device-side
// benchmarks of primitives/findneighbor/cuda do), so that the times are the
// operation's, not the first touch of fresh memory.
type benchOutputs struct {
	counts  []uint32
	core    []bool
	labels  []int32
	idx     []int32
	dist    []float32
	moments []findneighbor.Moment
}

func newBenchOutputs(op string, n, k int) *benchOutputs {
	o := &benchOutputs{}
	switch op {
	case "counts":
		o.counts = make([]uint32, n)
	case "knn":
		o.idx, o.dist = make([]int32, n*k), make([]float32, n*k)
	case "moments":
		o.moments = make([]findneighbor.Moment, n)
	case "dbscan":
		o.counts, o.core, o.labels = make([]uint32, n), make([]bool, n), make([]int32, n)
	}
	return o
}

// benchDBSCAN runs both DBSCAN stages on an index of xyz: counts, then
// union-find.
func benchDBSCAN(ix findneighbor.Index, xyz []float32, out *benchOutputs, minPts int) error {
	if err := ix.Counts(nil, out.counts); err != nil {
		return err
	}
	par.For(par.Ranges(len(out.core), par.Grain), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			out.core[i] = int(out.counts[i])+1 >= minPts
		}
	})
	return findneighbor.ClusterCores(ix, xyz, out.core, out.labels)
}

func compareCounts(want, got []uint32) string {
	diff := 0
	for i := range want {
		if want[i] != got[i] {
			diff++
		}
	}
	if diff == 0 {
		return "counts equal baseline"
	}
	return fmt.Sprintf("%d counts differ from baseline (ties at ε?)", diff)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
