package pcd

import (
	"bytes"
	"io"
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

var benchSink *core.Cloud

func BenchmarkDecode(b *testing.B) {
	c := benchCloud(100_000)
	for _, v := range []string{"binary", "compressed", "ascii"} {
		var buf bytes.Buffer
		if err := Encode(&buf, c, v); err != nil {
			b.Fatal(err)
		}
		b.Run(v, func(b *testing.B) {
			b.SetBytes(int64(buf.Len()))
			b.ReportAllocs()
			for b.Loop() {
				d, err := Decode(bytes.NewReader(buf.Bytes()))
				if err != nil {
					b.Fatal(err)
				}
				benchSink = d
			}
		})
	}
}

func BenchmarkEncode(b *testing.B) {
	c := benchCloud(100_000)
	for _, v := range []string{"binary", "compressed", "ascii"} {
		var buf bytes.Buffer
		if err := Encode(&buf, c, v); err != nil {
			b.Fatal(err)
		}
		b.Run(v, func(b *testing.B) {
			b.SetBytes(int64(buf.Len()))
			b.ReportAllocs()
			for b.Loop() {
				if err := Encode(io.Discard, c, v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
