package algotest

// Floats returns v as float64, the column type CheckReach compares
// (classes, counts, labels and flags of a stage).
func Floats[T ~uint8 | ~int32 | ~uint32 | ~int64 | ~float32 | ~float64](v []T) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}
