package main

import (
	"errors"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pctk/pctk/algos/dbscan"
	"github.com/pctk/pctk/internal/peers"
)

// markdownRows returns the table rows of bench --peers' Markdown, split
// into cells.
func markdownRows(t *testing.T, path string) [][]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| op |") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for k := range cells {
			cells[k] = strings.TrimSpace(cells[k])
		}
		if len(cells) != 10 {
			t.Fatalf("row %q has %d cells, want 10", line, len(cells))
		}
		rows = append(rows, cells)
	}
	return rows
}

// TestBenchPeers runs bench --peers on a tiny synthetic street with
// whatever peers are installed and checks the Markdown table and the PNG
// chart: a pctk row per operation, a row per peer and operation (timed
// with an agreement, or "not installed"), and installed peers agreeing
// with pctk exactly.
func TestBenchPeers(t *testing.T) {
	dir := t.TempDir()
	md, chart := filepath.Join(dir, "peers.md"), filepath.Join(dir, "peers.png")
	ops := "dbscan,normals,sor,ror"
	if testing.Short() {
		ops = "ror"
	}
	pctkRun(t, 0, "bench", "--peers", "--synth", "street", "--points", "3000", "--ops", ops, "--markdown", md, "--chart", chart)
	want := map[string][]string{
		"dbscan":  {peers.Sklearn, peers.Open3D},
		"normals": {peers.Open3D, peers.PCL, peers.CloudCompare},
		"sor":     {peers.PCL, peers.Open3D, peers.CloudCompare},
		"ror":     {peers.PCL, peers.Open3D},
	}
	rows := markdownRows(t, md)
	for _, op := range strings.Split(ops, ",") {
		for _, tool := range append([]string{"pctk"}, want[op]...) {
			found := false
			for _, r := range rows {
				if r[0] != op || !strings.HasPrefix(r[3], tool) {
					continue
				}
				found = true
				if r[1] != "synth street" || r[2] != "3000" || r[9] == "" {
					t.Errorf("%s %s: row %q", op, tool, r)
				}
				installed := tool == "pctk" || peers.Available(tool) == nil
				if !installed {
					if r[9] != "not installed" {
						t.Errorf("%s %s is not installed, but its row says %q", op, tool, r[9])
					}
					continue
				}
				// CloudCompare's -SOR is timed as a difference of two
				// processes, which may vanish in the noise on a tiny cloud.
				derived := strings.Contains(r[9], "(op s: ")
				if (r[6] == "-" || r[8] == "-") && !derived || r[4] == "" || r[7] == "-" {
					t.Errorf("%s %s: no time, ratio or version: %q", op, tool, r)
				}
				if tool == "pctk" && r[9] != "reference" && !strings.Contains(r[9], "identical") && !strings.HasPrefix(r[9], "median angle 0°") {
					t.Errorf("%s %s: %q", op, tool, r[9])
				}
				// Exact answers, on snapped points with radii off the grid.
				if tool != "pctk" && op != "normals" && !strings.Contains(r[9], "identical") {
					t.Errorf("%s %s disagrees with pctk: %q", op, tool, r[9])
				}
			}
			if !found {
				t.Errorf("no %s row for %s", op, tool)
			}
		}
	}
	f, err := os.Open(chart)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", chart, err)
	}
	if b := img.Bounds(); b.Dx() < 300 || b.Dy() < 60 {
		t.Errorf("chart is %v, too small to hold a bar", b)
	}
}

// TestBenchPeersNotInstalled hides the command-line peers (PATH empty):
// their rows say "not installed" and the run succeeds.
func TestBenchPeersNotInstalled(t *testing.T) {
	t.Setenv("PATH", "")
	md := filepath.Join(t.TempDir(), "peers.md")
	pctkRun(t, 0, "bench", "--peers", "--points", "500", "--ops", "ror", "--markdown", md, "--chart", filepath.Join(t.TempDir(), "c.png"))
	rows := markdownRows(t, md)
	n := 0
	for _, r := range rows {
		if strings.HasPrefix(r[3], peers.PCL) {
			n++
			if r[9] != "not installed" || r[6] != "-" {
				t.Errorf("PCL without PATH: %q", r)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d PCL rows, want 1", n)
	}
}

func TestCompareKept(t *testing.T) {
	for _, c := range []struct {
		ref, got []int
		want     string
	}{
		{[]int{1, 2, 5}, []int{1, 2, 5}, "kept sets identical (3 kept)"},
		{[]int{1, 2, 5}, []int{1, 5, 6}, "2 points differ (pctk keeps 3, peer 3)"},
		{[]int{}, []int{4}, "1 points differ (pctk keeps 0, peer 1)"},
	} {
		if got := compareKept(c.ref, c.got); got != c.want {
			t.Errorf("compareKept(%v, %v) = %q, want %q", c.ref, c.got, got, c.want)
		}
	}
}

func TestCompareClusters(t *testing.T) {
	// Points 0-2 core of cluster 0, 3 border, 4-5 core of cluster 1, 6 noise.
	ref := &dbscan.Result{Labels: []int32{0, 0, 0, 0, 1, 1, -1}, Core: []bool{true, true, true, false, true, true, false}, Sizes: []int{4, 2}, NoiseCount: 1}
	core := ref.Core
	for _, c := range []struct {
		labels []int32
		core   []bool
		want   string
	}{
		{[]int32{7, 7, 7, 3, 3, 3, -1}, core, "core partition and noise identical (2 clusters, 1 noise)"},
		{[]int32{7, 7, 7, 3, 3, 3, -1}, nil, "partition of pctk's core points and noise identical (2 clusters, 1 noise)"},
		{[]int32{7, 7, 3, 7, 3, 3, -1}, core, "0 core flags, 1 core labels (renumbered), 0 noise flags differ"},
		{[]int32{7, 7, 7, -1, 3, 3, 3}, core, "0 core flags, 0 core labels (renumbered), 2 noise flags differ"},
		{[]int32{7, 7, 7, 7, 3, 3, -1}, []bool{true, true, true, true, true, true, false}, "1 core flags, 0 core labels (renumbered), 0 noise flags differ"},
	} {
		if got := compareClusters(ref, c.labels, c.core); got != c.want {
			t.Errorf("labels %v core %v: got %q, want %q", c.labels, c.core, got, c.want)
		}
	}
}

// TestPeerRows checks the rows of a peer that is missing and of one that
// fails: the run goes on, the row says why.
func TestPeerRows(t *testing.T) {
	pc := &peerCloud{name: "c", xyz: make([]float32, 6)}
	pb := &peerBench{have: map[string]error{peers.PCL: nil, peers.CloudCompare: errors.New("CloudCompare not found")}, versions: map[string]string{}}
	ran := false
	pb.peer(pc, "sor", peers.CloudCompare, func() error { ran = true; return nil })
	pb.peer(pc, "sor", peers.PCL, func() error { return errors.New("pcl_outlier_removal: exit status 1\nlong output") })
	if ran {
		t.Error("the comparison of a peer that is not installed ran")
	}
	want := []string{"not installed", "failed: pcl_outlier_removal: exit status 1"}
	if len(pb.rows) != 2 || pb.rows[0].Agree != want[0] || pb.rows[1].Agree != want[1] || pb.rows[1].Points != 2 {
		t.Errorf("rows %+v, want agreements %q with the cloud's 2 points", pb.rows, want)
	}
}
