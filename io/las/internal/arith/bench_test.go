package arith

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkDecompress decodes integers as LAZ's X, Y, Z codecs see them:
// small corrections around a prediction, over 32-bit values, in one of
// several contexts. Reported per value.
func BenchmarkDecompress(b *testing.B) {
	const n = 1 << 16
	r := rand.New(rand.NewPCG(1, 2))
	vals := make([]int32, n)
	for i := range vals {
		vals[i] = int32(r.NormFloat64() * 40)
	}
	var e Encoder
	ic := NewIntCompressor(32, 4, 8, 0)
	for i, v := range vals {
		ic.Compress(&e, 0, v, uint32(i&3))
	}
	stream := append([]byte(nil), e.Finish()...)
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	var d Decoder
	var sink int32
	for b.Loop() {
		ic.Init()
		d.Init(stream)
		for i := range n {
			sink += ic.Decompress(&d, 0, uint32(i&3))
		}
	}
	if d.Err() != nil || sink == 1 {
		b.Fatal(d.Err())
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/value")
}
