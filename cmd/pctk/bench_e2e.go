package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pctk/pctk/internal/scratch"
	"github.com/pctk/pctk/primitives/findneighbor"
	fncuda "github.com/pctk/pctk/primitives/findneighbor/cuda"
	"github.com/pctk/pctk/stage"
	"github.com/urfave/cli/v2"
)

// e2eRow is one whole `pctk dbscan` run, split into its steps (ms). The
// device steps (upload, build, query, download) are the cuda backend's
// own timings; other backends leave them 0 and report wall times only.
type e2eRow struct {
	Backend string `json:"backend"`
	Run     int    `json:"run"` // 1: the process's first, a cold start
	// Start is the GPU's start-up (driver, context, kernels, pinned
	// buffers), run in the background from the command's start; StartWait
	// is the part of it the command waited for (not hidden by the read).
	Start     float64 `json:"start_ms"`
	StartWait float64 `json:"start_wait_ms"`
	Read      float64 `json:"read_ms"`
	// Build is the index's wall time: Upload and DeviceBuild are its
	// device parts (CUDA events).
	Build       float64 `json:"build_ms"`
	Upload      float64 `json:"upload_ms"`
	DeviceBuild float64 `json:"device_build_ms"`
	// Counts and Cluster are the two DBSCAN stages' wall times; Query is
	// their device time without the copies back, Download the copies.
	Counts   float64 `json:"counts_ms"`
	Cluster  float64 `json:"cluster_ms"`
	Query    float64 `json:"query_ms"`
	Download float64 `json:"download_ms"`
	Write    float64 `json:"write_ms"`
	// Other is the rest of the command: checks, float32 coordinates, the
	// counts record's hash, core flags, relabelling, attributes.
	Other float64 `json:"other_ms"`
	Total float64 `json:"total_ms"`
	// Convert is `pctk convert` of the same file to the same format, run
	// right after in the same process; Ratio = Total / Convert.
	Convert float64 `json:"convert_ms"`
	Ratio   float64 `json:"ratio_to_convert"`
}

// e2eProbe collects one run's backend-side times from the wrapped backend.
type e2eProbe struct {
	mu  sync.Mutex
	row e2eRow
}

func (p *e2eProbe) add(dst *float64, d time.Duration) {
	p.mu.Lock()
	*dst += ms(d)
	p.mu.Unlock()
}

// deviceTimer is what the cuda index reports of its own steps.
type deviceTimer interface{ Timings() fncuda.Timings }

// e2eBackend times Build (and the start-up wait before it).
type e2eBackend struct {
	findneighbor.Backend
	p *e2eProbe
}

func (b e2eBackend) Build(xyz []float32, eps float32, opts findneighbor.BuildOptions) (findneighbor.Index, error) {
	t := time.Now()
	if b.Backend.Name() == fncuda.Name {
		if st, ok := fncuda.Started(); ok {
			b.p.row.Start = ms(st.Total)
		}
	}
	t1 := time.Now()
	b.p.add(&b.p.row.StartWait, t1.Sub(t))
	ix, err := b.Backend.Build(xyz, eps, opts)
	b.p.add(&b.p.row.Build, time.Since(t1))
	if err != nil {
		return nil, err
	}
	if d, ok := ix.(deviceTimer); ok {
		tm := d.Timings()
		b.p.row.Upload, b.p.row.DeviceBuild = float64(tm.Upload), float64(tm.Build)
	}
	return e2eIndex{Index: ix, xyz: xyz, p: b.p}, nil
}

// e2eIndex times the two DBSCAN stages.
type e2eIndex struct {
	findneighbor.Index
	xyz []float32 // the indexed points
	p   *e2eProbe
}

func (x e2eIndex) device() {
	if d, ok := x.Index.(deviceTimer); ok {
		tm := d.Timings()
		x.p.mu.Lock()
		x.p.row.Query += float64(tm.Query - tm.Download)
		x.p.row.Download += float64(tm.Download)
		x.p.mu.Unlock()
	}
}

func (x e2eIndex) Counts(q []float32, out []uint32) error {
	t := time.Now()
	err := x.Index.Counts(q, out)
	x.p.add(&x.p.row.Counts, time.Since(t))
	x.device()
	return err
}

func (x e2eIndex) ClusterCores(isCore []bool, label []int32) error {
	t := time.Now()
	err := findneighbor.ClusterCores(x.Index, x.xyz, isCore, label)
	x.p.add(&x.p.row.Cluster, time.Since(t))
	x.device()
	return err
}

// runBenchE2E times whole `pctk dbscan` commands on FILE, in this process,
// once per backend and repeat, each followed by `pctk convert` of FILE to
// the same format for scale.
func runBenchE2E(c *cli.Context) error {
	if path := c.String("cpuprofile"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if c.IsSet("steps") {
		return runBenchPipeline(c)
	}
	if c.NArg() != 1 || c.Float64("eps") <= 0 {
		return stage.Usagef("bench --e2e needs FILE and --eps")
	}
	in := c.Args().First()
	dir, err := scratch.MkdirTemp("", "e2e")
	if err != nil {
		return err
	}
	defer scratch.Remove(dir)
	out := filepath.Join(dir, "out"+filepath.Ext(in))
	eps := strconv.FormatFloat(c.Float64("eps"), 'g', -1, 64)
	var rows []e2eRow
	defer func() { stage.ObserveBackend = nil }()
	for _, name := range strings.Split(c.String("backends"), ",") {
		for r := range max(1, c.Int("repeat")) {
			p := &e2eProbe{row: e2eRow{Backend: name, Run: r + 1}}
			stage.ObserveBackend = func(b findneighbor.Backend, waited time.Duration) findneighbor.Backend {
				p.add(&p.row.StartWait, waited)
				return e2eBackend{Backend: b, p: p}
			}
			sum := filepath.Join(dir, "summary.json")
			t0 := time.Now()
			if code := run([]string{"pctk", "-q", "dbscan", "--backend", name, "--eps", eps, "--min-pts", c.String("min-pts"),
				"--recount", "--summary", sum, in, out}); code != 0 {
				return fmt.Errorf("bench --e2e: pctk dbscan --backend %s exited %d", name, code)
			}
			p.row.Total = ms(time.Since(t0))
			stage.ObserveBackend = nil
			var s stage.DBSCANSummary
			data, err := os.ReadFile(sum)
			if err == nil {
				err = json.Unmarshal(data, &s)
			}
			if err != nil {
				return fmt.Errorf("bench --e2e: the dbscan summary: %w", err)
			}
			row := &p.row
			row.Read, row.Write = 1000*s.Seconds.Read, 1000*s.Seconds.Write
			row.Other = row.Total - row.StartWait - row.Read - row.Build - row.Counts - row.Cluster - row.Write
			t := time.Now()
			if code := run([]string{"pctk", "-q", "convert", in, out}); code != 0 {
				return fmt.Errorf("bench --e2e: pctk convert exited %d", code)
			}
			row.Convert = ms(time.Since(t))
			row.Ratio = row.Total / row.Convert
			rows = append(rows, *row)
		}
	}
	if c.Bool("json") {
		return stage.PrintJSON(struct {
			File string   `json:"file"`
			Eps  float64  `json:"eps"`
			Rows []e2eRow `json:"rows"`
		}{in, c.Float64("eps"), rows})
	}
	if strings.Contains(c.String("backends"), fncuda.Name) {
		if st, ok := fncuda.Started(); ok {
			fmt.Printf("GPU start-up (background): driver %.1f ms, context %.1f ms, kernels %.1f ms (%s), pinned buffers %.1f ms\n",
				ms(st.Driver), ms(st.Context), ms(st.Module), st.Image, ms(st.Staging))
		}
	}
	fmt.Printf("%-7s %3s %7s %6s %7s %7s %7s %7s %7s %7s %7s %7s %7s %7s %7s %8s %8s\n", "backend", "run",
		"start", "wait", "read", "build", "upload", "dbuild", "counts", "cluster", "query", "dload", "write", "other", "total", "convert", "ratio")
	for _, r := range rows {
		fmt.Printf("%-7s %3d %7.1f %6.1f %7.1f %7.1f %7.1f %7.1f %7.1f %7.1f %7.1f %7.1f %7.1f %7.1f %7.1f %8.1f %7.2fx\n", r.Backend, r.Run,
			r.Start, r.StartWait, r.Read, r.Build, r.Upload, r.DeviceBuild, r.Counts, r.Cluster, r.Query, r.Download, r.Write, r.Other, r.Total, r.Convert, r.Ratio)
	}
	return nil
}
