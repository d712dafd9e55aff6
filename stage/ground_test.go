package stage

import (
	"slices"
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
