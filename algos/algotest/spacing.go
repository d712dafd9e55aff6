package algotest

import (
	"math"
	"slices"
	"testing"

	"github.com/pctk/pctk/primitives/findneighbor"
)

// MedianSpacing returns the median of the distances from each point of xyz
// to its 4 nearest neighbours, leaving out duplicates (every point of
// bun0.pcd is there two or four times), to scale a radius to a cloud. It
// uses backend b (brute is O(N²)).
func MedianSpacing(t testing.TB, b findneighbor.Backend, xyz []float32) float64 {
	t.Helper()
	const k = 4
	n := len(xyz) / 3
	idx, dist := make([]int32, k*n), make([]float32, k*n)
	if err := findneighbor.KNearestAll(b, xyz, k, findneighbor.BuildOptions{}, idx, dist); err != nil {
		t.Fatal(err)
	}
	dist = slices.DeleteFunc(dist, func(d float32) bool { return d == 0 || math.IsInf(float64(d), 1) })
	if len(dist) == 0 {
		t.Fatal("MedianSpacing: every point coincides with its neighbours")
	}
	slices.Sort(dist)
	return float64(dist[len(dist)/2])
}
