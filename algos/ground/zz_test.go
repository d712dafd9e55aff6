package ground

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/pctk/pctk/algos/synth"
)

func TestZZReach(t *testing.T) {
	c, err := synth.Street(synth.Options{Points: 300000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	xyz := c.Local(false).XYZ
	pos, _ := positions(xyz, nil)
	g := PDALGrid(pos, nil, 1)
	r, err := SMRF(xyz, Attrs{}, SMRFOptions{Grid: &g})
	if err != nil {
		t.Fatal(err)
	}
	nc := map[uint8]int{}
	for _, c := range r.Classification {
		nc[c]++
	}
	fmt.Println(g, nc)
	var v []float64
	for _, x := range r.Reach {
		if x > 0 {
			v = append(v, x)
		}
	}
	slices.Sort(v)
	for _, q := range []float64{0, 0.01, 0.1, 0.5, 0.9, 0.99, 0.999, 1} {
		fmt.Println(q, v[int(math.Min(q*float64(len(v)), float64(len(v)-1)))])
	}
}
