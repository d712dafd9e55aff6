package las

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/internal/codec"
)

// crsFromVLRs reads the CRS from the GeoKeyDirectoryTag (LASF_Projection/
// 34735) and OGC WKT (LASF_Projection/2112) records.
func crsFromVLRs(vs []VLR) core.CRS {
	var c core.CRS
	for i := range vs {
		v := &vs[i]
		switch {
		case v.Is(userProjection, recGeoKeys) && c.GeoKeys == nil:
			c.GeoKeys = make([]uint16, len(v.Data)/2)
			for k := range c.GeoKeys {
				c.GeoKeys[k] = le.Uint16(v.Data[2*k:])
			}
		case v.Is(userProjection, recGeoDoubles) && c.GeoDoubles == nil:
			c.GeoDoubles = make([]float64, len(v.Data)/8)
			for k := range c.GeoDoubles {
				c.GeoDoubles[k] = math.Float64frombits(le.Uint64(v.Data[8*k:]))
			}
		case v.Is(userProjection, recGeoASCII) && c.GeoASCII == "":
			c.GeoASCII = string(v.Data)
		case v.Is(userProjection, recWKT) && c.WKT == "":
			c.WKT = strings.TrimRight(cString(v.Data), " \n")
		}
	}
	c.EPSG = epsgFromGeoKeys(c.GeoKeys)
	if c.EPSG == 0 {
		c.EPSG = epsgFromWKT(c.WKT)
	}
	return c
}

// epsgFromGeoKeys returns the ProjectedCSTypeGeoKey, else the
// GeographicTypeGeoKey, when the directory gives it as an EPSG code.
func epsgFromGeoKeys(keys []uint16) int {
	if len(keys) < 4 {
		return 0
	}
	n := int(keys[3])
	var proj, geog int
	for i := range n {
		e := 4 + 4*i
		if e+4 > len(keys) {
			break
		}
		id, loc, val := keys[e], keys[e+1], keys[e+3]
		if loc != 0 || val == 0 || val >= codec.GeoUserDefined {
			continue
		}
		switch id {
		case codec.GeoKeyProjectedCS:
			proj = int(val)
		case codec.GeoKeyGeographicCS:
			geog = int(val)
		}
	}
	if proj != 0 {
		return proj
	}
	return geog
}

// wktAuthority matches an EPSG authority clause of WKT1 or WKT2.
var wktAuthority = regexp.MustCompile(`(?i)(?:AUTHORITY|ID)\[\s*"EPSG"\s*,\s*"?(\d+)"?\s*\]`)

// epsgFromWKT returns the EPSG code of the outermost object of a WKT
// string: the last authority clause directly inside the top-level bracket.
func epsgFromWKT(wkt string) int {
	code, depth, at := 0, 0, 0
	for _, m := range wktAuthority.FindAllStringSubmatchIndex(wkt, -1) {
		for _, r := range wkt[at:m[0]] {
			switch r {
			case '[', '(':
				depth++
			case ']', ')':
				depth--
			}
		}
		at = m[0]
		if depth == 1 {
			code, _ = strconv.Atoi(wkt[m[2]:m[3]])
		}
	}
	return code
}

// crsVLRs encodes a CRS as LAS records: a WKT record when WKT is known,
// else a GeoKeyDirectoryTag from GeoKeys, or one built from EPSG (codes
// 4000-4999 are taken as geographic, others as projected).
func crsVLRs(c core.CRS) []VLR {
	var out []VLR
	if c.WKT != "" {
		out = append(out, newVLR(userProjection, recWKT, "OGC WKT", append([]byte(c.WKT), 0)))
	}
	keys := c.GeoKeys
	if keys == nil {
		keys = codec.EPSGGeoKeys(c.EPSG, codec.GeoRasterPixelPoint)
	}
	if keys != nil {
		b := make([]byte, 2*len(keys))
		for i, k := range keys {
			le.PutUint16(b[2*i:], k)
		}
		out = append(out, newVLR(userProjection, recGeoKeys, "GeoTIFF GeoKeyDirectoryTag", b))
	}
	if c.GeoDoubles != nil && c.GeoKeys != nil {
		b := make([]byte, 8*len(c.GeoDoubles))
		for i, v := range c.GeoDoubles {
			le.PutUint64(b[8*i:], math.Float64bits(v))
		}
		out = append(out, newVLR(userProjection, recGeoDoubles, "GeoTIFF GeoDoubleParamsTag", b))
	}
	if c.GeoASCII != "" && c.GeoKeys != nil {
		out = append(out, newVLR(userProjection, recGeoASCII, "GeoTIFF GeoAsciiParamsTag", []byte(c.GeoASCII)))
	}
	return out
}

// crsChange says how to turn the CRS records of a source (whose CRS is
// src) into records for crs: which source records to drop and which
// records to add. The GeoTIFF records (keys with their double and ASCII
// parameters) and the WKT record are each kept while their part of the
// CRS is unchanged, so that keys referring to parameter records stay
// valid. When neither the WKT nor the keys give crs.EPSG, keys are built
// from the code.
type crsChange struct {
	dropGeo, dropWKT bool
	add              []VLR
}

func planCRS(crs, src core.CRS) crsChange {
	if sameCRS(crs, src) {
		return crsChange{}
	}
	var c crsChange
	var add core.CRS
	if crs.WKT != src.WKT {
		c.dropWKT, add.WKT = true, crs.WKT
	}
	if !sameGeo(crs, src) {
		c.dropGeo, add.GeoKeys, add.GeoDoubles, add.GeoASCII = true, crs.GeoKeys, crs.GeoDoubles, crs.GeoASCII
	}
	implied := epsgFromGeoKeys(crs.GeoKeys)
	if implied == 0 {
		implied = epsgFromWKT(crs.WKT)
	}
	if crs.EPSG != 0 && implied != crs.EPSG {
		c.dropGeo, add.GeoKeys, add.EPSG = true, nil, crs.EPSG
	}
	c.add = crsVLRs(add)
	return c
}

// drops reports whether the change drops source record v.
func (c crsChange) drops(v *VLR) bool {
	if v.User() != userProjection {
		return false
	}
	switch v.RecordID {
	case recGeoKeys, recGeoDoubles, recGeoASCII:
		return c.dropGeo
	case recWKT:
		return c.dropWKT
	}
	return false
}

// sameCRS reports whether two CRS values are equal.
func sameCRS(a, b core.CRS) bool {
	return a.WKT == b.WKT && a.EPSG == b.EPSG && sameGeo(a, b)
}

// sameGeo reports whether two CRS values have the same GeoTIFF keys and
// parameters.
func sameGeo(a, b core.CRS) bool {
	return slices.Equal(a.GeoKeys, b.GeoKeys) && slices.Equal(a.GeoDoubles, b.GeoDoubles) && a.GeoASCII == b.GeoASCII
}
