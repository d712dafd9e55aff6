package tile

import (
	"testing"

	"github.com/pctk/pctk/primitives/findneighbor"
)

// buildRecorder is a backend that records the workers Build is asked for.
type buildRecorder struct {
	findneighbor.Backend
	workers *int
}

func (b buildRecorder) Build(xyz []float32, eps float32, opts findneighbor.BuildOptions) (findneighbor.Index, error) {
	*b.workers = opts.Workers
	return b.Backend.Build(xyz, eps, opts)
}

// TestShare: on the host backends, Share spreads n tiles over
// min(workers, n) stand-ins that build with their share of the workers;
// one tile or one worker, and backends that are not on the host (a GPU's,
// a Pool, an unknown one), stay as they are.
func TestShare(t *testing.T) {
	cpu, brute := findneighbor.CPU(), findneighbor.Brute()
	if !findneighbor.OnHost(cpu) || !findneighbor.OnHost(brute) {
		t.Fatal("OnHost(cpu), OnHost(brute) = false, want true")
	}
	for _, tc := range []struct {
		b                 findneighbor.Backend
		workers, n        int
		atOnce, eachBuild int // atOnce 0: b itself
	}{
		{cpu, 2, 81, 2, 1},
		{cpu, 16, 81, 16, 1},
		{cpu, 16, 3, 3, 5},
		{brute, 4, 2, 2, 2},
		{cpu, 16, 1, 0, 0},
		{cpu, 1, 81, 0, 0},
		{Pool(cpu, cpu), 4, 81, 0, 0},
		{buildRecorder{cpu, new(int)}, 4, 81, 0, 0},
	} {
		got := Share(tc.b, tc.workers, tc.n)
		if tc.atOnce == 0 {
			if len(Backends(got)) != len(Backends(tc.b)) || Backends(got)[0] != Backends(tc.b)[0] {
				t.Errorf("Share(%T, %d workers, %d tiles) = %T, want the backend itself", tc.b, tc.workers, tc.n, got)
			}
			continue
		}
		bs := Backends(got)
		if len(bs) != tc.atOnce {
			t.Fatalf("Share(%s, %d workers, %d tiles): %d at once, want %d", tc.b.Name(), tc.workers, tc.n, len(bs), tc.atOnce)
		}
		for _, s := range bs {
			if s.Name() != tc.b.Name() || s.(shared).workers != tc.eachBuild {
				t.Errorf("Share(%s, %d workers, %d tiles): stand-in %s with %d workers, want %s with %d", tc.b.Name(), tc.workers, tc.n, s.Name(), s.(shared).workers, tc.b.Name(), tc.eachBuild)
			}
		}
	}
	// A stand-in builds with its share, whatever its caller asks.
	var asked int
	ix, err := (shared{buildRecorder{cpu, &asked}, 3}).Build([]float32{0, 0, 0, 1, 1, 1}, 1, findneighbor.BuildOptions{Workers: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if asked != 3 {
		t.Errorf("a stand-in of 3 workers built with %d", asked)
	}
}
