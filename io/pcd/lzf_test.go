package pcd

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

func TestLZFRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	cases := map[string][]byte{
		"empty":  {},
		"one":    {42},
		"zeros":  make([]byte, 100000),
		"abcabc": bytes.Repeat([]byte("abc"), 5000),
	}
	random := make([]byte, 70000)
	for i := range random {
		random[i] = byte(rng.IntN(256))
	}
	cases["random"] = random
	mixed := make([]byte, 0, 200000)
	for len(mixed) < 200000 {
		if rng.IntN(2) == 0 {
			mixed = append(mixed, random[:rng.IntN(40)]...)
		} else {
			start := rng.IntN(len(mixed) + 1)
			mixed = append(mixed, mixed[start:min(len(mixed), start+rng.IntN(300))]...)
		}
	}
	cases["mixed"] = mixed
	for name, in := range cases {
		c := lzfCompress(in)
		out := make([]byte, len(in))
		if err := lzfDecompress(c, out); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(in, out) {
			t.Fatalf("%s: decompressed data differs", name)
		}
		t.Logf("%s: %d -> %d bytes", name, len(in), len(c))
	}
	if c := lzfCompress(cases["zeros"]); len(c) > 100000/264*3+8 {
		t.Errorf("100000 zeros compress to %d bytes, want at most 3 bytes per 264-byte match", len(c))
	}
}

func TestLZFCorrupt(t *testing.T) {
	for _, in := range [][]byte{
		{5, 1, 2},          // literal run past the input
		{0x20, 0},          // reference before the start of the output
		{0, 1, 0xe0},       // long reference without its length byte
		{0, 1, 0x20, 0},    // reference past the output size (out is 3 bytes)
		{0, 1},             // too short for the output
		{2, 1, 2, 3, 0x00}, // a trailing literal control byte with no data
	} {
		if err := lzfDecompress(in, make([]byte, 3)); err == nil {
			t.Errorf("lzfDecompress(%v): got no error", in)
		}
	}
}
