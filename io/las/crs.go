package las

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/pctk/pctk/core"
)

// GeoTIFF keys pctk interprets.
const (
	keyModelType     = 1024
	keyRasterType    = 1025
	keyGeographicCS  = 2048
	keyProjectedCS   = 3072
	userDefinedCode  = 32767
	modelProjected   = 1
	modelGeographic  = 2
	rasterPixelIsPt  = 2
	geoKeyDirVersion = 1
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
		if loc != 0 || val == 0 || val >= userDefinedCode {
			continue
		}
		switch id {
		case keyProjectedCS:
			proj = int(val)
		case keyGeographicCS:
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
	if keys == nil && c.EPSG > 0 && c.EPSG < userDefinedCode {
		model, key := uint16(modelProjected), uint16(keyProjectedCS)
		if c.EPSG >= 4000 && c.EPSG < 5000 {
			model, key = modelGeographic, keyGeographicCS
		}
		keys = []uint16{geoKeyDirVersion, 1, 0, 3,
			keyModelType, 0, 1, model,
			keyRasterType, 0, 1, rasterPixelIsPt,
			key, 0, 1, uint16(c.EPSG)}
	}
	if keys != nil {
		b := make([]byte, 2*len(keys))
		for i, k := range keys {
			le.PutUint16(b[2*i:], k)
		}
		out = append(out, newVLR(userProjection, recGeoKeys, "GeoTIFF GeoKeyDirectoryTag", b))
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
	if !slices.Equal(crs.GeoKeys, src.GeoKeys) {
		c.dropGeo, add.GeoKeys = true, crs.GeoKeys
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
	return a.WKT == b.WKT && a.EPSG == b.EPSG && slices.Equal(a.GeoKeys, b.GeoKeys)
}
