package ply

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/pctk/pctk/core"
)

// sharedDirs are the folders of real PLY files, relative to this package.
var sharedDirs = []string{"../../../shared/data/ply", "../../../shared/data/pdal/ply"}

// brokenShared are the shared files that are not valid PLY, with the error
// each must give.
var brokenShared = map[string]string{
	// Zero bytes.
	"empty_invalid.ply": "ply: line 1: reading magic: unexpected EOF",
	// The header declares a vertex list the data lacks.
	"issue623.ply": `ply: line 14: bad uint8 value "7.941797"`,
	// Truncated: 70051 vertices of 31 bytes need 2171581 bytes.
	"pond.0.ply": "ply: offset 276: header promises 70051 element vertex records of at least 31 bytes each, but only 2171512 bytes follow the header",
}

func sharedFiles(t testing.TB) []string {
	var files []string
	for _, d := range sharedDirs {
		m, _ := filepath.Glob(filepath.Join(d, "*.ply"))
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Skipf("no PLY files in %v (the shared data folder is absent); skipping real-file tests", sharedDirs)
	}
	return files
}

// TestRoundTripShared reads every shared PLY file and writes it in all
// three encodings; each must read back to the same points, attributes,
// header and element data, bit for bit.
func TestRoundTripShared(t *testing.T) {
	for _, path := range sharedFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			c, err := Decode(f)
			if want, broken := brokenShared[filepath.Base(path)]; broken {
				if err == nil || err.Error() != want {
					t.Fatalf("got error %v, want %v", err, want)
				}
				t.Logf("rejected as expected: %v", err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d points, attrs %v", c.Len(), attrNames(c))
			for _, v := range []string{"ascii", "binary", "binary-be", ""} {
				var buf bytes.Buffer
				if err := Encode(&buf, c, v); err != nil {
					t.Fatalf("encode %q: %v", v, err)
				}
				d, err := Decode(bytes.NewReader(buf.Bytes()))
				if err != nil {
					t.Fatalf("decode of %q output: %v", v, err)
				}
				if msg := diffClouds(c, d, v != "ascii"); msg != "" {
					t.Fatalf("variant %q: %s", v, msg)
				}
			}
		})
	}
}

func attrNames(c *core.Cloud) []string {
	var s []string
	for _, a := range c.Attrs {
		s = append(s, a.Name+":"+a.Type.String())
	}
	return s
}

// diffClouds describes the first difference between a and b, or returns "".
// Values compare by their bits; with nanBits false, any NaN equals any NaN
// (text encodings do not carry NaN payloads).
func diffClouds(a, b *core.Cloud, nanBits bool) string {
	if a.Len() != b.Len() {
		return sprintf("got %d points, want %d", b.Len(), a.Len())
	}
	for k, pair := range [3][2][]float64{{a.X, b.X}, {a.Y, b.Y}, {a.Z, b.Z}} {
		for i := range pair[0] {
			if !sameFloat(pair[0][i], pair[1][i], nanBits) {
				return sprintf("point %d coordinate %c: got %v, want %v", i, 'X'+k, pair[1][i], pair[0][i])
			}
		}
	}
	if len(a.Attrs) != len(b.Attrs) {
		return sprintf("got attributes %v, want %v", attrNames(b), attrNames(a))
	}
	for k, x := range a.Attrs {
		y := b.Attrs[k]
		if x.Name != y.Name || x.Type != y.Type {
			return sprintf("attribute %d: got %s %v, want %s %v", k, y.Name, y.Type, x.Name, x.Type)
		}
		for i := range x.Len() {
			u, v := x.Uint64(i), y.Uint64(i)
			if u == v {
				continue
			}
			if x.Type.IsFloat() && !nanBits && math.IsNaN(x.Float64(i)) && math.IsNaN(y.Float64(i)) {
				continue
			}
			return sprintf("attribute %s point %d: got %v, want %v", x.Name, i, y.Float64(i), x.Float64(i))
		}
	}
	ha, _ := a.Meta.Extra[codecName].(*Header)
	hb, _ := b.Meta.Extra[codecName].(*Header)
	if (ha == nil) != (hb == nil) {
		return "ply header missing"
	}
	if ha == nil {
		return ""
	}
	if len(ha.Elements) != len(hb.Elements) {
		return sprintf("got %d elements, want %d", len(hb.Elements), len(ha.Elements))
	}
	for i, ea := range ha.Elements {
		eb := hb.Elements[i]
		if ea.Name != eb.Name || ea.Count != eb.Count || sprintf("%v", ea.Props) != sprintf("%v", eb.Props) {
			return sprintf("element %d: got %s %d %v, want %s %d %v", i, eb.Name, eb.Count, eb.Props, ea.Name, ea.Count, ea.Props)
		}
		if !bytes.Equal(ea.Data, eb.Data) || sprintf("%v", ea.ListOffsets) != sprintf("%v", eb.ListOffsets) {
			return sprintf("element %s: data differs", ea.Name)
		}
	}
	if sprintf("%q %q", a.Meta.Comments, ha.ObjInfo) != sprintf("%q %q", b.Meta.Comments, hb.ObjInfo) {
		return sprintf("got comments %q obj_info %q, want %q %q", b.Meta.Comments, hb.ObjInfo, a.Meta.Comments, ha.ObjInfo)
	}
	return ""
}

func sameFloat(x, y float64, nanBits bool) bool {
	if math.Float64bits(x) == math.Float64bits(y) {
		return true
	}
	return !nanBits && math.IsNaN(x) && math.IsNaN(y)
}

// TestBinaryIdentical checks that a binary file read and written back in its
// own encoding is the same file, byte for byte: header and data.
func TestBinaryIdentical(t *testing.T) {
	n := 0
	for _, path := range sharedFiles(t) {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(raw[:min(len(raw), 64)], []byte("format binary")) {
			continue
		}
		c, err := Decode(bytes.NewReader(raw))
		if err != nil {
			continue // broken files are covered by TestRoundTripShared
		}
		var buf bytes.Buffer
		if err := Encode(&buf, c, ""); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), raw) {
			t.Errorf("%s: rewritten file differs (%d bytes, want %d)", path, buf.Len(), len(raw))
		}
		n++
	}
	if n < 3 {
		t.Errorf("compared %d binary files, want at least 3", n)
	}
}
