package eigen

import "math"

// Sym3 is a symmetric 3×3 matrix stored as its upper triangle in the order
// of findneighbor.Moment.Outer: xx, xy, xz, yy, yz, zz.
type Sym3 [6]float64

// Decomposition holds the eigen-decomposition of a symmetric 3×3 matrix:
// Values in ascending order and Vectors[i], a unit eigenvector of
// Values[i]. The vectors are orthonormal and right-handed (Vectors[0] =
// Vectors[1] × Vectors[2]).
type Decomposition struct {
	Values  [3]float64
	Vectors [3][3]float64
}

// Decompose decomposes the symmetric matrix a in closed form, after D.
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
func Decompose(a Sym3) Decomposition {
	m, scale, w, _, ok := isolatedEigen(a)
	if !ok {
		return specialEigen(a)
	}
	e := planeEigen(m, w)
	for i := range e.Values {
		e.Values[i] *= scale
	}
	return e
}

// Smallest returns what Decompose(a) returns as Values[0] and
// Vectors[0], the smallest eigenvalue and its unit eigenvector, without the
// other two where it can: when the smallest eigenvalue is the isolated root
// (neighbourhoods flatter than they are long, most of a surface) its vector
// is the cross product Decompose starts from and the value its Rayleigh
// quotient, as there; only the others go through Decompose's second stage.
func Smallest(a Sym3) (float64, [3]float64) {
	m, scale, w, smallest, ok := isolatedEigen(a)
	switch {
	case !ok:
		e := specialEigen(a)
		return e.Values[0], e.Vectors[0]
	case smallest:
		// The Rayleigh quotient wᵀmw, in scalars.
		x, y, z := w[0], w[1], w[2]
		mx := m[0]*x + m[1]*y + m[2]*z
		my := m[1]*x + m[3]*y + m[4]*z
		mz := m[2]*x + m[4]*y + m[5]*z
		return (x*mx + y*my + z*mz) * scale, w
	}
	e := planeEigen(m, w)
	return e.Values[0] * scale, e.Vectors[0]
}

// isolatedEigen is Decompose's first stage: the matrix m = a/scale and the
// unit eigenvector w of the root of the characteristic cubic farthest from
// the other two, which is the smallest eigenvalue when smallest is true,
// else the largest. ok is false for the zero and diagonal matrices, which
// specialEigen decomposes.
func isolatedEigen(a Sym3) (m Sym3, scale float64, w [3]float64, smallest, ok bool) {
	// Scalars throughout: Go keeps arrays in memory, and the loads and
	// stores made this solve twice as slow.
	a0, a1, a2, a3, a4, a5 := a[0], a[1], a[2], a[3], a[4], a[5]
	scale = max(math.Abs(a0), math.Abs(a1), math.Abs(a2), math.Abs(a3), math.Abs(a4), math.Abs(a5))
	if scale == 0 {
		return m, 0, w, false, false
	}
	// Scale by the power of two above the largest entry, which is exact
	// (a subnormal or huge largest entry is divided by instead).
	if scale >= 0x1p-1022 && scale < 0x1p1022 {
		scale = math.Float64frombits(math.Float64bits(scale)&^(1<<52-1)) * 2
	}
	inv := 1 / scale
	xx, xy, xz, yy, yz, zz := a0*inv, a1*inv, a2*inv, a3*inv, a4*inv, a5*inv
	m = Sym3{xx, xy, xz, yy, yz, zz}
	off := xy*xy + xz*xz + yz*yz
	if off == 0 {
		return m, scale, w, false, false
	}

	q := (xx + yy + zz) * (1.0 / 3)
	bxx, byy, bzz := xx-q, yy-q, zz-q
	p := math.Sqrt((bxx*bxx + byy*byy + bzz*bzz + 2*off) * (1.0 / 6))
	// det(A - qI) / p³, the determinant of B.
	det := (bxx*(byy*bzz-yz*yz) - xy*(xy*bzz-yz*xz) + xz*(xy*yz-byy*xz)) / (p * p * p)
	halfDet := min(max(det/2, -1), 1)
	l := q + p*isolatedRoot(halfDet)

	// The eigenvector: the longest cross product of two rows of m - lI,
	// which span a plane for a simple eigenvalue.
	r0x, r1y, r2z := xx-l, yy-l, zz-l
	// r0 = (r0x, xy, xz), r1 = (xy, r1y, yz), r2 = (xz, yz, r2z).
	c01x, c01y, c01z := xy*yz-xz*r1y, xz*xy-r0x*yz, r0x*r1y-xy*xy
	c02x, c02y, c02z := xy*r2z-xz*yz, xz*xz-r0x*r2z, r0x*yz-xy*xz
	c12x, c12y, c12z := r1y*r2z-yz*yz, yz*xz-xy*r2z, xy*yz-r1y*xz
	d01 := c01x*c01x + c01y*c01y + c01z*c01z
	d02 := c02x*c02x + c02y*c02y + c02z*c02z
	d12 := c12x*c12x + c12y*c12y + c12z*c12z
	bx, by, bz, d := c01x, c01y, c01z, d01
	if d02 > d {
		bx, by, bz, d = c02x, c02y, c02z, d02
	}
	if d12 > d {
		bx, by, bz, d = c12x, c12y, c12z, d12
	}
	if d == 0 {
		// Unreachable for a simple eigenvalue up to rounding; any unit
		// vector is then as good as another.
		return m, scale, [3]float64{0, 0, 1}, halfDet < 0, true
	}
	s := 1 / math.Sqrt(d)
	return m, scale, [3]float64{bx * s, by * s, bz * s}, halfDet < 0, true
}

// The coefficients of isolatedRoot's starting quadratic 2 - c1·t - c2·t²
// (√3 = 1.732…).
const (
	rootC1 = 2.0 / 9
	rootC2 = 2 - 1.7320508075688772 - rootC1
)

// isolatedRoot returns the root of the characteristic cubic of B,
// β³ - 3β - 2h with h = det(B)/2 ∈ [-1, 1], that lies farthest from the
// other two: β2 ∈ [√3, 2] for h ≥ 0, β0 ∈ [-2, -√3] for h < 0 (the roots
// are 2cos(θ/3 + 2πk/3) with cos θ = h). Near a double root the
// trigonometric formula amplifies rounding to √ε, but not for this root.
// It is computed without trigonometry, which was the costliest part of a
// solve: the cubic is odd in (β, h), so β2 of |h| serves both signs; a
// quadratic in 1 - |h| through its ends (2 at |h| = 1, with the slope 2/9
// the cubic has there, and √3 at 0) starts within 0.0025 of it, and three
// Newton steps on the cubic, whose slope 3β² - 3 lies in [6, 9] there,
// reach it to the last bit or two (tested against the trigonometric formula).
func isolatedRoot(h float64) float64 {
	a := math.Abs(h)
	t := 1 - a
	b := 2 - rootC1*t - rootC2*t*t
	for range 3 {
		b -= (b*b*b - 3*b - 2*a) / (3*b*b - 3)
	}
	if h < 0 {
		return -b
	}
	return b
}

// specialEigen decomposes the zero and the diagonal matrices: the zero
// matrix gets eigenvalues 0 and the coordinate axes, a diagonal one its
// sorted diagonal.
func specialEigen(a Sym3) Decomposition {
	if a == (Sym3{}) {
		return Decomposition{Vectors: [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}
	}
	return diagonalEigen(a[0], a[3], a[5])
}

// planeEigen completes the decomposition of m given the unit eigenvector w
// of a simple eigenvalue: it takes that eigenvalue as the Rayleigh quotient
// wᵀmw and diagonalises the 2×2 restriction of m to the plane orthogonal to
// w with one exact Jacobi rotation, which stays accurate when the other two
// eigenvalues are equal or nearly so (planes and lines). The result is sorted
// ascending and made right-handed.
func planeEigen(m Sym3, w [3]float64) Decomposition {
	r := rotate(m, w)
	x, y := r.u, r.v
	if r.turned {
		cs := 1 / math.Sqrt(1+r.t*r.t)
		sn := r.t * cs
		for k := range 3 {
			x[k] = cs*r.u[k] - sn*r.v[k]
			y[k] = sn*r.u[k] + cs*r.v[k]
		}
	}
	e := Decomposition{
		Values:  [3]float64{Dot(w, mulSym(m, w)), r.la, r.lc},
		Vectors: [3][3]float64{w, x, y},
	}
	sortEigen(&e)
	return e
}

// rotation is the 2×2 problem of planeEigen: the basis u, v of the plane
// orthogonal to w, the eigenvalues la, lc of m's restriction to it, and
// (turned, when it is not diagonal in u, v) the tangent t of the angle of
// the rotation that diagonalises it.
type rotation struct {
	u, v   [3]float64
	la, lc float64
	t      float64
	turned bool
}

// rotate sets up planeEigen's 2×2 problem for m and its unit eigenvector
// w: the plane's basis, the restriction's eigenvalues and the rotation
// that diagonalises it (shared with Values, which needs no vectors). It is
// OrthoBasis, mulSym and Dot written out in scalars, the same operations
// in the same order: Go keeps small arrays in memory, and the array form
// made Values take 330-355 ns a solve instead of 224-235, Decompose 436-445
// instead of 359-374 (this project's 2-core VM).
func rotate(m Sym3, w [3]float64) rotation {
	m0, m1, m2, m3, m4, m5 := m[0], m[1], m[2], m[3], m[4], m[5]
	w0, w1, w2 := w[0], w[1], w[2]
	// OrthoBasis: u, then v = w × u.
	var u0, u1, u2 float64
	if math.Abs(w0) > math.Abs(w1) {
		s := 1 / math.Sqrt(w0*w0+w2*w2)
		u0, u1, u2 = -w2*s, 0, w0*s
	} else {
		s := 1 / math.Sqrt(w1*w1+w2*w2)
		u0, u1, u2 = 0, w2*s, -w1*s
	}
	v0, v1, v2 := w1*u2-w2*u1, w2*u0-w0*u2, w0*u1-w1*u0
	mu0, mu1, mu2 := m0*u0+m1*u1+m2*u2, m1*u0+m3*u1+m4*u2, m2*u0+m4*u1+m5*u2
	mv0, mv1, mv2 := m0*v0+m1*v1+m2*v2, m1*v0+m3*v1+m4*v2, m2*v0+m4*v1+m5*v2
	a, b, c := u0*mu0+u1*mu1+u2*mu2, u0*mv0+u1*mv1+u2*mv2, v0*mv0+v1*mv1+v2*mv2
	r := rotation{u: [3]float64{u0, u1, u2}, v: [3]float64{v0, v1, v2}, la: a, lc: c}
	if b != 0 {
		// The rotation by θ with tan 2θ = 2b/(a-c), via the smaller root t =
		// tan θ of t² + 2τt - 1 = 0 (Golub and Van Loan, §8.5.2).
		tau := (c - a) / (2 * b)
		r.t = math.Copysign(1, tau) / (math.Abs(tau) + math.Sqrt(1+tau*tau))
		r.la, r.lc, r.turned = a-r.t*b, c+r.t*b, true
	}
	return r
}

// Values returns Decompose(a).Values, to the bit, without the vectors.
func Values(a Sym3) [3]float64 {
	m, scale, w, _, ok := isolatedEigen(a)
	if !ok {
		return specialEigen(a).Values
	}
	r := rotate(m, w)
	// The Rayleigh quotient wᵀmw (Dot(w, mulSym(m, w))), in scalars.
	w0, w1, w2 := w[0], w[1], w[2]
	mw0, mw1, mw2 := m[0]*w0+m[1]*w1+m[2]*w2, m[1]*w0+m[3]*w1+m[4]*w2, m[2]*w0+m[4]*w1+m[5]*w2
	x, y, z := w0*mw0+w1*mw1+w2*mw2, r.la, r.lc
	// sortEigen's compare-and-swaps.
	if y < x {
		x, y = y, x
	}
	if z < y {
		y, z = z, y
	}
	if y < x {
		x, y = y, x
	}
	return [3]float64{x * scale, y * scale, z * scale}
}

// sortEigen orders e's values ascending, with their vectors, and makes the
// basis right-handed by choosing the sign of Vectors[2] (Vectors[0] stays
// as computed, so Smallest returns the same vector).
func sortEigen(e *Decomposition) {
	// Three compare-and-swaps sort three values.
	for _, ij := range [3][2]int{{0, 1}, {1, 2}, {0, 1}} {
		i, j := ij[0], ij[1]
		if e.Values[j] < e.Values[i] {
			e.Values[i], e.Values[j] = e.Values[j], e.Values[i]
			e.Vectors[i], e.Vectors[j] = e.Vectors[j], e.Vectors[i]
		}
	}
	e.Vectors[2] = Cross(e.Vectors[0], e.Vectors[1])
}

// diagonalEigen sorts the eigenvalues of diag(x, y, z) with their axes.
func diagonalEigen(x, y, z float64) Decomposition {
	e := Decomposition{Values: [3]float64{x, y, z}, Vectors: [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}
	sortEigen(&e)
	return e
}

// OrthoBasis returns unit vectors u, v with (u, v, w) orthonormal, for unit w.
func OrthoBasis(w [3]float64) (u, v [3]float64) {
	// w is a unit vector and the larger of |w0|, |w1| is kept, so the sum
	// of the two squares is at least 1/2: no overflow, no division by 0.
	if math.Abs(w[0]) > math.Abs(w[1]) {
		s := 1 / math.Sqrt(w[0]*w[0]+w[2]*w[2])
		u = [3]float64{-w[2] * s, 0, w[0] * s}
	} else {
		s := 1 / math.Sqrt(w[1]*w[1]+w[2]*w[2])
		u = [3]float64{0, w[2] * s, -w[1] * s}
	}
	return u, Cross(w, u)
}

func mulSym(m Sym3, x [3]float64) [3]float64 {
	return [3]float64{
		m[0]*x[0] + m[1]*x[1] + m[2]*x[2],
		m[1]*x[0] + m[3]*x[1] + m[4]*x[2],
		m[2]*x[0] + m[4]*x[1] + m[5]*x[2],
	}
}

// Cross returns the cross product a × b.
func Cross(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

// Dot returns the dot product a · b.
func Dot(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
