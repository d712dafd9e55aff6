package features

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/pctk/pctk/algos/algotest"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/tile"
)

// tiled runs Compute on tiles of side size as the stage driver does
// (tile.LocalTiled, by Reach): each tile's points alone, their features
// stored as records, those whose Reach a tile does not hold computed
// again on wider tiles.
func tiled(xyz []float32, b findneighbor.Backend, size float64, o Options) (*Result, error) {
	fs := o.features()
	rec := 8*len(fs) + 1
	halo := o.Radius
	if halo == 0 {
		box := findneighbor.BoxOf(xyz)
		halo, _ = tile.KNNHalo(int64(len(xyz)/3), [2]float64{float64(box.Min[0]), float64(box.Min[1])}, [2]float64{float64(box.Max[0]), float64(box.Max[1])}, o.K)
	}
	out, err := tile.LocalTiled(xyz, b, size, halo, rec, o.Build, func(t *tile.Points, _ []int32, w findneighbor.Backend, bo findneighbor.BuildOptions) ([]byte, []float64, error) {
		to := o
		to.Build = bo
		r, err := Compute(t.XYZ, w, to)
		if err != nil {
			return nil, nil, err
		}
		buf := make([]byte, rec*t.Len())
		for i := range t.Len() {
			for c := range fs {
				binary.LittleEndian.PutUint64(buf[rec*i+8*c:], math.Float64bits(r.Values[c][i]))
			}
			if r.Skip[i] {
				buf[rec*i+rec-1] = 1
			}
		}
		return buf, r.Reach, nil
	})
	if err != nil {
		return nil, err
	}
	n := len(xyz) / 3
	res := &Result{Features: fs, Values: make([][]float64, len(fs)), Skip: make([]bool, n)}
	for c := range fs {
		res.Values[c] = make([]float64, n)
		for i := range n {
			res.Values[c][i] = math.Float64frombits(binary.LittleEndian.Uint64(out[rec*i+8*c:]))
		}
	}
	for i := range n {
		res.Skip[i] = out[rec*i+rec-1] == 1
	}
	return res, nil
}

// TestTiledEqualsInMemory runs Compute on tiles (tiled), at several tile
// sizes down to 2R, with a radius and with k, on random clouds, a lattice
// and real scans, far from their origin, and holds it to the in-memory run
// bit for bit on the brute and cpu backends (algotest.CheckTiled).
func TestTiledEqualsInMemory(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts func(r float64) Options
	}{
		{"radius", func(r float64) Options { return Options{Radius: r, Features: All(), Mode: Normalized} }},
		{"radius-sqrt-mink", func(r float64) Options { return Options{Radius: 1.5 * r, Features: All(), MinK: 5} }},
		{"knn", func(float64) Options { return Options{K: 8, Features: All()} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			algotest.CheckTiled(t, "../..", func(c algotest.TileCloud, b findneighbor.Backend, size float64) (*Result, error) {
				o := tc.opts(c.R)
				o.Origin = [3]float64{500000, 4e6, 50}
				if size == 0 {
					return Compute(c.XYZ, b, o)
				}
				return tiled(c.XYZ, b, size, o)
			}, func(t *testing.T, got, want *Result) {
				if got.Skipped() != want.Skipped() {
					t.Errorf("%d points skipped, in memory %d", got.Skipped(), want.Skipped())
				}
				for j, f := range got.Features {
					if n, d := algotest.Differ(got.Values[j], want.Values[j]); n > 0 {
						t.Errorf("%v: %d values differ from the in-memory run's (largest by %g)", f, n, d)
					}
				}
			})
		})
	}
}

// TestReach checks that each point's features depend only on the points
// within its Reach.
func TestReach(t *testing.T) {
	for _, o := range []Options{{K: 6, Features: All()}, {Radius: 0.8, Features: All(), Mode: Raw}} {
		algotest.CheckReach(t, func(xyz []float32, b findneighbor.Backend) ([][]float64, []float64, error) {
			r, err := Compute(xyz, b, o)
			if err != nil {
				return nil, nil, err
			}
			return r.Values, r.Reach, nil
		})
	}
}
