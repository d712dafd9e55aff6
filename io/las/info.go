package las

import "github.com/pctk/pctk/core"

// MetaKey is the key of a LAS cloud's *Info in core.Metadata.Extra.
const MetaKey = "las"

// Info is what the reader keeps of a LAS file besides the points, stored
// as a *Info under Meta.Extra["las"]. The writer uses it to write the file
// back losslessly: the same version, point format, scale and offset (so
// the raw integer coordinates are reproduced), header identity fields,
// VLRs and EVLRs in order, and the Extra Bytes layout.
type Info struct {
	// Header is the public header block as the file stated it.
	Header Header
	// VLRs and EVLRs are every variable length record, verbatim, in order.
	VLRs  []VLR
	EVLRs []VLR
	// Pad holds the bytes between the last VLR and the point data (for
	// example LAS 1.0's 0xDDCC start signature), verbatim.
	Pad []byte
	// Extra lays out the record bytes beyond the point format, in order.
	Extra []ExtraField
	// Warnings lists what was wrong with the file but could be read past.
	Warnings []string
}

// InfoOf returns the LAS information of a cloud read from LAS, or nil.
func InfoOf(m *core.Metadata) *Info {
	if m == nil || m.Extra == nil {
		return nil
	}
	info, _ := m.Extra[MetaKey].(*Info)
	return info
}

// PointFormat returns the point data format number (0-10), without the
// LAZ compression bits.
func (h *Header) pointFormat() int { return int(h.PointFormat & 0x3f) }
