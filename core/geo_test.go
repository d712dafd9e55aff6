package core

import (
	"math"
	"testing"
)

func TestGeoLocal(t *testing.T) {
	// Pairs of lon/lat points 0.001° apart and their distance on the WGS84
	// ellipsoid: the meridian arc M(φ)·Δφ or the parallel arc N(φ)·cos φ·Δλ,
	// computed in Python from the radii of curvature. Over 100 m these equal
	// the geodesic to far better than the tolerance.
	tests := []struct {
		name         string
		lon, lat     [2]float64
		want, relTol float64
	}{
		{"north at 45°", [2]float64{10, 10}, [2]float64{45, 45.001}, 111.131787, 2e-6},
		{"east at 45°", [2]float64{10, 10.001}, [2]float64{45, 45}, 78.846835, 2e-6},
		{"east across the antimeridian", [2]float64{179.9995, -179.9995}, [2]float64{-30, -30}, 96.486280, 2e-6},
		{"west at the equator", [2]float64{-60, -60.001}, [2]float64{0, 0}, 111.319491, 2e-6},
	}
	for _, tt := range tests {
		c := New(2)
		for i := range 2 {
			c.X[i], c.Y[i] = tt.lon[i], tt.lat[i]
		}
		l, _, err := c.GeoLocal(true)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		dx, dy := float64(l.XYZ[3]-l.XYZ[0]), float64(l.XYZ[4]-l.XYZ[1])
		if got := math.Hypot(dx, dy); math.Abs(got/tt.want-1) > tt.relTol {
			t.Errorf("%s: got %.5f m, want %.5f m", tt.name, got, tt.want)
		}
	}
	// A cloud 10 km tall (0.09°) centred at 45°: about tan 45°·Δφ/2.
	if got := geoScaleError(45, 45-0.045, 45+0.045); got < 7e-4 || got > 8.5e-4 {
		t.Errorf("scale error of a 10 km cloud at 45°: got %.3g, want about 7.9e-4", got)
	}
	if got := geoScaleError(0, -0.045, 0.045); got > 1e-5 {
		t.Errorf("scale error of a 10 km cloud at the equator: got %.3g, want below 1e-5", got)
	}
}
