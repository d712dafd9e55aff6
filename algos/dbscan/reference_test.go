package dbscan_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/pctk/pctk/algos/dbscan"
	"github.com/pctk/pctk/primitives/findneighbor/fntest"
)

// neighbours holds every point's neighbour lists within ε (itself left
// out) with squared distances, in increasing index order.
type neighbours struct {
	idx [][]int32
	d2  [][]float32
}

// bruteNeighbours computes neighbour lists by comparing all pairs, with the
// distance findneighbor defines: float32 differences, squares and sums.
func bruteNeighbours(xyz []float32, eps float32) neighbours {
	n := len(xyz) / 3
	nb := neighbours{idx: make([][]int32, n), d2: make([][]float32, n)}
	epsSq := eps * eps
	for i := range n {
		for j := range n {
			if i == j {
				continue
			}
			dx, dy, dz := xyz[3*i]-xyz[3*j], xyz[3*i+1]-xyz[3*j+1], xyz[3*i+2]-xyz[3*j+2]
			if d2 := dx*dx + dy*dy + dz*dz; d2 <= epsSq {
				nb.idx[i] = append(nb.idx[i], int32(j))
				nb.d2[i] = append(nb.d2[i], d2)
			}
		}
	}
	return nb
}

// referenceDBSCAN is DBSCAN as Ester et al. wrote it (the paper's
// Algorithm 1): scan the points in order, grow a cluster from each
// unlabelled core point by breadth-first expansion through core points.
// A border point goes to the first cluster that reaches it.
func referenceDBSCAN(nb neighbours, minPts int) (labels []int32, core []bool) {
	n := len(nb.idx)
	labels = make([]int32, n)
	core = make([]bool, n)
	for i := range n {
		labels[i] = -1
		core[i] = len(nb.idx[i])+1 >= minPts
	}
	next := int32(0)
	for i := range n {
		if !core[i] || labels[i] >= 0 {
			continue
		}
		labels[i] = next
		queue := []int32{int32(i)}
		for len(queue) > 0 {
			p := queue[0]
			queue = queue[1:]
			for _, q := range nb.idx[p] {
				if labels[q] >= 0 {
					continue
				}
				labels[q] = next
				if core[q] {
					queue = append(queue, q)
				}
			}
		}
		next++
	}
	return labels, core
}

// checkAgainst compares a Result with a reference clustering (labels and
// core flags from another implementation) by DBSCAN's definition: the same
// core flags, the same partition of core points up to numbering, the same
// noise set; and it checks this package's own promises: each border point
// in the cluster of its nearest core neighbour (ties: smaller index, which
// also makes it a cluster of one of its core neighbours), clusters numbered
// by their smallest point index, Sizes and NoiseCount matching Labels.
// nbrs(i) returns point i's neighbours within ε and squared distances.
func checkAgainst(t *testing.T, what string, got dbscan.Result, refLabels []int32, refCore []bool, nbrs func(i int) ([]int32, []float32)) {
	t.Helper()
	n := len(refLabels)
	if len(got.Labels) != n || len(got.Core) != n {
		t.Fatalf("%s: got %d labels and %d core flags for %d points", what, len(got.Labels), len(got.Core), n)
	}
	fails := 0
	fail := func(format string, args ...any) {
		t.Helper()
		if fails++; fails <= 10 {
			t.Errorf("%s: "+format, append([]any{what}, args...)...)
		}
	}
	toRef := map[int32]int32{}
	fromRef := map[int32]int32{}
	sizes := make([]int, len(got.Sizes))
	noise, next := 0, int32(0)
	for i := range n {
		g, r := got.Labels[i], refLabels[i]
		if got.Core[i] != refCore[i] {
			fail("point %d: got core %v, want %v", i, got.Core[i], refCore[i])
		}
		if (g < 0) != (r < 0) {
			fail("point %d: got label %d, reference %d: noise sets differ", i, g, r)
		}
		if g < 0 {
			noise++
			continue
		}
		if int(g) >= len(sizes) {
			fail("point %d: label %d but only %d clusters", i, g, len(sizes))
			continue
		}
		sizes[g]++
		switch {
		case g == next:
			next++
		case g > next:
			fail("point %d: label %d appears before label %d: clusters not numbered by smallest index", i, g, next)
		}
		if !refCore[i] {
			continue
		}
		if m, ok := toRef[g]; ok && m != r {
			fail("core point %d: cluster %d holds core points of reference clusters %d and %d", i, g, m, r)
		}
		if m, ok := fromRef[r]; ok && m != g {
			fail("core point %d: reference cluster %d split into clusters %d and %d", i, r, m, g)
		}
		toRef[g], fromRef[r] = r, g
	}
	for i := range n {
		if got.Core[i] || got.Labels[i] < 0 {
			continue
		}
		idx, d2 := nbrs(i)
		best := int32(-1)
		var bestD2 float32
		for k, j := range idx {
			if got.Core[j] && (best < 0 || d2[k] < bestD2 || d2[k] == bestD2 && j < best) {
				best, bestD2 = j, d2[k]
			}
		}
		switch {
		case best < 0:
			fail("border point %d (label %d) has no core neighbour", i, got.Labels[i])
		case got.Labels[i] != got.Labels[best]:
			fail("border point %d: got label %d, want %d of its nearest core neighbour %d", i, got.Labels[i], got.Labels[best], best)
		}
	}
	if len(sizes) != len(got.Sizes) {
		fail("got %d sizes, want %d", len(got.Sizes), len(sizes))
	} else {
		for c := range sizes {
			if sizes[c] != got.Sizes[c] {
				fail("cluster %d: got size %d, labels say %d", c, got.Sizes[c], sizes[c])
			}
		}
	}
	if got.NoiseCount != noise {
		fail("got noise count %d, labels say %d", got.NoiseCount, noise)
	}
	if fails > 10 {
		t.Errorf("%s: %d mismatches in all", what, fails)
	}
}

func TestClusterMatchesReference(t *testing.T) {
	type cloud struct {
		name string
		xyz  []float32
		eps  float64
	}
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := fntest.Rand(seed)
	clouds := []cloud{
		{"uniform", fntest.Uniform(r, 2000, 10), 0.9},
		{"blobs", fntest.Clustered(r, 2000, 12, 20, 0.7), 0.5},
		{"flat", fntest.Flat(r, 2000, 10), 0.35},
		{"duplicates", fntest.Duplicated(r, 1500, 300, 6), 0.6},
		{"sparse", fntest.Uniform(r, 500, 100), 3},
	}
	backends := fntest.Usable(t)
	for _, c := range clouds {
		nb := bruteNeighbours(c.xyz, float32(c.eps))
		nbrs := func(i int) ([]int32, []float32) { return nb.idx[i], nb.d2[i] }
		minPts := []int{1, 2, 4, 8, 15}
		for _, b := range backends {
			run, err := dbscan.Cluster(c.xyz, b, dbscan.Options{Eps: c.eps, MinPts: minPts})
			if err != nil {
				t.Fatalf("%s/%s: %v", c.name, b.Name(), err)
			}
			for i, cnt := range run.Counts {
				if int(cnt) != len(nb.idx[i]) {
					t.Fatalf("%s/%s (seed %d): point %d: got count %d, want %d", c.name, b.Name(), seed, i, cnt, len(nb.idx[i]))
				}
			}
			clusters := 0
			for _, res := range run.Results {
				refLabels, refCore := referenceDBSCAN(nb, res.MinPts)
				checkAgainst(t, fmt.Sprintf("%s/%s/min_pts %d (seed %d)", c.name, b.Name(), res.MinPts, seed), res, refLabels, refCore, nbrs)
				clusters += len(res.Sizes)
			}
			if clusters == 0 {
				t.Errorf("%s: no clusters for any min_pts: the cloud does not exercise clustering", c.name)
			}
		}
	}
}

// TestClusterDeterministic checks that labels do not depend on the number
// of workers: the union-find runs concurrently, but its output must not.
func TestClusterDeterministic(t *testing.T) {
	xyz := fntest.Uniform(fntest.Rand(42), 3000, 12)
	for _, b := range fntest.Usable(t) {
		var first []int32
		for _, w := range []int{1, 2, 7} {
			run, err := dbscan.Cluster(xyz, b, dbscan.Options{Eps: 0.8, MinPts: []int{5}, Workers: w})
			if err != nil {
				t.Fatal(err)
			}
			if first == nil {
				first = run.Results[0].Labels
				continue
			}
			for i, l := range run.Results[0].Labels {
				if l != first[i] {
					t.Fatalf("%s: workers %d: point %d: got label %d, with 1 worker %d", b.Name(), w, i, l, first[i])
				}
			}
		}
	}
}
