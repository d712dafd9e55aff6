package pcd

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/internal/codec"
)

// TestEncodeManyBlocks round-trips a cloud of several encoding blocks (rows
// encoded on several goroutines) through binary and binary_compressed PCD
// and compares every coordinate and value.
func TestEncodeManyBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	n := 3*codec.RecordBlock + 77
	c := core.New(n)
	for i := range n {
		c.X[i], c.Y[i], c.Z[i] = rng.NormFloat64()*1e3, rng.NormFloat64(), float64(i)
	}
	for _, ty := range []core.Type{core.Uint8, core.Int16, core.Uint32, core.Float32, core.Float64} {
		a := core.NewAttribute("a_"+ty.String(), ty, n)
		for i := range n {
			a.SetFloat64(i, float64(rng.IntN(200)))
		}
		if err := c.SetAttr(a); err != nil {
			t.Fatal(err)
		}
	}
	for _, variant := range []string{"binary", "compressed"} {
		var buf bytes.Buffer
		if err := Encode(&buf, c, variant); err != nil {
			t.Fatal(err)
		}
		got, err := Decode(&buf)
		if err != nil {
			t.Fatalf("%s: %v", variant, err)
		}
		if !slices.Equal(got.X, c.X) || !slices.Equal(got.Y, c.Y) || !slices.Equal(got.Z, c.Z) {
			t.Errorf("%s: coordinates differ after the round trip", variant)
		}
		for _, a := range c.Attrs {
			b := got.Attr(a.Name)
			if b == nil {
				t.Fatalf("%s: attribute %s lost", variant, a.Name)
			}
			for i := range n {
				if a.Float64(i) != b.Float64(i) {
					t.Fatalf("%s: %s of point %d = %g, want %g", variant, a.Name, i, b.Float64(i), a.Float64(i))
				}
			}
		}
	}
}
