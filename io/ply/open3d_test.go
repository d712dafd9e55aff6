package ply

import (
	"bytes"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pctk/pctk/core"
)

// open3dDump has Open3D (Debian python3-open3d, through /usr/bin/python3)
// read PLY files and print their points, colours and normals, one number a line.
const open3dDump = `
import sys, open3d as o3d, numpy as np
for f in sys.argv[1:]:
    p = o3d.io.read_point_cloud(f)
    for a in (p.points, p.colors, p.normals):
        for v in np.asarray(a).ravel():
            print(repr(float(v)))
        print("--")
    print("==")
`

// TestOpen3DReadsOurFiles has Open3D (rply underneath) read every encoding
// we write, big-endian included, and checks what it got: coordinates
// exactly, colours as uchar/255, normals exactly.
func TestOpen3DReadsOurFiles(t *testing.T) {
	const python = "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import open3d").Run(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("Open3D (python3-open3d) not found; .ci/deps/debian-peers.sh installs it")
		}
		t.Skip("Open3D (Debian python3-open3d for /usr/bin/python3) not found; skipping the cross-check")
	}
	c := benchCloud(500)
	c.X[7] = float64(float32(c.X[7])) // both coordinate widths are exercised below
	dir := t.TempDir()
	type file struct {
		name, v, coords string
		want            [3][]float64
	}
	var files []file
	for _, v := range variants {
		for _, coords := range []string{"double", "float"} {
			src := c
			if coords == "float" {
				src = core.New(c.Len())
				for i := range c.Len() {
					src.X[i], src.Y[i], src.Z[i] = float64(float32(c.X[i])), float64(float32(c.Y[i])), float64(float32(c.Z[i]))
				}
				src.Attrs = c.Attrs
			}
			var buf bytes.Buffer
			if err := Encode(&buf, src, v); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(buf.String()[:200], "property "+coords+" x") {
				t.Fatalf("%s: expected %s coordinates in\n%s", v, coords, buf.String()[:200])
			}
			path := filepath.Join(dir, v+coords+".ply")
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			want := [3][]float64{}
			for i := range src.Len() {
				want[0] = append(want[0], src.X[i], src.Y[i], src.Z[i])
				for _, name := range []string{core.DimRed, core.DimGreen, core.DimBlue} {
					want[1] = append(want[1], src.Attr(name).Float64(i)/255)
				}
				for _, name := range []string{core.DimNormalX, core.DimNormalY, core.DimNormalZ} {
					want[2] = append(want[2], src.Attr(name).Float64(i))
				}
			}
			files = append(files, file{path, v, coords, want})
		}
	}
	args := []string{"-c", open3dDump}
	for _, f := range files {
		args = append(args, f.name)
	}
	out, err := exec.Command(python, args...).Output()
	if err != nil {
		t.Fatalf("open3d: %v", err)
	}
	dumps := strings.Split(string(out), "==")
	if len(dumps) != len(files)+1 {
		t.Fatalf("open3d printed %d dumps for %d files", len(dumps)-1, len(files))
	}
	for n, f := range files {
		v, coords, want := f.v, f.coords, f.want
		parts := strings.Split(strings.TrimSpace(dumps[n]), "--")
		if len(parts) < 3 {
			t.Fatalf("%s %s: open3d printed %.200q", v, coords, dumps[n])
		}
		for k, part := range parts[:3] {
			got := strings.Fields(part)
			if len(got) != len(want[k]) {
				t.Fatalf("%s %s: open3d gave %d values of block %d, want %d", v, coords, len(got), k, len(want[k]))
			}
			for i, s := range got {
				g, _ := strconv.ParseFloat(s, 64)
				if v == "ascii" && (k == 2 || k == 0 && coords == "float") {
					// Open3D parses ascii into doubles: the shortest
					// decimal of a float32 is that float32 once rounded.
					g = float64(float32(g))
				}
				if g != want[k][i] && !(k == 1 && math.Abs(g-want[k][i]) < 1e-12) {
					t.Fatalf("%s %s: block %d value %d: open3d read %v, want %v", v, coords, k, i, g, want[k][i])
				}
			}
		}
	}
}
