package ply

import (
	"math/rand/v2"
	"testing"

	"github.com/pctk/pctk/core"
)

// benchCloud is a seeded cloud of n points with colour and normals, as
// PLY scans usually carry.
func benchCloud(n int) *core.Cloud {
	rng := rand.New(rand.NewPCG(1, 2))
	c := core.New(n)
	for i := range n {
		c.X[i], c.Y[i], c.Z[i] = rng.Float64()*100, rng.Float64()*100, rng.Float64()*10
	}
	for _, s := range []struct {
		name string
		t    core.Type
	}{{core.DimRed, core.Uint8}, {core.DimGreen, core.Uint8}, {core.DimBlue, core.Uint8}, {core.DimNormalX, core.Float32}, {core.DimNormalY, core.Float32}, {core.DimNormalZ, core.Float32}} {
		a, _ := c.AddAttr(s.name, s.t)
		for i := range n {
			a.SetFloat64(i, rng.Float64()*255)
		}
	}
	return c
}

// BenchmarkCodec decodes and encodes 100,000 points in every encoding.
func BenchmarkCodec(b *testing.B) {
	codecUnderTest.Bench(b, benchCloud(100_000), variants)
}
