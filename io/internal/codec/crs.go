package codec

import (
	"strconv"
	"strings"

	"github.com/pctk/pctk/core"
)

// crsPrefix starts the header comments that carry a CRS through formats
// with no CRS field of their own (PLY, PCD), so that a LAS file converted to
// PLY and back keeps its coordinate reference system.
const crsPrefix = "pctk-crs "

// CRSComments returns the header comments that record crs, none when it
// is empty: "pctk-crs epsg N", `pctk-crs wkt "..."` (WKT as a Go-quoted
// string, so newlines survive) and "pctk-crs geokeys a,b,c,...".
func CRSComments(crs core.CRS) []string {
	var out []string
	if crs.EPSG != 0 {
		out = append(out, crsPrefix+"epsg "+strconv.Itoa(crs.EPSG))
	}
	if crs.WKT != "" {
		out = append(out, crsPrefix+"wkt "+strconv.Quote(crs.WKT))
	}
	if len(crs.GeoKeys) > 0 {
		keys := make([]string, len(crs.GeoKeys))
		for i, k := range crs.GeoKeys {
			keys[i] = strconv.Itoa(int(k))
		}
		out = append(out, crsPrefix+"geokeys "+strings.Join(keys, ","))
	}
	return out
}

// SplitCRS takes the CRS comments written by CRSComments out of comments
// and returns the CRS they record with the remaining comments. A comment
// with the prefix that does not parse stays an ordinary comment.
func SplitCRS(comments []string) (core.CRS, []string) {
	var crs core.CRS
	var rest []string
	for _, c := range comments {
		if !parseCRSComment(c, &crs) {
			rest = append(rest, c)
		}
	}
	return crs, rest
}

func parseCRSComment(c string, crs *core.CRS) bool {
	body, ok := strings.CutPrefix(c, crsPrefix)
	if !ok {
		return false
	}
	kind, val, _ := strings.Cut(body, " ")
	switch kind {
	case "epsg":
		n, err := strconv.Atoi(val)
		if err != nil || n <= 0 || crs.EPSG != 0 {
			return false
		}
		crs.EPSG = n
	case "wkt":
		s, err := strconv.Unquote(val)
		if err != nil || crs.WKT != "" {
			return false
		}
		crs.WKT = s
	case "geokeys":
		if crs.GeoKeys != nil {
			return false
		}
		var keys []uint16
		for f := range strings.SplitSeq(val, ",") {
			n, err := strconv.ParseUint(f, 10, 16)
			if err != nil {
				return false
			}
			keys = append(keys, uint16(n))
		}
		crs.GeoKeys = keys
	default:
		return false
	}
	return true
}
