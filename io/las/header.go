package las

import (
	"encoding/binary"
	"math"
)

var le = binary.LittleEndian

// Header sizes of the public header block by minor version.
const (
	headerSize12 = 227 // LAS 1.0, 1.1, 1.2
	headerSize13 = 235 // LAS 1.3: adds the start of waveform data
	headerSize14 = 375 // LAS 1.4: adds EVLRs and 64-bit counts
)

// Byte offsets of the public header fields that errors and patches name.
const (
	offHeaderSize   = 94
	offPointOffset  = 96
	offNumVLRs      = 100
	offPointFormat  = 104
	offRecordLength = 105
	offLegacyCount  = 107
	offLegacyByRet  = 111
	offScale        = 131
	offOffset       = 155
	offMaxX         = 179
	offWaveStart    = 227
	offEVLRStart    = 235
	offNumEVLRs     = 243
	offCount        = 247
	offByReturn     = 255
)

// Header is the LAS public header block, field by field as stored. Counts
// and bounds are as the file states them, not as the points are.
type Header struct {
	FileSourceID   uint16
	GlobalEncoding uint16
	GUID           [16]byte
	VersionMajor   uint8
	VersionMinor   uint8
	SystemID       [32]byte
	Software       [32]byte
	CreationDay    uint16
	CreationYear   uint16
	HeaderSize     uint16
	PointOffset    uint32
	NumVLRs        uint32
	// PointFormat is the point data format byte as stored; bits 6 and 7
	// mark LAZ compression.
	PointFormat    uint8
	RecordLength   uint16
	LegacyCount    uint32
	LegacyByReturn [5]uint32
	Scale          [3]float64
	Offset         [3]float64
	Max            [3]float64
	Min            [3]float64
	// WaveformStart is the start of the waveform data packet record (1.3+).
	WaveformStart uint64
	// EVLRStart and NumEVLRs locate the extended VLRs (1.4).
	EVLRStart uint64
	NumEVLRs  uint32
	// Count and ByReturn are the 64-bit point counts (1.4).
	Count    uint64
	ByReturn [15]uint64
	// Extra holds header bytes beyond the version's standard size, verbatim.
	Extra []byte
}

// minHeaderSize returns the standard header size of LAS 1.minor.
func minHeaderSize(minor uint8) int {
	switch {
	case minor >= 4:
		return headerSize14
	case minor == 3:
		return headerSize13
	}
	return headerSize12
}

// PointCount returns the number of point records the header promises: the
// legacy count when set (LAS 1.4 tells readers to prefer it when the two
// disagree), else the 64-bit count of LAS 1.4.
func (h *Header) PointCount() uint64 {
	if h.VersionMinor >= 4 && h.LegacyCount == 0 {
		return h.Count
	}
	return uint64(h.LegacyCount)
}

// Version returns "1.minor".
func (h *Header) Version() string {
	return string([]byte{'0' + h.VersionMajor%10, '.', '0' + h.VersionMinor%10})
}

// parseHeader decodes the standard part of the header from b, which holds
// at least the version's standard size.
func parseHeader(b []byte) *Header {
	h := &Header{
		FileSourceID:   le.Uint16(b[4:]),
		GlobalEncoding: le.Uint16(b[6:]),
		VersionMajor:   b[24],
		VersionMinor:   b[25],
		CreationDay:    le.Uint16(b[90:]),
		CreationYear:   le.Uint16(b[92:]),
		HeaderSize:     le.Uint16(b[offHeaderSize:]),
		PointOffset:    le.Uint32(b[offPointOffset:]),
		NumVLRs:        le.Uint32(b[offNumVLRs:]),
		PointFormat:    b[offPointFormat],
		RecordLength:   le.Uint16(b[offRecordLength:]),
		LegacyCount:    le.Uint32(b[offLegacyCount:]),
	}
	copy(h.GUID[:], b[8:24])
	copy(h.SystemID[:], b[26:58])
	copy(h.Software[:], b[58:90])
	for i := range 5 {
		h.LegacyByReturn[i] = le.Uint32(b[offLegacyByRet+4*i:])
	}
	for k := range 3 {
		h.Scale[k] = f64(b[offScale+8*k:])
		h.Offset[k] = f64(b[offOffset+8*k:])
		h.Max[k] = f64(b[offMaxX+16*k:])
		h.Min[k] = f64(b[offMaxX+8+16*k:])
	}
	if h.VersionMinor >= 3 {
		h.WaveformStart = le.Uint64(b[offWaveStart:])
	}
	if h.VersionMinor >= 4 {
		h.EVLRStart = le.Uint64(b[offEVLRStart:])
		h.NumEVLRs = le.Uint32(b[offNumEVLRs:])
		h.Count = le.Uint64(b[offCount:])
		for i := range 15 {
			h.ByReturn[i] = le.Uint64(b[offByReturn+8*i:])
		}
	}
	return h
}

// marshal encodes the header in HeaderSize bytes: the version's standard
// fields followed by Extra.
func (h *Header) marshal() []byte {
	b := make([]byte, int(h.HeaderSize))
	copy(b, "LASF")
	le.PutUint16(b[4:], h.FileSourceID)
	le.PutUint16(b[6:], h.GlobalEncoding)
	copy(b[8:24], h.GUID[:])
	b[24], b[25] = h.VersionMajor, h.VersionMinor
	copy(b[26:58], h.SystemID[:])
	copy(b[58:90], h.Software[:])
	le.PutUint16(b[90:], h.CreationDay)
	le.PutUint16(b[92:], h.CreationYear)
	le.PutUint16(b[offHeaderSize:], h.HeaderSize)
	le.PutUint32(b[offPointOffset:], h.PointOffset)
	le.PutUint32(b[offNumVLRs:], h.NumVLRs)
	b[offPointFormat] = h.PointFormat
	le.PutUint16(b[offRecordLength:], h.RecordLength)
	h.putCounts(b)
	for k := range 3 {
		putF64(b[offScale+8*k:], h.Scale[k])
		putF64(b[offOffset+8*k:], h.Offset[k])
	}
	h.putBounds(b)
	std := minHeaderSize(h.VersionMinor)
	if h.VersionMinor >= 3 {
		le.PutUint64(b[offWaveStart:], h.WaveformStart)
	}
	if h.VersionMinor >= 4 {
		le.PutUint64(b[offEVLRStart:], h.EVLRStart)
		le.PutUint32(b[offNumEVLRs:], h.NumEVLRs)
	}
	copy(b[std:], h.Extra)
	return b
}

// putCounts writes the legacy and (1.4) 64-bit point counts into a header
// image b; the encoder also uses it to patch them at Close.
func (h *Header) putCounts(b []byte) {
	le.PutUint32(b[offLegacyCount:], h.LegacyCount)
	for i := range 5 {
		le.PutUint32(b[offLegacyByRet+4*i:], h.LegacyByReturn[i])
	}
	if h.VersionMinor >= 4 {
		le.PutUint64(b[offCount:], h.Count)
		for i := range 15 {
			le.PutUint64(b[offByReturn+8*i:], h.ByReturn[i])
		}
	}
}

// putBounds writes Max and Min in the file's order (max X, min X, max Y, ...).
func (h *Header) putBounds(b []byte) {
	for k := range 3 {
		putF64(b[offMaxX+16*k:], h.Max[k])
		putF64(b[offMaxX+8+16*k:], h.Min[k])
	}
}

func f64(b []byte) float64       { return math.Float64frombits(le.Uint64(b)) }
func putF64(b []byte, v float64) { le.PutUint64(b, math.Float64bits(v)) }

// cString returns the bytes of b up to the first NUL, as a string.
func cString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// setCString stores s in the fixed-size field b, NUL-padded and truncated.
func setCString(b []byte, s string) {
	clear(b)
	copy(b, s)
}
