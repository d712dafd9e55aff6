package codec

import (
	"reflect"
	"testing"

	"github.com/pctk/pctk/core"
)

func TestCRSCommentsRoundTrip(t *testing.T) {
	tests := []core.CRS{
		{},
		{EPSG: 3645},
		{WKT: "PROJCS[\"NAD83 / Oregon North (ft)\",\n  GEOGCS[\"NAD83\"]]"},
		{EPSG: 26910, WKT: "PROJCS[\"x\"]", GeoKeys: []uint16{1, 1, 0, 1, 3072, 0, 1, 26910}},
		{GeoKeys: []uint16{1, 1, 0, 2, 3075, 0, 1, 8, 3078, 34736, 1, 0}, GeoDoubles: []float64{43, 1e-300, -120.5}, GeoASCII: "NAD83 / Oregon|\x00"},
	}
	for _, crs := range tests {
		comments := append([]string{"scanned 2011", "pctk-crs bogus 1"}, CRSComments(crs)...)
		got, rest := SplitCRS(comments)
		if !reflect.DeepEqual(got, crs) {
			t.Errorf("SplitCRS(CRSComments(%+v)) = %+v", crs, got)
		}
		if want := []string{"scanned 2011", "pctk-crs bogus 1"}; !reflect.DeepEqual(rest, want) {
			t.Errorf("remaining comments %q, want %q", rest, want)
		}
	}
	if got, rest := SplitCRS([]string{"pctk-crs epsg x", "pctk-crs geokeys 1,70000"}); !got.IsZero() || len(rest) != 2 {
		t.Errorf("malformed CRS comments parsed as %+v, rest %q", got, rest)
	}
}
