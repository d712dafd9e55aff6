package sample_test

import (
	"fmt"
	"log"
	"strings"

	"github.com/pctk/pctk/algos/sample"
)

// Thinning a line of points 0.1 apart to points at least 0.25 apart: the
// first point is kept, and then each one 0.3 further on.
func Example() {
	var x []float64
	for i := range 10 {
		x = append(x, float64(i)*0.1)
	}
	// A line along x in plan view: y 0, and no z (nil).
	r, err := sample.Poisson(sample.Points{X: x, Y: make([]float64, len(x))}, sample.Options{Radius: 0.25})
	if err != nil {
		log.Fatal(err)
	}
	var kept []string
	for i, k := range r.Keep {
		if k {
			kept = append(kept, fmt.Sprintf("%.1f", x[i]))
		}
	}
	fmt.Println(strings.Join(kept, " "))
	fmt.Printf("%d of %d kept\n", r.Kept, len(r.Keep))
	// Output:
	// 0.0 0.3 0.6 0.9
	// 4 of 10 kept
}
