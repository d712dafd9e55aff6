package normals_test

import (
	"fmt"
	"log"
	"math"

	"github.com/pctk/pctk/algos/normals"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// Normals of a tilted plane z = x/2, oriented up.
func Example() {
	var xyz []float32
	for i := range 10 {
		for j := range 10 {
			x, y := float32(i)*0.1, float32(j)*0.1
			xyz = append(xyz, x, y, x/2)
		}
	}
	r, err := normals.Estimate(xyz, findneighbor.Brute(), normals.Options{K: 8, Orient: normals.OrientUp})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("normal (%.3f, %.3f, %.3f), curvature %.3f, %d undefined\n",
		round(r.NormalX[55]), round(r.NormalY[55]), round(r.NormalZ[55]), round(r.Curvature[55]), r.Undefined)
	// Output: normal (-0.447, 0.000, 0.894), curvature 0.000, 0 undefined
}

// round rounds to 3 decimals and turns -0 into 0 for printing.
func round(v float32) float64 { return math.Round(float64(v)*1000)/1000 + 0 }
