// Package eigentest holds the reference eigen-solver the tests of
// algos/internal/eigen and of the algorithms check the closed-form solver
// against.
package eigentest

import "math"

// Jacobi is the reference solver of the symmetric 3×3 matrix s (upper
// triangle xx, xy, xz, yy, yz, zz, as eigen.Sym3): cyclic Jacobi rotations on the
// matrix scaled to a largest entry of 1, until no off-diagonal entry is left
// or 100 sweeps are done, then the values sorted ascending. It is slow and
// simple, which is what a reference should be.
func Jacobi(s [6]float64) (vals [3]float64, vecs [3][3]float64) {
	scale := 0.0
	for _, x := range s {
		scale = max(scale, math.Abs(x))
	}
	if scale == 0 {
		scale = 1
	}
	a := [3][3]float64{{s[0], s[1], s[2]}, {s[1], s[3], s[4]}, {s[2], s[4], s[5]}}
	for i := range 3 {
		for j := range 3 {
			a[i][j] /= scale
		}
	}
	v := [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}} // columns are eigenvectors
	for sweep := 0; sweep < 100; sweep++ {
		if a[0][1] == 0 && a[0][2] == 0 && a[1][2] == 0 {
			break
		}
		for _, pq := range [3][2]int{{0, 1}, {0, 2}, {1, 2}} {
			p, q := pq[0], pq[1]
			if a[p][q] == 0 {
				continue
			}
			theta := (a[q][q] - a[p][p]) / (2 * a[p][q])
			t := math.Copysign(1, theta) / (math.Abs(theta) + math.Sqrt(theta*theta+1))
			c := 1 / math.Sqrt(t*t+1)
			sn := t * c
			for k := range 3 { // A ← A J
				akp, akq := a[k][p], a[k][q]
				a[k][p], a[k][q] = c*akp-sn*akq, sn*akp+c*akq
			}
			for k := range 3 { // A ← Jᵀ A
				apk, aqk := a[p][k], a[q][k]
				a[p][k], a[q][k] = c*apk-sn*aqk, sn*apk+c*aqk
			}
			for k := range 3 {
				vkp, vkq := v[k][p], v[k][q]
				v[k][p], v[k][q] = c*vkp-sn*vkq, sn*vkp+c*vkq
			}
		}
	}
	idx := [3]int{0, 1, 2}
	for i := 0; i < 3; i++ {
		for j := i + 1; j < 3; j++ {
			if a[idx[j]][idx[j]] < a[idx[i]][idx[i]] {
				idx[i], idx[j] = idx[j], idx[i]
			}
		}
	}
	for i, k := range idx {
		vals[i] = a[k][k] * scale
		vecs[i] = [3]float64{v[0][k], v[1][k], v[2][k]}
	}
	return vals, vecs
}
