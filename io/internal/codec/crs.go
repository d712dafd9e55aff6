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
// string, so newlines survive), "pctk-crs geokeys a,b,c,...", and the
// parameters the keys point into, "pctk-crs geodoubles x,y,..." and
// `pctk-crs geoascii "..."`.
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
	if len(crs.GeoDoubles) > 0 {
		v := make([]string, len(crs.GeoDoubles))
		for i, d := range crs.GeoDoubles {
			v[i] = strconv.FormatFloat(d, 'g', -1, 64)
		}
		out = append(out, crsPrefix+"geodoubles "+strings.Join(v, ","))
	}
	if crs.GeoASCII != "" {
		out = append(out, crsPrefix+"geoascii "+strconv.Quote(crs.GeoASCII))
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
	case "geodoubles":
		if crs.GeoDoubles != nil {
			return false
		}
		var v []float64
		for f := range strings.SplitSeq(val, ",") {
			d, err := strconv.ParseFloat(f, 64)
			if err != nil {
				return false
			}
			v = append(v, d)
		}
		crs.GeoDoubles = v
	case "geoascii":
		s, err := strconv.Unquote(val)
		if err != nil || crs.GeoASCII != "" {
			return false
		}
		crs.GeoASCII = s
	default:
		return false
	}
	return true
}

// GeoTIFF keys and codes (GeoTIFF 1.1, section 7) that pctk's codecs write.
const (
	GeoKeyModelType     = 1024 // GTModelTypeGeoKey
	GeoKeyRasterType    = 1025 // GTRasterTypeGeoKey
	GeoKeyGeographicCS  = 2048 // GeographicTypeGeoKey
	GeoKeyProjectedCS   = 3072 // ProjectedCSTypeGeoKey
	GeoUserDefined      = 32767
	GeoModelProjected   = 1
	GeoModelGeographic  = 2
	GeoRasterPixelArea  = 1 // RasterPixelIsArea
	GeoRasterPixelPoint = 2 // RasterPixelIsPoint
)

// EPSGGeoKeys returns a GeoKeyDirectory that states an EPSG code: codes
// 4000-4999 as a geographic CRS, others as projected, with the raster
// type given (GeoRasterPixelArea or GeoRasterPixelPoint); nil for a code
// outside 1-32766.
func EPSGGeoKeys(epsg int, rasterType uint16) []uint16 {
	if epsg <= 0 || epsg >= GeoUserDefined {
		return nil
	}
	model, key := uint16(GeoModelProjected), uint16(GeoKeyProjectedCS)
	if epsg >= 4000 && epsg < 5000 {
		model, key = GeoModelGeographic, GeoKeyGeographicCS
	}
	return []uint16{1, 1, 0, 3,
		GeoKeyModelType, 0, 1, model,
		GeoKeyRasterType, 0, 1, rasterType,
		key, 0, 1, uint16(epsg)}
}
