package pcd

import (
	"math/rand/v2"
	"testing"

	"github.com/pctk/pctk/core"
)

// benchCloud is a seeded cloud of n points with float32 coordinates,
// colour and intensity, as PCL scans carry.
func benchCloud(n int) *core.Cloud {
	rng := rand.New(rand.NewPCG(3, 4))
	c := core.New(n)
	for i := range n {
		c.X[i] = float64(float32(rng.Float64() * 10))
		c.Y[i] = float64(float32(rng.Float64() * 10))
		c.Z[i] = float64(float32(rng.Float64()))
	}
	for _, s := range []struct {
		name string
		t    core.Type
	}{{core.DimRed, core.Uint8}, {core.DimGreen, core.Uint8}, {core.DimBlue, core.Uint8}, {core.DimIntensity, core.Float32}} {
		a, _ := c.AddAttr(s.name, s.t)
		for i := range n {
			a.SetFloat64(i, float64(rng.IntN(256)))
		}
	}
	return c
}

// BenchmarkCodec decodes and encodes 100,000 points in every encoding.
func BenchmarkCodec(b *testing.B) {
	codecUnderTest.Bench(b, benchCloud(100_000), variants)
}
