package las

import (
	"bytes"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/pcio"
)

// scaleClouds are clouds whose scale chooseScale picks by different rules,
// with the X scale it picks.
func scaleClouds() []struct {
	name   string
	c      *core.Cloud
	scaleX float64
} {
	rng := rand.New(rand.NewPCG(21, 1))
	cloud := func(n int, f func(i, k int) float64) *core.Cloud {
		c := core.New(n)
		for i := range n {
			c.X[i], c.Y[i], c.Z[i] = f(i, 0), f(i, 1), f(i, 2)
		}
		return c
	}
	return []struct {
		name   string
		c      *core.Cloud
		scaleX float64
	}{
		{"centimetre grid, UTM", cloud(500, func(_, k int) float64 { return []float64{635000, 4.1e6, 120}[k] + float64(rng.IntN(2e6))/100 }), 0.01},
		{"millimetre grid, negative", cloud(300, func(_, k int) float64 { return -7e5 - float64(k) - float64(rng.IntN(1e6))/1000 }), 0.001},
		{"1e-7 grid", cloud(200, func(_, _ int) float64 { return float64(rng.IntN(1e5)) * 1e-7 }), 1e-7},
		// No power of ten gives these back: the finest that fits ±3.
		{"float32 model", cloud(400, func(_, _ int) float64 { return float64(float32(rng.NormFloat64())) }), 1e-8},
		{"UTM float64", cloud(300, func(_, k int) float64 { return []float64{5e5, 4e6, 0}[k] + rng.Float64()*5000 }), 1e-5},
		{"continental box", cloud(50, func(i, _ int) float64 { return float64(i-25) * 1.2e6 }), 0.1},
		{"one point", cloud(1, func(_, k int) float64 { return []float64{635619.85, -12.5, 0.001}[k] }), 0.01},
		// A cloud on a centimetre grid but for its last point, which only
		// 1 mm gives back: a fit fed in chunks finds 0.01 first.
		{"grid broken late", cloud(300, func(i, _ int) float64 {
			if i == 299 {
				return 12.345
			}
			return float64(rng.IntN(1e5)) / 100
		}), 0.001},
		// Points with a non-finite coordinate count for no bound and take
		// any scale (onGrid), as in chooseScale.
		{"NaN and Inf", cloud(100, func(i, k int) float64 {
			switch {
			case i%10 == 3 && k == 1:
				return math.NaN()
			case i == 50 && k == 2:
				return math.Inf(1)
			}
			return float64(rng.IntN(1e4)) / 100
		}), 0.01},
	}
}

// TestScaleFit feeds a ScaleFit each cloud in chunks of several sizes,
// with its bounds given and found by a first pass, and holds its choice
// (and its warnings) to chooseScale's on the whole cloud.
func TestScaleFit(t *testing.T) {
	warns := captureWarnings(t)
	for _, tc := range scaleClouds() {
		b, ok := tc.c.Bounds()
		if !ok {
			t.Fatalf("%s: no bounds", tc.name)
		}
		*warns = nil
		scale, offset := chooseScale(b, tc.c, 1)
		want := slices.Clone(*warns)
		if scale[0] != tc.scaleX {
			t.Errorf("%s: chooseScale's X scale %g, want %g", tc.name, scale[0], tc.scaleX)
		}
		for _, size := range []int{1, 2, 7, 64, tc.c.Len()} {
			for _, known := range []*core.Bounds{&b, nil} {
				*warns = nil
				f := NewScaleFit(known)
				passes := 0
				for more := true; more; more = f.Next() {
					passes++
					for lo := 0; lo < tc.c.Len(); lo += size {
						f.Add(coords(tc.c, lo, min(lo+size, tc.c.Len())))
					}
				}
				s, o := f.Scale()
				if s != scale || o != offset {
					t.Errorf("%s, chunks of %d, bounds given %v: scale %v offset %v, chooseScale %v %v", tc.name, size, known != nil, s, o, scale, offset)
				}
				if !slices.Equal(*warns, want) {
					t.Errorf("%s, chunks of %d: warnings %q, chooseScale's %q", tc.name, size, *warns, want)
				}
				// The bounds pass, then one pass when the whole cloud is one
				// chunk (chooseScale's case); smaller chunks may pass a
				// candidate that a later one fails, and take more.
				first := 1
				if known == nil {
					first++
				}
				switch {
				case size == tc.c.Len() && passes != first:
					t.Errorf("%s, one chunk, bounds given %v: %d passes, want %d", tc.name, known != nil, passes, first)
				case tc.name == "grid broken late" && size < tc.c.Len() && passes < first+1:
					t.Errorf("%s, chunks of %d: %d passes, want more than %d (0.001 was skipped while 0.01 held)", tc.name, size, passes, first)
				}
			}
		}
	}
}

// coords returns points lo to hi-1 of c's coordinates.
func coords(c *core.Cloud, lo, hi int) *core.Cloud {
	return &core.Cloud{X: c.X[lo:hi], Y: c.Y[lo:hi], Z: c.Z[lo:hi]}
}

// TestScaleFitEmpty: no points, or none finite, get the scale of an empty
// file, as Encode writes one.
func TestScaleFitEmpty(t *testing.T) {
	for _, c := range []*core.Cloud{core.New(0), {X: []float64{math.NaN()}, Y: []float64{1}, Z: []float64{2}}} {
		f := NewScaleFit(nil)
		for more := true; more; more = f.Next() {
			f.Add(c)
		}
		if s, o := f.Scale(); s != noPointsScale || o != ([3]float64{}) {
			t.Errorf("%d points: scale %v offset %v, want %v and 0", c.Len(), s, o, noPointsScale)
		}
	}
}

// TestSetScale streams clouds from another format to LAS and LAZ in
// chunks with the scale of a ScaleFit (SetScale) and holds the file to
// Encode's and EncodeLAZ's bytes; SetScale after a point is refused.
func TestSetScale(t *testing.T) {
	captureWarnings(t)
	dir := t.TempDir()
	for _, tc := range scaleClouds() {
		if tc.name == "NaN and Inf" {
			continue // Encode refuses them
		}
		c := tc.c
		for _, z := range []bool{false, true} {
			var whole bytes.Buffer
			if err := encodeZ(&whole, c, "", z, nil); err != nil {
				t.Fatal(err)
			}
			f := NewScaleFit(nil)
			for more := true; more; more = f.Next() {
				f.Add(c)
			}
			scale, offset := f.Scale()
			path := filepath.Join(dir, "s.las")
			w, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			e, err := newStreamEncoder(w, &pcio.Header{Count: int64(c.Len())}, "", z, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := e.SetScale(scale, offset); err != nil {
				t.Fatal(err)
			}
			for lo := 0; lo < c.Len(); lo += 37 {
				if err := e.Write(coords(c, lo, min(lo+37, c.Len()))); err != nil {
					t.Fatal(err)
				}
				if err := e.SetScale(scale, offset); err == nil {
					t.Fatalf("%s: SetScale after a point: no error", tc.name)
				}
			}
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			w.Close()
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if i := firstDiff(got, whole.Bytes()); i >= 0 {
				t.Errorf("%s, LAZ %v: the streamed file differs from Encode's at byte %d", tc.name, z, i)
			}
		}
	}
	// A stream that cannot seek has its header out already.
	src := &Info{Header: Header{VersionMajor: 1, VersionMinor: 2, Scale: [3]float64{0.01, 0.01, 0.01}}}
	h := &pcio.Header{Count: 1, Meta: core.Metadata{Extra: map[string]any{MetaKey: src}}}
	e, err := NewEncoder(struct{ io.Writer }{&bytes.Buffer{}}, h, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.SetScale([3]float64{1, 1, 1}, [3]float64{}); err == nil {
		t.Error("SetScale on a pipe: no error")
	}
}
