package core

import "github.com/pctk/pctk/internal/par"

// Local is a float32 view of a cloud's coordinates relative to a local
// origin. Subtracting the bounding-box centre in float64 before rounding to
// float32 keeps sub-millimetre resolution for clouds up to tens of kilometres
// across, even when the absolute coordinates are UTM eastings or ECEF values
// that float32 could only hold to a metre.
type Local struct {
	// Origin is the float64 point subtracted from every coordinate.
	Origin [3]float64
	// XYZ holds x0, y0, z0, x1, y1, z1, ... as float32, 3 values per point.
	XYZ []float32
	// Bounds is the cloud's Bounds (zero when no point is finite), which
	// the view computed for its origin: kept so that no one computes it
	// again.
	Bounds Bounds
}

// Len returns the number of points.
func (l Local) Len() int { return len(l.XYZ) / 3 }

// Local returns the cloud's coordinates as float32 relative to the centre of
// its bounding box. When flat is true, Z is set to 0 so that neighbour
// searches work in the XY plane (2D data). A cloud with no finite point gets
// the origin (0, 0, 0).
func (c *Cloud) Local(flat bool) Local {
	b, _ := c.Bounds()
	o := b.Center()
	if flat {
		o[2] = 0
	}
	xyz := make([]float32, 3*c.Len())
	par.For(par.Ranges(c.Len(), par.Grain), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			xyz[3*i] = float32(c.X[i] - o[0])
			xyz[3*i+1] = float32(c.Y[i] - o[1])
			if !flat {
				xyz[3*i+2] = float32(c.Z[i] - o[2])
			}
		}
	})
	return Local{Origin: o, XYZ: xyz, Bounds: b}
}

// Relative returns the cloud's coordinates relative to origin as
// interleaved float64 (x0, y0, z0, x1, ...): the float64 twin of a Local's
// XYZ for its Origin, which algorithms that compute as PDAL does in float64
// take beside the float32 coordinates.
func (c *Cloud) Relative(origin [3]float64) []float64 {
	out := make([]float64, 3*c.Len())
	par.For(par.Ranges(c.Len(), par.Grain), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			out[3*i], out[3*i+1], out[3*i+2] = c.X[i]-origin[0], c.Y[i]-origin[1], c.Z[i]-origin[2]
		}
	})
	return out
}
