package ground

import (
	"testing"
)

// smrfCases run filters.smrf side by side with SMRF on the repository's
// and PDAL's test data (shared/data/pdal, found upwards): PDAL's defaults,
// and every option moved off its default.
var smrfCases = []struct {
	path  string
	stage map[string]any
	opts  SMRFOptions
}{
	{"../../testdata/haystack_rock.las", map[string]any{"type": "filters.smrf"}, SMRFOptions{}},
	{shared("pdal/las/autzen_trim.las"), map[string]any{"type": "filters.smrf"}, SMRFOptions{}},
	{"../../testdata/haystack_rock.las", map[string]any{"type": "filters.smrf", "cell": 1.5, "slope": 0.3, "window": 12,
		"scalar": 0.8, "threshold": 0.3, "cut": 9, "returns": "first,last,intermediate,only", "ignore": "Classification[7:7]"},
		SMRFOptions{Cell: 1.5, Slope: 0.3, Window: 12, Scalar: 0.8, Threshold: 0.3, Cut: 9,
			Returns: First | Intermediate | Last | Only, Ignore: []uint8{7}}},
}

func TestSMRFMatchesPDAL(t *testing.T) {
	if testing.Short() {
		t.Skip("runs PDAL for about a minute")
	}
	for _, tc := range smrfCases {
		s := readSample(t, tc.path)
		want := pdalClasses(t, tc.path, tc.stage)
		opts := tc.opts
		opts.Pos, opts.PDALFrame = s.abs, true
		got, err := SMRF(s.xyz, s.attrs, opts)
		if err != nil {
			t.Fatal(err)
		}
		compareClasses(t, tc.path, got.Classification, want)
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
