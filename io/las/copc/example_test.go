package copc_test

import (
	"bytes"
	"fmt"
	"math"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/las/copc"
	"github.com/pctk/pctk/io/pcio"
)

// Write a cloud as COPC, then read part of it back through the octree.
func Example() {
	// 200,000 points on a 100 m × 100 m surface, on a 1 cm grid.
	c := core.New(200_000)
	for i := range c.X {
		x, y := float64(i%500)*0.2, float64(i/500)*0.25
		c.X[i], c.Y[i], c.Z[i] = x, y, math.Round(100*math.Sin(x/10)*math.Cos(y/10))*0.01
	}
	var buf bytes.Buffer
	if err := copc.Write(&buf, c, nil); err != nil {
		fmt.Println(err)
		return
	}
	f, err := copc.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		fmt.Println(err)
		return
	}
	all, _ := f.Plan(nil)
	fmt.Printf("%d points in %d nodes, spacing %.3f m at the root\n", all.Points(), len(all.Nodes), f.Info.Spacing)

	box := pcio.UnboundedZ(10, 10, 20, 20) // a 10 m square, edges included
	part, err := f.Read(&pcio.Query{Bounds: &box}, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("the box holds %d points (51 columns × 41 rows)\n", part.Len())

	root, _ := f.Read(&pcio.Query{Levels: 1}, 0)
	fmt.Printf("level 0 holds %d points\n", root.Len())
	// Output:
	// 200000 points in 9 nodes, spacing 0.780 m at the root
	// the box holds 2091 points (51 columns × 41 rows)
	// level 0 holds 51384 points
}
