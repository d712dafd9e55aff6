package las

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/internal/peers"
)

// twoExtraBytesRecords returns a LAS 1.4 file of format 6 whose Extra
// Bytes descriptors (uint16 "height", uint8 "confidence") sit in two
// records: two VLRs, or (evlr) a VLR and an EVLR, as LAS 1.4 R15 allows.
func twoExtraBytesRecords(t *testing.T, evlr bool) []byte {
	t.Helper()
	c := randomCloud(t, 31, 40, false, formatColumns(6))
	h := core.NewAttribute("height", core.Uint16, c.Len())
	conf := core.NewAttribute("confidence", core.Uint8, c.Len())
	for i := range c.Len() {
		h.SetFloat64(i, float64(1000+i*7))
		conf.SetFloat64(i, float64(i*5%256))
	}
	c.Attrs = append(c.Attrs, h, conf)
	var buf bytes.Buffer
	if err := Encode(&buf, c, "1.4"); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	hd := parseHeader(b)
	if hd.NumEVLRs != 0 {
		t.Fatalf("the base file has %d EVLRs, want none", hd.NumEVLRs)
	}
	pos := int(hd.HeaderSize)
	for range hd.NumVLRs {
		v, n := parseVLRHeader(b[pos:], false)
		if !v.Is(userSpec, recExtraBytes) {
			pos += vlrHeaderSize + int(n)
			continue
		}
		if n != 2*descriptorSize {
			t.Fatalf("Extra Bytes VLR of %d bytes, want two descriptors", n)
		}
		first, second := b[pos+vlrHeaderSize:][:descriptorSize], b[pos+vlrHeaderSize+descriptorSize:][:descriptorSize]
		rec := newVLR(userSpec, recExtraBytes, "Extra Bytes", second)
		v.Data = first
		out := appendVLR(slices.Clone(b[:pos]), &v, false)
		if !evlr {
			out = appendVLR(out, &rec, false)
			out = append(out, b[pos+vlrHeaderSize+int(n):]...)
			le.PutUint32(out[offNumVLRs:], hd.NumVLRs+1)
			le.PutUint32(out[offPointOffset:], hd.PointOffset+vlrHeaderSize)
			return out
		}
		out = append(out, b[pos+vlrHeaderSize+int(n):]...)
		le.PutUint32(out[offPointOffset:], hd.PointOffset-descriptorSize)
		le.PutUint64(out[offEVLRStart:], uint64(len(out)))
		le.PutUint32(out[offNumEVLRs:], 1)
		return appendVLR(out, &rec, true)
	}
	t.Fatal("the base file has no Extra Bytes VLR")
	return nil
}

// TestExtraBytesInSeveralRecords reads a file whose Extra Bytes
// descriptors are spread over two VLRs, or a VLR and an EVLR: both fields
// are named and typed as described, no warning is given, and a
// same-format round trip gives the input's bytes (both records kept).
func TestExtraBytesInSeveralRecords(t *testing.T) {
	for _, evlr := range []bool{false, true} {
		in := twoExtraBytesRecords(t, evlr)
		for _, stream := range []bool{false, true} {
			name := map[bool]string{false: "two VLRs", true: "VLR and EVLR"}[evlr] + map[bool]string{false: "", true: " (stream)"}[stream]
			t.Run(name, func(t *testing.T) {
				if evlr && stream {
					t.Skip("a stream reaches the EVLRs after the points")
				}
				var r io.Reader = bytes.NewReader(in)
				if stream {
					r = struct{ io.Reader }{r}
				}
				c, err := Decode(r)
				if err != nil {
					t.Fatal(err)
				}
				info := InfoOf(&c.Meta)
				if len(info.Warnings) != 0 {
					t.Errorf("got warnings %q, want none", info.Warnings)
				}
				conf := c.Attr("confidence")
				if conf == nil || conf.Type != core.Uint8 {
					t.Fatalf("got column confidence %v, want uint8", conf)
				}
				for i := range c.Len() {
					if got, want := conf.Float64(i), float64(i*5%256); got != want {
						t.Fatalf("point %d confidence: got %v, want %v", i, got, want)
					}
				}
				if h := c.Attr("height"); h == nil || h.Float64(3) != 1021 {
					t.Fatalf("got column height %v, want uint16 with 1021 at point 3", h)
				}
				var out bytes.Buffer
				if err := Encode(&out, c, ""); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(out.Bytes(), in) {
					t.Fatalf("round trip differs from byte %d (%d vs %d bytes)", firstDiff(out.Bytes(), in), out.Len(), len(in))
				}
				// A new column changes the layout: one Extra Bytes VLR
				// then holds all three descriptors, and no EVLR any.
				c.Attrs = append(c.Attrs, core.NewAttribute(core.DimNeighborCount, core.Uint32, c.Len()))
				_, back := encode(t, c, "")
				binfo := InfoOf(&back.Meta)
				ebs := ebVLRs(binfo)
				if len(ebs) != 1 || len(ebs[0].Data) != 3*descriptorSize || findVLR(binfo.EVLRs, userSpec, recExtraBytes) >= 0 {
					t.Fatalf("after adding a column: %d Extra Bytes VLRs, EVLRs %v; want one VLR of 3 descriptors", len(ebs), binfo.EVLRs)
				}
				if a := back.Attr("confidence"); a == nil || a.Float64(7) != 35 {
					t.Fatalf("after adding a column: confidence %v, want 35 at point 7", a)
				}
			})
		}
	}
}

// TestExtraBytesInSeveralRecordsPDAL reads both layouts of
// twoExtraBytesRecords with PDAL 2.9.2 (readers.las, writers.text) and
// checks that it names and fills height and confidence as pctk does.
func TestExtraBytesInSeveralRecordsPDAL(t *testing.T) {
	if err := peers.Available(peers.PDAL); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("PDAL must run in CI: %v", err)
		}
		t.Skipf("PDAL not available: %v", err)
	}
	for _, evlr := range []bool{false, true} {
		dir := t.TempDir()
		in, out := filepath.Join(dir, "in.las"), filepath.Join(dir, "out.csv")
		b := twoExtraBytesRecords(t, evlr)
		if err := os.WriteFile(in, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := peers.PDALPipeline(dir, map[string]any{"type": "readers.las", "filename": in},
			map[string]any{"type": "writers.text", "filename": out, "order": "height,confidence", "keep_unspecified": false}); err != nil {
			t.Fatal(err)
		}
		text, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		c, err := Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(text)), "\n")
		if len(lines) != c.Len()+1 || lines[0] != `"height","confidence"` {
			t.Fatalf("evlr %v: PDAL wrote %d lines, header %q; want %d and height, confidence", evlr, len(lines), lines[0], c.Len()+1)
		}
		h, conf := c.Attr("height"), c.Attr("confidence")
		for i, l := range lines[1:] {
			var ph, pc float64
			if _, err := fmt.Sscanf(l, "%g,%g", &ph, &pc); err != nil || ph != h.Float64(i) || pc != conf.Float64(i) {
				t.Fatalf("evlr %v, point %d: PDAL %q (%v), pctk %v,%v", evlr, i, l, err, h.Float64(i), conf.Float64(i))
			}
		}
	}
}
