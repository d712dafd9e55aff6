package dbscan

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/pctk/pctk/internal/par"
)

// TestRelabelMatchesSequential runs relabel on labels of many ranges (core
// points labelled by their component's smallest core index, border points
// by any core point, noise) with one and four cores, with and without a
// minimum cluster size, against the definition computed in one plain pass;
// with few clusters (sizes counted per range) and very many (shared
// counters).
func TestRelabelMatchesSequential(t *testing.T) {
	for _, newEvery := range []int{50, 2} {
		relabelCase(t, newEvery)
	}
}

func relabelCase(t *testing.T, newEvery int) {
	rng := rand.New(rand.NewPCG(5, uint64(newEvery)))
	n := 4*par.Grain + 77
	core := make([]bool, n)
	labels := make([]int32, n)
	var roots []int32
	for i := range n {
		switch {
		case rng.IntN(newEvery) == 0 || len(roots) == 0: // a new component
			core[i], labels[i] = true, int32(i)
			roots = append(roots, int32(i))
		case rng.IntN(4) == 0:
			labels[i] = Noise
		case rng.IntN(2) == 0: // a core point of an earlier component
			core[i], labels[i] = true, roots[rng.IntN(len(roots))]
		default: // a border point of a component, maybe one starting later
			labels[i] = -2
		}
	}
	for i := range n {
		if labels[i] == -2 {
			labels[i] = roots[rng.IntN(len(roots))]
		}
	}
	for _, minSize := range []int{0, 40} {
		want := sequentialRelabel(core, labels, minSize)
		for _, procs := range []int{1, 4} {
			old := runtime.GOMAXPROCS(procs)
			r := Result{Core: core, Labels: slices.Clone(labels)}
			err := r.relabel(make([]int32, n), minSize)
			runtime.GOMAXPROCS(old)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(r.Labels, want.Labels) || !slices.Equal(r.Sizes, want.Sizes) || r.NoiseCount != want.NoiseCount || r.Dropped != want.Dropped {
				t.Errorf("new component every %d points, min size %d, GOMAXPROCS %d: %d clusters, noise %d, dropped %d; want %d, %d, %d (labels equal: %v)", newEvery, minSize, procs,
					len(r.Sizes), r.NoiseCount, r.Dropped, len(want.Sizes), want.NoiseCount, want.Dropped, slices.Equal(r.Labels, want.Labels))
			}
		}
	}
	// The first bad label is the one reported.
	bad := slices.Clone(labels)
	bad[3*par.Grain+1], bad[2*par.Grain+5] = int32(n), int32(n+1)
	r := Result{Core: core, Labels: bad}
	if err := r.relabel(make([]int32, n), 0); err == nil || err.Error() != (&Result{Core: core, Labels: bad}).checkLabel(2*par.Grain+5, int32(n+1)).Error() {
		t.Errorf("bad labels: err = %v, want the error of point %d", err, 2*par.Grain+5)
	}
}

// sequentialRelabel is relabel's definition: clusters numbered in order of
// their first point, small ones dropped and the rest renumbered.
func sequentialRelabel(core []bool, labels []int32, minSize int) Result {
	num := map[int32]int32{}
	var sizes []int
	out := make([]int32, len(labels))
	for i, l := range labels {
		out[i] = Noise
		if l == Noise {
			continue
		}
		c, ok := num[l]
		if !ok {
			c = int32(len(sizes))
			num[l] = c
			sizes = append(sizes, 0)
		}
		out[i] = c
		sizes[c]++
	}
	r := Result{Core: core, Labels: out}
	if minSize > 1 {
		keep := make([]int32, len(sizes))
		var kept []int
		for c, s := range sizes {
			keep[c] = Noise
			if s >= minSize {
				keep[c] = int32(len(kept))
				kept = append(kept, s)
			} else {
				r.Dropped++
			}
		}
		for i, l := range out {
			if l >= 0 {
				out[i] = keep[l]
			}
		}
		sizes = kept
	}
	r.Sizes = sizes
	r.NoiseCount = len(labels)
	for _, s := range sizes {
		r.NoiseCount -= s
	}
	return r
}
