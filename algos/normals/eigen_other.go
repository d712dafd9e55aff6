//go:build !amd64

package normals

// hasAVX512 is false off amd64: every matrix is solved by smallestEigen.
const hasAVX512 = false

// solve8 solves none of the 8 matrices (smallestEigen solves each).
func solve8(c *[6][8]float64, out *[5][8]float64) uint8 { return 0 }
