package findneighbor

import (
	"fmt"
	"math"
	"strconv"
)

// ParamError reports an algorithm parameter outside its limits. Every
// algorithm built on this package checks its parameters with the Check
// functions below, so the limits and the messages are the same everywhere,
// and a caller (the command line) can tell which parameter is at fault with
// errors.As and name its own flag instead of rewriting the message.
type ParamError struct {
	// Op is the algorithm ("dbscan", "denoise radius", "normals").
	Op string
	// Param is the parameter as the algorithm's options name it ("eps",
	// "radius", "k", "points").
	Param string
	// Value is the value given, formatted.
	Value string
	// Want says what is accepted ("a finite number > 0").
	Want string
}

func (e *ParamError) Error() string {
	return fmt.Sprintf("%s: %s %s: want %s", e.Op, e.Param, e.Value, e.Want)
}

// CheckRadius checks a search radius (ε) r in the coordinates' units: it
// must be a finite number > 0 whose float32 rounding, the radius the
// backends search with, is also finite and > 0. When optional, 0 means "no
// radius" and passes. +Inf is refused: callers that accept "no limit" say
// so with 0.
func CheckRadius(op, param string, r float64, optional bool) error {
	if optional && r == 0 {
		return nil
	}
	want := "a finite number > 0"
	if optional {
		want += " (0: none)"
	}
	if math.IsNaN(r) || math.IsInf(r, 0) || r <= 0 {
		return &ParamError{Op: op, Param: param, Value: formatFloat(r), Want: want}
	}
	if r32 := float32(r); r32 <= 0 || math.IsInf(float64(r32), 0) {
		return &ParamError{Op: op, Param: param, Value: formatFloat(r), Want: want + " within float32 range (1.2e-38 to 3.4e38)"}
	}
	return nil
}

// CheckMin checks an integer parameter v (a neighbourhood size k, a count)
// against its smallest accepted value lo.
func CheckMin(op, param string, v, lo int) error {
	if v < lo {
		return &ParamError{Op: op, Param: param, Value: strconv.Itoa(v), Want: fmt.Sprintf("≥ %d", lo)}
	}
	return nil
}

// CheckFloat checks that a real parameter (a threshold, a ratio) is finite.
func CheckFloat(op, param string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return &ParamError{Op: op, Param: param, Value: formatFloat(v), Want: "a finite number"}
	}
	return nil
}

// CheckPoints checks interleaved coordinates xyz: whole points, and at
// most MaxInt32 of them (indices are int32). It returns the point count.
func CheckPoints(op string, xyz []float32) (int, error) {
	if len(xyz)%3 != 0 {
		return 0, &ParamError{Op: op, Param: "points", Value: fmt.Sprintf("of %d coordinates", len(xyz)), Want: "a multiple of 3 coordinates (x, y, z per point)"}
	}
	if n := len(xyz) / 3; n > math.MaxInt32 {
		return 0, &ParamError{Op: op, Param: "points", Value: strconv.Itoa(n), Want: fmt.Sprintf("at most %d points", math.MaxInt32)}
	}
	return len(xyz) / 3, nil
}

func formatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// Counts returns for every point of xyz the number of other points within
// eps, the build-query-close pattern in one call: it builds b's index on
// xyz, counts and closes the index. With opts.Reuse the index may take xyz
// over (see BuildOptions), and xyz must not be used afterwards.
func Counts(b Backend, xyz []float32, eps float64, opts BuildOptions) ([]uint32, error) {
	n, err := CheckPoints("counts", xyz)
	if err != nil {
		return nil, err
	}
	if err := CheckRadius("counts", "eps", eps, false); err != nil {
		return nil, err
	}
	counts := make([]uint32, n)
	if n == 0 {
		return counts, nil
	}
	ix, err := b.Build(xyz, float32(eps), opts)
	if err != nil {
		return nil, fmt.Errorf("%s backend: build index: %w", b.Name(), err)
	}
	defer ix.Close()
	if err := ix.Counts(nil, counts); err != nil {
		return nil, fmt.Errorf("%s backend: count neighbours: %w", b.Name(), err)
	}
	return counts, nil
}
