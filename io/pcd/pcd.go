// Package pcd reads and writes PCL's PCD files: version 0.7 (and the
// 0.5/0.6 headers, which lack some lines), DATA ascii, binary and
// binary_compressed, whose LZF compression this package implements.
// Fields x, y, z become the cloud's coordinates; rgba (packed colour)
// becomes Red, Green, Blue and Alpha (uint8) and packs back bit for bit;
// rgb becomes Red, Green and Blue, its high byte (PCL's padding, no alpha)
// kept in the header as Field.Pad;
// intensity, normal_x..z and curvature take PDAL's names; a field with
// COUNT n > 1 becomes n columns Name_0 ... Name_{n-1}. The header (sizes,
// types, counts, WIDTH/HEIGHT of organised clouds, VIEWPOINT) is kept in
// Meta.Extra["pcd"] as a *Header so that a round trip is exact. NaN points
// of organised clouds are kept. The package registers the "pcd" format with
// io/pcio.
package pcd

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/internal/codec"
	"github.com/pctk/pctk/io/pcio"
)

const codecName = "pcd"

// variants are the Encode variants, in the order of ASCII, Binary, Compressed.
var variants = []string{"ascii", "binary", "compressed"}

// FormatError reports a malformed PCD file, with the line (header, ascii
// data) or byte offset (binary data) where it was found.
type FormatError = codec.FormatError

// UnsupportedError reports a valid PCD file that uses a feature this
// package does not implement.
type UnsupportedError = codec.UnsupportedError

func init() {
	pcio.Register(&pcio.Format{
		Name:       codecName,
		Extensions: []string{".pcd"},
		Magic:      [][]byte{[]byte("# .PCD"), []byte("VERSION")},
		Variants:   variants,
		Decode:     Decode,
		NewDecoder: func(r io.Reader, opts ...pcio.ReadOptions) (pcio.Decoder, error) { return NewDecoder(r, opts...) },
		Encode:     Encode,
		NewEncoder: func(w io.Writer, h *pcio.Header, variant string) (pcio.Encoder, error) {
			return NewEncoder(w, h, variant)
		},
		Describe: Describe,
	})
}

// Describe lists the PCD header facts of a cloud read from PCD.
func Describe(m *core.Metadata) []pcio.Fact {
	h, ok := m.Extra[codecName].(*Header)
	if !ok {
		return nil
	}
	var fields []string
	for _, f := range h.Fields {
		s := fmt.Sprintf("%s %c%d", f.Name, f.Type, f.Size)
		if f.Count > 1 {
			s += fmt.Sprintf("x%d", f.Count)
		}
		fields = append(fields, s)
	}
	var vp []string
	for _, v := range h.Viewpoint {
		vp = append(vp, strconv.FormatFloat(v, 'g', -1, 64))
	}
	org := "unorganized"
	if h.Height > 1 {
		org = "organized"
	}
	return []pcio.Fact{
		{Key: "version", Value: h.Version},
		{Key: "data", Value: h.Data},
		{Key: "fields", Value: strings.Join(fields, ", ")},
		{Key: "width x height", Value: fmt.Sprintf("%d x %d (%s)", h.Width, h.Height, org)},
		{Key: "viewpoint", Value: strings.Join(vp, " ")},
	}
}
