package normals

import "math"

// sym3 is a symmetric 3×3 matrix stored as its upper triangle in the order
// of findneighbor.Moment.Outer: xx, xy, xz, yy, yz, zz.
type sym3 [6]float64

// eigen3 holds the eigen-decomposition of a symmetric 3×3 matrix: Values in
// ascending order and Vectors[i], a unit eigenvector of Values[i]. The
// vectors are orthonormal and right-handed (Vectors[0] = Vectors[1] ×
// Vectors[2]).
type eigen3 struct {
	Values  [3]float64
	Vectors [3][3]float64
}

// eigenSym3 decomposes the symmetric matrix a in closed form, after D.
// Eberly, "A Robust Eigensolver for 3×3 Symmetric Matrices" (Geometric
// Tools, 2014), with a more accurate second stage.
//
// The matrix is first scaled by its largest entry, so tiny or huge
// neighbourhoods neither underflow nor overflow; the zero matrix gets
// eigenvalues 0 and the coordinate axes, a diagonal one its sorted diagonal.
// Otherwise the characteristic cubic of B = (A - qI)/p, with q = tr(A)/3 and
// p² = tr((A-qI)²)/6, has the roots 2cos(θ/3 + 2πk/3) with cos θ = det(B)/2
// (clamped to [-1, 1], so never complex). Of these only the root farthest
// from the other two is used, with the eigenvector orthogonal to the rows of
// A - λI (their longest cross product); planeEigen then solves the rest
// exactly in the orthogonal plane. Repeated eigenvalues (planes, lines,
// isotropic clusters) thus give an orthonormal basis of the eigenspace and
// never NaN; eigenvalues are accurate to about 1e-15·‖A‖ and eigenvectors to
// about 1e-16·‖A‖ / gap radians.
func eigenSym3(a sym3) eigen3 {
	scale := 0.0
	for _, v := range a {
		scale = max(scale, math.Abs(v))
	}
	if scale == 0 {
		return eigen3{Vectors: [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}
	}
	var m sym3
	for i, v := range a {
		m[i] = v / scale
	}
	xx, xy, xz, yy, yz, zz := m[0], m[1], m[2], m[3], m[4], m[5]
	off := xy*xy + xz*xz + yz*yz
	if off == 0 {
		return diagonalEigen(xx*scale, yy*scale, zz*scale)
	}

	q := (xx + yy + zz) / 3
	bxx, byy, bzz := xx-q, yy-q, zz-q
	p := math.Sqrt((bxx*bxx + byy*byy + bzz*bzz + 2*off) / 6)
	// det(A - qI) / p³, the determinant of B.
	det := (bxx*(byy*bzz-yz*yz) - xy*(xy*bzz-yz*xz) + xz*(xy*yz-byy*xz)) / (p * p * p)
	halfDet := min(max(det/2, -1), 1)
	// The roots of the cubic are β0 ≤ β1 ≤ β2 with β2 = 2cos(θ/3) and
	// β0 = 2cos(θ/3 + 2π/3). Only the isolated one is used: near a double
	// root acos amplifies rounding to √ε, but for the root farthest from the
	// other two (λ2 when det(B) ≥ 0, then β2 - β1 ≥ √3; else λ0) the error
	// stays at a few ulps.
	angle := math.Acos(halfDet) / 3
	if halfDet < 0 {
		angle += 2 * math.Pi / 3
	}
	w := isolatedVector(m, q+p*2*math.Cos(angle))
	e := planeEigen(m, w)
	for i := range e.Values {
		e.Values[i] *= scale
	}
	return e
}

// planeEigen completes the decomposition of m given the unit eigenvector w
// of a simple eigenvalue: it takes that eigenvalue as the Rayleigh quotient
// wᵀmw and diagonalises the 2×2 restriction of m to the plane orthogonal to
// w with one exact Jacobi rotation, which stays accurate when the other two
// eigenvalues are equal or nearly so (planes and lines). The result is sorted
// ascending and made right-handed.
func planeEigen(m sym3, w [3]float64) eigen3 {
	u, v := orthoBasis(w)
	mu, mv := mulSym(m, u), mulSym(m, v)
	a, b, c := dot(u, mu), dot(u, mv), dot(v, mv)
	la, lc := a, c
	x, y := u, v
	if b != 0 {
		// The rotation by θ with tan 2θ = 2b/(a-c), via the smaller root t =
		// tan θ of t² + 2τt - 1 = 0 (Golub and Van Loan, §8.5.2).
		tau := (c - a) / (2 * b)
		t := math.Copysign(1, tau) / (math.Abs(tau) + math.Sqrt(1+tau*tau))
		cs := 1 / math.Sqrt(1+t*t)
		sn := t * cs
		la, lc = a-t*b, c+t*b
		for k := range 3 {
			x[k] = cs*u[k] - sn*v[k]
			y[k] = sn*u[k] + cs*v[k]
		}
	}
	e := eigen3{
		Values:  [3]float64{dot(w, mulSym(m, w)), la, lc},
		Vectors: [3][3]float64{w, x, y},
	}
	sortEigen(&e)
	return e
}

// sortEigen orders e's values ascending, with their vectors, and makes the
// basis right-handed by choosing the sign of Vectors[0].
func sortEigen(e *eigen3) {
	// Three compare-and-swaps sort three values.
	for _, ij := range [3][2]int{{0, 1}, {1, 2}, {0, 1}} {
		i, j := ij[0], ij[1]
		if e.Values[j] < e.Values[i] {
			e.Values[i], e.Values[j] = e.Values[j], e.Values[i]
			e.Vectors[i], e.Vectors[j] = e.Vectors[j], e.Vectors[i]
		}
	}
	e.Vectors[0] = cross(e.Vectors[1], e.Vectors[2])
}

// diagonalEigen sorts the eigenvalues of diag(x, y, z) with their axes.
func diagonalEigen(x, y, z float64) eigen3 {
	e := eigen3{Values: [3]float64{x, y, z}, Vectors: [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}
	sortEigen(&e)
	return e
}

// isolatedVector returns a unit eigenvector of m for the eigenvalue l, which
// must be simple: the rows of m - lI then span a plane, and the longest cross
// product of two of them is its most accurately computed normal.
func isolatedVector(m sym3, l float64) [3]float64 {
	r0 := [3]float64{m[0] - l, m[1], m[2]}
	r1 := [3]float64{m[1], m[3] - l, m[4]}
	r2 := [3]float64{m[2], m[4], m[5] - l}
	c01, c02, c12 := cross(r0, r1), cross(r0, r2), cross(r1, r2)
	d01, d02, d12 := dot(c01, c01), dot(c02, c02), dot(c12, c12)
	best, d := c01, d01
	if d02 > d {
		best, d = c02, d02
	}
	if d12 > d {
		best, d = c12, d12
	}
	if d == 0 {
		// Unreachable for a simple eigenvalue up to rounding; any unit
		// vector is then as good as another.
		return [3]float64{0, 0, 1}
	}
	s := 1 / math.Sqrt(d)
	return [3]float64{best[0] * s, best[1] * s, best[2] * s}
}

// orthoBasis returns unit vectors u, v with (u, v, w) orthonormal, for unit w.
func orthoBasis(w [3]float64) (u, v [3]float64) {
	// w is a unit vector and the larger of |w0|, |w1| is kept, so the sum
	// of the two squares is at least 1/2: no overflow, no division by 0.
	if math.Abs(w[0]) > math.Abs(w[1]) {
		s := 1 / math.Sqrt(w[0]*w[0]+w[2]*w[2])
		u = [3]float64{-w[2] * s, 0, w[0] * s}
	} else {
		s := 1 / math.Sqrt(w[1]*w[1]+w[2]*w[2])
		u = [3]float64{0, w[2] * s, -w[1] * s}
	}
	return u, cross(w, u)
}

func mulSym(m sym3, x [3]float64) [3]float64 {
	return [3]float64{
		m[0]*x[0] + m[1]*x[1] + m[2]*x[2],
		m[1]*x[0] + m[3]*x[1] + m[4]*x[2],
		m[2]*x[0] + m[4]*x[1] + m[5]*x[2],
	}
}

func cross(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

func dot(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
