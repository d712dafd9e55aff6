package render

import (
	"testing"

	"github.com/pctk/pctk/core"
)

// TestLinearUnit checks the scale bar's unit for projected CRSs in metres
// and feet, stated by WKT 1, WKT 2 or LAS GeoKeys.
func TestLinearUnit(t *testing.T) {
	// EPSG:2229, NAD83 / California zone 5 (ftUS), as PDAL writes it.
	ftUS := `PROJCS["NAD83 / California zone 5 (ftUS)",GEOGCS["NAD83",DATUM["North_American_Datum_1983",SPHEROID["GRS 1980",6378137,298.257222101]],PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433]],PROJECTION["Lambert_Conformal_Conic_2SP"],UNIT["US survey foot",0.304800609601219,AUTHORITY["EPSG","9003"]]]`
	utm := `PROJCS["WGS 84 / UTM zone 32N",GEOGCS["WGS 84",UNIT["degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],UNIT["metre",1]]`
	wkt2 := `PROJCRS["x",BASEGEOGCRS["y",ANGLEUNIT["degree",0.0174532925199433]],CS[Cartesian,2],AXIS["easting",east,LENGTHUNIT["foot",0.3048]]]`
	for _, tc := range []struct {
		name string
		crs  core.CRS
		want string
	}{
		{"none", core.CRS{}, "m"},
		{"WKT 1 metres", core.CRS{WKT: utm}, "m"},
		{"WKT 1 US survey feet", core.CRS{WKT: ftUS}, "US ft"},
		{"WKT 2 feet", core.CRS{WKT: wkt2}, "ft"},
		{"GeoKeys US survey feet", core.CRS{GeoKeys: []uint16{1, 1, 0, 2, 1024, 0, 1, 1, 3076, 0, 1, 9003}}, "US ft"},
		{"GeoKeys feet", core.CRS{GeoKeys: []uint16{1, 1, 0, 1, 3076, 0, 1, 9002}}, "ft"},
		{"GeoKeys metres", core.CRS{GeoKeys: []uint16{1, 1, 0, 1, 3076, 0, 1, 9001}}, "m"},
		{"GeoKeys cut short", core.CRS{GeoKeys: []uint16{1, 1, 0, 5, 3076, 0}}, "m"},
	} {
		if got := unitName(&core.Cloud{Meta: core.Metadata{CRS: tc.crs}}, ""); got != tc.want {
			t.Errorf("%s: unit %q, want %q", tc.name, got, tc.want)
		}
	}
}
