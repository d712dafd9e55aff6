package pcd

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/internal/codectest"
	"github.com/pctk/pctk/io/pcio"
	"github.com/pctk/pctk/io/ply"
)

// TestFromPLY converts a PLY with uchar colour and float normals to PCD and
// back: coordinates, colour and normals survive exactly; the packed colour
// adds an opaque Alpha.
func TestFromPLY(t *testing.T) {
	in := "ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nproperty float y\nproperty float z\nproperty uchar red\nproperty uchar green\nproperty uchar blue\nproperty float nx\nend_header\n0.1 0.2 0.3 255 128 0 0.70710677\n-1e-30 3e38 nan 1 2 3 -0\n"
	src, err := ply.Decode(bytes.NewReader([]byte(in)))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range variants {
		var buf bytes.Buffer
		if err := Encode(&buf, src, v); err != nil {
			t.Fatal(err)
		}
		d, err := Decode(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		if a := d.Attr(core.DimAlpha); a == nil || a.Float64(0) != 255 {
			t.Fatalf("%s: Alpha = %v, want an opaque Alpha column", v, a)
		}
		d.RemoveAttr(core.DimAlpha)
		d.Meta.Comments = src.Meta.Comments
		if msg := codectest.Diff(src, d, v != "ascii"); msg != "" {
			t.Errorf("%s: %s", v, msg)
		}
	}
}

// TestStreamToPLY streams a PCD with F 4 coordinates into PLY, as pctk
// convert does: the coordinates stay four-byte floats, and a coordinate
// that is no longer a float32 value is an error, not a rounding.
func TestStreamToPLY(t *testing.T) {
	in := "VERSION 0.7\nFIELDS x y z intensity\nSIZE 4 4 4 4\nTYPE F F F F\nCOUNT 1 1 1 1\nWIDTH 2\nPOINTS 2\nDATA ascii\n0.1 0.2 0.3 5\n1 2 3 6\n"
	plyFormat, _, err := pcio.Lookup("ply")
	if err != nil {
		t.Fatal(err)
	}
	for _, modify := range []bool{false, true} {
		d, err := NewDecoder(bytes.NewReader([]byte(in)))
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		e, err := plyFormat.NewEncoder(&out, d.Header(), "ascii")
		if err != nil {
			t.Fatal(err)
		}
		c, err := d.Read(10)
		if err != nil {
			t.Fatal(err)
		}
		if modify {
			c.Y[1] = 0.1
		}
		err = e.Write(c)
		if modify {
			if err == nil || !strings.Contains(err.Error(), "point 1: Y = 0.1 is not a float32 value") {
				t.Errorf("got %v, want a not-a-float32 error", err)
			}
			continue
		}
		if err != nil || e.Close() != nil {
			t.Fatal(err)
		}
		want := "property float x\nproperty float y\nproperty float z\nproperty float intensity\nend_header\n0.1 0.2 0.3 5\n1 2 3 6\n"
		if !strings.HasSuffix(out.String(), want) {
			t.Errorf("got\n%s\nwant it to end with\n%s", out.String(), want)
		}
	}
}
