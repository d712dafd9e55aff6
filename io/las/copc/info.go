package copc

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/internal/codec"
)

var le = binary.LittleEndian

// Identifiers of the COPC records (COPC 1.0, "info VLR" and "hierarchy VLR").
const (
	// UserID is the user ID of both COPC records.
	UserID = "copc"
	// InfoRecordID is the record ID of the info VLR.
	InfoRecordID = 1
	// HierarchyRecordID is the record ID of the hierarchy EVLR.
	HierarchyRecordID = 1000
	// InfoSize is the size of the info VLR's payload.
	InfoSize = 160
	// InfoOffset is where the info VLR's header starts: right after the
	// 375-byte LAS 1.4 header.
	InfoOffset = 375
	// headSize is how much of a file Open reads first: the LAS 1.4 header,
	// the info VLR's 54-byte header and its payload (the spec's 589 bytes).
	headSize = InfoOffset + 54 + InfoSize
)

// Info is the payload of the COPC info VLR: the octree's cube, the point
// spacing at its root, where the root hierarchy page is, and the GPS time
// range. Coordinates are actual (scaled and offset) values.
type Info struct {
	// Center is the centre of the root node's cube.
	Center [3]float64
	// Halfsize is the distance from the centre to each face of the cube.
	Halfsize float64
	// Spacing is the distance between points at the root; it halves at
	// each level.
	Spacing float64
	// RootHierOffset and RootHierSize locate the root hierarchy page.
	RootHierOffset, RootHierSize uint64
	// GpsTimeMin and GpsTimeMax bound the points' GpsTime.
	GpsTimeMin, GpsTimeMax float64
}

// parseInfo decodes the 160-byte payload b, which starts at byte offset
// off of the file.
func parseInfo(b []byte, off int64) (Info, error) {
	if len(b) != InfoSize {
		return Info{}, formatErr("info VLR", off, "payload of %d bytes, want %d", len(b), InfoSize)
	}
	f := func(i int) float64 { return math.Float64frombits(le.Uint64(b[8*i:])) }
	in := Info{
		Center:         [3]float64{f(0), f(1), f(2)},
		Halfsize:       f(3),
		Spacing:        f(4),
		RootHierOffset: le.Uint64(b[40:]),
		RootHierSize:   le.Uint64(b[48:]),
		GpsTimeMin:     f(7),
		GpsTimeMax:     f(8),
	}
	for k, v := range []float64{in.Center[0], in.Center[1], in.Center[2], in.Halfsize, in.Spacing} {
		if math.IsNaN(v) || math.IsInf(v, 0) || (k >= 3 && v <= 0) {
			return Info{}, formatErr("info VLR", off+8*int64(k), "%s is %g", [...]string{"center_x", "center_y", "center_z", "halfsize", "spacing"}[k], v)
		}
	}
	return in, nil
}

// marshal encodes the payload, reserved words zero.
func (in *Info) marshal() []byte {
	b := make([]byte, InfoSize)
	for i, v := range []float64{in.Center[0], in.Center[1], in.Center[2], in.Halfsize, in.Spacing} {
		le.PutUint64(b[8*i:], math.Float64bits(v))
	}
	le.PutUint64(b[40:], in.RootHierOffset)
	le.PutUint64(b[48:], in.RootHierSize)
	le.PutUint64(b[56:], math.Float64bits(in.GpsTimeMin))
	le.PutUint64(b[64:], math.Float64bits(in.GpsTimeMax))
	return b
}

// Cube returns the root node's cube.
func (in *Info) Cube() core.Bounds {
	var b core.Bounds
	for k := range 3 {
		b.Min[k] = in.Center[k] - in.Halfsize
		b.Max[k] = in.Center[k] + in.Halfsize
	}
	return b
}

// LevelSpacing returns the point spacing at octree level d: Spacing / 2^d.
func (in *Info) LevelSpacing(d int) float64 { return math.Ldexp(in.Spacing, -d) }

// FormatError reports malformed COPC structure: the byte offset in the
// file, and the record and what is wrong with it in the message.
type FormatError = codec.FormatError

// formatErr returns a FormatError about field at byte offset off.
func formatErr(field string, off int64, format string, args ...any) error {
	return codec.Errorf("copc", codec.Pos{Offset: off}, "%s: %s", field, fmt.Sprintf(format, args...))
}
