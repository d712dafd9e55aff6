package pcd

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/internal/codectest"
	"github.com/pctk/pctk/io/pcio"
	"github.com/pctk/pctk/io/ply"
)

// TestFromPLY converts a PLY with uchar colour and float normals to PCD and
// back: coordinates, colour and normals survive exactly; the packed rgb
// gains no Alpha (its high byte, PCL's padding, is the header's Pad, 255).
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
		if a, f := d.Attr(core.DimAlpha), d.Meta.Extra["pcd"].(*Header).Fields[3]; a != nil || f.Name != "rgb" || f.Pad != 255 {
			t.Fatalf("%s: Alpha %v, field %s pad %d; want no Alpha, rgb pad 255", v, a, f.Name, f.Pad)
		}
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

// TestPCLPLY checks PLY against PCL in both directions: PCL's pcl_pcd2ply
// writes a scan as binary and ascii PLY (with its camera element and an
// empty face element), which io/ply must read to the same points as
// io/pcd reads from the PCD; and PCL's pcl_ply2pcd must read the PLY that
// io/ply writes back to the same points.
func TestPCLPLY(t *testing.T) {
	var tools [2]string
	for i, name := range []string{"pcl_pcd2ply", "pcl_ply2pcd"} {
		p, err := exec.LookPath(name)
		if err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s not found; .ci/deps/debian-peers.sh installs it", name)
			}
			t.Skipf("%s (Debian pcl-tools) not found; skipping the cross-check with PCL", name)
		}
		tools[i] = p
	}
	in := filepath.Join(sharedDirs[0], "milk.pcd")
	src, err := decodeFile(in)
	if err != nil {
		t.Skipf("%s: %v (the shared data folder is absent?); skipping", in, err)
	}
	src.Meta = core.Metadata{}
	dir := t.TempDir()
	for _, format := range []string{"0", "1"} {
		out := filepath.Join(dir, "pcl"+format+".ply")
		if msg, err := exec.Command(tools[0], "-format", format, in, out).CombinedOutput(); err != nil {
			t.Fatalf("pcl_pcd2ply: %v\n%s", err, msg)
		}
		f, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ply.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("reading PCL's PLY (format %s): %v", format, err)
		}
		got.Meta = core.Metadata{}
		if msg := codectest.Diff(src, got, format == "1"); msg != "" {
			t.Errorf("PCL's PLY (format %s): %s", format, msg)
		}
		// And back: our PLY of PCL's PLY, which keeps its camera element,
		// read by PCL.
		f, _ = os.Open(out)
		c, _ := ply.Decode(f)
		f.Close()
		var buf bytes.Buffer
		if err := ply.Encode(&buf, c, ""); err != nil {
			t.Fatal(err)
		}
		ours, back := filepath.Join(dir, "ours"+format+".ply"), filepath.Join(dir, "back"+format+".pcd")
		if err := os.WriteFile(ours, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		if msg, err := exec.Command(tools[1], "-format", "1", ours, back).CombinedOutput(); err != nil {
			t.Fatalf("pcl_ply2pcd: %v\n%s", err, msg)
		}
		b, err := decodeFile(back)
		if err != nil {
			t.Fatal(err)
		}
		b.Meta = core.Metadata{}
		if msg := codectest.Diff(src, b, format == "1"); msg != "" {
			t.Errorf("PCL's reading of our PLY (format %s): %s", format, msg)
		}
	}
}

// TestRGBPadding reads a packed rgb whose high byte, PCL's padding, is 0
// in every point (as PCL writes it): Red, Green and Blue columns and no
// Alpha, so a PLY copy has no (transparent) alpha; the header keeps the
// byte, and writing PCD again, whole or streamed, gives the same data.
func TestRGBPadding(t *testing.T) {
	colours := []uint32{0x00ff8000, 0x00010203, 0x00fefdfc}
	for _, data := range []string{"ascii", "binary"} {
		in := []byte("VERSION 0.7\nFIELDS x y z rgb\nSIZE 4 4 4 4\nTYPE F F F F\nCOUNT 1 1 1 1\nWIDTH 3\nHEIGHT 1\nVIEWPOINT 0 0 0 1 0 0 0\nPOINTS 3\nDATA " + data + "\n")
		head := len(in)
		for i, c := range colours {
			if data == "ascii" {
				in = fmt.Appendf(in, "%d 0 0 %d\n", i, c)
				continue
			}
			in = binary.LittleEndian.AppendUint32(in, math.Float32bits(float32(i)))
			in = append(in, make([]byte, 8)...)
			in = binary.LittleEndian.AppendUint32(in, c)
		}
		c, err := Decode(bytes.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(attrNames(c)); got != "[Red:uint8 Green:uint8 Blue:uint8]" {
			t.Fatalf("%s: columns %s, want Red, Green, Blue only", data, got)
		}
		if g := c.Attr(core.DimGreen).Float64(1); g != 2 {
			t.Errorf("%s: Green[1] = %v, want 2", data, g)
		}
		if pad := c.Meta.Extra["pcd"].(*Header).Fields[3].Pad; pad != 0 {
			t.Errorf("%s: rgb pad %d, want 0", data, pad)
		}
		var pb bytes.Buffer
		if err := ply.Encode(&pb, c, "ascii"); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(pb.String(), "alpha") {
			t.Errorf("%s: the PLY copy has an alpha:\n%s", data, pb.String())
		}
		var out bytes.Buffer
		if err := Encode(&out, c, data); err != nil {
			t.Fatal(err)
		}
		if got := out.Bytes(); !bytes.HasSuffix(got, in[head:]) {
			t.Errorf("%s: written data %q, want the input's %q", data, got, in[head:])
		}
		streamed, _, err := codectest.Stream(pcioFormat(t), in, 2)
		if err != nil || !bytes.HasSuffix(streamed, in[head:]) {
			t.Errorf("%s: streamed copy's data %q (%v), want the input's %q", data, streamed, err, in[head:])
		}
	}
}
