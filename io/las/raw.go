package las

// This file exports what readers and writers that handle point records
// themselves need (io/las/copc fetches and compresses the records of each
// octree node on its own).

// ParseHeader decodes the public header block at the start of b, which
// must hold at least the standard header size of the file's version.
func ParseHeader(b []byte) (*Header, error) {
	if len(b) < headerSize12 {
		return nil, formatErr("public header block", 0, "%d bytes is less than the %d of LAS 1.0", len(b), headerSize12)
	}
	if string(b[:4]) != "LASF" {
		return nil, formatErr("file signature", 0, "got %q, want \"LASF\"", b[:4])
	}
	if want := minHeaderSize(b[25]); len(b) < want {
		return nil, formatErr("public header block", 0, "%d bytes is less than the %d of LAS 1.%d", len(b), want, b[25])
	}
	return parseHeader(b), nil
}

// DataFormat returns the point data format number (0-10), without the LAZ
// compression bits.
func (h *Header) DataFormat() int { return h.pointFormat() }
