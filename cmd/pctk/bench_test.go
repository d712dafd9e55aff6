package main

import (
	"encoding/json"
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
