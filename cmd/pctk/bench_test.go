package main

import (
	"encoding/json"
	"math"
	"testing"
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
