package core

import (
	"math"
	"strings"
	"testing"
)

func TestTypeSizeAndParse(t *testing.T) {
	tests := []struct {
		typ  Type
		size int
		name string
	}{
		{Int8, 1, "int8"}, {Uint8, 1, "uint8"}, {Int16, 2, "int16"}, {Uint16, 2, "uint16"},
		{Int32, 4, "int32"}, {Uint32, 4, "uint32"}, {Int64, 8, "int64"}, {Uint64, 8, "uint64"},
		{Float32, 4, "float32"}, {Float64, 8, "float64"},
	}
	for _, tt := range tests {
		if got := tt.typ.Size(); got != tt.size {
			t.Errorf("%v.Size() = %d, want %d", tt.typ, got, tt.size)
		}
		if got := tt.typ.String(); got != tt.name {
			t.Errorf("String() = %q, want %q", got, tt.name)
		}
		got, err := ParseType(tt.name)
		if err != nil || got != tt.typ {
			t.Errorf("ParseType(%q) = %v, %v; want %v", tt.name, got, err, tt.typ)
		}
		a := NewAttribute("a", tt.typ, 3)
		if a.Len() != 3 {
			t.Errorf("NewAttribute(%v, 3).Len() = %d", tt.typ, a.Len())
		}
	}
	if _, err := ParseType("float16"); err == nil {
		t.Error("ParseType(float16) succeeded, want error")
	}
	if Type(99).Valid() || Invalid.Valid() {
		t.Error("Valid() true for an invalid type")
	}
}

func TestAttributeRawBitsRoundTrip(t *testing.T) {
	// Uint64/SetUint64, Clone and Select must copy every type losslessly,
	// NaN payloads included.
	nan := math.Float32frombits(0x7fc00123)
	vals := map[Type]uint64{
		Int8: uint64(0xff) | 0xffffffffffffff00, Uint8: 200, Int16: 0xffffffffffff8000, Uint16: 65535,
		Int32: 0xffffffff80000000, Uint32: 4294967295, Int64: 1 << 63, Uint64: math.MaxUint64,
		Float32: uint64(math.Float32bits(nan)), Float64: math.Float64bits(-0.0),
	}
	for typ, v := range vals {
		a := NewAttribute("a", typ, 3)
		a.SetUint64(0, v)
		if got := a.Uint64(0); got != v {
			t.Errorf("%v: Uint64 after SetUint64(%#x) = %#x", typ, v, got)
		}
		c := a.Clone()
		if got := c.Uint64(0); got != v || c.Len() != 3 || c.Type != typ || c.Name != "a" {
			t.Errorf("%v: Clone lost bits: %#x (%d values), want %#x", typ, got, c.Len(), v)
		}
		if c.SetUint64(0, 0); a.Uint64(0) != v {
			t.Errorf("%v: Clone shares the original's values", typ)
		}
		s := a.Select([]int{1, 0, 0})
		if s.Len() != 3 || s.Type != typ || s.Uint64(0) != 0 || s.Uint64(1) != v || s.Uint64(2) != v {
			t.Errorf("%v: Select([1 0 0]) = %v, want [0 %#x %#x]", typ, s.Data, v, v)
		}
	}
}

// TestAttributeFloat64s checks that Float64s converts a run of values of
// every type as Float64 converts each.
func TestAttributeFloat64s(t *testing.T) {
	for typ := range columnOps {
		if columnOps[typ].make == nil {
			continue
		}
		a := NewAttribute("a", Type(typ), 6)
		for i := range 6 {
			a.SetUint64(i, uint64(0xfedcba9876543210)>>(8*i))
		}
		got := make([]float64, 4)
		a.Float64s(1, got)
		for j, v := range got {
			if want := a.Float64(1 + j); math.Float64bits(v) != math.Float64bits(want) {
				t.Errorf("%v: Float64s value %d = %v, Float64 %v", Type(typ), 1+j, v, want)
			}
		}
	}
}

func TestAttributeRangeIgnoresNaN(t *testing.T) {
	a := NewAttribute("v", Float64, 4)
	for i, v := range []float64{math.NaN(), 3, -2, math.NaN()} {
		a.SetFloat64(i, v)
	}
	lo, hi, ok := a.Range()
	if !ok || lo != -2 || hi != 3 {
		t.Errorf("Range() = %v, %v, %v; want -2, 3, true", lo, hi, ok)
	}
	if _, _, ok := NewAttribute("e", Uint8, 0).Range(); ok {
		t.Error("Range() of an empty column reported ok")
	}
}

func TestCloudAttrsSelectAppend(t *testing.T) {
	c := New(3)
	for i := range 3 {
		c.X[i], c.Y[i], c.Z[i] = float64(i), float64(10*i), float64(100*i)
	}
	in, err := c.AddAttr(DimIntensity, Uint16)
	if err != nil {
		t.Fatal(err)
	}
	in.SetFloat64(2, 7)
	if _, err := c.AddAttr(DimIntensity, Float32); err == nil {
		t.Error("AddAttr with a conflicting type succeeded")
	}
	s := c.Select([]int{2, 0})
	if s.Len() != 2 || s.X[0] != 2 || s.Z[1] != 0 || s.Attr(DimIntensity).Float64(0) != 7 {
		t.Errorf("Select([2 0]) = X %v Z %v Intensity %v", s.X, s.Z, s.Attr(DimIntensity).Data)
	}
	if err := c.Append(s); err != nil {
		t.Fatal(err)
	}
	if c.Len() != 5 || c.Attr(DimIntensity).Len() != 5 || c.Attr(DimIntensity).Float64(3) != 7 {
		t.Errorf("Append: len %d, intensity %v", c.Len(), c.Attr(DimIntensity).Data)
	}
	if err := c.Validate(); err != nil {
		t.Errorf("Validate() = %v", err)
	}
	c.RemoveAttr(DimIntensity)
	if c.Attr(DimIntensity) != nil || len(c.Attrs) != 0 {
		t.Error("RemoveAttr left the column")
	}
}

// TestAppendAmortized appends a cloud a point at a time: its columns must
// grow geometrically, as append's do, not by the point (a copy a point).
func TestAppendAmortized(t *testing.T) {
	c := New(0)
	if _, err := c.AddAttr(DimIntensity, Uint16); err != nil {
		t.Fatal(err)
	}
	one := New(1)
	if _, err := one.AddAttr(DimIntensity, Uint16); err != nil {
		t.Fatal(err)
	}
	moves := 0
	for i := range 4096 {
		before := cap(c.X)
		one.X[0] = float64(i)
		if err := c.Append(one); err != nil {
			t.Fatal(err)
		}
		if cap(c.X) != before {
			moves++
		}
	}
	if c.Len() != 4096 || c.X[4095] != 4095 || c.Attr(DimIntensity).Len() != 4096 {
		t.Fatalf("after 4096 appends: %d points, last X %g", c.Len(), c.X[c.Len()-1])
	}
	if moves > 40 {
		t.Errorf("4096 appends of one point reallocated the columns %d times, want at most 40", moves)
	}
}

// TestCloudSlice checks that a Slice is a view of its run: values and
// metadata as in the cloud, a change through either seen by the other, its
// own column list, and no room to append over the points after it.
func TestCloudSlice(t *testing.T) {
	c := New(5)
	c.Meta.Comments = []string{"m"}
	in, _ := c.AddAttr(DimIntensity, Uint16)
	for i := range 5 {
		c.X[i], c.Y[i], c.Z[i] = float64(i), float64(10*i), float64(100*i)
		in.SetFloat64(i, float64(1000+i))
	}
	s := c.Slice(1, 3)
	if s.Len() != 2 || s.X[0] != 1 || s.Y[1] != 20 || s.Z[1] != 200 || s.Attr(DimIntensity).Float64(1) != 1002 || s.Meta.Comments[0] != "m" {
		t.Fatalf("Slice(1, 3) = X %v Y %v Z %v Intensity %v", s.X, s.Y, s.Z, s.Attr(DimIntensity).Data)
	}
	if err := s.Validate(); err != nil {
		t.Errorf("Slice(1, 3).Validate() = %v", err)
	}
	s.Z[0] = -1
	s.Attr(DimIntensity).SetFloat64(0, 7)
	if c.Z[1] != -1 || in.Float64(1) != 7 {
		t.Errorf("a change through the slice did not reach the cloud: Z %v Intensity %v", c.Z, in.Data)
	}
	if err := s.Append(c.Slice(0, 1)); err != nil {
		t.Fatal(err)
	}
	if c.X[3] != 3 || in.Float64(3) != 1003 {
		t.Errorf("Append to the slice overwrote the point after it: X %v Intensity %v", c.X, in.Data)
	}
	if _, err := s.AddAttr("Other", Uint8); err != nil || c.Attr("Other") != nil {
		t.Errorf("AddAttr on the slice: %v; the cloud has it: %v", err, c.Attr("Other") != nil)
	}
}

func TestValidateRejectsNaN(t *testing.T) {
	c := New(2)
	c.Y[1] = math.NaN()
	if err := c.Validate(); err == nil {
		t.Error("Validate() accepted a NaN coordinate")
	}
	c.Y[1] = 0
	c.Attrs = append(c.Attrs, NewAttribute("short", Uint8, 1))
	if err := c.Validate(); err == nil {
		t.Error("Validate() accepted a short column")
	}
}

func TestLocalKeepsMillimetresAtUTMScale(t *testing.T) {
	// UTM eastings/northings: float32 alone has a resolution of 0.5 m at
	// 5e6; relative to the centre the error must stay well under 1 mm.
	c := New(3)
	xs := []float64{500000.0012, 500100.0034, 500050.5}
	ys := []float64{5000000.0021, 5000200.9999, 5000100.25}
	for i := range xs {
		c.X[i], c.Y[i], c.Z[i] = xs[i], ys[i], 250.125+float64(i)
	}
	l := c.Local(false)
	if l.Len() != 3 {
		t.Fatalf("Local().Len() = %d, want 3", l.Len())
	}
	for i := range xs {
		gx := float64(l.XYZ[3*i]) + l.Origin[0]
		gy := float64(l.XYZ[3*i+1]) + l.Origin[1]
		if math.Abs(gx-xs[i]) > 1e-4 || math.Abs(gy-ys[i]) > 1e-4 {
			t.Errorf("point %d: local round trip (%.6f, %.6f), want (%.6f, %.6f)", i, gx, gy, xs[i], ys[i])
		}
	}
	flat := c.Local(true)
	for i := range xs {
		if flat.XYZ[3*i+2] != 0 {
			t.Errorf("Local(true) point %d has z = %g, want 0", i, flat.XYZ[3*i+2])
		}
	}
}

func TestLookupDimension(t *testing.T) {
	d, ok := LookupDimension(DimClusterID)
	if !ok || d.Type != Int64 {
		t.Errorf("LookupDimension(ClusterID) = %+v, %v; want Int64", d, ok)
	}
	if _, ok := LookupDimension("intensity"); ok {
		t.Error("LookupDimension is case-insensitive; PDAL names are case-sensitive")
	}
}

func TestNewColumnTypes(t *testing.T) {
	tests := []struct {
		col  *Attribute
		want Type
	}{
		{NewColumn("a", []int8{-1}), Int8},
		{NewColumn("a", []uint8{1}), Uint8},
		{NewColumn("a", []int16{-1}), Int16},
		{NewColumn("a", []uint16{1}), Uint16},
		{NewColumn("a", []int32{-1}), Int32},
		{NewColumn("a", []uint32{1}), Uint32},
		{NewColumn("a", []int64{-1}), Int64},
		{NewColumn("a", []uint64{1}), Uint64},
		{NewColumn("a", []float32{-1.5}), Float32},
		{NewColumn("a", []float64{-1.5}), Float64},
	}
	for _, tt := range tests {
		if tt.col.Type != tt.want || tt.col.Check() != nil || tt.col.Len() != 1 {
			t.Errorf("NewColumn(%T): type %v, check %v, len %d; want %v, nil, 1", tt.col.Data, tt.col.Type, tt.col.Check(), tt.col.Len(), tt.want)
		}
		// Raw bits survive a copy through Uint64/SetUint64 for every type.
		b := NewAttribute("b", tt.want, 1)
		b.SetUint64(0, tt.col.Uint64(0))
		if b.Float64(0) != tt.col.Float64(0) || b.Int64(0) != tt.col.Int64(0) {
			t.Errorf("%v: copy through Uint64 gives %v, want %v", tt.want, b.Float64(0), tt.col.Float64(0))
		}
	}
}

func TestMismatchedColumnRejected(t *testing.T) {
	c := New(2)
	bad := &Attribute{Name: "NormalX", Type: Float32, Data: []float64{1, 2}}
	if err := c.SetAttr(bad); err == nil || !strings.Contains(err.Error(), "float32 but holds []float64") {
		t.Errorf("SetAttr(Float32 holding []float64) = %v, want a type mismatch error", err)
	}
	c.Attrs = append(c.Attrs, bad)
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "NormalX") {
		t.Errorf("Validate with a Float32 column holding []float64 = %v, want an error naming it", err)
	}
	if err := c.SetAttr(NewColumn("NormalX", []float32{1, 2})); err != nil {
		t.Errorf("SetAttr(NewColumn) = %v", err)
	}
}

// TestXYZHashChunks holds XYZHash, fed in uneven chunks, to HashXYZ.
func TestXYZHashChunks(t *testing.T) {
	for _, n := range []int{0, 1, 65535, 65536, 65537, 200001} {
		x, y, z := make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range n {
			x[i], y[i], z[i] = float64(i)*0.5, float64(n-i), float64(i%7)
		}
		var h XYZHash
		for lo := 0; lo < n; lo += 40000 {
			hi := min(n, lo+40000)
			h.Add(x[lo:hi], y[lo:hi], z[lo:hi])
		}
		if got, want := h.Sum64(), HashXYZ(x, y, z); got != want {
			t.Errorf("%d points: XYZHash %x, HashXYZ %x", n, got, want)
		}
	}
}

// TestAppendAll checks that AppendAll (and so Append) gives the sources'
// values one after another (coordinates and columns of several types, an empty source
// among them, onto a cloud with points and with room grown or not), and
// that a source with other attributes appends nothing.
func TestAppendAll(t *testing.T) {
	mk := func(n, seed int) *Cloud {
		c := New(n)
		in, _ := c.AddAttr(DimIntensity, Uint16)
		g, _ := c.AddAttr(DimGpsTime, Float64)
		for i := range n {
			v := float64(seed*1000 + i)
			c.X[i], c.Y[i], c.Z[i] = v, -v, v/2
			in.SetFloat64(i, float64((seed*7+i)%65536))
			g.SetFloat64(i, v*1e-3)
		}
		return c
	}
	srcs := []*Cloud{mk(5, 1), mk(0, 2), mk(70_000, 3), mk(1, 4)}
	for _, grow := range []int{0, 80_000} {
		want, got := mk(3, 9), mk(3, 9)
		got.Grow(grow)
		// What Append in turn gives, by plain appends.
		for _, s := range srcs {
			want.X, want.Y, want.Z = append(want.X, s.X...), append(want.Y, s.Y...), append(want.Z, s.Z...)
			want.Attrs[0].Data = append(want.Attrs[0].Data.([]uint16), s.Attrs[0].Data.([]uint16)...)
			want.Attrs[1].Data = append(want.Attrs[1].Data.([]float64), s.Attrs[1].Data.([]float64)...)
		}
		if err := got.AppendAll(srcs); err != nil {
			t.Fatal(err)
		}
		if got.Len() != want.Len() || got.Validate() != nil {
			t.Fatalf("grow %d: %d points, want %d (%v)", grow, got.Len(), want.Len(), got.Validate())
		}
		for i := range want.Len() {
			if got.X[i] != want.X[i] || got.Y[i] != want.Y[i] || got.Z[i] != want.Z[i] {
				t.Fatalf("grow %d: point %d at (%g, %g, %g), want (%g, %g, %g)", grow, i, got.X[i], got.Y[i], got.Z[i], want.X[i], want.Y[i], want.Z[i])
			}
			for a := range want.Attrs {
				if g, w := got.Attrs[a].Float64(i), want.Attrs[a].Float64(i); g != w {
					t.Fatalf("grow %d: point %d %s = %g, want %g", grow, i, want.Attrs[a].Name, g, w)
				}
			}
		}
	}
	c := mk(2, 1)
	other := New(1)
	if err := c.AppendAll([]*Cloud{mk(3, 2), other}); err == nil || c.Len() != 2 || c.Attrs[0].Len() != 2 {
		t.Errorf("a source without the columns: err %v, %d points, %d values: want an error and nothing appended", err, c.Len(), c.Attrs[0].Len())
	}
}
