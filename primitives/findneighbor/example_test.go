package findneighbor_test

import (
	"fmt"

	fn "github.com/pctk/pctk/primitives/findneighbor"
)

// Five points on a line, 0 1 2 4 4, searched with ε = 1.5 on the cpu
// backend: counts, the nearest neighbour, and DBSCAN's cluster stage.
func Example() {
	xyz := []float32{0, 0, 0, 1, 0, 0, 2, 0, 0, 4, 0, 0, 4, 0, 0}
	ix, err := fn.CPU().Build(xyz, 1.5, fn.BuildOptions{})
	if err != nil {
		panic(err)
	}
	defer ix.Close()

	counts := make([]uint32, ix.Len())
	_ = ix.Counts(nil, counts) // a point is never its own neighbour
	fmt.Println("counts:", counts)

	idx, dist := make([]int32, ix.Len()), make([]float32, ix.Len())
	_ = ix.KNearest(nil, 1, idx, dist) // ties go to the smaller index
	fmt.Println("nearest:", idx, dist)

	// DBSCAN with min_pts 2 (the point itself included): core points have
	// at least one neighbour.
	isCore := make([]bool, ix.Len())
	for i, c := range counts {
		isCore[i] = c+1 >= 2
	}
	label := make([]int32, ix.Len())
	_ = fn.ClusterCores(ix, xyz, isCore, label)
	fmt.Println("labels:", label)
	// Output:
	// counts: [1 2 1 1 1]
	// nearest: [1 0 1 4 3] [1 1 1 0 0]
	// labels: [0 0 0 3 3]
}
