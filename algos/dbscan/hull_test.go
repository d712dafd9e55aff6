package dbscan_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pctk/pctk/algos/dbscan"
)

func TestHull(t *testing.T) {
	tests := []struct {
		name string
		pts  [][2]float64
		want [][2]float64
	}{
		{"none", nil, [][2]float64{}},
		{"one", [][2]float64{{3, 4}}, [][2]float64{{3, 4}}},
		{"coincident", [][2]float64{{3, 4}, {3, 4}, {3, 4}}, [][2]float64{{3, 4}}},
		{"collinear", [][2]float64{{1, 1}, {3, 3}, {0, 0}, {2, 2}}, [][2]float64{{0, 0}, {3, 3}}},
		{
			"square with inside and edge points",
			[][2]float64{{0.5, 0.5}, {1, 1}, {0, 1}, {0, 0}, {1, 0}, {0.5, 0}, {0.2, 0.9}, {1, 0.5}},
			[][2]float64{{0, 0}, {1, 0}, {1, 1}, {0, 1}},
		},
		{
			"triangle, UTM-sized coordinates",
			[][2]float64{{500000.25, 4100000.5}, {500010.25, 4100000.5}, {500005.25, 4100008.5}, {500005.25, 4100002.5}},
			[][2]float64{{500000.25, 4100000.5}, {500010.25, 4100000.5}, {500005.25, 4100008.5}},
		},
	}
	for _, tt := range tests {
		x, y, idx := split(tt.pts)
		if got := dbscan.Hull(x, y, idx); !slices.Equal(got, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestHullProperties checks on random points that the hull is convex,
// counter-clockwise, made of input points, and holds every point.
func TestHullProperties(t *testing.T) {
	seed := rand.Uint64()
	r := rand.New(rand.NewPCG(seed, 1))
	for trial := range 50 {
		pts := make([][2]float64, 3+r.IntN(300))
		for i := range pts {
			pts[i] = [2]float64{float64(r.IntN(50)), float64(r.IntN(50))} // a grid: many collinear and equal points
		}
		x, y, idx := split(pts)
		h := dbscan.Hull(x, y, idx)
		if len(h) < 3 {
			continue
		}
		for i := range h {
			a, b, c := h[i], h[(i+1)%len(h)], h[(i+2)%len(h)]
			if cross(a, b, c) <= 0 {
				t.Fatalf("seed %d trial %d: hull %v turns clockwise or straight at %v", seed, trial, h, b)
			}
			if !slices.Contains(pts, a) {
				t.Fatalf("seed %d trial %d: hull vertex %v is not an input point", seed, trial, a)
			}
		}
		for _, p := range pts {
			for i := range h {
				if cross(h[i], h[(i+1)%len(h)], p) < 0 {
					t.Fatalf("seed %d trial %d: point %v outside hull %v", seed, trial, p, h)
				}
			}
		}
	}
}

func cross(o, a, b [2]float64) float64 {
	return (a[0]-o[0])*(b[1]-o[1]) - (a[1]-o[1])*(b[0]-o[0])
}

func split(pts [][2]float64) (x, y []float64, idx []int32) {
	for i, p := range pts {
		x, y, idx = append(x, p[0]), append(y, p[1]), append(idx, int32(i))
	}
	return x, y, idx
}

func TestMembers(t *testing.T) {
	labels := []int32{1, -1, 0, 1, 2, 0, -1}
	offsets, order := dbscan.Members(labels, 3)
	if want := []int{0, 2, 4, 5}; !slices.Equal(offsets, want) {
		t.Errorf("offsets: got %v, want %v", offsets, want)
	}
	if want := []int32{2, 5, 0, 3, 4}; !slices.Equal(order, want) {
		t.Errorf("order: got %v, want %v", order, want)
	}
}
