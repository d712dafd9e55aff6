package features_test

import (
	"fmt"
	"log"

	"github.com/pctk/pctk/algos/features"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// The default features of a point on a vertical line and of one in the
// middle of a horizontal grid.
func Example() {
	var xyz []float32
	for i := range 20 { // a vertical line at x = 10
		xyz = append(xyz, 10, 0, float32(i)*0.1)
	}
	for i := range 5 { // a horizontal 5×5 grid at x = 20
		for j := range 5 {
			xyz = append(xyz, 20+float32(i)*0.1, float32(j)*0.1, 0)
		}
	}
	r, err := features.Compute(xyz, findneighbor.Brute(), features.Options{K: 8})
	if err != nil {
		log.Fatal(err)
	}
	for _, i := range []int{10, 32} {
		fmt.Printf("point %d:", i)
		for j, f := range r.Features {
			fmt.Printf(" %s %.2f", f, r.Values[j][i]+0)
		}
		fmt.Println()
	}
	// Output:
	// point 10: Linearity 1.00 Planarity 0.00 Scattering 0.00 Verticality 1.00
	// point 32: Linearity 0.00 Planarity 1.00 Scattering 0.00 Verticality 0.00
}
