// Package ply reads and writes PLY (Stanford polygon) files: ascii,
// binary_little_endian and binary_big_endian, every scalar type and list
// properties. The vertex element becomes a core.Cloud: x, y, z the
// coordinates, other scalar properties attributes under PDAL's names where
// well known (red -> Red, nx -> NormalX, intensity -> Intensity). Everything
// else — other elements such as faces, vertex list properties, obj_info
// lines, the original property names and types — is kept in
// Meta.Extra["ply"] as a *Header, so a read-then-write round trip
// reproduces the file's data exactly. The package registers the "ply"
// format with io/pcio.
package ply

import (
	"fmt"
	"io"
	"strings"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/internal/codec"
	"github.com/pctk/pctk/io/pcio"
)

const codecName = "ply"

// variants are the Encode variants, in the order of ASCII, BinaryLE, BinaryBE.
var variants = []string{"ascii", "binary", "binary-be"}

// FormatError reports a malformed PLY file, with the byte offset (binary
// data) or line (header, ascii data) where it was found.
type FormatError = codec.FormatError

// UnsupportedError reports a valid PLY file that uses a feature this
// package does not implement.
type UnsupportedError = codec.UnsupportedError

func init() {
	pcio.Register(&pcio.Format{
		Name:       codecName,
		Extensions: []string{".ply"},
		Magic:      [][]byte{[]byte("ply\n"), []byte("ply\r\n"), []byte("ply \n"), []byte("ply \r\n")},
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

// Describe lists the PLY header facts of a cloud read from PLY: encoding,
// elements with their counts and properties, obj_info lines.
func Describe(m *core.Metadata) []pcio.Fact {
	h, ok := m.Extra[codecName].(*Header)
	if !ok {
		return nil
	}
	facts := []pcio.Fact{{Key: "encoding", Value: h.Encoding + " " + h.Version}}
	for _, e := range h.Elements {
		var props []string
		for _, p := range e.Props {
			if p.IsList() {
				props = append(props, fmt.Sprintf("%s (list %s %s)", p.Name, p.CountType, p.Type))
			} else {
				props = append(props, p.Name+" ("+p.Type+")")
			}
		}
		facts = append(facts, pcio.Fact{Key: "element " + e.Name, Value: fmt.Sprintf("%d: %s", e.Count, strings.Join(props, ", "))})
	}
	for _, o := range h.ObjInfo {
		facts = append(facts, pcio.Fact{Key: "obj_info", Value: o})
	}
	return facts
}
