package ground

import (
	"fmt"
	"testing"
)

// peerCases run PDAL's filters side by side with this package's on the repository's
// and PDAL's test data (shared/data/pdal, found upwards): PDAL's defaults,
// and every option moved off its default.
// (run on the absolute coordinates, with PDALFrame): PDAL's defaults, and
// every option moved off its default.
var peerCases = []struct {
	path  string
	stage map[string]any
	run   func(s sample) (Result, error)
}{
	{"../../testdata/haystack_rock.las", map[string]any{"type": "filters.smrf"}, func(s sample) (Result, error) {
		return SMRF(s.xyz, s.attrs, SMRFOptions{Pos: s.abs, PDALFrame: true})
	}},
	{shared("pdal/las/autzen_trim.las"), map[string]any{"type": "filters.smrf"}, func(s sample) (Result, error) {
		return SMRF(s.xyz, s.attrs, SMRFOptions{Pos: s.abs, PDALFrame: true})
	}},
	{"../../testdata/haystack_rock.las", map[string]any{"type": "filters.smrf", "cell": 1.5, "slope": 0.3, "window": 12,
		"scalar": 0.8, "threshold": 0.3, "cut": 9, "returns": "first,last,intermediate,only", "ignore": "Classification[7:7]"},
		func(s sample) (Result, error) {
			return SMRF(s.xyz, s.attrs, SMRFOptions{Cell: 1.5, Slope: 0.3, Window: 12, Scalar: 0.8, Threshold: 0.3, Cut: 9,
				Returns: First | Intermediate | Last | Only, Ignore: []uint8{7}, Pos: s.abs, PDALFrame: true})
		}},
	{"../../testdata/haystack_rock.las", map[string]any{"type": "filters.pmf"}, func(s sample) (Result, error) {
		return PMF(s.xyz, s.attrs, PMFOptions{Pos: s.abs, PDALFrame: true})
	}},
	{shared("pdal/las/autzen_trim.las"), map[string]any{"type": "filters.pmf"}, func(s sample) (Result, error) {
		return PMF(s.xyz, s.attrs, PMFOptions{Pos: s.abs, PDALFrame: true})
	}},
	{"../../testdata/haystack_rock.las", map[string]any{"type": "filters.pmf", "cell_size": 1.5, "exponential": false,
		"initial_distance": 0.3, "max_distance": 3, "max_window_size": 20, "slope": 0.7,
		"returns": "first,last,intermediate,only", "ignore": "Classification[7:7]"},
		func(s sample) (Result, error) {
			return PMF(s.xyz, s.attrs, PMFOptions{CellSize: 1.5, Linear: true, InitialDistance: 0.3, MaxDistance: 3,
				MaxWindowSize: 20, Slope: 0.7, Returns: First | Intermediate | Last | Only, Ignore: []uint8{7}, Pos: s.abs, PDALFrame: true})
		}},
	{"../../testdata/haystack_rock.las", map[string]any{"type": "filters.csf"}, func(s sample) (Result, error) {
		return CSF(s.xyz, s.attrs, CSFOptions{Pos: s.abs})
	}},
	{shared("pdal/las/autzen_trim.las"), map[string]any{"type": "filters.csf"}, func(s sample) (Result, error) {
		return CSF(s.xyz, s.attrs, CSFOptions{Pos: s.abs})
	}},
	{"../../testdata/haystack_rock.las", map[string]any{"type": "filters.csf", "resolution": 1.5, "rigidness": 2,
		"iterations": 300, "step": 0.5, "threshold": 0.4, "hdiff": 0.5, "smooth": false,
		"returns": "first,last,intermediate,only", "ignore": "Classification[7:7]"},
		func(s sample) (Result, error) {
			return CSF(s.xyz, s.attrs, CSFOptions{Resolution: 1.5, Rigidness: 2, Iterations: 300, Step: 0.5, Threshold: 0.4,
				HDiff: 0.5, NoSmooth: true, Returns: First | Intermediate | Last | Only, Ignore: []uint8{7}, Pos: s.abs})
		}},
}

func TestMatchesPDAL(t *testing.T) {
	if testing.Short() {
		t.Skip("runs PDAL and the filters for minutes (CSF on autzen_trim: 2 × 1 min)")
	}
	for _, tc := range peerCases {
		s := readSample(t, tc.path)
		want := pdalClasses(t, tc.path, tc.stage)
		got, err := tc.run(s)
		if err != nil {
			t.Fatal(err)
		}
		compareClasses(t, fmt.Sprint(tc.path, tc.stage), got.Classification, want)
	}
}

// compareClasses fails t where got and want differ, reporting a few.
func compareClasses(t *testing.T, name string, got, want []uint8) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d classes, want %d", name, len(got), len(want))
	}
	bad, counts := 0, map[[2]uint8]int{}
	for i := range got {
		if got[i] != want[i] {
			if bad++; bad <= 3 {
				t.Errorf("%s: point %d: class %d, want %d (PDAL)", name, i, got[i], want[i])
			}
			counts[[2]uint8{got[i], want[i]}]++
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d classes differ from PDAL's: %v", name, bad, len(got), counts)
	}
}
