// Package eigen is the PCA arithmetic the neighbourhood algorithms share
// (algos/normals, algos/features): the covariance of a neighbourhood from
// findneighbor's moments and the eigen-decomposition of a symmetric 3×3
// matrix in closed form, with an AVX-512 solver of the smallest eigenpair
// of 8 matrices at once. It is internal to algos so that algorithms, which
// never import each other, share one solver.
package eigen
