package dbscan_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/pctk/pctk/algos/dbscan"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/fntest"
)

// line returns points on the x axis at the given positions.
func line(xs ...float32) []float32 {
	xyz := make([]float32, 0, 3*len(xs))
	for _, x := range xs {
		xyz = append(xyz, x, 0, 0)
	}
	return xyz
}

func TestClusterKnownAnswers(t *testing.T) {
	left := []float32{-2, -1.7, -1.4, -1}
	right := []float32{1, 1.4, 1.7, 2}
	tests := []struct {
		name       string
		xyz        []float32
		opts       dbscan.Options
		wantLabels []int32
		wantCore   []bool
		wantSizes  []int
	}{{
		name:       "empty",
		xyz:        nil,
		opts:       dbscan.Options{Eps: 1, MinPts: []int{3}},
		wantLabels: []int32{}, wantCore: []bool{}, wantSizes: []int{},
	}, {
		// x=1 and x=2 have two neighbours each: core with min_pts 3 (the
		// point itself counts). x=0 and x=3 have one: border. x=10: noise.
		name:       "chain with borders and noise",
		xyz:        line(0, 1, 2, 3, 10),
		opts:       dbscan.Options{Eps: 1.5, MinPts: []int{3}},
		wantLabels: []int32{0, 0, 0, 0, -1},
		wantCore:   []bool{false, true, true, false, false},
		wantSizes:  []int{4},
	}, {
		name:       "numbered by smallest index, border first",
		xyz:        line(10, 20, 21, 22, 0, 1, 2, 3),
		opts:       dbscan.Options{Eps: 1.5, MinPts: []int{3}},
		wantLabels: []int32{-1, 0, 0, 0, 1, 1, 1, 1},
		wantCore:   []bool{false, false, true, false, false, true, true, false},
		wantSizes:  []int{3, 4},
	}, {
		// The last point is at distance 1 from a core point of each
		// group: the tie goes to the core point of smaller index, in the
		// left group (index 3 < 4).
		name:       "border tie goes to the smaller core index",
		xyz:        line(append(append(slices.Clone(left), right...), 0)...),
		opts:       dbscan.Options{Eps: 1.1, MinPts: []int{4}},
		wantLabels: []int32{0, 0, 0, 0, 1, 1, 1, 1, 0},
		wantCore:   []bool{true, true, true, true, true, true, true, true, false},
		wantSizes:  []int{5, 4},
	}, {
		name:       "border tie, groups swapped",
		xyz:        line(append(append(slices.Clone(right), left...), 0)...),
		opts:       dbscan.Options{Eps: 1.1, MinPts: []int{4}},
		wantLabels: []int32{0, 0, 0, 0, 1, 1, 1, 1, 0},
		wantCore:   []bool{true, true, true, true, true, true, true, true, false},
		wantSizes:  []int{5, 4},
	}, {
		name:       "border joins the nearest core",
		xyz:        line(append(append(slices.Clone(left), right...), 0.05)...),
		opts:       dbscan.Options{Eps: 1.1, MinPts: []int{4}},
		wantLabels: []int32{0, 0, 0, 0, 1, 1, 1, 1, 1},
		wantCore:   []bool{true, true, true, true, true, true, true, true, false},
		wantSizes:  []int{4, 5},
	}, {
		name:       "min_pts 1: every point is core, singletons are clusters",
		xyz:        line(0, 5, 5.5, 9),
		opts:       dbscan.Options{Eps: 1, MinPts: []int{1}},
		wantLabels: []int32{0, 1, 1, 2},
		wantCore:   []bool{true, true, true, true},
		wantSizes:  []int{1, 2, 1},
	}, {
		name:       "min cluster size relabels and renumbers",
		xyz:        line(0, 5, 5.5, 9, 9.5, 9.9),
		opts:       dbscan.Options{Eps: 1, MinPts: []int{1}, MinClusterSize: 3},
		wantLabels: []int32{-1, -1, -1, 0, 0, 0},
		wantCore:   []bool{true, true, true, true, true, true},
		wantSizes:  []int{3},
	}, {
		name: "2D coincident points count as neighbours",
		xyz:  []float32{1, 1, 0, 1, 1, 0, 1, 1, 0, 4, 4, 0},
		opts: dbscan.Options{Eps: 0.5, MinPts: []int{3}},
		// Three copies of (1,1): each has two neighbours at distance 0.
		wantLabels: []int32{0, 0, 0, -1},
		wantCore:   []bool{true, true, true, false},
		wantSizes:  []int{3},
	}}
	backends := fntest.Usable(t)
	for _, tt := range tests {
		for _, b := range backends {
			t.Run(tt.name+"/"+b.Name(), func(t *testing.T) {
				run, err := dbscan.Cluster(tt.xyz, b, tt.opts)
				if err != nil {
					t.Fatal(err)
				}
				r := run.Results[0]
				if !slices.Equal(r.Labels, tt.wantLabels) {
					t.Errorf("labels: got %v, want %v", r.Labels, tt.wantLabels)
				}
				if !slices.Equal(r.Core, tt.wantCore) {
					t.Errorf("core: got %v, want %v", r.Core, tt.wantCore)
				}
				if !slices.Equal(r.Sizes, tt.wantSizes) {
					t.Errorf("sizes: got %v, want %v", r.Sizes, tt.wantSizes)
				}
				noise := 0
				for _, l := range tt.wantLabels {
					if l < 0 {
						noise++
					}
				}
				if r.NoiseCount != noise {
					t.Errorf("noise count: got %d, want %d", r.NoiseCount, noise)
				}
				if run.Backend != b.Name() {
					t.Errorf("backend: got %q, want %q", run.Backend, b.Name())
				}
			})
		}
	}
}

func TestSeveralMinPtsCountOnce(t *testing.T) {
	b := findneighbor.Brute()
	xyz := line(0, 1, 2, 3, 10, 11, 30)
	run, err := dbscan.Cluster(xyz, b, dbscan.Options{Eps: 1.5, MinPts: []int{2, 3, 4}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []uint32{1, 2, 2, 1, 1, 1, 0}; !slices.Equal(run.Counts, want) {
		t.Errorf("counts: got %v, want %v", run.Counts, want)
	}
	want := map[int][]int32{
		2: {0, 0, 0, 0, 1, 1, -1},
		3: {0, 0, 0, 0, -1, -1, -1},
		4: {-1, -1, -1, -1, -1, -1, -1},
	}
	if len(run.Results) != 3 {
		t.Fatalf("got %d results, want 3", len(run.Results))
	}
	for _, r := range run.Results {
		if !slices.Equal(r.Labels, want[r.MinPts]) {
			t.Errorf("min_pts %d: got labels %v, want %v", r.MinPts, r.Labels, want[r.MinPts])
		}
	}

	// Reusing the counts skips stage 1 and gives the same answer.
	again, err := dbscan.Cluster(xyz, b, dbscan.Options{Eps: 1.5, MinPts: []int{3}, Counts: run.Counts})
	if err != nil {
		t.Fatal(err)
	}
	if !again.CountsReused || again.Stage1 != 0 {
		t.Errorf("reused counts: got CountsReused %v, Stage1 %v; want true, 0", again.CountsReused, again.Stage1)
	}
	if !slices.Equal(again.Results[0].Labels, want[3]) {
		t.Errorf("with reused counts: got labels %v, want %v", again.Results[0].Labels, want[3])
	}
	// The counts passed in are what decides core points: pretend every
	// point has 5 neighbours and all become core (min_pts 6).
	fake := []uint32{5, 5, 5, 5, 5, 5, 5}
	forced, err := dbscan.Cluster(xyz, b, dbscan.Options{Eps: 1.5, MinPts: []int{6}, Counts: fake})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := forced.Results[0].Labels, []int32{0, 0, 0, 0, 1, 1, 2}; !slices.Equal(got, want) {
		t.Errorf("with counts %v: got labels %v, want %v", fake, got, want)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		opts dbscan.Options
		n    int
		ok   bool
	}{
		{dbscan.Options{Eps: 1, MinPts: []int{5}}, 10, true},
		{dbscan.Options{Eps: 1, MinPts: []int{1, 5, 10}, MinClusterSize: 3}, 10, true},
		{dbscan.Options{Eps: 0, MinPts: []int{5}}, 10, false},
		{dbscan.Options{Eps: -1, MinPts: []int{5}}, 10, false},
		{dbscan.Options{Eps: 1e300, MinPts: []int{5}}, 10, false},
		{dbscan.Options{Eps: 1e-300, MinPts: []int{5}}, 10, false},
		{dbscan.Options{Eps: 1}, 10, false},
		{dbscan.Options{Eps: 1, MinPts: []int{0}}, 10, false},
		{dbscan.Options{Eps: 1, MinPts: []int{5, 5}}, 10, false},
		{dbscan.Options{Eps: 1, MinPts: []int{5}, MinClusterSize: -1}, 10, false},
		{dbscan.Options{Eps: 1, MinPts: []int{5}, Counts: make([]uint32, 9)}, 10, false},
		{dbscan.Options{Eps: 1, MinPts: []int{5}, Workers: -2}, 10, false},
	}
	for _, tt := range tests {
		err := tt.opts.Validate(tt.n)
		if (err == nil) != tt.ok {
			t.Errorf("Validate(%+v, %d): got error %v, want ok %v", tt.opts, tt.n, err, tt.ok)
		}
	}
	if _, err := dbscan.Cluster([]float32{1, 2}, findneighbor.Brute(), dbscan.Options{Eps: 1, MinPts: []int{2}}); err == nil {
		t.Error("Cluster with 2 coordinates: got no error")
	}
}

// badBackend returns fixed stage-2 labels, to check that Cluster rejects
// labels that break ClusterCores' contract rather than pass them on.
type badBackend struct{ labels []int32 }

func (b badBackend) Name() string                      { return "bad" }
func (b badBackend) Probe() (findneighbor.Info, error) { return findneighbor.Info{Name: "bad"}, nil }
func (b badBackend) Build(xyz []float32, eps float32, _ findneighbor.BuildOptions) (findneighbor.Index, error) {
	idx, err := findneighbor.Brute().Build(xyz, eps, findneighbor.BuildOptions{})
	return badIndex{idx, b.labels}, err
}

type badIndex struct {
	findneighbor.Index
	labels []int32
}

func (b badIndex) ClusterCores(isCore []bool, label []int32) error {
	copy(label, b.labels)
	return nil
}

func TestClusterRejectsBrokenLabels(t *testing.T) {
	xyz := line(0, 1, 2, 10)
	// With eps 1.5 and min_pts 2 the points 0, 1, 2 are core, 10 is noise.
	for _, labels := range [][]int32{
		{0, 0, 0, 4},   // out of range
		{0, 0, -1, -1}, // core point labelled noise
		{0, 0, 3, -1},  // label of a non-core point
		{0, 2, 2, -1},  // core point labelled with a larger index
		{0, 0, 0, -2},  // negative but not noise
	} {
		_, err := dbscan.Cluster(xyz, badBackend{labels}, dbscan.Options{Eps: 1.5, MinPts: []int{2}})
		if err == nil {
			t.Errorf("stage-2 labels %v: got no error", labels)
		}
	}
}

func ExampleCluster() {
	// Two groups of points on a line and one stray point.
	xyz := []float32{0, 0, 0, 1, 0, 0, 2, 0, 0, 10, 0, 0, 11, 0, 0, 12, 0, 0, 50, 0, 0}
	run, err := dbscan.Cluster(xyz, findneighbor.Brute(), dbscan.Options{Eps: 1.5, MinPts: []int{3}})
	if err != nil {
		panic(err)
	}
	r := run.Results[0]
	fmt.Println(r.Labels, r.Sizes, r.NoiseCount)
	// Output: [0 0 0 1 1 1 -1] [3 3] 1
}
