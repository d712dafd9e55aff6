package text

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pctk/pctk/core"
)

// TestNumpySavetxt reads what numpy.savetxt writes (its default '%.18e'
// with blanks, and '%.17g' with commas under a "# x y z ..." header) of
// random float64s, subnormals, huge values and negative zero among them,
// and checks every value against numpy's own bits.
func TestNumpySavetxt(t *testing.T) {
	py := "/usr/bin/python3"
	if exec.Command(py, "-c", "import numpy").Run() != nil {
		t.Skip("numpy for /usr/bin/python3 is not installed (apt-get install python3-numpy); skipping")
	}
	dir := t.TempDir()
	script := `
import numpy as np, sys
d = sys.argv[1]
rng = np.random.default_rng(22)
a = rng.standard_normal((500, 4)) * 10.0 ** rng.integers(-300, 300, (500, 4))
a[0] = [5e-324, -0.0, 1.7976931348623157e308, 2.2250738585072014e-308]
a[1] = [0.1, 1/3, -1e-320, 123456789.123456789]
a.astype('<f8').tofile(d + '/bits.bin')
np.savetxt(d + '/default.txt', a)
np.savetxt(d + '/header.csv', a, fmt='%.17g', delimiter=',', header='x y z intensity')
`
	if out, err := exec.Command(py, "-c", script, dir).CombinedOutput(); err != nil {
		t.Fatalf("numpy: %v\n%s", err, out)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "bits.bin"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"default.txt", "header.csv"} {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		c, err := Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if c.Len() != 500 || len(c.Attrs) != 1 || c.Attrs[0].Name != "Intensity" {
			t.Fatalf("%s: %d points, attributes %v; want 500 and Intensity", name, c.Len(), c.Attrs)
		}
		for i := range 500 {
			got := []float64{c.X[i], c.Y[i], c.Z[i], c.Attrs[0].Float64(i)}
			for k, g := range got {
				want := binary.LittleEndian.Uint64(raw[8*(4*i+k):])
				if math.Float64bits(g) != want {
					t.Fatalf("%s: row %d column %d = %v, numpy wrote %v", name, i, k, g, math.Float64frombits(want))
				}
			}
		}
	}
}

// TestCloudCompare reads the ASCII files CloudCompare's command line
// writes from a PLY cloud (header line "//X,Y,Z,R,G,B,...", point count
// line, commas; and plain blanks without header), and from our own text of
// the same cloud (which it reads with its colours, normals and scalar
// field): colours and scalar fields exact, coordinates as CloudCompare's
// float32 holds them, normals as it compresses them.
func TestCloudCompare(t *testing.T) {
	cc, err := exec.LookPath("CloudCompare")
	if err != nil {
		t.Skip("CloudCompare is not installed (apt-get install cloudcompare); skipping")
	}
	dir := t.TempDir()
	ply := "ply\nformat ascii 1.0\nelement vertex 3\nproperty double x\nproperty double y\nproperty double z\n" +
		"property uchar red\nproperty uchar green\nproperty uchar blue\nproperty float nx\nproperty float ny\nproperty float nz\n" +
		"property float intensity\nend_header\n" +
		"1.5 2.25 -3 255 0 10 0 0 1 0.5\n100000 0.1 0.2 1 2 3 1 0 0 7\n-0.125 3 4 9 9 9 0 1 0 100.25\n"
	want := []point{
		{1.5, 2.25, -3, 255, 0, 10, 0.5, 0, 0, 1},
		{100000, 0.1, 0.2, 1, 2, 3, 7, 1, 0, 0},
		{-0.125, 3, 4, 9, 9, 9, 100.25, 0, 1, 0},
	}
	in := filepath.Join(dir, "in.ply")
	if err := os.WriteFile(in, []byte(ply), 0o644); err != nil {
		t.Fatal(err)
	}
	// Our own text of the same cloud, which CloudCompare must read with
	// its colours, normals and scalar field, and export again.
	ours := core.New(len(want))
	for _, n := range []string{core.DimRed, core.DimGreen, core.DimBlue} {
		ours.AddAttr(n, core.Uint8)
	}
	ours.AddAttr(core.DimIntensity, core.Float32)
	for _, n := range []string{core.DimNormalX, core.DimNormalY, core.DimNormalZ} {
		ours.AddAttr(n, core.Float32)
	}
	for i, p := range want {
		ours.X[i], ours.Y[i], ours.Z[i] = p[0], p[1], p[2]
		for k, a := range ours.Attrs {
			a.SetFloat64(i, p[3+k])
		}
	}
	var buf bytes.Buffer
	if err := Encode(&buf, ours); err != nil {
		t.Fatal(err)
	}
	oursPath := filepath.Join(dir, "ours.txt")
	if err := os.WriteFile(oursPath, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, in string
		flags    []string
		attrs    string
	}{
		{"header.csv", in, []string{"-SEP", "COMMA", "-ADD_HEADER", "-ADD_PTS_COUNT", "-EXT", "csv"},
			"Red:float64 Green:float64 Blue:float64 Intensity:float64 NormalX:float64 NormalY:float64 NormalZ:float64"},
		{"plain.asc", in, []string{"-SEP", "SPACE"},
			"Column4:float64 Column5:float64 Column6:float64 Column7:float64 Column8:float64 Column9:float64 Column10:float64"},
		{"ours.asc", oursPath, []string{"-ADD_HEADER"},
			"Red:float64 Green:float64 Blue:float64 Scalar_field:float64 NormalX:float64 NormalY:float64 NormalZ:float64"},
	} {
		out := filepath.Join(dir, c.name)
		args := append([]string{"-SILENT", "-AUTO_SAVE", "OFF", "-O", c.in, "-C_EXPORT_FMT", "ASC", "-PREC", "12"}, c.flags...)
		args = append(args, "-SAVE_CLOUDS", "FILE", out)
		cmd := exec.Command(cc, args...)
		cmd.Env = append(os.Environ(), "QT_QPA_PLATFORM=offscreen")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("CloudCompare %s: %v\n%s", strings.Join(args, " "), err, b)
		}
		f, err := os.Open(out)
		if err != nil {
			t.Fatalf("CloudCompare wrote no %s: %v", c.name, err)
		}
		got, err := Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var names []string
		for _, a := range got.Attrs {
			names = append(names, a.Name+":"+a.Type.String())
		}
		if strings.Join(names, " ") != c.attrs || got.Len() != len(want) {
			t.Fatalf("%s: %d points, attributes %s; want %d, %s", c.name, got.Len(), names, len(want), c.attrs)
		}
		for i, p := range want {
			v := []float64{got.X[i], got.Y[i], got.Z[i]}
			for _, a := range got.Attrs {
				v = append(v, a.Float64(i))
			}
			for k := range p {
				tol := 0.0
				switch {
				case k < 3:
					tol = math.Abs(p[k]) * 1e-7 // CloudCompare keeps float32 coordinates
				case k >= 7:
					tol = 2e-3 // and compressed normals
				}
				if math.Abs(v[k]-p[k]) > tol {
					t.Errorf("%s: point %d value %d = %v, want %v (±%g)", c.name, i, k, v[k], p[k], tol)
				}
			}
		}
	}
}
