package stage

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestParseIgnore reads PDAL's ignore over Classification in its forms.
func TestParseIgnore(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []uint8
		bad  bool
	}{
		{"", nil, false},
		{"7", []uint8{7}, false},
		{"7, 9", []uint8{7, 9}, false},
		{"3:5", []uint8{3, 4, 5}, false},
		{"Classification[7:7],Classification[18:18]", []uint8{7, 18}, false},
		{"5:3", nil, true},
		{"256", nil, true},
		{"Intensity[0:5]", nil, true},
	} {
		got, err := parseIgnore(tc.in)
		if (err != nil) != tc.bad || !slices.Equal(got, tc.want) {
			t.Errorf("parseIgnore(%q) = %v, %v; want %v (error %v)", tc.in, got, err, tc.want, tc.bad)
		}
	}
}

// TestWithClassBits reads PDAL's classbits of filters.smrf into the
// classes it leaves out.
func TestWithClassBits(t *testing.T) {
	for _, tc := range []struct {
		in     string
		ignore []uint8
		n      int // classes ignored
		has    []uint8
		hasNot []uint8
		bad    bool
	}{
		{"", []uint8{7}, 1, []uint8{7}, []uint8{32, 128}, false},
		{"withheld", nil, 128, []uint8{128, 255}, []uint8{2, 127}, false},
		{"synthetic,keypoint", []uint8{7}, 1 + 192, []uint8{7, 32, 64, 96, 255}, []uint8{2, 31, 128}, false},
		{"Withheld, synthetic", nil, 192, []uint8{32, 128, 160}, []uint8{64, 2}, false},
		{"overlap", nil, 0, nil, nil, true},
	} {
		got, err := withClassBits(slices.Clone(tc.ignore), tc.in)
		if (err != nil) != tc.bad {
			t.Errorf("withClassBits(%q): error %v, want one %v", tc.in, err, tc.bad)
			continue
		}
		if tc.bad {
			continue
		}
		if len(got) != tc.n {
			t.Errorf("withClassBits(%q): %d classes ignored, want %d", tc.in, len(got), tc.n)
		}
		for _, c := range tc.has {
			if !slices.Contains(got, c) {
				t.Errorf("withClassBits(%q): class %d not ignored", tc.in, c)
			}
		}
		for _, c := range tc.hasNot {
			if slices.Contains(got, c) {
				t.Errorf("withClassBits(%q): class %d ignored", tc.in, c)
			}
		}
	}
}

// TestGroundHAGPDALNames maps the PDAL stages and options of the ground
// and height filters (PDAL 2.9.2's names) to pctk's steps, and refuses
// what PDAL's stage has not.
func TestGroundHAGPDALNames(t *testing.T) {
	for _, tc := range []struct {
		stage string
		want  string // the step's words, or the error's text
	}{
		{`{"type": "filters.hag_nn", "count": 4, "max_distance": 2.5, "allow_extrapolation": false}`, `[[hag --count 4 --max-distance 2.5 --allow-extrapolation=false]]`},
		{`{"type": "filters.hag_delaunay"}`, `[[hag --method delaunay]]`},
		{`{"type": "filters.hag_delaunay", "count": 6, "allow_extrapolation": true}`, `[[hag --method delaunay --count 6 --allow-extrapolation]]`},
		{`{"type": "filters.smrf", "classbits": "withheld", "ignore": "Classification[7:7]", "window": 12}`, `[[ground smrf --classbits withheld --ignore Classification[7:7] --window 12]]`},
		{`{"type": "filters.pmf", "cell_size": 2, "exponential": false, "returns": "last"}`, `[[ground pmf --cell-size 2 --exponential=false --returns last]]`},
		{`{"type": "filters.csf", "resolution": 2, "smooth": false, "rigidness": 1}`, `[[ground csf --cloth-resolution 2 --smooth=false --rigidness 1]]`},
		{`{"type": "filters.csf", "debug": true}`, `stage 2 (filters.csf): option "debug" is not one pctk maps`},
		{`{"type": "filters.smrf", "dir": "/tmp"}`, `stage 2 (filters.smrf): option "dir" is not one pctk maps`},
	} {
		p, err := ParsePipelineJSON([]byte(`["a.las", ` + tc.stage + `, "o.las"]`))
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = fmt.Sprint(p.Steps)
		}
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s:\n got %s\nwant %s", tc.stage, got, tc.want)
		}
	}
}
