package pcio_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/pcio"

	_ "github.com/pctk/pctk/io/stl"
	_ "github.com/pctk/pctk/io/text"
)

// gzipped returns b compressed with gzip.
func gzipped(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestCompressedInput reads gzip files of every format (by magic bytes,
// and by the extension under .gz for text) from a file and from standard
// input's path, Sniff, and a bzip2 PLY: the points are the file's.
func TestCompressedInput(t *testing.T) {
	c := core.New(5)
	for i := range 5 {
		c.X[i], c.Y[i], c.Z[i] = float64(i)+0.5, float64(i)+10.25, float64(i)+20.75
	}
	dir := t.TempDir()
	for _, tc := range []struct{ spec, name, want string }{
		{"ply-binary", "a.ply.gz", "ply"},
		{"pcd-binary", "a.pcd.gz", "pcd"},
		{"las", "a.las.gz", "las"},
		{"laz", "a.laz.gz", "laz"},
		{"text", "a.xyz.gz", "text"},
	} {
		f, variant, err := pcio.Lookup(tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := f.Encode(&buf, c, variant); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, gzipped(t, buf.Bytes()), 0o644); err != nil {
			t.Fatal(err)
		}
		got, g, err := pcio.ReadFile(path)
		if err != nil || g.Name != tc.want {
			t.Errorf("%s: got format %v, %v; want %s", tc.name, g, err, tc.want)
			continue
		}
		if got.Len() != 5 || got.X[4] != 4.5 || got.Y[2] != 12.25 || got.Z[0] != 20.75 {
			t.Errorf("%s: got %d points, point 4 x %v; want 5, 4.5", tc.name, got.Len(), got.X[4])
		}
		if tc.want == "text" {
			continue // text has no magic: Sniff without a name takes it as text
		}
		g, r, err := pcio.Sniff(bytes.NewReader(gzipped(t, buf.Bytes())))
		if err != nil || g.Name != tc.want {
			t.Errorf("%s: Sniff = %v, %v; want %s", tc.name, g, err, tc.want)
			continue
		}
		if got, err := g.Decode(r); err != nil || got.Len() != 5 {
			t.Errorf("%s: decoding the sniffed stream: %v, %v", tc.name, got, err)
		}
	}
	got, f, err := pcio.ReadFile("testdata/three.ply.bz2")
	if err != nil || f.Name != "ply" || got.Len() != 3 || got.X[2] != 2.5 || got.Z[1] != 21.75 {
		t.Fatalf("three.ply.bz2: got %v, %v, %v; want 3 ply points", got, f, err)
	}
}

// TestUnknownContent: random bytes, and random bytes under gzip, are an
// unknown format, never a binary STL promising a billion triangles.
func TestUnknownContent(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for seed := range 20 {
		b := make([]byte, 4096)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		if seed%2 == 1 {
			b = gzipped(t, b)
		}
		path := filepath.Join(t.TempDir(), "x.bin")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		_, f, err := pcio.ReadFile(path)
		if !errors.Is(err, pcio.ErrUnknownFormat) || !strings.Contains(err.Error(), "content is unknown") {
			t.Fatalf("random bytes %d: got format %v, %v; want an unknown format", seed, f, err)
		}
	}
}

// FuzzSniffGzip sniffs and decodes arbitrary bytes, plain and under gzip:
// neither panics, and the gzip copy reads as the plain bytes do (the same
// format, point count and error or not).
func FuzzSniffGzip(f *testing.F) {
	c := core.New(3)
	for i := range 3 {
		c.X[i], c.Y[i], c.Z[i] = float64(i), float64(i)+0.5, float64(i)+0.25
	}
	for _, spec := range []string{"ply-ascii", "ply-binary", "pcd-binary", "las", "laz"} {
		fm, variant, err := pcio.Lookup(spec)
		if err != nil {
			f.Fatal(err)
		}
		var buf bytes.Buffer
		if err := fm.Encode(&buf, c, variant); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
	f.Add([]byte("1 2 3\n4 5 6\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		read := func(b []byte) (string, int, error) {
			fm, r, err := pcio.Sniff(bytes.NewReader(b))
			if err != nil {
				return "", 0, err
			}
			got, err := fm.Decode(r)
			if err != nil {
				return fm.Name, 0, err
			}
			return fm.Name, got.Len(), nil
		}
		name, n, err := read(data)
		gname, gn, gerr := read(gzipped(t, data))
		if compressed := len(data) > 1 && (data[0] == 0x1f && data[1] == 0x8b || bytes.HasPrefix(data, []byte("BZh"))); compressed {
			return // already compressed: the copy is read through twice
		}
		if gname != name || gn != n || (gerr == nil) != (err == nil) {
			t.Fatalf("gzip copy reads as %s, %d points, %v; the bytes as %s, %d, %v", gname, gn, gerr, name, n, err)
		}
	})
}
