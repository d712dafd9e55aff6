package eigen

import "github.com/pctk/pctk/primitives/findneighbor"

// Covariance returns the covariance of the neighbourhood made of a point
// and the neighbours whose offsets from it m sums (findneighbor's moments
// leave the point out; its own offset is 0) and n = m.N+1, its number of
// points: C = (Σddᵀ/n - d̄d̄ᵀ)·n/(n - ddof), that is the population
// covariance for ddof 0 (PCL, Open3D) and the sample one, divided by n-1,
// for ddof 1 (PDAL's math::computeCovariance). The caller checks n > ddof.
func Covariance(m findneighbor.Moment, ddof int) (c Sym3, n int) {
	n = int(m.N) + 1
	cnt := float64(n)
	inv := 1 / cnt // one division, not nine
	mx, my, mz := m.Sum[0]*inv, m.Sum[1]*inv, m.Sum[2]*inv
	o := &m.Outer
	c = Sym3{
		o[0]*inv - mx*mx, o[1]*inv - mx*my, o[2]*inv - mx*mz,
		o[3]*inv - my*my, o[4]*inv - my*mz,
		o[5]*inv - mz*mz,
	}
	if ddof != 0 {
		s := cnt / (cnt - float64(ddof))
		for i := range c {
			c[i] *= s
		}
	}
	return c, n
}
