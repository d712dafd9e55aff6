package text

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/internal/codec"
	"github.com/pctk/pctk/io/pcio"
)

// Encoder writes a text cloud in chunks of points.
type Encoder struct {
	w       *bufio.Writer
	schema  []*core.Attribute
	delim   byte
	prec    int
	count   int64
	written int64
	err     error
}

// NewEncoder writes the comments, the header line (X Y Z and every
// attribute of h under its PDAL name) and, when the source had one, the
// count line, to w. The separator is o.Delim, else the source text file's,
// else def.
func NewEncoder(w io.Writer, h *pcio.Header, o Options, def byte) (*Encoder, error) {
	delim := o.Delim
	if src, ok := h.Meta.Extra[codecName].(*Header); ok && delim == 0 && src.Delim != 0 {
		delim = src.Delim
	}
	if delim == 0 {
		delim = def
	}
	switch delim {
	case ' ', '\t', ',', ';':
	default:
		return nil, fmt.Errorf("text: separator %q, want space, tab, ',' or ';'", delim)
	}
	if o.Precision < 0 {
		return nil, fmt.Errorf("text: negative precision %d", o.Precision)
	}
	e := &Encoder{w: bufio.NewWriterSize(w, 64<<10), schema: h.Schema, delim: delim, prec: o.Precision, count: h.Count}
	for _, c := range append(slices.Clip(h.Meta.Comments), codec.CRSComments(h.Meta.CRS)...) {
		for _, l := range strings.Split(c, "\n") {
			e.w.WriteString("# " + l + "\n")
		}
	}
	names := []string{core.DimX, core.DimY, core.DimZ}
	used := map[string]bool{core.DimX: true, core.DimY: true, core.DimZ: true}
	for _, a := range h.Schema {
		// A name that reads back as one already used ("x", or "r" next
		// to "Red") takes a suffix.
		base := cleanName(a.Name)
		n := base
		for k := 1; used[dimName(n)]; k++ {
			n = base + "_" + strconv.Itoa(k)
		}
		used[dimName(n)] = true
		names = append(names, n)
	}
	e.w.WriteString(strings.Join(names, string(delim)) + "\n")
	if src, ok := h.Meta.Extra[codecName].(*Header); ok && src.CountLine {
		e.w.WriteString(strconv.FormatInt(h.Count, 10) + "\n")
	}
	return e, nil
}

// cleanName makes a column name a header field, as read and as written:
// blanks, separators and quotes become '_'. (A header line stays one
// whatever its names: it has X, Y and Z.)
func cleanName(s string) string {
	b := []byte(codec.FieldName(s))
	for i, c := range b {
		if c == ',' || c == ';' || c == '"' || c == '\'' {
			b[i] = '_'
		}
	}
	return string(b)
}

// Write appends the points of c, whose attributes must be those of the
// header's schema, in order.
func (e *Encoder) Write(c *core.Cloud) error {
	if e.err != nil {
		return e.err
	}
	if err := codec.CheckWrite(codecName, c, e.schema, false, e.written, e.count, "points"); err != nil {
		e.err = err
		return err
	}
	coords := [3][]float64{c.X, c.Y, c.Z}
	// Lines formatted in parallel; a write error sticks in e.w and comes
	// out of Close.
	codec.WriteLines(e.w, c.Len(), func(b []byte, j int) []byte {
		for k, col := range coords {
			if k > 0 {
				b = append(b, e.delim)
			}
			b = e.appendFloat(b, col[j])
		}
		for _, a := range c.Attrs {
			b = append(b, e.delim)
			if a.Type.IsFloat() {
				b = e.appendFloat(b, a.Float64(j))
			} else {
				b = codec.AppendText(b, a.Type, a.Uint64(j))
			}
		}
		return b
	})
	e.written += int64(c.Len())
	return nil
}

// appendFloat appends v in the shortest form that reads back to the same
// float64, or with e.prec decimals.
func (e *Encoder) appendFloat(b []byte, v float64) []byte {
	if e.prec > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) {
		return strconv.AppendFloat(b, v, 'f', e.prec, 64)
	}
	return codec.AppendText(b, core.Float64, math.Float64bits(v))
}

// Close flushes. It fails when fewer points were written than announced.
func (e *Encoder) Close() error {
	if e.err != nil {
		return e.err
	}
	if e.written != e.count {
		return fmt.Errorf("text: %d points written, header announced %d", e.written, e.count)
	}
	return e.w.Flush()
}

// Encode writes c as text with default options and blanks between values.
func Encode(w io.Writer, c *core.Cloud) error { return EncodeOptions(w, c, Options{}, ' ') }

// EncodeOptions writes c as text with o; def is the separator when
// neither o nor the source says.
func EncodeOptions(w io.Writer, c *core.Cloud, o Options, def byte) error {
	e, err := NewEncoder(w, &pcio.Header{Count: int64(c.Len()), Schema: c.Attrs, Meta: c.Meta}, o, def)
	return codec.EncodeWhole(e, err, c)
}
