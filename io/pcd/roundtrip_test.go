package pcd

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/pctk/pctk/core"
)

var sharedDirs = []string{"../../../shared/data/pcd", "../../../shared/data/pdal/pcd"}

// brokenShared are the shared files that are not valid PCD, with the error
// each must give.
var brokenShared = map[string]string{
	// PDAL's test of a file with no header at all.
	"missingheader.pcd": `pcd: line 1: not a PCD file: first line is "289814.15 4320978.61 170.76"`,
}

func sharedFiles(t testing.TB) []string {
	var files []string
	for _, d := range sharedDirs {
		m, _ := filepath.Glob(filepath.Join(d, "*.pcd"))
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Skipf("no PCD files in %v (the shared data folder is absent); skipping real-file tests", sharedDirs)
	}
	return files
}

// TestRoundTripShared reads every shared PCD file and writes it in all three
// encodings; each must read back to the same points, attributes and header.
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
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			h := c.Meta.Extra["pcd"].(*Header)
			t.Logf("%d points (%s), attrs %v", c.Len(), h.Data, attrNames(c))
			for _, v := range []string{"ascii", "binary", "compressed", ""} {
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
// Values compare by their bits; with nanBits false any NaN equals any NaN.
func diffClouds(a, b *core.Cloud, nanBits bool) string {
	if a.Len() != b.Len() {
		return fmt.Sprintf("got %d points, want %d", b.Len(), a.Len())
	}
	for k, pair := range [3][2][]float64{{a.X, b.X}, {a.Y, b.Y}, {a.Z, b.Z}} {
		for i := range pair[0] {
			x, y := pair[0][i], pair[1][i]
			if math.Float64bits(x) != math.Float64bits(y) && (nanBits || !math.IsNaN(x) || !math.IsNaN(y)) {
				return fmt.Sprintf("point %d coordinate %c: got %v, want %v", i, 'X'+k, y, x)
			}
		}
	}
	if fmt.Sprint(attrNames(a)) != fmt.Sprint(attrNames(b)) {
		return fmt.Sprintf("got attributes %v, want %v", attrNames(b), attrNames(a))
	}
	for k, x := range a.Attrs {
		y := b.Attrs[k]
		for i := range x.Len() {
			if x.Uint64(i) != y.Uint64(i) && (nanBits || !x.Type.IsFloat() || !math.IsNaN(x.Float64(i)) || !math.IsNaN(y.Float64(i))) {
				return fmt.Sprintf("attribute %s point %d: got %v, want %v", x.Name, i, y.Float64(i), x.Float64(i))
			}
		}
	}
	ha, _ := a.Meta.Extra[codecName].(*Header)
	hb, _ := b.Meta.Extra[codecName].(*Header)
	if ha == nil || hb == nil {
		return "pcd header missing"
	}
	if fmt.Sprint(ha.Fields, ha.Width, ha.Height, ha.Viewpoint) != fmt.Sprint(hb.Fields, hb.Width, hb.Height, hb.Viewpoint) {
		return fmt.Sprintf("header: got %v %dx%d %v, want %v %dx%d %v", hb.Fields, hb.Width, hb.Height, hb.Viewpoint, ha.Fields, ha.Width, ha.Height, ha.Viewpoint)
	}
	if fmt.Sprintf("%q", a.Meta.Comments) != fmt.Sprintf("%q", b.Meta.Comments) {
		return fmt.Sprintf("got comments %q, want %q", b.Meta.Comments, a.Meta.Comments)
	}
	return ""
}
