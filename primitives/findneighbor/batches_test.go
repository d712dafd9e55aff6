package findneighbor_test

import (
	"fmt"
	"slices"
	"testing"

	fn "github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/findneighbor/fntest"
)

// TestBatches checks that the concatenated batches equal one Neighbors
// call, in self mode (own hits dropped, caps kept, even with more than
// Cap copies of a point) and with a query set, for every batch size.
func TestBatches(t *testing.T) {
	r := fntest.Rand(5)
	clouds := map[string][]float32{
		"uniform":    fntest.Uniform(r, 400, 10),
		"duplicated": fntest.Duplicated(r, 400, 30, 10),
	}
	for _, b := range []fn.Backend{fn.Brute(), fn.CPU()} {
		for name, xyz := range clouds {
			ix, err := b.Build(xyz, 1.3, fn.BuildOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range [][]float32{nil, xyz[:150]} {
				for _, o := range []fn.NeighborOptions{{}, {WithDist: true, Sorted: true}, {Cap: 3}, {Cap: 4, Sorted: true, WithDist: true}, {Cap: 2, WithDist: true}} {
					want, err := ix.Neighbors(q, o)
					if err != nil {
						t.Fatal(err)
					}
					for _, max := range []int64{1, 37, 1 << 40} {
						ctx := fmt.Sprintf("%s %s queries %d %+v max %d", b.Name(), name, len(q)/3, o, max)
						got := &fn.CSR{Offsets: []int64{0}}
						err := fn.Batches(ix, xyz, q, o, max, func(first int, c *fn.CSR) error {
							if first != len(got.Offsets)-1 {
								return fmt.Errorf("batch starts at %d, want %d", first, len(got.Offsets)-1)
							}
							if n := c.Offsets[len(c.Offsets)-1]; n > max && len(c.Offsets) > 2 {
								return fmt.Errorf("batch of %d queries holds %d entries, limit %d", len(c.Offsets)-1, n, max)
							}
							base := int64(len(got.Indices))
							for _, off := range c.Offsets[1:] {
								got.Offsets = append(got.Offsets, base+off)
							}
							got.Indices = append(got.Indices, c.Indices...)
							got.Dist = append(got.Dist, c.Dist...)
							got.Capped = append(got.Capped, c.Capped...)
							return nil
						})
						if err != nil {
							t.Fatalf("%s: %v", ctx, err)
						}
						if !slices.Equal(got.Offsets, want.Offsets) || !slices.Equal(got.Indices, want.Indices) ||
							!slices.Equal(got.Dist, want.Dist) || !slices.Equal(got.Capped, want.Capped) {
							t.Errorf("%s: batches differ from Neighbors", ctx)
						}
					}
				}
			}
		}
	}
}

func TestNeighborsSize(t *testing.T) {
	xyz := []float32{0, 0, 0, 1, 0, 0, 2, 0, 0, 4, 0, 0, 4, 0, 0} // counts 1 2 1 1 1
	ix, err := fn.CPU().Build(xyz, 1.5, fn.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		opts           fn.NeighborOptions
		entries, bytes int64
	}{
		{fn.NeighborOptions{}, 6, 6*8 + 6*4},
		{fn.NeighborOptions{WithDist: true}, 6, 6*8 + 6*8},
		{fn.NeighborOptions{Cap: 1}, 5, 6*8 + 5*4 + 5},
	} {
		e, b, err := fn.NeighborsSize(ix, nil, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		if e != c.entries || b != c.bytes {
			t.Errorf("%+v: %d entries, %d bytes; want %d, %d", c.opts, e, b, c.entries, c.bytes)
		}
		csr, err := ix.Neighbors(nil, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		if got := int64(len(csr.Indices)); got != e {
			t.Errorf("%+v: Neighbors returned %d entries, NeighborsSize said %d", c.opts, got, e)
		}
	}
}
