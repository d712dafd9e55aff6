package las

import (
	"bytes"
	"errors"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/internal/codec"
	"github.com/pctk/pctk/io/pcio"
)

// validFile returns a small LAS file of the given version with one Extra
// Bytes VLR (uint32 NeighborCount) and a CRS VLR.
func validFile(t *testing.T, variant string, pf int) []byte {
	t.Helper()
	c := randomCloud(t, 21, 20, pf <= 5, append(formatColumns(pf), core.DimNeighborCount))
	c.Meta.CRS = core.CRS{EPSG: 32633}
	var buf bytes.Buffer
	if err := Encode(&buf, c, variant); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestBadInput mutates valid files as broken writers and attackers do and
// checks for the typed error that names the field and byte offset, or the
// warning and the points that could be read. A file cut short is an error
// (a codec.ShortError) and, salvaged, the points it holds and a warning.
func TestBadInput(t *testing.T) {
	v12 := validFile(t, "1.2", 3) // header 227, VLRs: Extra Bytes, GeoKeys
	v14 := validFile(t, "1.4", 7) // header 375
	put16 := func(b []byte, off int, v uint16) { le.PutUint16(b[off:], v) }
	put32 := func(b []byte, off int, v uint32) { le.PutUint32(b[off:], v) }
	put64 := func(b []byte, off int, v uint64) { le.PutUint64(b[off:], v) }
	tests := []struct {
		name   string
		base   []byte
		mutate func(b []byte) []byte
		field  string // FormatError or UnsupportedError field, "" when it reads
		offset int64
		warn   string // expected warning when it reads
		count  int    // points read when it reads
	}{
		{"empty", v12, func(b []byte) []byte { return nil }, "file signature", 0, "", 0},
		{"bad signature", v12, func(b []byte) []byte { b[0] = 'X'; return b }, "file signature", 0, "", 0},
		{"truncated header", v12, func(b []byte) []byte { return b[:100] }, "public header block", 4, "", 0},
		{"truncated in a VLR", v12, func(b []byte) []byte { return b[:227+54+10] }, "VLR 0 data", 227 + 54, "", 0},
		{"version 2.0", v12, func(b []byte) []byte { b[24] = 2; return b }, "version", 24, "", 0},
		{"version 1.9", v12, func(b []byte) []byte { b[25] = 9; return b }, "version", 24, "", 0},
		{"header size below 1.2's", v12, func(b []byte) []byte { put16(b, 94, 200); return b }, "header size", 94, "", 0},
		{"header size below 1.4's", v14, func(b []byte) []byte { put16(b, 94, 300); return b }, "header size", 94, "", 0},
		{"header size past the file", v12, func(b []byte) []byte { put16(b, 94, 60000); return b }, "public header block", 227, "", 0},
		{"point offset inside header", v12, func(b []byte) []byte { put32(b, 96, 100); return b }, "offset to point data", 96, "", 0},
		{"point offset past the file", v12, func(b []byte) []byte { put32(b, 96, 1<<31); return b }, "offset to point data", 96, "", 0},
		{"LAZ bit", v12, func(b []byte) []byte { b[104] |= 0x80; return b }, "point data format", 104, "", 0},
		{"point format 11", v12, func(b []byte) []byte { b[104] = 11; return b }, "point data format", 104, "", 0},
		{"X scale 0", v12, func(b []byte) []byte { put64(b, 131, 0); return b }, "X scale factor", 131, "", 0},
		{"Y scale NaN", v14, func(b []byte) []byte { put64(b, 139, math.Float64bits(math.NaN())); return b }, "Y scale factor", 139, "", 0},
		{"Z offset infinite", v12, func(b []byte) []byte { put64(b, 171, math.Float64bits(math.Inf(-1))); return b }, "Z offset", 171, "", 0},
		{"record length below format", v12, func(b []byte) []byte { put16(b, 105, 30); return b }, "point data record length", 105, "", 0},
		{"Extra Bytes past record length", v12, func(b []byte) []byte { put16(b, 105, 35); return b }, "Extra Bytes descriptor 0", 227 + 54, "", 0},
		{"Extra Bytes VLR not whole descriptors", v12, func(b []byte) []byte { put16(b, 227+20, 191); return b }, "Extra Bytes VLR length", 227 + 54, "", 0},
		{"VLR length past point data", v12, func(b []byte) []byte { put16(b, 227+20, 60000); return b }, "", 0, "VLR 0 (LASF_Spec/4) at byte offset 227: record length 60000 runs past the point data", 20},
		{"huge VLR count", v12, func(b []byte) []byte { put32(b, 100, 1<<31); return b }, "", 0, "header promises 2147483648 VLRs (byte offset 100) but only 2 fit", 20},
		{"more points than the file holds", v12, func(b []byte) []byte { put32(b, 107, 1<<31); return b }, "", 0, "header promises 2147483648 points (number of point records, byte offset 107), 20 present", 20},
		{"1.4 count past the file", v14, func(b []byte) []byte { put64(b, 247, 1<<60); put32(b, 107, 0); return b }, "", 0, "header promises 1152921504606846976 points (number of point records, byte offset 247), 20 present", 20},
		{"truncated mid-record", v12, func(b []byte) []byte { return b[:len(b)-10] }, "", 0, "header promises 20 points (number of point records, byte offset 107), 19 present", 19},
		{"legacy and 64-bit counts differ", v14, func(b []byte) []byte { put32(b, 107, 7); return b }, "", 0, "legacy point count 7 (byte offset 107) disagrees with the 64-bit count 20 (byte offset 247); using the legacy count", 7},
		{"EVLRs past the end", v14, func(b []byte) []byte { put64(b, 235, 1<<40); put32(b, 243, 3); return b }, "", 0, "EVLRs start at byte offset 1099511627776, past the end of the file", 20},
		{"EVLR length past the end", v14, func(b []byte) []byte {
			ev := appendVLR(nil, &VLR{RecordID: 1}, true)
			put64(ev, 20, 1<<50)
			put64(b, 235, uint64(len(b)))
			put32(b, 243, 1)
			return append(b, ev...)
		}, "", 0, "EVLR 0 (/1) at byte offset", 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.mutate(bytes.Clone(tt.base))
			// Both a plain stream and a seeker must give the same verdict.
			for _, r := range []interface{ Read([]byte) (int, error) }{bytes.NewBuffer(bytes.Clone(b)), bytes.NewReader(b)} {
				c, err := Decode(r)
				if tt.field != "" {
					var fe *FormatError
					var ue *UnsupportedError
					switch {
					case errors.As(err, &fe):
						if fe.Field != tt.field || fe.Offset != tt.offset {
							t.Errorf("%T: got error on %q at %d (%v), want %q at %d", r, fe.Field, fe.Offset, err, tt.field, tt.offset)
						}
					case errors.As(err, &ue):
						if ue.Field != tt.field || ue.Offset != tt.offset {
							t.Errorf("%T: got unsupported %q at %d (%v), want %q at %d", r, ue.Field, ue.Offset, err, tt.field, tt.offset)
						}
					default:
						t.Errorf("%T: got %v, want a FormatError or UnsupportedError on %q", r, err, tt.field)
					}
					if strings.HasPrefix(tt.name, "truncated") && !errors.Is(err, io.ErrUnexpectedEOF) {
						t.Errorf("%T: error %v does not wrap io.ErrUnexpectedEOF", r, err)
					}
					if err != nil && !strings.HasPrefix(err.Error(), "las: ") {
						t.Errorf("error %q lacks the las: prefix", err)
					}
					continue
				}
				var salvaged []string
				if short := strings.Contains(tt.warn, "present"); short {
					// A file cut short is an error unless salvaged.
					var se *codec.ShortError
					if !errors.As(err, &se) || !errors.Is(err, io.ErrUnexpectedEOF) || !strings.Contains(err.Error(), tt.warn) {
						t.Fatalf("%T: got error %v, want a ShortError containing %q", r, err, tt.warn)
					}
					var again io.Reader = bytes.NewReader(b)
					if _, ok := r.(*bytes.Buffer); ok {
						again = bytes.NewBuffer(bytes.Clone(b))
					}
					c, err = Decode(again, pcio.ReadOptions{Salvage: true, Warn: func(err error) { salvaged = append(salvaged, err.Error()) }})
				}
				if err != nil {
					t.Fatalf("%T: got error %v, want warning %q", r, err, tt.warn)
				}
				ws := append(InfoOf(&c.Meta).Warnings, salvaged...)
				found := false
				for _, w := range ws {
					found = found || strings.Contains(w, tt.warn)
				}
				if !found {
					t.Errorf("%T: got warnings %q, want one containing %q", r, ws, tt.warn)
				}
				if c.Len() != tt.count {
					t.Errorf("%T: got %d points, want %d", r, c.Len(), tt.count)
				}
			}
		})
	}
}

// TestUndescribedAndScaledExtraBytes reads record bytes that no Extra
// Bytes descriptor covers (as uint8 columns) and a scaled descriptor (as
// float64 with scale and offset applied), and writes both back byte for byte.
func TestUndescribedAndScaledExtraBytes(t *testing.T) {
	b := validFile(t, "1.2", 1) // format 1 (28 bytes) + NeighborCount uint32
	_, rl, n, _, _, recs := rawRecords(t, b)
	// A scaled int32: scale 0.25, offset -100 (options bits 3 and 4).
	d := b[227+54:]
	d[ebType], d[ebOptions] = 6, 1<<3|1<<4
	putF64(d[ebScale:], 0.25)
	putF64(d[ebOffset:], -100)
	c, err := Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	a := c.Attr(core.DimNeighborCount)
	if a == nil || a.Type != core.Float64 {
		t.Fatalf("scaled extra bytes: got column %+v, want float64", a)
	}
	for i := range int(n) {
		raw := int32(le.Uint32(recs[i*rl+28:]))
		if want := float64(raw)*0.25 - 100; a.Float64(i) != want {
			t.Fatalf("point %d: got %v, want %v", i, a.Float64(i), want)
		}
	}
	roundTrip(t, "scaled extra bytes", c, b)

	// The same file with 3 more bytes per record and no descriptor for them.
	var grown []byte
	grown = append(grown, b[:int(le.Uint32(b[96:]))]...)
	le.PutUint16(grown[105:], uint16(rl+3))
	for i := range int(n) {
		grown = append(grown, recs[i*rl:(i+1)*rl]...)
		grown = append(grown, byte(i), 0xab, byte(255-i))
	}
	c, err = Decode(bytes.NewReader(grown))
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range []func(i int) float64{func(i int) float64 { return float64(i) }, func(int) float64 { return 0xab }, func(i int) float64 { return float64(255 - i) }} {
		name := "ExtraByte" + string(rune('4'+k)) // bytes 0-3 are NeighborCount's
		a := c.Attr(name)
		if a == nil || a.Type != core.Uint8 {
			t.Fatalf("undescribed byte %d: got column %+v, want uint8 %s; columns %v", k, a, name, names(c))
		}
		for i := range int(n) {
			if a.Float64(i) != want(i) {
				t.Fatalf("point %d %s: got %v, want %v", i, name, a.Float64(i), want(i))
			}
		}
	}
	if ws := InfoOf(&c.Meta).Warnings; len(ws) != 1 || !strings.Contains(ws[0], "describe 4 of the 7 bytes") {
		t.Errorf("got warnings %q, want one about 4 of 7 bytes described", ws)
	}
	roundTrip(t, "undescribed extra bytes", c, grown)

	// A new column after them: they get data type 0 descriptors (size 1,
	// named as their columns) and read back under the same names.
	cid := core.NewAttribute(core.DimClusterID, core.Int64, c.Len())
	cid.SetFloat64(3, 42)
	c.Attrs = append(c.Attrs, cid)
	_, back := encode(t, c, "")
	eb := ebVLRs(InfoOf(&back.Meta))[0].Data
	if len(eb) != 5*descriptorSize || eb[descriptorSize+ebType] != 0 || eb[descriptorSize+ebOptions] != 1 || eb[4*descriptorSize+ebType] != 8 {
		t.Fatalf("Extra Bytes after adding ClusterID: %d descriptors, second of type %d size %d, last of type %d; want 5, 0, 1, 8",
			len(eb)/descriptorSize, eb[descriptorSize+ebType], eb[descriptorSize+ebOptions], eb[4*descriptorSize+ebType])
	}
	if ws := InfoOf(&back.Meta).Warnings; len(ws) != 0 {
		t.Errorf("warnings %q after describing every byte", ws)
	}
	sameCloud(t, "undescribed bytes then ClusterID", back, c)
}

// TestZeroCountWithPoints reads headers that promise no points over point
// data that holds some (LAS 1.2 and 1.4, LAZ; points by return set or
// cleared): an error naming the count field, and, salvaged, the points
// with one warning. A stream without points by return cannot tell.
func TestZeroCountWithPoints(t *testing.T) {
	lazFile := func() []byte {
		var buf bytes.Buffer
		c, err := Decode(bytes.NewReader(validFile(t, "1.4", 6)))
		if err != nil {
			t.Fatal(err)
		}
		if err := EncodeLAZ(&buf, c, ""); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	for _, tc := range []struct {
		name         string
		base         []byte
		keepByReturn bool
		want         string
		offset       int64
	}{
		{"1.2, by return set", validFile(t, "1.2", 3), true, "the header promises 0 points, but the point data holds 20 records and the points by return sum to 20", offLegacyCount},
		{"1.2, by return cleared", validFile(t, "1.2", 3), false, "the header promises 0 points, but the point data holds 20 records", offLegacyCount},
		{"1.4", validFile(t, "1.4", 7), true, "the point data holds 20 records and the points by return sum to 20", offCount},
		{"LAZ", lazFile(), true, "compressed bytes and the points by return sum to 20", offCount},
	} {
		b := bytes.Clone(tc.base)
		le.PutUint32(b[offLegacyCount:], 0)
		if b[25] >= 4 {
			le.PutUint64(b[offCount:], 0)
		}
		if !tc.keepByReturn {
			clear(b[offLegacyByRet : offLegacyByRet+20])
		}
		for _, stream := range []bool{false, true} {
			open := func() io.Reader {
				if stream {
					return bytes.NewBuffer(bytes.Clone(b))
				}
				return bytes.NewReader(b)
			}
			c, err := Decode(open())
			if stream && !tc.keepByReturn {
				if err != nil || c.Len() != 0 {
					t.Errorf("%s, stream: got %v, %v; want 0 points (a stream cannot see the data)", tc.name, c, err)
				}
				continue
			}
			want := tc.want
			if stream && tc.name != "LAZ" { // LAZ reads a stream into memory
				want = "the header promises 0 points, but the points by return sum to 20"
			}
			var fe *FormatError
			if !errors.As(err, &fe) || fe.Field != "number of point records" || fe.Offset != tc.offset || !strings.Contains(err.Error(), want) {
				t.Errorf("%s, stream %v: got %v, want an error on the number of point records at %d saying %q", tc.name, stream, err, tc.offset, want)
				continue
			}
			var warns []string
			c, err = Decode(open(), pcio.ReadOptions{Salvage: true, Warn: func(err error) { warns = append(warns, err.Error()) }})
			if err != nil || c.Len() != 20 || len(warns) != 1 || !strings.Contains(warns[0], want) {
				t.Errorf("%s, stream %v: salvage gave %v, %v, warnings %q; want 20 points and the warning", tc.name, stream, c, err, warns)
			}
		}
	}
}
