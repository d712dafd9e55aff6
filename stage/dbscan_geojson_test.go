package stage

import (
	"testing"

	"github.com/pctk/pctk/core"
)

// TestGeoJSONCRS checks the crs member the hulls carry: the EPSG code,
// else the WKT, else CRS84 for --geographic, else none.
func TestGeoJSONCRS(t *testing.T) {
	wkt := `PROJCS["NAD_1983_HARN_Lambert_Conformal_Conic"]`
	for _, c := range []struct {
		crs        core.CRS
		geographic bool
		want       string
	}{
		{core.CRS{EPSG: 2992, WKT: wkt}, false, "urn:ogc:def:crs:EPSG::2992"},
		{core.CRS{EPSG: 4326}, true, "urn:ogc:def:crs:EPSG::4326"},
		{core.CRS{WKT: wkt}, false, wkt},
		{core.CRS{}, true, "urn:ogc:def:crs:OGC:1.3:CRS84"},
		{core.CRS{GeoKeys: []uint16{1, 1, 0, 0}}, false, ""},
		{core.CRS{}, false, ""},
	} {
		if got := geojsonCRS(c.crs, c.geographic); got != c.want {
			t.Errorf("geojsonCRS(%+v, %v) = %q, want %q", c.crs, c.geographic, got, c.want)
		}
	}
}
