package eigen

import (
	"math"

	"golang.org/x/sys/cpu"
)

// AVX512 reports that Smallest8 can solve 8 matrices at once. Tests turn
// it off to check that the lanes give Smallest's bits.
var AVX512 = cpu.X86.HasAVX512F

// eigenConsts is the number of constants smallestEigen8 reads.
const eigenConsts = 14

// smallestEigen8Consts are smallestEigen8's constants, by offset/8: the
// masks of the absolute value and of sign and exponent, 1, 2, 3, 0.5,
// 1/3, 1/6, -1, unused, isolatedRoot's two coefficients, and the range of
// scales it handles, as the scalar code computes them.
var smallestEigen8Consts = [eigenConsts]float64{
	0:  math.Float64frombits(1<<63 - 1),
	1:  math.Float64frombits(^uint64(1<<52 - 1)),
	2:  1,
	3:  2,
	4:  3,
	5:  0.5,
	6:  1.0 / 3,
	7:  1.0 / 6,
	8:  -1,
	10: rootC1,
	11: rootC2,
	12: 0x1p-1022,
	13: 0x1p1022,
}

// smallestEigen8 is Smallest on 8 matrices, one per lane of c (c[j]
// holds entry j of each): for the lanes of the returned mask it stores the
// smallest eigenvalue in out[0] and its vector in out[1..3], bit for bit
// what Smallest returns; the others (zero, diagonal and extreme
// matrices) are left to Smallest. out[4] is scratch.
//
//go:noescape
func smallestEigen8(c *[6][8]float64, k *[eigenConsts]float64, out *[5][8]float64) uint8

// Smallest8 is smallestEigen8 where the CPU has AVX-512 and solves none of
// the matrices (mask 0) elsewhere: what smallestEigen8 leaves is solved by
// Smallest.
func Smallest8(c *[6][8]float64, out *[5][8]float64) uint8 {
	if !AVX512 {
		return 0
	}
	return smallestEigen8(c, &smallestEigen8Consts, out)
}
