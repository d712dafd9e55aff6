package render

import (
	"regexp"
	"strings"

	"github.com/pctk/pctk/core"
)

// wktUnit matches a unit of WKT 1 (UNIT["US survey foot",0.3048...]) or
// WKT 2 (LENGTHUNIT[...]); group 1 is its name.
var wktUnit = regexp.MustCompile(`(?i)\b(?:LENGTH)?UNIT\s*\[\s*"([^"]*)"`)

// GeoTIFF's ProjLinearUnitsGeoKey and the EPSG codes of its feet
// (GeoTIFF 1.1, OGC 19-008r4, 7.1.8; EPSG 9002, 9003).
const (
	projLinearUnitsGeoKey = 3076
	epsgFoot              = 9002
	epsgUSSurveyFoot      = 9003
)

// linearUnit is the scale bar's name of a projected CRS's length unit: "ft"
// for the international foot, "US ft" for the US survey foot, else "m".
// The WKT's last length unit decides (a projected CRS's own, after its
// geographic base's angular one), else the LAS GeoKeys' linear unit.
func linearUnit(crs core.CRS) string {
	if ms := wktUnit.FindAllStringSubmatch(crs.WKT, -1); len(ms) > 0 {
		for i := len(ms) - 1; i >= 0; i-- {
			name := strings.ToLower(ms[i][1])
			switch {
			case strings.Contains(name, "degree"), strings.Contains(name, "radian"), strings.Contains(name, "grad"):
				continue // angular
			case strings.Contains(name, "us survey foot"), strings.Contains(name, "foot_us"), strings.Contains(name, "us foot"):
				return "US ft"
			case strings.Contains(name, "foot"), strings.Contains(name, "feet"):
				return "ft"
			}
			return "m"
		}
	}
	// The directory: a header of 4 values, the 4th the number of keys,
	// then per key its id, location (0: the value is inline), count, value.
	k := crs.GeoKeys
	for i := 4; i+3 < len(k) && (i-4)/4 < int(k[3]); i += 4 {
		if k[i] == projLinearUnitsGeoKey && k[i+1] == 0 {
			switch k[i+3] {
			case epsgFoot:
				return "ft"
			case epsgUSSurveyFoot:
				return "US ft"
			}
		}
	}
	return "m"
}
