package pcio_test

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/pctk/pctk/io/pcio"
)

// TestAppendFloat pins the text form of floats: plain notation in
// [1e-7, 1e21), shortest 'g' beyond, and every form reads back to the
// same bits (float32 and float64, random bit patterns, seeded).
func TestAppendFloat(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		bits int
		want string
	}{
		{4918359.21475, 64, "4918359.21475"},
		{849393.95, 64, "849393.95"},
		{2000000, 64, "2000000"},
		{0.001, 64, "0.001"},
		{1e-7, 64, "0.0000001"},
		{123456789012345678901, 64, "123456789012345680000"},
		{1e21, 64, "1e+21"},
		{1e90, 64, "1e+90"},
		{-3e-8, 64, "-3e-08"},
		{0, 64, "0"},
		{math.Copysign(0, -1), 64, "-0"},
		{math.Inf(-1), 64, "-Inf"},
		{float64(float32(16777217.5)), 32, "16777218"},
		{float64(float32(0.1)), 32, "0.1"},
	} {
		if got := string(pcio.AppendFloat(nil, tc.v, tc.bits)); got != tc.want {
			t.Errorf("AppendFloat(%v, %d) = %q, want %q", tc.v, tc.bits, got, tc.want)
		}
	}
	rng := rand.New(rand.NewPCG(11, 11))
	for range 100000 {
		v := math.Float64frombits(rng.Uint64())
		if math.IsNaN(v) {
			continue
		}
		if back, err := strconv.ParseFloat(pcio.FormatFloat(v), 64); err != nil || math.Float64bits(back) != math.Float64bits(v) {
			t.Fatalf("float64 %v (%x) reads back as %v, %v", v, math.Float64bits(v), back, err)
		}
		f := math.Float32frombits(rng.Uint32())
		if f != f {
			continue
		}
		s := string(pcio.AppendFloat(nil, float64(f), 32))
		if back, err := strconv.ParseFloat(s, 32); err != nil || math.Float32bits(float32(back)) != math.Float32bits(f) {
			t.Fatalf("float32 %v reads back from %q as %v, %v", f, s, back, err)
		}
	}
}
