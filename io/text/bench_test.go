package text

import (
	"math/rand/v2"
	"testing"

	"github.com/pctk/pctk/core"
)

// BenchmarkCodec decodes and encodes 100,000 points of a scan (X Y Z,
// Intensity, Red Green Blue) as text, reporting MB/s of the text.
func BenchmarkCodec(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	c := core.New(100_000)
	for i := range c.Len() {
		c.X[i], c.Y[i], c.Z[i] = rng.Float64()*100, rng.Float64()*100, rng.Float64()*10
	}
	for _, name := range []string{core.DimIntensity, core.DimRed, core.DimGreen, core.DimBlue} {
		a, _ := c.AddAttr(name, core.Float64)
		for i := range c.Len() {
			a.SetFloat64(i, float64(rng.IntN(256)))
		}
	}
	codecUnderTest.Bench(b, c, []string{""})
}
