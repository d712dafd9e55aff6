package ply

import (
	"bytes"
	"io"
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

var benchSink *core.Cloud

func BenchmarkDecode(b *testing.B) {
	c := benchCloud(100_000)
	for _, v := range []string{"binary", "binary-be", "ascii"} {
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
	for _, v := range []string{"binary", "binary-be", "ascii"} {
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
