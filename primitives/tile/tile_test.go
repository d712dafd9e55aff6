package tile

import (
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/pctk/pctk/primitives/findneighbor"
)

// TestBin checks that every point is owned by exactly one tile, the one
// whose box holds it, and that each tile holds every point within Halo (in
// XY) of a point it owns and lists its points in increasing index order.
func TestBin(t *testing.T) {
	xyz := lattice(1, 2000, 40, 0.5) // on a lattice of step 0.5 in [-10, 9.5]: on tile sides
	for _, tc := range []struct {
		size, halo float64
		centred    bool
		tiles      int // 0: not checked
	}{{1, 0.5, false, 0}, {2.5, 1, false, 64}, {0.5, 1.5, false, 0}, {100, 3, false, 4}, {3, 0, false, 64},
		{1, 0.5, true, 0}, {2.5, 1, true, 81}, {20, 1, true, 1}, {20.5, 1, true, 1}, {100, 3, true, 1}} {
		g, err := NewGrid(tc.size, tc.halo)
		if err != nil {
			t.Fatal(err)
		}
		if tc.centred {
			g.Centred = true
		}
		// Centre centres the grid exactly where one tile then holds the
		// whole lattice.
		if c := g; c.Centre([2]float64{-10, -10}, [2]float64{9.5, 9.5}) != (tc.size > 20) {
			t.Errorf("size %g: Centre reports %v for coordinates within ±10", tc.size, c.Centred)
		}
		owners := make([]int, len(xyz)/3)
		tiles := Bin(xyz, g)
		if tc.tiles > 0 && len(tiles) != tc.tiles {
			t.Errorf("size %g, centred %v: %d tiles, want %d", tc.size, tc.centred, len(tiles), tc.tiles)
		}
		for _, tl := range tiles {
			in := map[int64]bool{}
			lo, hi := g.Box(tl.Key)
			for j, id := range tl.ID {
				if j > 0 && id <= tl.ID[j-1] {
					t.Fatalf("size %g: tile %v lists %d after %d", tc.size, tl.Key, id, tl.ID[j-1])
				}
				in[id] = true
				x, y := float64(xyz[3*id]), float64(xyz[3*id+1])
				inside := x >= lo[0] && x < hi[0] && y >= lo[1] && y < hi[1]
				if tl.Owned[j] != inside {
					t.Fatalf("size %g: point %d (%g, %g) owned %v by tile %v [%v, %v)", tc.size, id, x, y, tl.Owned[j], tl.Key, lo, hi)
				}
				if tl.Owned[j] {
					owners[id]++
				}
			}
			for _, id := range tl.ID {
				if !tl.Owned[tl.indexOf(id)] {
					continue
				}
				for q := range len(xyz) / 3 {
					dx, dy := float64(xyz[3*q]-xyz[3*id]), float64(xyz[3*q+1]-xyz[3*id+1])
					if math.Hypot(dx, dy) <= tc.halo && !in[int64(q)] {
						t.Fatalf("size %g halo %g: tile %v misses point %d near its point %d", tc.size, tc.halo, tl.Key, q, id)
					}
				}
			}
		}
		for i, c := range owners {
			if c != 1 {
				t.Fatalf("size %g: point %d owned by %d tiles", tc.size, i, c)
			}
		}
	}
}

// TestBinRanges holds Bin, which cuts large clouds range by range on
// every core, to binSparse, which appends point by point, on a cloud of
// several ranges (par.Grain points each) with points on tile boundaries:
// the same tiles, points and order, also where the tiles are so small that
// Bin takes one range, and with a halo wider than the tiles.
func TestBinRanges(t *testing.T) {
	xyz := lattice(5, 100_000, 400, 0.25)
	for _, tc := range []struct{ size, halo float64 }{{10, 0.5}, {2.5, 1}, {3, 0}, {4, 5}, {0.1, 0.05}} {
		g, err := NewGrid(tc.size, tc.halo)
		if err != nil {
			t.Fatal(err)
		}
		got, want := Bin(xyz, g), binSparse(xyz, g)
		if len(got) != len(want) {
			t.Fatalf("size %g halo %g: %d tiles, want %d", tc.size, tc.halo, len(got), len(want))
		}
		for j := range want {
			if !reflect.DeepEqual(got[j], want[j]) {
				t.Fatalf("size %g halo %g: tile %v differs (%d points, want %d)", tc.size, tc.halo, want[j].Key, got[j].Len(), want[j].Len())
			}
		}
	}
}

// lattice returns n random points (seeded by seed) on the XY lattice of
// cells by cells nodes of step step centred on the origin, z in [0, 1):
// many points on tile boundaries, and points that coincide in XY.
func lattice(seed uint64, n, cells int, step float32) []float32 {
	r := rand.New(rand.NewPCG(seed, seed+1))
	xyz := make([]float32, 0, 3*n)
	half := float32(cells) * step / 2
	for range n {
		xyz = append(xyz, float32(r.IntN(cells))*step-half, float32(r.IntN(cells))*step-half, r.Float32())
	}
	return xyz
}

func (p *Points) indexOf(id int64) int {
	for j, v := range p.ID {
		if v == id {
			return j
		}
	}
	return -1
}

func TestNewGridRejects(t *testing.T) {
	for _, tc := range []struct{ size, halo float64 }{{0, 1}, {-1, 1}, {math.Inf(1), 1}, {math.NaN(), 1}, {1, -1}, {1, math.Inf(1)}} {
		var se *SizeError
		if _, err := NewGrid(tc.size, tc.halo); !errors.As(err, &se) {
			t.Errorf("NewGrid(%g, %g) = %v, want a SizeError", tc.size, tc.halo, err)
		}
	}
}

// TestStoreMatchesBin bins a cloud on disk and holds every tile Load reads
// back to the one Bin cuts in memory, with the store's buffers as they are
// and bounded to 1000 bytes in all (flushed all the time).
func TestStoreMatchesBin(t *testing.T) {
	storeMatchesBin(t)
	defer func(b int) { storeBuffered = b }(storeBuffered)
	storeBuffered = 1000
	storeMatchesBin(t)
}

func storeMatchesBin(t *testing.T) {
	xyz := lattice(3, 5000, 80, 0.25)
	g, err := NewGrid(2.5, 0.75)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewStore(t.TempDir(), g)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range len(xyz) / 3 {
		if err := s.Add(int64(i), xyz[3*i], xyz[3*i+1], xyz[3*i+2]); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if got, want := s.Box(), findneighbor.BoxOf(xyz); got != want {
		t.Fatalf("Box %v, in memory %v", got, want)
	}
	want := Bin(xyz, g)
	keys := s.Keys()
	if len(keys) != len(want) {
		t.Fatalf("%d tiles on disk, %d in memory", len(keys), len(want))
	}
	for j, k := range keys {
		got, err := s.Load(k)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want[j]) {
			t.Fatalf("tile %v: disk and memory differ (%d and %d points)", k, got.Len(), want[j].Len())
		}
		if int64(len(got.OwnedIndex())) != s.Owned(k) {
			t.Fatalf("tile %v: Owned %d, loaded %d", k, s.Owned(k), len(got.OwnedIndex()))
		}
	}
}

// TestGridForFarPoints: a tile size far too small for the coordinates is
// an error naming the least size that works, not tiles pinned at the int32
// limits (which made Bin index out of range and Touch loop forever).
func TestGridForFarPoints(t *testing.T) {
	xyz := []float32{-1e6, 0, 0, 1e6, 5, 0}
	_, err := GridFor(1e-4, 1e-4, xyz)
	var se *SpanError
	if !errors.As(err, &se) || se.Widest < 1e6 {
		t.Fatalf("GridFor(1e-4) on points at ±1e6: %v, want a *SpanError", err)
	}
	g, err := GridFor(se.Widest/(maxCell-1)*1.01, 1e-4, xyz)
	if err != nil {
		t.Fatalf("GridFor at the least size the error names: %v", err)
	}
	if tiles := Bin(xyz, g); len(tiles) != 2 {
		t.Errorf("Bin: %d tiles, want 2", len(tiles))
	}
}
