package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pctk/pctk/algos/synth"
	"github.com/pctk/pctk/internal/cloudtest"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// TestBenchRunsEveryOp runs pctk bench on a small generated cloud with the
// cpu backend against brute force and checks that every operation reports
// a time and that the two backends' counts agree.
func TestBenchRunsEveryOp(t *testing.T) {
	cmd := pctkCmd(t, "bench", "--points", "4000", "--neighbors", "20", "--k", "8", "--repeat", "1",
		"--backends", "cpu,brute", "--ops", "counts,knn,moments,dbscan,kmoments", "--json")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pctk bench: %v", err)
	}
	var res struct {
		Points int
		Rows   []benchRow
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("pctk bench --json printed %q: %v", out, err)
	}
	if res.Points != 4000 || len(res.Rows) != 10 {
		t.Fatalf("got %d points and %d rows, want 4000 and 10 (2 backends × 5 ops): %s", res.Points, len(res.Rows), out)
	}
	for _, r := range res.Rows {
		if r.MS <= 0 || (r.Op == "kmoments") != (r.BuildMS == 0) {
			t.Errorf("%s %s: op %g ms, build %g ms", r.Backend, r.Op, r.MS, r.BuildMS)
		}
		if r.Backend == "brute" && r.Op == "counts" && r.Check != "counts equal baseline" {
			t.Errorf("brute counts: %q", r.Check)
		}
	}
}

// TestBenchE2E runs pctk bench --e2e on a small clustered file with the
// cpu backend, twice, and checks that each run reports its steps (the
// index's are microseconds here), that they add up to the whole and that
// convert was timed beside it.
func TestBenchE2E(t *testing.T) {
	dir := t.TempDir()
	in := dbscanFixture(t, dir)
	cmd := pctkCmd(t, "bench", "--e2e", "--eps", "1.5", "--min-pts", "3", "--backends", "cpu", "--repeat", "2", "--json", in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pctk bench --e2e: %v", err)
	}
	var res struct{ Rows []e2eRow }
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("pctk bench --e2e --json printed %q: %v", out, err)
	}
	if len(res.Rows) != 2 {
		t.Fatalf("got %d rows, want 2: %s", len(res.Rows), out)
	}
	for i, r := range res.Rows {
		if r.Backend != "cpu" || r.Run != i+1 || r.Read <= 0 || r.Build < 0 || r.Counts < 0 || r.Cluster < 0 || r.Write <= 0 || r.Convert <= 0 {
			t.Errorf("row %d: %+v: want backend cpu, run %d and every step timed", i, r, i+1)
		}
		sum := r.StartWait + r.Read + r.Build + r.Counts + r.Cluster + r.Write + r.Other
		if math.Abs(sum-r.Total) > 1e-6*r.Total || r.Ratio != r.Total/r.Convert {
			t.Errorf("row %d: steps add up to %g ms, total %g ms; ratio %g", i, sum, r.Total, r.Ratio)
		}
	}
}

// TestBenchE2EPipeline runs pctk bench --e2e --steps over a collection of
// two files with the cpu backend, in memory and out of core, and checks
// that each run reports every step's compute on its backend, that the
// phases add up to the whole, and which steps read and wrote the
// collection: in memory the first and the last, out of core every one.
func TestBenchE2EPipeline(t *testing.T) {
	dir := benchCollection(t)
	steps := "nndistance --k 4; dbscan --eps 1 --min-pts 3"
	for _, mem := range []string{"1GiB", "49MiB"} {
		out, err := pctkCmd(t, "bench", "--e2e", "--steps", steps, "--backends", "cpu", "--repeat", "1", "--max-memory", mem, "--json", filepath.Join(dir, "*.las")).Output()
		if err != nil {
			t.Fatalf("pctk bench --e2e --steps --max-memory %s: %v", mem, err)
		}
		var res struct{ Rows []pipelineRow }
		if err := json.Unmarshal(out, &res); err != nil || len(res.Rows) != 1 {
			t.Fatalf("pctk bench --e2e --steps --json printed %q: %v", out, err)
		}
		r := res.Rows[0]
		if len(r.Steps) != 2 || r.Steps[0].Step != "nndistance --k 4" || r.Convert <= 0 {
			t.Fatalf("--max-memory %s: %+v: want two steps and convert timed", mem, r)
		}
		sum := r.Other
		outOfCore := mem == "49MiB"
		for i, s := range r.Steps {
			if s.Backend != "cpu" || s.Compute <= 0 || (s.Read > 0) != (outOfCore || i == 0) || (s.Write > 0) != (outOfCore || i == 1) {
				t.Errorf("--max-memory %s: step %+v: want its compute on cpu, reading and writing %v", mem, s, outOfCore)
			}
			sum += s.Read + s.Compute + s.Write
		}
		if math.Abs(sum-r.Total) > 1e-9*r.Total || r.Other < 0 || r.Ratio != r.Total/r.Convert {
			t.Errorf("--max-memory %s: phases add up to %g s, total %g s (other %g); ratio %g", mem, sum, r.Total, r.Other, r.Ratio)
		}
	}
}

// benchCollection writes a collection of two street tiles of 2000 points,
// a.las and b.las, and returns their folder.
func benchCollection(t *testing.T) string {
	dir := t.TempDir()
	cloud, err := synth.Street(synth.Options{Points: 4000, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	half := make([]int, 2000)
	for i := range half {
		half[i] = i
	}
	cloudtest.Write(t, filepath.Join(dir, "a.las"), cloud.Select(half))
	for i := range half {
		half[i] += 2000
	}
	cloudtest.Write(t, filepath.Join(dir, "b.las"), cloud.Select(half))
	return dir
}

// timedBackend is the cpu backend timing a "device" of 1 ms a build
// (findneighbor.DeviceTimer), registered as "timed" in the processes of
// TestBenchE2EDeviceTime.
type timedBackend struct{ findneighbor.Backend }

var timedBusy atomic.Int64

func (timedBackend) Name() string { return "timed" }

func (b timedBackend) Build(xyz []float32, eps float32, opts findneighbor.BuildOptions) (findneighbor.Index, error) {
	timedBusy.Add(int64(time.Millisecond))
	return b.Backend.Build(xyz, eps, opts)
}

func (timedBackend) DeviceTime() time.Duration { return time.Duration(timedBusy.Load()) }

func init() {
	if os.Getenv("PCTK_TEST_TIMED_BACKEND") != "" {
		findneighbor.Register(timedBackend{findneighbor.CPU()})
	}
}

// TestBenchE2EDeviceTime checks that bench --e2e --steps reports each
// step's device time where the backend times its device, and the device's
// idle time in the step (its compute less the device's).
func TestBenchE2EDeviceTime(t *testing.T) {
	dir := benchCollection(t)
	// In memory, and step by step out of core.
	for _, mem := range []string{"1GiB", "49MiB"} {
		cmd := pctkCmd(t, "bench", "--e2e", "--steps", "nndistance --k 4; dbscan --eps 1 --min-pts 3", "--backends", "timed,cpu", "--repeat", "1",
			"--max-memory", mem, "--json", filepath.Join(dir, "*.las"))
		cmd.Env = append(cmd.Env, "PCTK_TEST_TIMED_BACKEND=1")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("pctk bench --e2e --steps --backends timed,cpu --max-memory %s: %v", mem, err)
		}
		var res struct{ Rows []pipelineRow }
		if err := json.Unmarshal(out, &res); err != nil || len(res.Rows) != 2 {
			t.Fatalf("pctk bench --e2e --steps --json printed %q: %v", out, err)
		}
		for _, r := range res.Rows {
			for _, s := range r.Steps {
				ms := s.Device * 1000
				switch {
				case r.Backend == "cpu" && (s.Device != 0 || s.Idle != 0):
					t.Errorf("--max-memory %s, cpu step %+v: want no device time", mem, s)
				case r.Backend == "timed" && (ms < 1 || math.Abs(ms-math.Round(ms)) > 1e-6 || s.Idle != max(0, s.Compute-s.Device)):
					t.Errorf("--max-memory %s, timed step %+v: want whole milliseconds of device time (1 a build), idle the compute's rest", mem, s)
				}
			}
		}
	}
}
