package main

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/pctk/pctk/io/pcio"
)

func TestParseBounds(t *testing.T) {
	for _, tc := range []struct {
		in       string
		min, max [3]float64
		bad      bool
	}{
		{in: "1,2,3,4", min: [3]float64{1, 2, math.Inf(-1)}, max: [3]float64{3, 4, math.Inf(1)}},
		{in: " 1, 2 ,3,4,-5,6.5", min: [3]float64{1, 2, -5}, max: [3]float64{3, 4, 6.5}},
		{in: "1,2,3", bad: true},
		{in: "1,2,3,4,5", bad: true},
		{in: "3,2,1,4", bad: true}, // min x > max x
		{in: "1,2,x,4", bad: true},
		{in: "1,2,NaN,4", bad: true},
	} {
		b, err := parseBounds(tc.in)
		if tc.bad {
			if err == nil {
				t.Errorf("%q: no error", tc.in)
			}
			continue
		}
		if err != nil || b.Min != tc.min || b.Max != tc.max {
			t.Errorf("%q: %v, %v; want %v %v", tc.in, b, err, tc.min, tc.max)
		}
	}
}

// TestQueryFlags runs convert and info with --bounds and --level on LAS
// and COPC: the COPC written by convert, queried, equals the LAS queried;
// --level on LAS is a usage error.
func TestQueryFlags(t *testing.T) {
	dir := t.TempDir()
	cp := filepath.Join(dir, "h.copc.laz")
	pctkRun(t, 0, "convert", sample, cp)
	box := "2230900,252200,2231000,252300"
	for i, in := range []string{sample, cp} {
		out := filepath.Join(dir, []string{"las.las", "copc.las"}[i])
		pctkRun(t, 0, "convert", in, out, "--bounds", box)
	}
	a, _, err := pcio.ReadFile(filepath.Join(dir, "las.las"))
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := pcio.ReadFile(filepath.Join(dir, "copc.las"))
	if err != nil {
		t.Fatal(err)
	}
	if a.Len() == 0 || a.Len() >= 21932 || a.Len() != b.Len() {
		t.Fatalf("--bounds on LAS keeps %d points, on its COPC %d", a.Len(), b.Len())
	}
	pctkRun(t, 0, "info", cp, "--level", "0", "--bounds", box)
	pctkRun(t, 2, "info", sample, "--level", "0")
	pctkRun(t, 2, "info", sample, "--bounds", "1,2")
}
