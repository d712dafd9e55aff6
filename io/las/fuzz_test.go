package las

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/pctk/pctk/core"
)

// FuzzDecode decodes arbitrary bytes, as a file and as a stream; whatever
// decodes must encode (or fail with an error) and decode again to the same
// cloud: coordinates, every column bit for bit, the CRS. The seed corpus in
// testdata/fuzz/FuzzDecode holds small valid files of each version and the
// broken ones of TestBadInput's kinds.
func FuzzDecode(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) { fuzzRoundTrip(t, b, Encode) })
}

// fuzzRoundTrip decodes b as a file and as a stream, expects the same
// outcome from both, and re-encodes what decodes with encode (Encode or
// EncodeLAZ): that must fail or decode again to the same cloud.
func fuzzRoundTrip(t *testing.T, b []byte, encode func(io.Writer, *core.Cloud, string) error) {
	c, err := Decode(bytes.NewReader(b))
	cs, errs := Decode(bytes.NewBuffer(b))
	if (err == nil) != (errs == nil) {
		t.Fatalf("seeker error %v, stream error %v", err, errs)
	}
	if err != nil {
		return
	}
	if c.Len() != cs.Len() {
		t.Fatalf("seeker read %d points, stream %d", c.Len(), cs.Len())
	}
	var buf bytes.Buffer
	if err := encode(&buf, c, ""); err != nil {
		return
	}
	back, err := Decode(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("decode of re-encoded file: %v", err)
	}
	sameCloud(t, "re-encoded file", back, c)
	if back.Meta.CRS.EPSG != c.Meta.CRS.EPSG || back.Meta.CRS.WKT != c.Meta.CRS.WKT {
		t.Fatalf("re-encoded file has CRS %+v, want %+v", back.Meta.CRS, c.Meta.CRS)
	}
}

// TestWriteSeeds regenerates the fuzz seed corpus and the small sample
// files in the repository's testdata/las when PCTK_UPDATE_SEEDS=1.
func TestWriteSeeds(t *testing.T) {
	if os.Getenv("PCTK_UPDATE_SEEDS") != "1" {
		t.Skip("set PCTK_UPDATE_SEEDS=1 to regenerate testdata/fuzz/FuzzDecode and ../../testdata/las")
	}
	samples := map[string][]byte{}
	for _, s := range []struct {
		name    string
		variant string
		pf      int
		extra   bool
	}{
		{"v12_f0", "1.2", 0, false}, {"v12_f3", "1.2", 3, false},
		{"v14_f6", "1.4", 6, false}, {"v14_f7_extrabytes", "1.4", 7, true}, {"v14_f10", "1.4", 10, false},
	} {
		cols := formatColumns(s.pf)
		if s.extra {
			cols = append(cols, extraColumns...)
		}
		c := randomCloud(t, 1, 8, s.pf <= 5, cols)
		c.Meta.CRS = core.CRS{EPSG: 32633}
		var buf bytes.Buffer
		if err := Encode(&buf, c, s.variant); err != nil {
			t.Fatal(err)
		}
		samples[s.name] = buf.Bytes()
	}
	// LAS 1.3 with waveform data in its EVLR.
	c := randomCloud(t, 2, 4, true, formatColumns(4))
	c.Meta.Extra = map[string]any{MetaKey: &Info{Header: Header{VersionMajor: 1, VersionMinor: 3, PointFormat: 4}, EVLRs: []VLR{newVLR(userSpec, recWaveform, "waveform", []byte{1, 2, 3, 4})}}}
	var buf bytes.Buffer
	if err := Encode(&buf, c, ""); err != nil {
		t.Fatal(err)
	}
	samples["v13_f4_waveform"] = buf.Bytes()

	repo := filepath.Join("..", "..", "testdata", "las")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	fuzz := filepath.Join("testdata", "fuzz", "FuzzDecode")
	if err := os.MkdirAll(fuzz, 0o755); err != nil {
		t.Fatal(err)
	}
	seeds := map[string][]byte{}
	for name, b := range samples {
		if err := os.WriteFile(filepath.Join(repo, name+".las"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		seeds[name] = b
	}
	v12 := samples["v12_f3"]
	mut := func(name string, f func(b []byte)) {
		b := bytes.Clone(v12)
		f(b)
		seeds[name] = b
	}
	mut("huge_count", func(b []byte) { le.PutUint32(b[107:], 1<<31) })
	mut("huge_vlr_count", func(b []byte) { le.PutUint32(b[100:], 1<<31) })
	mut("vlr_past_points", func(b []byte) { le.PutUint16(b[227+20:], 60000) })
	mut("short_record", func(b []byte) { le.PutUint16(b[105:], 30) })
	mut("extra_bytes_mismatch", func(b []byte) { le.PutUint16(b[105:], 35) })
	seeds["truncated"] = v12[:len(v12)-7]
	for name, b := range seeds {
		body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", b)
		if err := os.WriteFile(filepath.Join(fuzz, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
