package codec

import (
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// atofEdges are inputs where a float parser goes wrong: rounding ties,
// the subnormal and overflow boundaries, mantissas of 19 and 20 digits,
// spellings strconv accepts or refuses.
var atofEdges = []string{
	"0", "-0", "+0", "0.0", "-0.0e5", "00000", ".5", "5.", "-.5e-1", "+5.E+1",
	"1", "-1", "123456789", "9007199254740992", "9007199254740993", "9007199254740995",
	"1e22", "1e23", "9e22", "1.7976931348623157e308", "1.7976931348623158e308",
	"1.7976931348623159e308", "1e308", "1e309", "-1e400", "1e99999999999",
	"2.2250738585072011e-308", "2.2250738585072014e-308", "2.2250738585072012e-308",
	"4.9e-324", "5e-324", "2.4703282292062327e-324", "2.4703282292062328e-324",
	"1e-400", "-1e-99999999999", "0.000000000000000000000000000001",
	"9999999999999999999", "99999999999999999999", "18446744073709551615",
	"18446744073709551616", "1234567890123456789e-10", "12345678901234567890e-10",
	"0.1", "0.2", "0.3", "3.4028235e38", "3.4028236e38", "3.4028234664e38",
	"3.5e38", "1.17549435e-38", "1.4e-45", "7e-46", "0.7006492321624085354618647916449580656401309709382578858785341419448955413429303e-45",
	"1.00000005960464477539062500", "1.0000000596046448", "16777217", "16777216.5",
	"inf", "-Inf", "+INF", "infinity", "-Infinity", "nan", "NaN", "-nan",
	"0x1p-2", "0x1.8p1", "1_000", "0x_1p0", "1e", "1e+", "e1", "+", "-", "", ".", "..5",
	"1.2.3", "1e1.5", "1 ", " 1", "1,5", "1d5", "0e", "0e0", "1E-0", "00012.5000",
	"1e-07", "123.456e-300", "-0.000001e310",
	// Exactly on a float64 (float32 values written in full), where
	// Eisel-Lemire gives up: dyadic.
	"55.534515380859375", "-2.0691070556640625", "0.000000059604644775390625", "1.00000011920928955078125",
	"9007199254740993.5", "18446744073709551615e-19", "7450580596923828125e-27",
}

// sameFloat reports whether ParseFloat64 agreed with strconv on s.
func checkFloat64(t *testing.T, s string) {
	t.Helper()
	want, werr := strconv.ParseFloat(s, 64)
	got, gerr := ParseFloat64([]byte(s))
	if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) ||
		(werr == nil) != (gerr == nil) || werr != nil && errors.Is(werr, strconv.ErrRange) != errors.Is(gerr, strconv.ErrRange) {
		t.Fatalf("ParseFloat64(%q) = %v (%#x), %v; strconv gives %v (%#x), %v", s, got, math.Float64bits(got), gerr, want, math.Float64bits(want), werr)
	}
}

func checkFloat32(t *testing.T, s string) {
	t.Helper()
	want, werr := strconv.ParseFloat(s, 32)
	got, gerr := ParseFloat32([]byte(s))
	if math.Float32bits(got) != math.Float32bits(float32(want)) && !(got != got && want != want) ||
		(werr == nil) != (gerr == nil) {
		t.Fatalf("ParseFloat32(%q) = %v, %v; strconv gives %v, %v", s, got, gerr, float32(want), werr)
	}
}

func TestParseFloatEdges(t *testing.T) {
	for _, s := range atofEdges {
		checkFloat64(t, s)
		checkFloat32(t, s)
	}
}

// TestParseFloatRandom compares ParseFloat64 and ParseFloat32 with strconv
// on random bit patterns (subnormals, huge values and negative zero among
// them) written in every way a writer might: shortest, %e and %f at random
// precisions, and random digit strings with random exponents.
func TestParseFloatRandom(t *testing.T) {
	const seed = 22
	rng := rand.New(rand.NewPCG(seed, seed))
	n := 100000
	if testing.Short() {
		n = 30000
	}
	var sb strings.Builder
	for i := range n {
		f := math.Float64frombits(rng.Uint64())
		switch i % 4 {
		case 1:
			f = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(40)-20))
		case 2:
			f = float64(math.Float32frombits(rng.Uint32()))
		}
		var s string
		switch rng.IntN(4) {
		case 0:
			s = strconv.FormatFloat(f, 'g', -1, 64)
		case 1:
			s = strconv.FormatFloat(f, 'e', rng.IntN(25), 64)
		case 2:
			s = strconv.FormatFloat(f, 'f', rng.IntN(12), 64)
		default:
			sb.Reset()
			if rng.IntN(2) == 0 {
				sb.WriteByte('-')
			}
			for range 1 + rng.IntN(22) {
				sb.WriteByte(byte('0' + rng.IntN(10)))
			}
			if rng.IntN(2) == 0 {
				sb.WriteByte('.')
				for range rng.IntN(10) {
					sb.WriteByte(byte('0' + rng.IntN(10)))
				}
			}
			sb.WriteString("e" + strconv.Itoa(rng.IntN(700)-350))
			s = sb.String()
		}
		checkFloat64(t, s)
		checkFloat32(t, s)
		checkFloat32(t, strconv.FormatFloat(float64(float32(f)), 'g', -1, 32))
		// Halfway between two float32s, and decimals whose nearest
		// float64 is that midpoint: where rounding twice goes wrong.
		x := math.Float32frombits(rng.Uint32() &^ (1 << 31))
		if !math.IsInf(float64(x), 0) && !math.IsNaN(float64(x)) {
			m := (float64(x) + float64(math.Nextafter32(x, float32(math.Inf(1))))) / 2
			for _, s := range []string{strconv.FormatFloat(m, 'g', -1, 64), strconv.FormatFloat(m, 'e', 40, 64),
				strconv.FormatFloat(math.Nextafter(m, 0), 'g', -1, 64), strconv.FormatFloat(math.Nextafter(m, 2*m), 'g', -1, 64)} {
				checkFloat32(t, s)
			}
		}
	}
}

// TestPow10Mant checks the computed table against values published with
// the Eisel-Lemire algorithm (those of Go's strconv).
func TestPow10Mant(t *testing.T) {
	for _, c := range []struct {
		q      int
		hi, lo uint64
	}{
		{-348, 0xfa8fd5a0081c0288, 0x1732c869cd60e453},
		{-347, 0x9c99e58405118195, 0x0e7fbd42205c8eb4},
		{0, 0x8000000000000000, 0},
		{1, 0xa000000000000000, 0},
	} {
		if got := pow10Mant()[c.q-pow10Min]; got != [2]uint64{c.hi, c.lo} {
			t.Errorf("10^%d: mantissa %#x, want %#x %#x", c.q, got, c.hi, c.lo)
		}
	}
}

func TestParseFloatAllocs(t *testing.T) {
	b := []byte("-1234.5678901234567e-3")
	if n := testing.AllocsPerRun(100, func() { ParseFloat64(b) }); n != 0 {
		t.Errorf("ParseFloat64 allocates %v times a call, want 0", n)
	}
}

var sinkFloat float64

// BenchmarkParseFloat64 compares ParseFloat64 with strconv on the shortest
// forms of random coordinates, what pctk writes.
func BenchmarkParseFloat64(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	var toks [][]byte
	for range 1024 {
		toks = append(toks, strconv.AppendFloat(nil, rng.Float64()*100, 'g', -1, 64))
	}
	b.Run("codec", func(b *testing.B) {
		for i := range b.N {
			f, _ := ParseFloat64(toks[i&1023])
			sinkFloat += f
		}
	})
	b.Run("strconv", func(b *testing.B) {
		for i := range b.N {
			f, _ := strconv.ParseFloat(string(toks[i&1023]), 64)
			sinkFloat += f
		}
	})
}

// FuzzParseFloat compares ParseFloat64 and ParseFloat32 with strconv on
// arbitrary input.
func FuzzParseFloat(f *testing.F) {
	for _, s := range atofEdges {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkFloat64(t, s)
		checkFloat32(t, s)
	})
}
