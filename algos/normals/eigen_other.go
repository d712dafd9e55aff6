//go:build !amd64

package normals

// hasAVX512 is false off amd64: smallestEigens solves one matrix at a time.
const hasAVX512 = false

// smallestEigen8 is never called off amd64.
func smallestEigen8(c *[6][8]float64, k *[14]float64, out *[5][8]float64) uint8 {
	panic("normals: smallestEigen8 without AVX-512")
}
