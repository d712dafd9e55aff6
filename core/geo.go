package core

import (
	"fmt"
	"math"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/project"
)

// WGS84 ellipsoid: semi-major axis a (orb.EarthRadius, the sphere orb's
// Mercator uses) and first eccentricity squared e².
const (
	wgs84A  = orb.EarthRadius
	wgs84E2 = 6.69437999014e-3
	// maxGeoLat bounds the latitudes GeoLocal accepts: Mercator's scale
	// sec φ grows without bound toward the poles.
	maxGeoLat = 85.0
)

// GeoLocal projects a cloud whose X and Y are longitude and latitude in
// degrees (WGS84) to float32 metres around the cloud's centre (φ0, λ0), for
// a radius ε in metres.
//
// The projection is orb's spherical Mercator (project.WGS84.ToMercator)
// rescaled so that one metre is one metre on the WGS84 ellipsoid at the
// centre: x by cos φ0·N(φ0)/a, y by cos φ0·M(φ0)/a, where N and M are the
// ellipsoid's prime-vertical and meridional radii of curvature. Mercator is
// conformal, so away from the centre latitude the scale drifts by about
// cos φ0/cos φ − 1 ≈ tan φ0·Δφ; scaleErr is the largest relative error
// of a distance anywhere in the cloud (0.0016 for a cloud 10 km tall at 45°),
// by which ε is effectively larger or smaller at the cloud's north and south
// edges. Longitudes are taken relative to λ0, so clouds across the
// antimeridian work. Z, when flat is false, is kept in its own units
// (metres for ellipsoidal or orthometric heights) relative to its centre.
//
// It fails, naming the first such point, when a latitude lies beyond ±85°
// or a longitude outside [-180, 360]: a cloud that is not in degrees.
func (c *Cloud) GeoLocal(flat bool) (l Local, scaleErr float64, err error) {
	n := c.Len()
	if n == 0 {
		return Local{XYZ: []float32{}}, 0, nil
	}
	latMin, latMax := math.Inf(1), math.Inf(-1)
	lonMin, lonMax := math.Inf(1), math.Inf(-1)
	for i := range n {
		lon, lat := c.X[i], c.Y[i]
		if lat < -maxGeoLat || lat > maxGeoLat {
			return l, 0, fmt.Errorf("core: point %d has latitude (Y) %g outside [-%g, %g]; is the cloud in lon/lat degrees?", i, lat, maxGeoLat, maxGeoLat)
		}
		if lon < -180 || lon > 360 {
			return l, 0, fmt.Errorf("core: point %d has longitude (X) %g outside [-180, 360]; is the cloud in lon/lat degrees?", i, lon)
		}
		latMin, latMax = min(latMin, lat), max(latMax, lat)
		lonMin, lonMax = min(lonMin, wrapLon(lon)), max(lonMax, wrapLon(lon))
	}
	// λ0: the centre of the longitude range, or of the range shifted by 360°
	// when that range is narrower (a cloud across the antimeridian).
	lon0 := (lonMin + lonMax) / 2
	if lonMax-lonMin > 180 {
		sMin, sMax := math.Inf(1), math.Inf(-1)
		for i := range n {
			s := math.Mod(wrapLon(c.X[i])+360, 360)
			sMin, sMax = min(sMin, s), max(sMax, s)
		}
		if sMax-sMin < lonMax-lonMin {
			lon0 = wrapLon((sMin + sMax) / 2)
		}
	}
	lat0 := (latMin + latMax) / 2
	z0 := 0.0
	b, ok := c.Bounds()
	if ok && !flat {
		z0 = b.Center()[2]
	}

	k0 := math.Cos(lat0 * math.Pi / 180)
	sx := k0 * primeVerticalRadius(lat0) / wgs84A
	sy := k0 * meridionalRadius(lat0) / wgs84A
	y0 := project.WGS84.ToMercator(orb.Point{0, lat0})[1]
	xyz := make([]float32, 3*n)
	for i := range n {
		m := project.WGS84.ToMercator(orb.Point{wrapLon(c.X[i] - lon0), c.Y[i]})
		xyz[3*i] = float32(m[0] * sx)
		xyz[3*i+1] = float32((m[1] - y0) * sy)
		if !flat {
			xyz[3*i+2] = float32(c.Z[i] - z0)
		}
	}
	return Local{Origin: [3]float64{lon0, lat0, z0}, XYZ: xyz, Bounds: b}, geoScaleError(lat0, latMin, latMax), nil
}

// geoScaleError returns the largest relative scale error, east-west or
// north-south, of GeoLocal's projection centred at lat0 over latitudes
// [latMin, latMax]: the ratio of projected to true metres on the ellipsoid
// is N(φ0)cos φ0/(N(φ)cos φ) east-west and M(φ0)cos φ0/(M(φ)cos φ)
// north-south. Both are smooth in φ, so sampling the range finely is exact
// to well below the errors that matter.
func geoScaleError(lat0, latMin, latMax float64) float64 {
	c0 := math.Cos(lat0 * math.Pi / 180)
	n0, m0 := primeVerticalRadius(lat0), meridionalRadius(lat0)
	worst := 0.0
	const steps = 64
	for s := range steps + 1 {
		lat := latMin + (latMax-latMin)*float64(s)/steps
		c := math.Cos(lat * math.Pi / 180)
		ex := n0*c0/(primeVerticalRadius(lat)*c) - 1
		ey := m0*c0/(meridionalRadius(lat)*c) - 1
		worst = max(worst, math.Abs(ex), math.Abs(ey))
	}
	return worst
}

// primeVerticalRadius is the WGS84 radius of curvature N(φ) in metres.
func primeVerticalRadius(latDeg float64) float64 {
	s := math.Sin(latDeg * math.Pi / 180)
	return wgs84A / math.Sqrt(1-wgs84E2*s*s)
}

// meridionalRadius is the WGS84 radius of curvature M(φ) in metres.
func meridionalRadius(latDeg float64) float64 {
	s := math.Sin(latDeg * math.Pi / 180)
	return wgs84A * (1 - wgs84E2) / math.Pow(1-wgs84E2*s*s, 1.5)
}

// wrapLon maps a longitude in degrees into [-180, 180).
func wrapLon(lon float64) float64 {
	lon = math.Mod(lon+180, 360)
	if lon < 0 {
		lon += 360
	}
	return lon - 180
}
