//go:build !amd64

package eigen

// AVX512 is false off amd64: every matrix is solved by Smallest.
var AVX512 = false

// Smallest8 solves none of the 8 matrices (Smallest solves each).
func Smallest8(c *[6][8]float64, out *[5][8]float64) uint8 { return 0 }
