package pcio

import (
	"math"
	"strconv"
)

// AppendFloat appends v (of bitSize 32 or 64) as the shortest decimal
// that reads back to the same bits, in plain notation (4918359.21475, not
// 4.91835921475e+06) when 1e-7 <= |v| < 1e21, as JavaScript's
// Number.prototype.toString does; beyond that range, and for 0, NaN and
// ±Inf, strconv's shortest 'g' form (1e+90 rather than 91 digits).
func AppendFloat(dst []byte, v float64, bitSize int) []byte {
	if a := math.Abs(v); a >= 1e-7 && a < 1e21 {
		return strconv.AppendFloat(dst, v, 'f', -1, bitSize)
	}
	return strconv.AppendFloat(dst, v, 'g', -1, bitSize)
}

// FormatFloat is AppendFloat for a float64, as a string.
func FormatFloat(v float64) string { return string(AppendFloat(nil, v, 64)) }
