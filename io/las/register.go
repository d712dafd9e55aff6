package las

import (
	"fmt"
	"io"
	"strings"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/pcio"
)

func init() {
	las := &pcio.Format{
		Name:       "las",
		Extensions: []string{".las"},
		Magic:      [][]byte{[]byte("LASF")},
		Refine:     func(head []byte) bool { return !compressed(head) },
		Variants:   Variants,
		Decode:     Decode,
		NewDecoder: func(r io.Reader, opts ...pcio.ReadOptions) (pcio.Decoder, error) { return NewDecoder(r, opts...) },
		Encode:     Encode,
		NewEncoder: func(w io.Writer, h *pcio.Header, variant string) (pcio.Encoder, error) {
			return NewEncoder(w, h, variant)
		},
		Describe: Describe,
	}
	pcio.Register(las)
	// LAZ reads as LAS does (the decoder sees the compression) and writes
	// compressed; sniffing tells the two apart by the point format byte, so
	// that a LAZ input is named laz and "-" as OUT keeps it compressed.
	laz := *las
	laz.Name, laz.Extensions, laz.Refine = "laz", []string{".laz"}, compressed
	laz.Encode = EncodeLAZ
	laz.NewEncoder = func(w io.Writer, h *pcio.Header, variant string) (pcio.Encoder, error) {
		return NewLAZEncoder(w, h, variant)
	}
	pcio.Register(&laz)
}

// WithOptions returns f, when it is "las" or "laz", writing with the
// options o; any other f, or o that asks for nothing, as it is: how a
// command passes --scale, --offset, --point-format, --las-version and
// --extra-dims to whichever format OUT turned out to be. With a scale or
// offset "auto" the format has no streaming encoder (NewEncoder refuses
// it), so a conversion reads the cloud whole.
func WithOptions(f *pcio.Format, o *WriteOptions) *pcio.Format {
	if f == nil || (f.Name != "las" && f.Name != "laz") || o.IsZero() {
		return f
	}
	g := *f
	g.Encode, g.NewEncoder = o.Encode, func(w io.Writer, h *pcio.Header, variant string) (pcio.Encoder, error) {
		return o.NewEncoder(w, h, variant)
	}
	if f.Name == "laz" {
		g.Encode, g.NewEncoder = o.EncodeLAZ, func(w io.Writer, h *pcio.Header, variant string) (pcio.Encoder, error) {
			return o.NewLAZEncoder(w, h, variant)
		}
	}
	if o.NeedsBounds() {
		g.NewEncoder = nil
	}
	return &g
}

// compressed reports whether the first bytes of a LAS file mark its points
// as LASzip-compressed (bits 7 or 6 of the point format byte); a head too
// short to tell is plain LAS, whose decoder names what is missing.
func compressed(head []byte) bool {
	return len(head) > offPointFormat && head[offPointFormat]&lazBits != 0
}

// Describe lists the LAS header facts of a cloud read from LAS: version,
// point format, record length, counts, scale and offset, bounds, identity
// fields, CRS, VLRs, Extra Bytes and warnings.
func Describe(m *core.Metadata) []pcio.Fact {
	info := InfoOf(m)
	if info == nil {
		return nil
	}
	h := &info.Header
	var fs []pcio.Fact
	add := func(k, format string, args ...any) {
		fs = append(fs, pcio.Fact{Key: k, Value: fmt.Sprintf(format, args...)})
	}
	add("LAS version", "%s", h.Version())
	add("point format", "%d", h.pointFormat())
	add("point record length", "%d bytes (%d extra)", h.RecordLength, int(h.RecordLength)-formatSizes[min(h.pointFormat(), 10)])
	if h.isLAZ() {
		add("compression", "%s", lazSummary(info))
	}
	add("point count", "%d (legacy field %d)", h.PointCount(), h.LegacyCount)
	var byRet []string
	for i := range 15 {
		n := h.ByReturn[i]
		if h.VersionMinor < 4 || h.Count == 0 {
			if i >= 5 {
				break
			}
			n = uint64(h.LegacyByReturn[i])
		}
		if n != 0 {
			byRet = append(byRet, fmt.Sprintf("%d:%d", i+1, n))
		}
	}
	add("points by return", "%s", strings.Join(byRet, " "))
	add("scale", "%s", numbers(h.Scale))
	add("offset", "%s", numbers(h.Offset))
	add("header min", "%s", numbers(h.Min))
	add("header max", "%s", numbers(h.Max))
	add("generating software", "%s", strings.TrimSpace(cString(h.Software[:])))
	add("system identifier", "%s", strings.TrimSpace(cString(h.SystemID[:])))
	add("creation date", "day %d of %d", h.CreationDay, h.CreationYear)
	add("file source id", "%d", h.FileSourceID)
	add("global encoding", "0x%04x", h.GlobalEncoding)
	if crs := m.CRS; !crs.IsZero() {
		s := fmt.Sprintf("EPSG:%d", crs.EPSG)
		if crs.EPSG == 0 {
			s = "no EPSG code"
		}
		if len(crs.GeoKeys) > 0 {
			s += fmt.Sprintf(", %d GeoTIFF keys", max(len(crs.GeoKeys)/4-1, 0))
		}
		if crs.WKT != "" {
			w := crs.WKT
			if len(w) > 60 {
				w = w[:60] + "..."
			}
			s += ", WKT " + w
		}
		add("CRS", "%s", s)
	}
	for i := range info.VLRs {
		add(fmt.Sprintf("VLR %d", i), "%s", info.VLRs[i].String())
	}
	for i := range info.EVLRs {
		add(fmt.Sprintf("EVLR %d", i), "%s", info.EVLRs[i].String())
	}
	for _, ef := range info.Extra {
		if ef.Descriptor == nil {
			add("extra byte", "%s (undescribed)", ef.Columns[0])
			continue
		}
		t, _, size := descriptorShape(ef.Descriptor)
		add("extra bytes field", "%s: type %d (%v), %d bytes, options 0x%02x", strings.Join(ef.Columns, ", "), ef.Descriptor[ebType], t, size, ef.Descriptor[ebOptions])
	}
	for _, w := range info.Warnings {
		add("warning", "%s", w)
	}
	return fs
}

// numbers formats v as shortest decimals that read back exactly, without
// exponents where they are short (2000000, not 2e+06; pcio.FormatFloat).
func numbers(v [3]float64) string {
	var s [3]string
	for i, x := range v {
		s[i] = pcio.FormatFloat(x)
	}
	return strings.Join(s[:], " ")
}
