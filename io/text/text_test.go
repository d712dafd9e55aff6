package text

import (
	"bytes"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/internal/codectest"
	"github.com/pctk/pctk/io/pcio"
)

// point is one expected point: coordinates, then attribute values in
// schema order.
type point []float64

func checkCloud(t *testing.T, name string, c *core.Cloud, attrs []string, want []point) {
	t.Helper()
	if got := codectest.AttrNames(c); strings.Join(got, " ") != strings.Join(attrs, " ") {
		t.Fatalf("%s: attributes %v, want %v", name, got, attrs)
	}
	if c.Len() != len(want) {
		t.Fatalf("%s: %d points, want %d", name, c.Len(), len(want))
	}
	for i, p := range want {
		got := point{c.X[i], c.Y[i], c.Z[i]}
		for _, a := range c.Attrs {
			got = append(got, a.Float64(i))
		}
		for k := range p {
			if math.Float64bits(got[k]) != math.Float64bits(p[k]) {
				t.Fatalf("%s: point %d = %v, want %v", name, i, got, p)
			}
		}
	}
}

func TestDecode(t *testing.T) {
	for _, c := range []struct {
		name, in string
		o        Options
		attrs    []string
		want     []point
	}{
		{"xyz spaces", "1 2 3\n4\t5   6\r\n", Options{}, nil, []point{{1, 2, 3}, {4, 5, 6}}},
		{"csv header", "X,Y,Z,Intensity\n1.5, 2.5 ,3.5,7\n", Options{}, []string{"Intensity:float64"}, []point{{1.5, 2.5, 3.5, 7}}},
		{"byte order mark", "\ufeffX,Y,Z\r\n1,2,3\r\n", Options{}, nil, []point{{1, 2, 3}}},
		{"byte order mark, no header", "\ufeff1,2,3\r\n", Options{}, nil, []point{{1, 2, 3}}},
		{"semicolon", "x;y;z;classification\n1;2;3;2\n", Options{}, []string{"Classification:float64"}, []point{{1, 2, 3, 2}}},
		{"cloudcompare", "//X,Y,Z,R,G,B,intensity,Nx,Ny,Nz\n1\n1.5,2,3,255,0,10,0.5,0,0,1\n", Options{},
			[]string{"Red:float64", "Green:float64", "Blue:float64", "Intensity:float64", "NormalX:float64", "NormalY:float64", "NormalZ:float64"},
			[]point{{1.5, 2, 3, 255, 0, 10, 0.5, 0, 0, 1}}},
		{"pts", "2\n1 2 3 -5 10 20 30\n4 5 6 7 40 50 60\n", Options{},
			[]string{"Intensity:float64", "Red:float64", "Green:float64", "Blue:float64"}, []point{{1, 2, 3, -5, 10, 20, 30}, {4, 5, 6, 7, 40, 50, 60}}},
		{"numpy header", "# x y z nx\n1.000000000000000000e+00 2.0e+00 3e0 -0\n", Options{}, []string{"NormalX:float64"}, []point{{1, 2, 3, math.Copysign(0, -1)}}},
		{"pdal quoted", "\"X\",\"Y\",\"Z\",\"GpsTime\"\n1,2,3,4.25\n", Options{}, []string{"GpsTime:float64"}, []point{{1, 2, 3, 4.25}}},
		{"comments blank lines", "# scan 1\n\nX Y Z\n# mid\n1 2 3\n\n  \n# end", Options{}, nil, []point{{1, 2, 3}}},
		{"columns", "1 2 3 200\n", Options{Columns: []string{"z", "x", "y", "red:uint8"}}, []string{"Red:uint8"}, []point{{2, 3, 1, 200}}},
		{"columns replace header", "a b c\n1 2 3\n", Options{Columns: []string{"x", "y", "z"}}, nil, []point{{1, 2, 3}}},
		{"six columns", "1 2 3 4 5 6\n", Options{}, []string{"Column4:float64", "Column5:float64", "Column6:float64"}, []point{{1, 2, 3, 4, 5, 6}}},
		{"no newline", "1 2 3", Options{}, nil, []point{{1, 2, 3}}},
		{"empty with header", "X Y Z\n", Options{}, nil, nil},
		{"nan inf", "nan -Inf +inf\n", Options{}, nil, []point{{math.NaN(), math.Inf(-1), math.Inf(1)}}},
	} {
		got, err := DecodeOptions(strings.NewReader(c.in), c.o)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if c.name == "nan inf" {
			if !math.IsNaN(got.X[0]) || got.Y[0] != math.Inf(-1) || got.Z[0] != math.Inf(1) {
				t.Fatalf("%s: got %v %v %v", c.name, got.X, got.Y, got.Z)
			}
			continue
		}
		checkCloud(t, c.name, got, c.attrs, c.want)
	}
}

func TestComments(t *testing.T) {
	c, err := Decode(strings.NewReader("# made by hand\n# pctk-crs epsg 2056\nX Y Z\n1 2 3\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Meta.Comments) != 1 || c.Meta.Comments[0] != "made by hand" || c.Meta.CRS.EPSG != 2056 {
		t.Errorf("comments %q, CRS %+v; want [made by hand], EPSG 2056", c.Meta.Comments, c.Meta.CRS)
	}
}

var codecUnderTest = codectest.Codec{Decode: Decode, Encode: func(w io.Writer, c *core.Cloud, _ string) error { return Encode(w, c) }}

func TestBadInput(t *testing.T) {
	codecUnderTest.RunBad(t, "text: ", []codectest.BadCase{
		{Name: "bad value", In: "X Y Z\n1 2 3\n4 five 6\n", Want: `line 3, column 2: Y: bad float64 value "five"`},
		{Name: "overflow", In: "1 2 3\n1 2 1e400\n", Want: `line 2, column 3: Z: out of range float64 value "1e400"`},
		{Name: "short line", In: "1 2 3\n1 2\n4 5 6\n", Want: "line 2, column 3: 2 values, want 3"},
		{Name: "long line", In: "1,2,3\n1,2,3,4\n", Want: "line 2, column 4: 4 values, want 3"},
		{Name: "empty field", In: "1,2,3\n1,,3\n", Want: `line 2, column 2: Y: bad float64 value ""`},
		{Name: "cut short", In: "3\n1 2 3\n4 5 6\n", Want: "file cut short at byte offset 14 (line 4): header promises 3 points, 2 present", EOF: true},
		{Name: "cut mid line", In: "1 2 3\n4 5", Want: "line 2, column 3: 2 values, want 3", EOF: true},
		{Name: "more than count", In: "1\n1 2 3\n4 5 6\n", Want: "line 3: more points than the 1 announced"},
		{Name: "no x", In: "A Y Z\n1 2 3\n", Want: `line 1: no X column among ["A" "Y" "Z"]`},
		{Name: "duplicate", In: "X Y Z x\n1 2 3 4\n", Want: "line 1: duplicate column X"},
		{Name: "header count mismatch", In: "X Y Z I\n1 2 3\n", Want: "line 2: the header names 4 columns, the line has 3 values"},
		{Name: "one bad value", In: "X Y Z\nabc\n1 2 3\n", Want: `line 2: a line with one value "abc" is neither a point count nor a point`},
		{Name: "empty", In: "", Want: "line 1: the input holds no point, header line or count line (an empty file)"},
		{Name: "blanks and comments only", In: "# nothing\n\n  \n", Want: "line 4: the input holds no point"},
		{Name: "huge count", In: "99999999999\n1 2 3\n", Want: "file cut short at byte offset 18 (line 3): header promises 99999999999 points, 1 present", EOF: true},
	})
	_, err := DecodeOptions(strings.NewReader("1 2 3\n"), Options{Columns: []string{"x", "y", "z:int8"}})
	if err == nil || !strings.Contains(err.Error(), "coordinates are float64") {
		t.Errorf("typed z: error %v, want coordinates are float64", err)
	}
}

// TestSalvage reads files cut short with pcio.ReadOptions.Salvage: the
// whole points before the cut, and one warning.
func TestSalvage(t *testing.T) {
	for _, c := range []struct{ name, in, warn string }{
		{"count line", "3\n1 2 3\n4 5 6\n", "header promises 3 points, 2 present"},
		{"count line, cut line", "3\n1 2 3\n4 5 6\n7 8", "header promises 3 points, 2 present"},
		{"no count, cut line", "1 2 3\n4 5 6\n7 8", "line 3, column 3: 2 values, want 3: unexpected EOF"},
	} {
		for _, stream := range []bool{false, true} {
			var warnings []string
			o := pcio.ReadOptions{Salvage: true, Warn: func(err error) { warnings = append(warnings, err.Error()) }}
			var got *core.Cloud
			var err error
			if stream {
				var d *Decoder
				if d, err = NewDecoder(strings.NewReader(c.in), Options{}, o); err == nil {
					got, err = d.Read(100)
				}
			} else {
				got, err = Decode(strings.NewReader(c.in), o)
			}
			if err != nil || got.Len() != 2 || got.X[1] != 4 || len(warnings) != 1 || !strings.Contains(warnings[0], c.warn) {
				t.Errorf("%s (stream %v): %v, %v; warnings %q, want 2 points and one warning %q", c.name, stream, got, err, warnings, c.warn)
			}
		}
	}
}

// extremes are values a text round trip must keep bit for bit.
var extremes = []float64{0, math.Copysign(0, -1), math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64,
	2.2250738585072009e-308, math.MaxFloat64, -math.MaxFloat64, 1e22, 1e23, 0.1, 1.0 / 3, 123456789.123456789,
	math.Inf(1), math.Inf(-1), 9007199254740993}

// randomCloud has random bit patterns (NaN aside) in its coordinates and
// every attribute type.
func randomCloud(seed uint64, n int) *core.Cloud {
	rng := rand.New(rand.NewPCG(seed, seed))
	c := core.New(n)
	f := func() float64 {
		if rng.IntN(4) == 0 {
			return extremes[rng.IntN(len(extremes))]
		}
		for {
			if v := math.Float64frombits(rng.Uint64()); !math.IsNaN(v) {
				return v
			}
		}
	}
	for i := range n {
		c.X[i], c.Y[i], c.Z[i] = f(), f(), f()
	}
	for ty := core.Int8; ty <= core.Float64; ty++ {
		a, _ := c.AddAttr("a_"+ty.String(), ty)
		for i := range n {
			v := rng.Uint64()
			if ty == core.Float64 {
				v = math.Float64bits(f())
			}
			if ty == core.Float32 && math.IsNaN(float64(math.Float32frombits(uint32(v)))) {
				v = 0
			}
			a.SetUint64(i, v)
		}
	}
	c.Meta.Comments = []string{"random", " indented"}
	return c
}

// TestRoundTrip writes random clouds and reads them back: every value
// keeps its bits (as a float64 of the same value for float32 and integer
// attributes, which text does not type); and text written by pctk, read
// and written again, is the same bytes.
func TestRoundTrip(t *testing.T) {
	const seed = 9
	src := randomCloud(seed, 3000)
	var buf bytes.Buffer
	if err := Encode(&buf, src); err != nil {
		t.Fatal(err)
	}
	got, err := Decode(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if msg := codectest.Diff(asFloat64(src), got, true); msg != "" {
		t.Fatalf("seed %d: %s", seed, msg)
	}
	// Text written by pctk from text is the same bytes.
	var again, third bytes.Buffer
	if err := Encode(&again, got); err != nil {
		t.Fatal(err)
	}
	back, err := Decode(bytes.NewReader(again.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if err := Encode(&third, back); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.Bytes(), third.Bytes()) {
		t.Errorf("seed %d: text -> pctk -> text changed the bytes", seed)
	}
	// Read with the types named, every value (64-bit integers beyond 2⁵³
	// included) reads back exactly, and writes the same bytes.
	var cols []string
	for _, a := range src.Attrs {
		cols = append(cols, a.Name+":"+a.Type.String())
	}
	typed, err := DecodeOptions(bytes.NewReader(buf.Bytes()), Options{Columns: append([]string{"X", "Y", "Z"}, cols...)})
	if err != nil {
		t.Fatal(err)
	}
	var typedOut bytes.Buffer
	if err := Encode(&typedOut, typed); err != nil || !bytes.Equal(typedOut.Bytes(), buf.Bytes()) {
		t.Errorf("seed %d: typed text -> pctk -> text changed the bytes (%v)", seed, err)
	}
	for k, a := range src.Attrs {
		for i := range a.Len() {
			if typed.Attrs[k].Uint64(i) != a.Uint64(i) {
				t.Fatalf("seed %d: typed %s point %d = %#x, want %#x", seed, a.Name, i, typed.Attrs[k].Uint64(i), a.Uint64(i))
			}
		}
	}
}

// asFloat64 is c with every attribute converted to float64, as text reads it.
func asFloat64(c *core.Cloud) *core.Cloud {
	out := core.New(0)
	out.X, out.Y, out.Z, out.Meta = c.X, c.Y, c.Z, c.Meta
	for _, a := range c.Attrs {
		b := core.NewAttribute(a.Name, core.Float64, a.Len())
		for i := range a.Len() {
			b.SetFloat64(i, a.Float64(i))
		}
		out.Attrs = append(out.Attrs, b)
	}
	return out
}

func TestPrecision(t *testing.T) {
	c := core.New(2)
	c.X[0], c.Y[0], c.Z[0], c.X[1] = 1.23456789, -0.5, 1e6, math.Inf(1)
	a, _ := c.AddAttr("Classification", core.Uint8)
	a.SetUint64(1, 7)
	var buf bytes.Buffer
	if err := EncodeOptions(&buf, c, Options{Precision: 3, Delim: ','}, ' '); err != nil {
		t.Fatal(err)
	}
	if want := "X,Y,Z,Classification\n1.235,-0.500,1000000.000,0\n+Inf,0.000,0.000,7\n"; buf.String() != want {
		t.Errorf("got %q, want %q", buf.String(), want)
	}
}

// TestStreaming reads through NewDecoder (which counts the points first)
// in small chunks from a reader that cannot seek, and writes through
// NewEncoder: the bytes of Encode.
func TestStreaming(t *testing.T) {
	var first, want bytes.Buffer
	if err := Encode(&first, randomCloud(10, 2000)); err != nil {
		t.Fatal(err)
	}
	src, err := Decode(&first) // as text types it: float64
	if err != nil {
		t.Fatal(err)
	}
	if err := Encode(&want, src); err != nil {
		t.Fatal(err)
	}
	out, n, err := codectest.Stream(pcioFormat(t, "text"), want.Bytes(), 77)

	if err != nil || n != 26 {
		t.Fatalf("stream copy in %d chunks: %v; want 26 chunks of at most 77 points", n, err)
	}
	if !bytes.Equal(out, want.Bytes()) {
		t.Errorf("streaming copy differs from the file")
	}
	d, err := NewDecoder(bytes.NewReader(want.Bytes()), Options{})
	if err != nil || d.Header().Count != 2000 {
		t.Fatalf("seekable: header count %d, %v; want 2000", d.Header().Count, err)
	}
}

func pcioFormat(t testing.TB, name string) *pcio.Format {
	f, _, err := pcio.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestSniff(t *testing.T) {
	for _, c := range []struct {
		in string
		ok bool
	}{
		{"1 2 3\n", true},
		{"\ufeff1;2;3\n", true},
		{"# c\n//X,Y,Z\n5\n1,2,3\n", true},
		{"X Y Z\n1 2 3\n", true},
		{"1 2 3", false},
		{"X Y Z\nA B C\n", false},
		{"hello world\n", false},
		{"1 2\n", false},
		{"1 2 3\x00\n", false},
	} {
		if got := Sniff([]byte(c.in)); got != c.ok {
			t.Errorf("Sniff(%q) = %v, want %v", c.in, got, c.ok)
		}
	}
	f, _, err := pcio.Sniff(strings.NewReader("1 2 3\n"))
	if err != nil || f.Name != "text" {
		t.Errorf("pcio.Sniff of a text cloud: %v, %v", f, err)
	}
	if _, _, err := pcio.Sniff(strings.NewReader("hello world\n")); !errors.Is(err, pcio.ErrUnknownFormat) {
		t.Errorf("pcio.Sniff of prose: %v, want ErrUnknownFormat", err)
	}
}

// FuzzDecode decodes arbitrary input; what decodes must encode, decode
// to the same cloud, and encode to the same bytes.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{"1 2 3\n", "//X,Y,Z,R\n2\n1,2,3,4\n5,6,7,8\n", "# x y z\n1e5 -0 nan\n", "X;Y;Z\n1;2;3\r\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Decode(bytes.NewReader(data))
		if err != nil {
			return
		}
		var a bytes.Buffer
		if err := Encode(&a, c); err != nil {
			t.Fatalf("encode: %v", err)
		}
		d, err := Decode(bytes.NewReader(a.Bytes()))
		if err != nil {
			t.Fatalf("decode of %q: %v", a.Bytes(), err)
		}
		if msg := codectest.Diff(c, d, false); msg != "" {
			t.Fatalf("%s\n%q", msg, a.Bytes())
		}
		var b bytes.Buffer
		if err := Encode(&b, d); err != nil || !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatalf("second encode differs: %v\n%q\n%q", err, a.Bytes(), b.Bytes())
		}
	})
}
