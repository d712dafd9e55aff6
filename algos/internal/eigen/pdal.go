package eigen

import "math"

// ZeroCovariance is the largest absolute value of every entry of a
// covariance that PDAL's filters treat as zero and skip: Eigen's
// B.isZero() with its default precision for double,
// NumTraits<double>::dummy_precision() = 1e-12.
const ZeroCovariance = 1e-12

// IsZero reports whether every entry of c is within ZeroCovariance of 0,
// as Eigen's isZero() tests PDAL's covariances.
func IsZero(c Sym3) bool {
	for _, v := range c {
		if !(math.Abs(v) <= ZeroCovariance) {
			return false
		}
	}
	return true
}

// PDALCovariance returns PDAL's math::computeCovariance (PDAL 2.9.2
// pdal/private/MathUtils.cpp) of the points ids of pos (interleaved
// float64 x, y, z), step by step: the centroid as computeCentroid's
// running mean (m += (v - m)/n), the offsets from it rounded to float32
// (PDAL's static_cast<float>), then A·Aᵀ/(n-1), each entry summed over the
// points in order, each product rounded (no fused multiply-add). PDAL's filters.eigenvalues and
// filters.approximatecoplanar decompose it; findneighbor's moments
// (Covariance) cannot give it, since the rounding is per offset.
func PDALCovariance(pos []float64, ids []int32) Sym3 {
	var m [3]float64
	for n, j := range ids {
		for a := range 3 {
			m[a] += (pos[3*j+int32(a)] - m[a]) / float64(n+1)
		}
	}
	var c Sym3
	for _, j := range ids {
		var d [3]float64
		for a := range 3 {
			d[a] = float64(float32(pos[3*j+int32(a)] - m[a]))
		}
		c[0] += float64(d[0] * d[0])
		c[1] += float64(d[0] * d[1])
		c[2] += float64(d[0] * d[2])
		c[3] += float64(d[1] * d[1])
		c[4] += float64(d[1] * d[2])
		c[5] += float64(d[2] * d[2])
	}
	div := float64(len(ids) - 1)
	for i := range c {
		c[i] /= div
	}
	return c
}
