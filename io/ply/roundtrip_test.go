package ply

import (
	"bytes"
	"os"
	"testing"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/internal/codectest"
)

// sharedDirs are the folders of real PLY files, relative to this package.
var sharedDirs = []string{"../../../shared/data/ply", "../../../shared/data/pdal/ply"}

// brokenShared are the shared files that are not valid PLY, with the error
// each must give.
var brokenShared = map[string]string{
	// Zero bytes.
	"empty_invalid.ply": "ply: line 1: reading magic: unexpected EOF",
	// The header declares a vertex list the data lacks.
	"issue623.ply": `ply: line 14: bad uint8 value "7.941797"`,
	// Truncated: 70051 vertices of 31 bytes need 2171581 bytes.
	"pond.0.ply": "ply: file cut short at byte offset 2171764: header promises 70051 vertices, 70048 present",
}

func sharedFiles(t testing.TB) []string { return codectest.SharedFiles(t, sharedDirs, "*.ply") }

// TestRoundTripShared reads every shared PLY file and writes it in all three
// encodings; each must read back to the same points, attributes, header
// and (PLY) element data, bit for bit. Broken files must give their error.
func TestRoundTripShared(t *testing.T) {
	codecUnderTest.RoundTripFiles(t, sharedFiles(t), brokenShared, variants)
}

var codecUnderTest = codectest.Codec{Decode: Decode, Encode: Encode, DiffMeta: diffHeader}

var attrNames = codectest.AttrNames

// diffHeader compares the PLY headers of a and b: elements, their
// properties and data, obj_info lines.
func diffHeader(a, b *core.Cloud, nanBits bool) string {
	ha, _ := a.Meta.Extra[codecName].(*Header)
	hb, _ := b.Meta.Extra[codecName].(*Header)
	if (ha == nil) != (hb == nil) {
		return "ply header missing"
	}
	if ha == nil {
		return ""
	}
	if len(ha.Elements) != len(hb.Elements) {
		return sprintf("got %d elements, want %d", len(hb.Elements), len(ha.Elements))
	}
	for i, ea := range ha.Elements {
		eb := hb.Elements[i]
		if ea.Name != eb.Name || ea.Count != eb.Count || sprintf("%v", ea.Props) != sprintf("%v", eb.Props) {
			return sprintf("element %d: got %s %d %v, want %s %d %v", i, eb.Name, eb.Count, eb.Props, ea.Name, ea.Count, ea.Props)
		}
		if !sameData(ea, ea.Data, eb.Data, nanBits) || sprintf("%v", ea.ListOffsets) != sprintf("%v", eb.ListOffsets) {
			return sprintf("element %s: data differs", ea.Name)
		}
	}
	if sprintf("%q", ha.ObjInfo) != sprintf("%q", hb.ObjInfo) {
		return sprintf("got obj_info %q, want %q", hb.ObjInfo, ha.ObjInfo)
	}
	return ""
}

// TestBinaryIdentical checks that a binary file read and written back in its
// own encoding is the same file, byte for byte: header and data.
func TestBinaryIdentical(t *testing.T) {
	n := 0
	for _, path := range sharedFiles(t) {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(raw[:min(len(raw), 64)], []byte("format binary")) {
			continue
		}
		c, err := Decode(bytes.NewReader(raw))
		if err != nil {
			continue // broken files are covered by TestRoundTripShared
		}
		var buf bytes.Buffer
		if err := Encode(&buf, c, ""); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), raw) {
			t.Errorf("%s: rewritten file differs (%d bytes, want %d)", path, buf.Len(), len(raw))
		}
		n++
	}
	if n < 3 {
		t.Errorf("compared %d binary files, want at least 3", n)
	}
}

// value is one value of element data.
type value struct {
	t    core.Type
	bits uint64
}

// recorder is a sink that keeps the values it is given.
type recorder struct{ vals []value }

func (r *recorder) put(t core.Type, v uint64) { r.vals = append(r.vals, value{t, v}) }
func (r *recorder) end()                      {}

// values lists the values of element data (the list properties only, for
// the vertex element).
func values(e *Element, data []byte) []value {
	src, rec := &blobSource{b: data}, &recorder{}
	for range e.Count {
		if e.Name != vertexName {
			if copyRecord(src, rec, e) != nil {
				break
			}
			continue
		}
		for _, p := range e.Props {
			if p.IsList() && copyList(src, rec, p) != nil {
				break
			}
		}
	}
	return rec.vals
}

// sameData compares element data value by value (text encodings carry no
// NaN payloads).
func sameData(e *Element, a, b []byte, nanBits bool) bool {
	if bytes.Equal(a, b) {
		return true
	}
	va, vb := values(e, a), values(e, b)
	if nanBits || len(va) != len(vb) {
		return false
	}
	for i := range va {
		if va[i].t != vb[i].t || !codectest.SameBits(va[i].bits, vb[i].bits, va[i].t, false) {
			return false
		}
	}
	return true
}
