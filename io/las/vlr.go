package las

import (
	"fmt"
	"io"
)

const (
	vlrHeaderSize  = 54
	evlrHeaderSize = 60
)

// Well-known VLR user IDs and record IDs.
const (
	userSpec       = "LASF_Spec"
	userProjection = "LASF_Projection"
	recExtraBytes  = 4
	recWaveform    = 65535 // LASF_Spec EVLR holding the waveform data packets
	recGeoKeys     = 34735
	recGeoDoubles  = 34736
	recGeoASCII    = 34737
	recWKT         = 2112
)

// VLR is a variable length record or extended VLR, kept verbatim.
type VLR struct {
	Reserved    uint16
	UserID      [16]byte
	RecordID    uint16
	Description [32]byte
	Data        []byte
}

// User returns the user ID as a string.
func (v *VLR) User() string { return cString(v.UserID[:]) }

// Is reports whether v has the given user ID and record ID.
func (v *VLR) Is(user string, record uint16) bool { return v.RecordID == record && v.User() == user }

// String describes v in one line: user, record, length and description.
func (v *VLR) String() string {
	return fmt.Sprintf("%s/%d %d bytes %q", v.User(), v.RecordID, len(v.Data), cString(v.Description[:]))
}

// newVLR returns a VLR with the given ids, description and data.
func newVLR(user string, record uint16, desc string, data []byte) VLR {
	v := VLR{RecordID: record, Data: data}
	setCString(v.UserID[:], user)
	setCString(v.Description[:], desc)
	return v
}

// parseVLRHeader decodes a VLR (extended when ext) header from b and
// returns the record with no data and the data length.
func parseVLRHeader(b []byte, ext bool) (VLR, uint64) {
	v := VLR{Reserved: le.Uint16(b), RecordID: le.Uint16(b[18:])}
	copy(v.UserID[:], b[2:18])
	var n uint64
	if ext {
		n = le.Uint64(b[20:])
		copy(v.Description[:], b[28:60])
	} else {
		n = uint64(le.Uint16(b[20:]))
		copy(v.Description[:], b[22:54])
	}
	return v, n
}

// appendVLR appends the encoding of v (extended when ext) to b.
func appendVLR(b []byte, v *VLR, ext bool) []byte {
	var h [evlrHeaderSize]byte
	le.PutUint16(h[0:], v.Reserved)
	copy(h[2:18], v.UserID[:])
	le.PutUint16(h[18:], v.RecordID)
	n := vlrHeaderSize
	if ext {
		le.PutUint64(h[20:], uint64(len(v.Data)))
		copy(h[28:60], v.Description[:])
		n = evlrHeaderSize
	} else {
		le.PutUint16(h[20:], uint16(len(v.Data)))
		copy(h[22:54], v.Description[:])
	}
	b = append(b, h[:n]...)
	return append(b, v.Data...)
}

// readN reads exactly n bytes, growing its buffer only as data arrives so
// that a lying length costs no more memory than the input holds. On error
// it returns the bytes it got.
func readN(r io.Reader, n uint64) ([]byte, error) {
	const step = 1 << 20
	if n <= step {
		b := make([]byte, n)
		k, err := io.ReadFull(r, b)
		return b[:k], err
	}
	b, err := io.ReadAll(io.LimitReader(r, int64(min(n, 1<<62))))
	if err == nil && uint64(len(b)) < n {
		err = io.ErrUnexpectedEOF
	}
	return b, err
}

// findVLR returns the index of the first VLR with the given ids, or -1.
func findVLR(vs []VLR, user string, record uint16) int {
	for i := range vs {
		if vs[i].Is(user, record) {
			return i
		}
	}
	return -1
}
