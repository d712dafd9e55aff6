package algotest

import (
	"testing"

	"github.com/pctk/pctk/internal/peers"
	"github.com/pctk/pctk/primitives/findneighbor"
)

// MedianSpacing returns the median of the distances from each point of xyz
// to its 4 nearest neighbours, leaving out duplicates (every point of
// bun0.pcd is there two or four times), to scale a radius to a cloud
// (peers.MedianSpacing, which pctk bench --peers uses too). It uses backend
// b (brute is O(N²)).
func MedianSpacing(t testing.TB, b findneighbor.Backend, xyz []float32) float64 {
	t.Helper()
	s, err := peers.MedianSpacing(b, xyz)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
