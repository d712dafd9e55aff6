package las

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/pcio"
)

// TestParseAxes checks --las-scale and --las-offset values.
func TestParseAxes(t *testing.T) {
	v := func(x float64) Axis { return Axis{Set: true, Value: x} }
	auto := Axis{Set: true, Auto: true}
	for _, c := range []struct {
		s     string
		scale bool
		want  [3]Axis
		err   string
	}{
		{"", true, [3]Axis{}, ""},
		{"0.01", true, [3]Axis{v(0.01), v(0.01), v(0.01)}, ""},
		{"auto", false, [3]Axis{auto, auto, auto}, ""},
		{"0.01,0.01,0.001", true, [3]Axis{v(0.01), v(0.01), v(0.001)}, ""},
		{" AUTO , ,100", false, [3]Axis{auto, {}, v(100)}, ""},
		{"0", false, [3]Axis{v(0), v(0), v(0)}, ""},
		{"0", true, [3]Axis{}, "a scale of 0 is invalid"},
		{"1,2", true, [3]Axis{}, "want one value or three"},
		{"1,x,2", false, [3]Axis{}, `"x" is neither a finite number nor auto`},
		{"NaN", false, [3]Axis{}, "neither a finite number"},
	} {
		got, err := ParseAxes(c.s, c.scale)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("ParseAxes(%q): error %v, want %q", c.s, err, c.err)
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("ParseAxes(%q) = %v, %v; want %v", c.s, got, err, c.want)
		}
	}
}

// TestParseExtraDims checks PDAL's extra_dims syntax.
func TestParseExtraDims(t *testing.T) {
	for _, c := range []struct {
		spec []string
		want string // dims and all, or the error
	}{
		{[]string{"all"}, "[] true"},
		{[]string{"ClusterID=int32", " Curvature = float ", "N=UINT8_T", "D=double"}, "[{ClusterID int32} {Curvature float32} {N uint8} {D float64}] false"},
		{[]string{"a=long", "b=ushort", "c=char"}, "[{a int64} {b uint16} {c int8}] false"},
		{[]string{"all", "a=int"}, `"all" stands alone`},
		{[]string{"a"}, `extra dimension "a": want Name=type`},
		{[]string{"a=int128"}, `unknown type "int128"`},
		{[]string{"a=int", "a=int"}, "a given twice"},
		{[]string{""}, "want Name=type"},
	} {
		dims, all, err := ParseExtraDims(c.spec)
		got := fmt.Sprint(dims, " ", all)
		if dims == nil {
			got = fmt.Sprint("[] ", all)
		}
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("ParseExtraDims(%q) = %s, want %s", c.spec, got, c.want)
		}
	}
}

// encodeWith writes c with o and variant and reads it back.
func encodeWith(t *testing.T, c *core.Cloud, variant string, o *WriteOptions) (*Header, *core.Cloud, error) {
	t.Helper()
	var buf bytes.Buffer
	if err := o.Encode(&buf, c, variant); err != nil {
		return nil, nil, err
	}
	back, err := Decode(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	return &InfoOf(&back.Meta).Header, back, nil
}

// TestWriteOptions writes a LAS 1.2 point format 3 cloud with an extra column
// under each option, and checks the header and the points read back.
func TestWriteOptions(t *testing.T) {
	_, src := encode(t, randomCloud(t, 3, 300, true, append(formatColumns(3), core.DimClusterID)), "1.2")
	b, _ := src.Bounds()
	pf := func(n int) *int { return &n }
	v := func(x float64) Axis { return Axis{Set: true, Value: x} }
	auto := Axis{Set: true, Auto: true}
	midX := 0.5*b.Min[0] + 0.5*b.Max[0]
	for _, c := range []struct {
		name    string
		variant string
		o       WriteOptions
		version string
		pf      int
		scale   [3]float64 // 0: not checked
		offset  [3]float64 // checked with scale
		cols    []string   // columns read back besides the format's
		warn    string
		err     string
	}{
		{name: "scale and offset", o: WriteOptions{Scale: [3]Axis{v(0.001), v(0.001), v(0.01)}, Offset: [3]Axis{v(500000), v(4100000), v(0)}},
			version: "1.2", pf: 3, scale: [3]float64{0.001, 0.001, 0.01}, offset: [3]float64{500000, 4100000, 0}, cols: []string{core.DimClusterID}},
		{name: "one axis", o: WriteOptions{Scale: [3]Axis{{}, {}, v(0.1)}},
			version: "1.2", pf: 3, cols: []string{core.DimClusterID}},
		{name: "auto", o: WriteOptions{Scale: [3]Axis{auto, v(0.001), v(0.001)}, Offset: [3]Axis{auto, v(4e6), v(0)}},
			version: "1.2", pf: 3, scale: [3]float64{max(b.Max[0]-midX, midX-b.Min[0]) / math.MaxInt32, 0.001, 0.001}, offset: [3]float64{midX, 4e6, 0}, cols: []string{core.DimClusterID}},
		{name: "format 1 drops colour", o: WriteOptions{PointFormat: pf(1)}, version: "1.2", pf: 1, cols: []string{core.DimClusterID},
			warn: "point format 1 with the extra dimensions asked for leaves out Red, Green, Blue"},
		{name: "format 1 in 1.2", variant: "1.2", o: WriteOptions{PointFormat: pf(1)}, version: "1.2", pf: 1, cols: []string{core.DimClusterID}, warn: "leaves out Red"},
		{name: "format 8", o: WriteOptions{PointFormat: pf(8)}, version: "1.4", pf: 8, cols: []string{core.DimClusterID}},
		{name: "format 0 all extra", o: WriteOptions{PointFormat: pf(0), AllExtra: true}, version: "1.4", pf: 0,
			cols: []string{core.DimClusterID, core.DimGpsTime, core.DimRed, core.DimGreen, core.DimBlue}},
		{name: "extra dims typed", o: WriteOptions{PointFormat: pf(2), ExtraDims: []ExtraDim{{core.DimClusterID, core.Int16}, {core.DimGpsTime, core.Float64}}},
			version: "1.4", pf: 2, cols: []string{core.DimClusterID, core.DimGpsTime}},
		{name: "no extra dims", o: WriteOptions{ExtraDims: []ExtraDim{}}, version: "1.2", pf: 3, warn: "leaves out ClusterID"},
		{name: "version 1.0", o: WriteOptions{Version: "1.0", PointFormat: pf(1), ExtraDims: []ExtraDim{}}, version: "1.0", pf: 1, warn: "leaves out Red, Green, Blue, ClusterID"},
		{name: "version 1.1 without format", o: WriteOptions{Version: "1.1"}, err: "LAS 1.1 holds point formats 0 and 1; Red, Green, Blue need point format 3 (LAS 1.2)"},
		{name: "format 6 in 1.2", o: WriteOptions{Version: "1.2", PointFormat: pf(6)}, err: "point format 6 needs LAS 1.4 or later, not 1.2"},
		{name: "format 4 raises the version", o: WriteOptions{PointFormat: pf(4), ExtraDims: []ExtraDim{}}, version: "1.3", pf: 4, warn: "leaves out Red, Green, Blue, ClusterID"},
		{name: "no such extra dim", o: WriteOptions{ExtraDims: []ExtraDim{{"Nope", core.Int8}}}, err: "extra dimension Nope: the cloud has no such column"},
		{name: "int32 overflow", o: WriteOptions{Scale: [3]Axis{v(1e-6), {}, {}}, Offset: [3]Axis{v(0), {}, {}}}, err: "las: point 0: X = "},
		{name: "extra dim out of its type", o: WriteOptions{ExtraDims: []ExtraDim{{core.DimGpsTime, core.Uint8}}}, err: "GpsTime"},
	} {
		t.Run(c.name, func(t *testing.T) {
			warned := captureWarnings(t)
			h, back, err := encodeWith(t, src, c.variant, &c.o)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if h.Version() != c.version || h.pointFormat() != c.pf {
				t.Errorf("LAS %s format %d, want %s format %d", h.Version(), h.pointFormat(), c.version, c.pf)
			}
			if c.scale != [3]float64{} && (h.Scale != c.scale || h.Offset != c.offset) {
				t.Errorf("scale %v offset %v, want %v %v", h.Scale, h.Offset, c.scale, c.offset)
			}
			want := append(formatColumns(c.pf), c.cols...)
			if got := names(back); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("columns %v, want %v", got, want)
			}
			for i := range src.Len() {
				for k, vs := range [3][]float64{src.X, src.Y, src.Z} {
					got := [3][]float64{back.X, back.Y, back.Z}[k][i]
					if math.Abs(got-vs[i]) > h.Scale[k]/2*(1+1e-9) {
						t.Fatalf("point %d %c: %v, want %v within half of %v", i, "XYZ"[k], got, vs[i], h.Scale[k])
					}
				}
				for _, n := range want {
					if src.Attr(n) == nil { // a field the source format lacks: zero
						if g := back.Attr(n).Float64(i); g != 0 {
							t.Fatalf("point %d %s = %v, want 0", i, n, g)
						}
						continue
					}
					if g, w := back.Attr(n).Float64(i), src.Attr(n).Float64(i); g != w && n != core.DimScanAngleRank {
						t.Fatalf("point %d %s = %v, want %v", i, n, g, w)
					}
				}
			}
			if msgs := strings.Join(*warned, "\n"); (c.warn == "") != (msgs == "") || !strings.Contains(msgs, c.warn) {
				t.Errorf("warnings %q, want %q", msgs, c.warn)
			}
		})
	}
}

// TestWriteOptionsStream checks that a streaming encoder takes the numeric
// options over its LAS source's scale and offset, axis by axis, and
// refuses "auto" (WithOptions then offers no streaming encoder).
func TestWriteOptionsStream(t *testing.T) {
	src := randomCloud(t, 5, 200, true, formatColumns(1))
	captureWarnings(t)
	o := &WriteOptions{Scale: [3]Axis{{Set: true, Value: 0.01}, {}, {}}, Offset: [3]Axis{{}, {}, {Set: true, Value: -5}}, PointFormat: new(int)}
	var whole bytes.Buffer
	if err := o.Encode(&whole, src, ""); err != nil {
		t.Fatal(err)
	}
	var first bytes.Buffer
	if err := Encode(&first, src, ""); err != nil {
		t.Fatal(err)
	}
	c, err := Decode(bytes.NewReader(first.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	// A LAS source streams with its own scale, but where o sets one.
	var stream memWriter
	h := &pcio.Header{Count: int64(c.Len()), Schema: c.Attrs, Meta: c.Meta}
	e, err := o.NewEncoder(&stream, h, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Write(c); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	back, err := Decode(bytes.NewReader(stream.b))
	if err != nil {
		t.Fatal(err)
	}
	bh := InfoOf(&back.Meta).Header
	if bh.Scale[0] != 0.01 || bh.Offset[2] != -5 || bh.pointFormat() != 0 || bh.Scale[1] != InfoOf(&c.Meta).Header.Scale[1] {
		t.Errorf("stream: scale %v offset %v format %d", bh.Scale, bh.Offset, bh.pointFormat())
	}
	o.Offset[0] = Axis{Set: true, Auto: true}
	if _, err := o.NewEncoder(&stream, h, ""); err == nil || !strings.Contains(err.Error(), `"auto" needs the bounds`) {
		t.Errorf("auto in a stream: %v", err)
	}
	las, _, err := pcio.Lookup("las")
	if err != nil {
		t.Fatal(err)
	}
	if f := WithOptions(las, o); f.NewEncoder != nil || f.Encode == nil {
		t.Errorf("WithOptions with auto: a streaming encoder")
	}
}
