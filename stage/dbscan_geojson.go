package stage

import (
	"fmt"
	"io"
	"math"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geojson"
	"github.com/pctk/pctk/algos/dbscan"
	"github.com/pctk/pctk/core"
)

// hullGeometry returns a hull from dbscan.Hull as an orb geometry: a Point,
// a LineString (collinear points) or a Polygon whose ring is closed and
// counter-clockwise, as RFC 7946 asks of exterior rings.
func hullGeometry(hull [][2]float64) orb.Geometry {
	switch len(hull) {
	case 1:
		return orb.Point(hull[0])
	case 2:
		return orb.LineString{hull[0], hull[1]}
	}
	ring := make(orb.Ring, 0, len(hull)+1)
	for _, p := range hull {
		ring = append(ring, orb.Point(p))
	}
	return orb.Polygon{append(ring, ring[0])}
}

// writeHulls writes to w each cluster's XY convex hull with its size and
// bounding box as a GeoJSON FeatureCollection (orb/geojson). run's labels
// are of the points index lists (nil: all of c); geographic says X, Y are
// WGS84 lon/lat (--geographic).
func writeHulls(w io.Writer, c *core.Cloud, index []int, run *dbscan.Run, geographic bool) error {
	x, y, z := c.X, c.Y, c.Z
	if index != nil {
		x, y, z = make([]float64, len(index)), make([]float64, len(index)), make([]float64, len(index))
		for k, i := range index {
			x[k], y[k], z[k] = c.X[i], c.Y[i], c.Z[i]
		}
	}
	fc := geojson.NewFeatureCollection()
	for _, r := range run.Results {
		offsets, order := dbscan.Members(r.Labels, len(r.Sizes))
		for k := range r.Sizes {
			idx := order[offsets[k]:offsets[k+1]]
			lo := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
			hi := [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
			nCore := 0
			for _, i := range idx {
				p := [3]float64{x[i], y[i], z[i]}
				for d := range 3 {
					lo[d], hi[d] = min(lo[d], p[d]), max(hi[d], p[d])
				}
				if r.Core[i] {
					nCore++
				}
			}
			f := geojson.NewFeature(hullGeometry(dbscan.Hull(x, y, idx)))
			f.BBox = geojson.NewBBox(orb.Bound{Min: orb.Point{lo[0], lo[1]}, Max: orb.Point{hi[0], hi[1]}})
			f.Properties = geojson.Properties{
				"cluster": k, "min_pts": r.MinPts, "size": r.Sizes[k], "core": nCore,
				"z_min": lo[2], "z_max": hi[2],
			}
			fc.Append(f)
		}
	}
	if name := geojsonCRS(c.Meta.CRS, geographic); name != "" {
		// RFC 7946 dropped named CRSs, but GDAL and QGIS still read this
		// GeoJSON 2008 member; without it projected coordinates would be
		// taken for lon/lat.
		fc.ExtraMembers = geojson.Properties{"crs": map[string]any{
			"type": "name", "properties": map[string]any{"name": name},
		}}
	}
	data, err := fc.MarshalJSON()
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

// geojsonCRS returns the name of the GeoJSON 2008 crs member for points in
// crs: its EPSG URN, else its WKT (GDAL reads a name as any CRS text,
// OGRSpatialReference::SetFromUserInput), else, for WGS84 lon/lat
// (geographic), OGC's CRS84; "" when the CRS is unknown.
func geojsonCRS(crs core.CRS, geographic bool) string {
	switch {
	case crs.EPSG != 0:
		return fmt.Sprintf("urn:ogc:def:crs:EPSG::%d", crs.EPSG)
	case crs.WKT != "":
		return crs.WKT
	case geographic:
		return "urn:ogc:def:crs:OGC:1.3:CRS84"
	}
	return ""
}
