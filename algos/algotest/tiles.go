package algotest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	_ "github.com/pctk/pctk/io/las" // the scans' codec
	"github.com/pctk/pctk/io/pcio"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/fntest"
)

// TileCloud is a cloud for the tests of tiled runs against in-memory runs,
// with the neighbour radius R to run it at.
type TileCloud struct {
	Name string
	XYZ  []float32
	R    float64
}

// TileClouds returns random clouds (fntest's, small), a cloud on a lattice
// of step 0.25 whose points lie exactly on tile boundaries for tile sizes
// that are multiples of 0.25, with many ties, and the shipped haystack_rock
// scan in its local frame (and, when ../shared/data is there, the
// lion_takanawa tiles' first file). root is the path of the repository root
// from the test's package ("../..").
func TileClouds(t testing.TB, root string) []TileCloud {
	t.Helper()
	var out []TileCloud
	for _, c := range fntest.Clouds(21, 1500) {
		out = append(out, TileCloud{"random/" + c.Name, c.XYZ, 0.71})
	}
	r := rand.New(rand.NewPCG(21, 1))
	lat := make([]float32, 0, 3*3000)
	for range 3000 {
		lat = append(lat, float32(r.IntN(40))*0.25-5, float32(r.IntN(40))*0.25-5, float32(r.IntN(4))*0.25)
	}
	out = append(out, TileCloud{"lattice", lat, 0.5})
	read := func(name, path string, radius float64) {
		c, _, err := pcio.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, TileCloud{name, c.Local(false).XYZ, radius})
	}
	read("haystack_rock", filepath.Join(root, "testdata/haystack_rock.las"), 6)
	if lion := filepath.Join(root, "../shared/data/las/lion_takanawa/r.las"); fileExists(lion) {
		read("lion_takanawa/r", lion, 0.05)
	} else {
		t.Log("../shared/data is missing: tiled runs are tested on the shipped clouds only")
	}
	return out
}

// TileSizes returns the tile sizes the tests of tiled runs try for radius
// r: from a few r (many tiles, most points in halos) to many r, multiples
// of 0.25 where r is, so that lattice points fall on tile boundaries.
func TileSizes(r float64) []float64 { return []float64{2 * r, 3 * r, 8 * r, 40 * r} }

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// Differ counts the values of got that differ from want in any bit (NaNs
// equal) and returns the largest difference.
func Differ[T float32 | float64](got, want []T) (n int, worst float64) {
	for i := range want {
		g, w := float64(got[i]), float64(want[i])
		if g == w && math.Signbit(g) == math.Signbit(w) || (g != g && w != w) {
			continue
		}
		worst = max(worst, math.Abs(g-w))
		n++
	}
	return n, worst
}

// CheckTiled runs compute on every cloud of TileClouds (root as there)
// once in memory (tile size 0) and once at each of TileSizes(c.R), on
// every usable backend (fntest.Usable: brute on clouds of up to 5000
// points, as it is O(N²), cpu, and cuda and optix on a GPU machine), and
// hands each tiled result with the in-memory one of the same backend to
// compare, which holds them equal bit for bit: every backend adds the k
// nearest in KNearest's order (distance, then index) in tiles as in the
// whole cloud, and the neighbours within a radius in the order of their
// index, which a tile's, laid out in the whole cloud's frame, shares with
// the whole cloud's (docs/scale.md).
func CheckTiled[R any](t *testing.T, root string, compute func(c TileCloud, b findneighbor.Backend, size float64) (R, error), compare func(t *testing.T, got, want R)) {
	t.Helper()
	bs := fntest.Usable(t)
	for _, c := range TileClouds(t, root) {
		for _, b := range bs {
			if b.Name() == "brute" && len(c.XYZ) > 3*5000 {
				continue
			}
			checkTiled(t, c, c.Name+"/"+b.Name(), func(size float64) (R, error) { return compute(c, b, size) }, compare)
		}
	}
}

// CheckTiledExact runs compute on every cloud of TileClouds (root as
// there) once in memory (tile size 0) and once at each of TileSizes(c.R)
// and hands each tiled result with the in-memory one to compare: for
// results that tiles reproduce bit for bit (labels, flags, counts) on the
// backend compute runs on.
func CheckTiledExact[R any](t *testing.T, root string, compute func(c TileCloud, size float64) (R, error), compare func(t *testing.T, got, want R)) {
	t.Helper()
	for _, c := range TileClouds(t, root) {
		checkTiled(t, c, c.Name, func(size float64) (R, error) { return compute(c, size) }, compare)
	}
}

// checkTiled runs compute in memory and at each of TileSizes(c.R), in
// subtests named name/tileSIZE, and compares each tiled result with the
// in-memory one.
func checkTiled[R any](t *testing.T, c TileCloud, name string, compute func(size float64) (R, error), compare func(t *testing.T, got, want R)) {
	t.Helper()
	want, err := compute(0)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range TileSizes(c.R) {
		t.Run(fmt.Sprintf("%s/tile%g", name, s), func(t *testing.T) {
			got, err := compute(s)
			if err != nil {
				t.Fatal(err)
			}
			compare(t, got, want)
		})
	}
}
