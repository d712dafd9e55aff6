package pcd

import (
	"bytes"
	"testing"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/internal/codectest"
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
