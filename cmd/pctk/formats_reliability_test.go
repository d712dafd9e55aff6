package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/las"
)

// formatInputs builds, in dir, the damaged and compressed inputs of the
// reliability issue's format items from the shipped LAS sample.
func formatInputs(t *testing.T, dir string) map[string]string {
	t.Helper()
	in, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	c := readTestCloud(t, sample)
	var lz bytes.Buffer
	if err := las.EncodeLAZ(&lz, c, ""); err != nil {
		t.Fatal(err)
	}
	ply := "ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\nproperty float y\nproperty float z\nend_header\n1 2 3\n4918359.5 5 6\n"
	zeroCount := bytes.Clone(in)
	binary.LittleEndian.PutUint32(zeroCount[107:], 0)
	scale0 := bytes.Clone(in)
	binary.LittleEndian.PutUint64(scale0[131:], 0)
	scaleNaN := bytes.Clone(in)
	binary.LittleEndian.PutUint64(scaleNaN[131:], math.Float64bits(math.NaN()))
	random := make([]byte, 8192)
	for i := range random {
		random[i] = byte(i*7919 ^ i>>3*104729)
	}
	gz := func(b []byte) []byte {
		var buf bytes.Buffer
		w := gzip.NewWriter(&buf)
		w.Write(b)
		w.Close()
		return buf.Bytes()
	}
	files := map[string][]byte{
		"zero-count.las": zeroCount,
		"scale0.las":     scale0,
		"scalenan.las":   scaleNaN,
		"empty.csv":      nil,
		"empty.xyz":      []byte("\n# nothing\n"),
		"random.bin":     random,
		"cut.laz":        lz.Bytes()[:lz.Len()/2],
		"a.ply.gz":       gz([]byte(ply)),
		"a.las.gz":       gz(in),
		"twoeb.las":      twoExtraBytesVLRs(t, c),
	}
	paths := map[string]string{}
	for name, data := range files {
		paths[name] = filepath.Join(dir, name)
		if err := os.WriteFile(paths[name], data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return paths
}

// twoExtraBytesVLRs returns c written as LAS 1.4 with two extra columns
// whose descriptors sit in two Extra Bytes VLRs, the second describing a
// uint8 "confidence".
func twoExtraBytesVLRs(t *testing.T, c *core.Cloud) []byte {
	t.Helper()
	height := core.NewAttribute("height", core.Uint16, c.Len())
	conf := core.NewAttribute("confidence", core.Uint8, c.Len())
	for i := range c.Len() {
		height.SetFloat64(i, float64(i%60000))
		conf.SetFloat64(i, float64(i%251))
	}
	c.Attrs = append(c.Attrs, height, conf)
	var one bytes.Buffer
	if err := las.Encode(&one, c, "1.4"); err != nil {
		t.Fatal(err)
	}
	c2, err := las.Decode(bytes.NewReader(one.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	info := las.InfoOf(&c2.Meta)
	var vlrs []las.VLR
	for _, v := range info.VLRs {
		if v.Is("LASF_Spec", 4) && len(v.Data) == 2*192 {
			second := v
			v.Data, second.Data = v.Data[:192], v.Data[192:]
			vlrs = append(vlrs, v, second)
			continue
		}
		vlrs = append(vlrs, v)
	}
	if len(vlrs) != len(info.VLRs)+1 {
		t.Fatalf("no Extra Bytes VLR of two descriptors among %v", info.VLRs)
	}
	info.VLRs = vlrs
	var two bytes.Buffer
	if err := las.Encode(&two, c2, ""); err != nil {
		t.Fatal(err)
	}
	return two.Bytes()
}

// TestFormatReliability runs pctk on the format items of the reliability
// issue: each defect exits 1 naming the header field or the content (IN
// and an existing OUT unchanged), --salvage reads what the data holds, and
// compressed inputs read as their content.
func TestFormatReliability(t *testing.T) {
	dir := t.TempDir()
	p := formatInputs(t, dir)
	out := filepath.Join(dir, "out", "o.ply")
	outLAS := filepath.Join(dir, "out", "o.las")
	if err := os.Mkdir(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	runCLICases(t, []cliCase{
		{"count 0 over points", []string{"convert", p["zero-count.las"], outLAS}, "", 1,
			[]string{"zero-count.las: las: number of point records at byte offset 107: the header promises 0 points, but the point data holds 21932 records"}, nil, outLAS},
		{"count 0 salvaged", []string{"convert", "--salvage", p["zero-count.las"], out}, "", 0,
			[]string{"warning: salvaged", "the header promises 0 points", "converted 21932 points"}, nil, ""},
		{"X scale 0, info", []string{"info", p["scale0.las"]}, "", 1, []string{"scale0.las: las: X scale factor at byte offset 131: 0: a scale factor must be a finite number other than 0"}, nil, ""},
		{"X scale NaN, convert", []string{"convert", p["scalenan.las"], out}, "", 1, []string{"scalenan.las: las: X scale factor at byte offset 131: NaN"}, []string{"o.ply"}, out},
		{"empty csv", []string{"convert", p["empty.csv"], out}, "", 1, []string{"empty.csv: text: line 1: the input holds no point, header line or count line (an empty file)"}, nil, out},
		{"blank xyz", []string{"convert", p["empty.xyz"], outLAS}, "", 1, []string{"empty.xyz: text:", "an empty file"}, nil, outLAS},
		{"random bytes", []string{"convert", p["random.bin"], out}, "", 1, []string{"random.bin: unknown point-cloud format: the content is unknown"}, []string{"triangles", "stl"}, out},
		{"LAZ cut short", []string{"convert", p["cut.laz"], outLAS}, "", 1,
			[]string{"cut.laz: las: file cut short at byte offset", "header promises 21932 points (number of point records, byte offset 107), 0 present"}, []string{"chunk 0 at"}, outLAS},
		{"LAZ cut short, salvaged", []string{"info", "--salvage", p["cut.laz"]}, "", 0, []string{"warning: salvaged: las: file cut short", "0 present"}, nil, ""},
		{"gzip PLY", []string{"convert", p["a.ply.gz"], outLAS}, "", 0, []string{"converted 2 points"}, nil, ""},
		{"gzip LAS", []string{"info", p["a.las.gz"]}, "", 0, nil, []string{"unknown", "triangles"}, ""},
		{"two Extra Bytes VLRs", []string{"info", p["twoeb.las"]}, "", 0, nil, []string{"describe", "ExtraByte"}, ""},
		{"max-memory below the buffers", []string{"density", "--radius", "1", "--max-memory", "40MiB", sample, out}, "", 2,
			[]string{"--max-memory 41943040 is too small: the run's buffers take 48MiB"}, []string{"0 bytes a point"}, out},
	})
	// A same-format round trip keeps both Extra Bytes VLRs: the bytes.
	pctkRun(t, 0, "convert", p["twoeb.las"], outLAS)
	a, _ := os.ReadFile(p["twoeb.las"])
	b, _ := os.ReadFile(outLAS)
	if !bytes.Equal(a, b) {
		t.Errorf("convert of a LAS with two Extra Bytes VLRs: %d bytes, want the input's %d", len(b), len(a))
	}
	// info --bounds on COPC prints the file's header facts, as info does.
	copcFile := filepath.Join(dir, "h.copc.laz")
	pctkRun(t, 0, "convert", sample, copcFile)
	got, err := pctkCmd(t, "info", "--bounds", "2230738,252070,2230900,252300", copcFile).Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"format:     laz\n", "compression:         LAZ (LASzip 3.4r3), layered chunked, chunks of variable size", "VLR 0:               copc/1 160 bytes", "VLR 1:               laszip encoded/22204"} {
		if !strings.Contains(string(got), w) {
			t.Errorf("info --bounds on COPC printed\n%s\nwant %q in it", got, w)
		}
	}
	if strings.Contains(string(got), "without a LASzip VLR") {
		t.Errorf("info --bounds on COPC says it has no LASzip VLR:\n%s", got)
	}
	// Text output: shortest decimals in plain notation.
	xyz := filepath.Join(dir, "out", "o.xyz")
	pctkRun(t, 0, "convert", p["a.ply.gz"], xyz)
	if got, _ := os.ReadFile(xyz); !strings.Contains(string(got), "4918359.5 5 6\n") {
		t.Errorf("text output %q, want 4918359.5 in plain notation", got)
	}
}
