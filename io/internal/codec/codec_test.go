package codec

import (
	"encoding/binary"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/pctk/pctk/core"
)

func TestParseText(t *testing.T) {
	for _, c := range []struct {
		in   string
		t    core.Type
		want uint64
		ok   bool
	}{
		{"255", core.Uint8, 255, true},
		{"256", core.Uint8, 0, false},
		{"-1", core.Uint8, 0, false},
		{"3.0", core.Uint8, 3, true},
		{"3.5", core.Uint8, 0, false},
		{"1e2", core.Int16, 100, true},
		{"-128", core.Int8, math.MaxUint64 - 127, true},
		{"-129", core.Int8, 0, false},
		{"-9223372036854775808", core.Int64, 1 << 63, true},
		{"18446744073709551615", core.Uint64, math.MaxUint64, true},
		{"nan", core.Int32, 0, false},
		{"1e400", core.Float64, 0, false},
		{"-1e39", core.Float32, 0, false},
		{"1e-400", core.Float64, 0, true},
		{"inf", core.Float64, math.Float64bits(math.Inf(1)), true},
		{"+07", core.Uint8, 7, true},
		{"-0", core.Uint16, 0, true},
		{"-32769", core.Int16, 0, false},
		{"65536", core.Uint16, 0, false},
		{"-Inf", core.Float32, uint64(math.Float32bits(float32(math.Inf(-1)))), true},
		{"0.1", core.Float32, uint64(math.Float32bits(0.1)), true},
		{"x", core.Float64, 0, false},
	} {
		got, err := ParseText([]byte(c.in), c.t)
		if (err == nil) != c.ok || c.ok && got != c.want {
			t.Errorf("ParseText(%q, %v) = %#x, %v; want %#x, ok %v", c.in, c.t, got, err, c.want, c.ok)
		}
	}
	if v, err := ParseText([]byte("NaN"), core.Float32); err != nil || !math.IsNaN(float64(math.Float32frombits(uint32(v)))) {
		t.Errorf("ParseText(NaN, float32) = %#x, %v; want a NaN", v, err)
	}
}

// TestTextRoundTrip checks that the text form of random bits of every type
// parses back to the same bits (NaN aside), the basis of exact ascii I/O.
func TestTextRoundTrip(t *testing.T) {
	const seed = 11
	rng := rand.New(rand.NewPCG(seed, seed))
	for ty := core.Int8; ty <= core.Float64; ty++ {
		for range 20000 {
			v := rng.Uint64()
			var b [8]byte
			StoreBits(b[:], ty, binary.LittleEndian, v)
			v = LoadBits(b[:], ty, binary.LittleEndian) // canonical: sign-extended, truncated
			if ty == core.Float32 && math.IsNaN(float64(math.Float32frombits(uint32(v)))) ||
				ty == core.Float64 && math.IsNaN(math.Float64frombits(v)) {
				continue
			}
			s := AppendText(nil, ty, v)
			got, err := ParseText(s, ty)
			if err != nil || got != v {
				t.Fatalf("seed %d: %v bits %#x -> %q -> %#x, %v", seed, ty, v, s, got, err)
			}
		}
	}
}

func TestTokens(t *testing.T) {
	in := "1, 2\t3\r\n\n  " + strings.Repeat("9", 70000) + "\nlast"
	r := NewReader("t", iotest.OneByteReader(strings.NewReader(in)))
	var got []string
	var lines []int
	for {
		tok, err := r.Token(true)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(tok[:min(len(tok), 3)]))
		lines = append(lines, r.Pos().Line)
	}
	if strings.Join(got, ",") != "1,2,3,999,las" || len(lines) != 5 || lines[3] != 3 || lines[4] != 4 {
		t.Errorf("tokens %q on lines %v, want 1,2,3,999...,last on lines 1 1 1 3 4", got, lines)
	}
}

func TestCheckCount(t *testing.T) {
	// A count the input cannot hold is a ShortError (with the most records
	// it can hold); a count no input can be is a FormatError.
	for _, c := range []struct {
		n, min, rem, present int64
		ok, short            bool
	}{
		{10, 4, 40, 0, true, false}, {11, 4, 40, 10, false, true}, {1 << 40, 12, -1, 0, true, false},
		{-1, 1, -1, 0, false, false}, {1 << 40, 12, 1 << 20, 87381, false, true},
	} {
		err := CheckCount("t", Pos{}, "points", c.n, c.min, c.rem)
		var fe *FormatError
		var se *ShortError
		switch {
		case (err == nil) != c.ok:
			t.Errorf("CheckCount(%d, %d, %d) = %v, want ok %v", c.n, c.min, c.rem, err, c.ok)
		case c.short && (!errors.As(err, &se) || se.Present != c.present || se.Promised != c.n || !errors.Is(err, io.ErrUnexpectedEOF)):
			t.Errorf("CheckCount(%d, %d, %d) = %v, want a ShortError with %d present", c.n, c.min, c.rem, err, c.present)
		case !c.ok && !c.short && !errors.As(err, &fe):
			t.Errorf("CheckCount(%d, %d, %d) = %v, want a FormatError", c.n, c.min, c.rem, err)
		}
	}
	if got := ChunkSize(1<<30, 1<<40, false); got != Chunk {
		t.Errorf("ChunkSize with unknown size = %d, want %d", got, Chunk)
	}
	if got := ChunkSize(0, 5, true); got != 1 {
		t.Errorf("ChunkSize(0, 5) = %d, want 1", got)
	}
}

// TestGetColumn checks the typed loops against LoadBits for every type,
// both byte orders, into attributes and coordinates.
func TestGetColumn(t *testing.T) {
	const seed, n, stride, off = 5, 50, 13, 3
	rng := rand.New(rand.NewPCG(seed, seed))
	buf := make([]byte, off+n*stride+8)
	for i := range buf {
		buf[i] = byte(rng.IntN(256))
	}
	for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		for ty := core.Int8; ty <= core.Float64; ty++ {
			a := core.NewAttribute("a", ty, n+2)
			xs := make([]float64, n+2)
			GetColumn(a, 2, ty, buf, off, stride, n, order)
			GetColumn(xs, 2, ty, buf, off, stride, n, order)
			for j := range n {
				want := LoadBits(buf[off+j*stride:], ty, order)
				if got := a.Uint64(2 + j); got != want {
					t.Fatalf("seed %d, %v %v: value %d = %#x, want %#x", seed, order, ty, j, got, want)
				}
				if got, w := xs[2+j], ToFloat64(ty, want); math.Float64bits(got) != math.Float64bits(w) && !(math.IsNaN(got) && math.IsNaN(w)) {
					t.Fatalf("seed %d, %v %v: coordinate %d = %v, want %v", seed, order, ty, j, got, w)
				}
			}
		}
	}
}

// TestPutColumn checks that PutColumn writes back, bit for bit, what
// GetColumn read, in both byte orders and for every type, and touches no
// byte outside its fields.
func TestPutColumn(t *testing.T) {
	const seed, n, stride, off = 6, 50, 13, 3
	rng := rand.New(rand.NewPCG(seed, seed))
	src := make([]byte, off+n*stride+8)
	for i := range src {
		src[i] = byte(rng.IntN(256))
	}
	for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		for ty := core.Int8; ty <= core.Float64; ty++ {
			a := core.NewAttribute("a", ty, n+2)
			GetColumn(a, 2, ty, src, off, stride, n, order)
			dst := make([]byte, len(src))
			PutColumn(a, 2, ty, dst, off, stride, n, order)
			for i := range dst {
				inField := i >= off && (i-off)%stride < ty.Size() && (i-off)/stride < n
				want := byte(0)
				if inField {
					want = src[i]
				}
				if dst[i] != want {
					t.Fatalf("seed %d, %v %v: byte %d = %#x, want %#x", seed, order, ty, i, dst[i], want)
				}
			}
		}
	}
}
