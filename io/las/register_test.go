package las

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/pcio"
)

// TestRegistered finds the codec through pcio by name and variant, by
// extension and by magic bytes, and reads a file through pcio.ReadFile.
func TestRegistered(t *testing.T) {
	for _, spec := range []string{"las", "las-1.2", "las-1.3", "las-1.4"} {
		f, v, err := pcio.Lookup(spec)
		if err != nil || f.Name != "las" || v != strings.TrimPrefix(strings.TrimPrefix(spec, "las"), "-") {
			t.Errorf("Lookup(%q): got %v %q %v", spec, f, v, err)
		}
	}
	if f, err := pcio.ByExtension("x/TILE.LAS"); err != nil || f.Name != "las" {
		t.Errorf("ByExtension(TILE.LAS): got %v, %v", f, err)
	}
	file := validFile(t, "1.4", 7)
	if f, _, err := pcio.Sniff(bytes.NewReader(file)); err != nil || f.Name != "las" {
		t.Errorf("Sniff: got %v, %v", f, err)
	}
	// The same points compressed sniff as laz (the point format byte's
	// compression bits), so "-" as OUT keeps them compressed.
	c0, err := Decode(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	if err := EncodeLAZ(&z, c0, ""); err != nil {
		t.Fatal(err)
	}
	if f, _, err := pcio.Sniff(bytes.NewReader(z.Bytes())); err != nil || f.Name != "laz" {
		t.Errorf("Sniff of LAZ: got %v, %v", f, err)
	}
	if f, _, err := pcio.Sniff(bytes.NewReader(file[:50])); err != nil || f.Name != "las" {
		t.Errorf("Sniff of a cut header: got %v, %v; want las, whose decoder names what is missing", f, err)
	}
	path := filepath.Join(t.TempDir(), "noext")
	if err := os.WriteFile(path, file, 0o644); err != nil {
		t.Fatal(err)
	}
	c, f, err := pcio.ReadFile(path)
	if err != nil || f.Name != "las" || c.Len() != 20 {
		t.Fatalf("ReadFile: got %v points, format %v, %v", c, f, err)
	}
	out := filepath.Join(t.TempDir(), "out.las")
	if err := pcio.WriteFile(out, f, "1.2", c); err == nil || !strings.Contains(err.Error(), "ReturnNumber") {
		t.Errorf("LAS 1.4 returns 8-15 written as 1.2: got %v, want an error naming ReturnNumber", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a failed write left %s behind", out)
	}
	c, _, err = pcio.ReadFile(path12(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := pcio.WriteFile(out, f, "1.4", c); err != nil {
		t.Fatal(err)
	}
	back, _, err := pcio.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if h := InfoOf(&back.Meta).Header; h.Version() != "1.4" || h.pointFormat() != 7 {
		t.Errorf("WriteFile las-1.4 of 1.2 format 3: got LAS %s format %d, want 1.4 format 7", h.Version(), h.pointFormat())
	}
	// The 1.4 scan angle has steps of 0.006°: whole degrees move by up to
	// half a step.
	got, want := back.Attr(core.DimScanAngleRank), c.Attr(core.DimScanAngleRank)
	for i := range c.Len() {
		if d := math.Abs(got.Float64(i) - want.Float64(i)); d > scanAngleStep/2 {
			t.Errorf("point %d: ScanAngleRank %v, want %v within %v", i, got.Float64(i), want.Float64(i), scanAngleStep/2)
		}
	}
	back.RemoveAttr(core.DimScanAngleRank)
	c.RemoveAttr(core.DimScanAngleRank)
	sameCloud(t, "1.2 format 3 to 1.4 format 7", back, c)
}

// path12 writes a LAS 1.2 format 3 file and returns its path.
func path12(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "v12.las")
	if err := os.WriteFile(path, validFile(t, "1.2", 3), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestDescribe lists the header facts pctk info shows.
func TestDescribe(t *testing.T) {
	c, err := Decode(bytes.NewReader(validFile(t, "1.4", 7)))
	if err != nil {
		t.Fatal(err)
	}
	facts := map[string]string{}
	for _, f := range Describe(&c.Meta) {
		if _, dup := facts[f.Key]; !dup {
			facts[f.Key] = f.Value
		}
	}
	want := map[string]string{
		"LAS version":         "1.4",
		"point format":        "7",
		"point record length": "40 bytes (4 extra)",
		"point count":         "20 (legacy field 0)",
		"generating software": Software,
		"CRS":                 "EPSG:32633, 3 GeoTIFF keys",
		"VLR 0":               `LASF_Spec/4 192 bytes "Extra Bytes"`,
		"extra bytes field":   "NeighborCount: type 5 (uint32), 4 bytes, options 0x00",
	}
	for k, v := range want {
		if facts[k] != v {
			t.Errorf("%s: got %q, want %q", k, facts[k], v)
		}
	}
	for _, k := range []string{"points by return", "scale", "offset", "header min", "header max", "system identifier", "creation date", "VLR 1"} {
		if facts[k] == "" {
			t.Errorf("fact %q missing", k)
		}
	}
	if Describe(nil) != nil {
		t.Error("Describe(nil): want nil")
	}
}
