package laz

import (
	"encoding/binary"
	"fmt"
)

var le = binary.LittleEndian

// The LASzip VLR's identity: user "laszip encoded", record 22204.
const (
	VLRUserID   = "laszip encoded"
	VLRRecordID = 22204
)

// Compressors of the LASzip VLR.
const (
	CompressorNone           = 0 // not compressed
	CompressorPointwise      = 1 // one stream of all points (LASzip 1.2r0 and before)
	CompressorPointwiseChunk = 2 // chunks of points, items interleaved (formats 0-5)
	CompressorLayeredChunk   = 3 // chunks, one stream per field layer (formats 6-10)
)

// VariableChunkSize in the VLR's chunk size field says that every chunk
// stores its own point count in the chunk table.
const VariableChunkSize = 0xFFFFFFFF

// DefaultChunkSize is LASzip's number of points per chunk.
const DefaultChunkSize = 50000

// Item types of LASzip (LASitem::Type).
const (
	ItemByte         = 0
	ItemPoint10      = 6
	ItemGPSTime11    = 7
	ItemRGB12        = 8
	ItemWavePacket13 = 9
	ItemPoint14      = 10
	ItemRGB14        = 11
	ItemRGBNIR14     = 12
	ItemWavePacket14 = 13
	ItemByte14       = 14
)

// Item is one part of a point record as LASzip codes it: its type, its size
// in bytes and the version of its codec.
type Item struct{ Type, Size, Version uint16 }

// layered reports whether the item is coded by the layered (v3/v4) codecs
// of point formats 6-10.
func (it Item) layered() bool {
	return it.Type >= ItemPoint14 && it.Type <= ItemByte14
}

// VLR is the LASzip VLR's payload.
type VLR struct {
	Compressor    uint16
	Coder         uint16 // 0: arithmetic, the only one
	VersionMajor  uint8
	VersionMinor  uint8
	VersionRev    uint16
	Options       uint32
	ChunkSize     uint32 // points per chunk, or VariableChunkSize
	SpecialEVLRs  int64  // number of special EVLRs, -1 when none (unused)
	SpecialOffset int64  // offset of special EVLRs, -1 when none (unused)
	Items         []Item
}

// FormatError reports a malformed LAZ structure at a byte offset of the
// file (or of the VLR payload, for VLR errors).
type FormatError struct {
	What   string
	Offset int64
	Msg    string
	Err    error
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("laz: %s at byte %d: %s", e.What, e.Offset, e.Msg)
}

func (e *FormatError) Unwrap() error { return e.Err }

// UnsupportedError reports valid LAZ that this package does not decode.
type UnsupportedError struct{ Msg string }

func (e *UnsupportedError) Error() string { return "laz: unsupported: " + e.Msg }

// ParseVLR reads the LASzip VLR payload b.
func ParseVLR(b []byte) (*VLR, error) {
	if len(b) < 34 {
		return nil, &FormatError{What: "LASzip VLR", Msg: fmt.Sprintf("%d bytes, want at least 34", len(b))}
	}
	v := &VLR{
		Compressor:    le.Uint16(b[0:]),
		Coder:         le.Uint16(b[2:]),
		VersionMajor:  b[4],
		VersionMinor:  b[5],
		VersionRev:    le.Uint16(b[6:]),
		Options:       le.Uint32(b[8:]),
		ChunkSize:     le.Uint32(b[12:]),
		SpecialEVLRs:  int64(le.Uint64(b[16:])),
		SpecialOffset: int64(le.Uint64(b[24:])),
	}
	n := int(le.Uint16(b[32:]))
	if len(b) < 34+6*n {
		return nil, &FormatError{What: "LASzip VLR", Offset: 32, Msg: fmt.Sprintf("%d items need %d bytes, the VLR has %d", n, 34+6*n, len(b))}
	}
	v.Items = make([]Item, n)
	for i := range v.Items {
		o := 34 + 6*i
		v.Items[i] = Item{le.Uint16(b[o:]), le.Uint16(b[o+2:]), le.Uint16(b[o+4:])}
	}
	return v, nil
}

// Marshal returns the VLR payload.
func (v *VLR) Marshal() []byte {
	b := make([]byte, 34+6*len(v.Items))
	le.PutUint16(b[0:], v.Compressor)
	le.PutUint16(b[2:], v.Coder)
	b[4], b[5] = v.VersionMajor, v.VersionMinor
	le.PutUint16(b[6:], v.VersionRev)
	le.PutUint32(b[8:], v.Options)
	le.PutUint32(b[12:], v.ChunkSize)
	le.PutUint64(b[16:], uint64(v.SpecialEVLRs))
	le.PutUint64(b[24:], uint64(v.SpecialOffset))
	le.PutUint16(b[32:], uint16(len(v.Items)))
	for i, it := range v.Items {
		o := 34 + 6*i
		le.PutUint16(b[o:], it.Type)
		le.PutUint16(b[o+2:], it.Size)
		le.PutUint16(b[o+4:], it.Version)
	}
	return b
}

// RecordLen returns the point record length the items describe.
func (v *VLR) RecordLen() int {
	n := 0
	for _, it := range v.Items {
		n += int(it.Size)
	}
	return n
}

// Layered reports whether the points are coded by the layered codecs.
func (v *VLR) Layered() bool { return v.Compressor == CompressorLayeredChunk }

// Check reports whether this package decodes what the VLR describes and
// whether the items add up to recLen bytes.
func (v *VLR) Check(recLen int) error {
	if v.Coder != 0 {
		return &UnsupportedError{Msg: fmt.Sprintf("coder %d (only 0, arithmetic, exists)", v.Coder)}
	}
	if v.Compressor == CompressorNone || v.Compressor > CompressorLayeredChunk {
		return &UnsupportedError{Msg: fmt.Sprintf("compressor %d", v.Compressor)}
	}
	if len(v.Items) == 0 {
		return &FormatError{What: "LASzip VLR", Offset: 32, Msg: "no items"}
	}
	if v.Compressor != CompressorPointwise && v.ChunkSize == 0 {
		return &FormatError{What: "LASzip VLR", Offset: 12, Msg: "chunk size 0"}
	}
	for i, it := range v.Items {
		if err := checkItem(it, v.Layered()); err != nil {
			return fmt.Errorf("laz: item %d: %w", i, err)
		}
	}
	if n := v.RecordLen(); n != recLen {
		return &FormatError{What: "LASzip VLR", Offset: 34, Msg: fmt.Sprintf("items add up to %d bytes, the point record has %d", n, recLen)}
	}
	return nil
}

// checkItem reports an item type, size or version no codec exists for.
func checkItem(it Item, layered bool) error {
	size := map[uint16]uint16{ItemPoint10: 20, ItemGPSTime11: 8, ItemRGB12: 6, ItemWavePacket13: 29,
		ItemPoint14: 30, ItemRGB14: 6, ItemRGBNIR14: 8, ItemWavePacket14: 29}
	if want, ok := size[it.Type]; ok && it.Size != want {
		return &FormatError{What: "LASzip item", Msg: fmt.Sprintf("type %d has size %d, want %d", it.Type, it.Size, want)}
	}
	switch it.Type {
	case ItemByte, ItemPoint10, ItemGPSTime11, ItemRGB12:
		if it.Version < 1 || it.Version > 2 {
			return &UnsupportedError{Msg: fmt.Sprintf("item type %d version %d", it.Type, it.Version)}
		}
	case ItemWavePacket13:
		if it.Version != 1 {
			return &UnsupportedError{Msg: fmt.Sprintf("WAVEPACKET13 version %d", it.Version)}
		}
	case ItemPoint14, ItemRGB14, ItemRGBNIR14, ItemByte14, ItemWavePacket14:
		if it.Version < 2 || it.Version > 4 {
			return &UnsupportedError{Msg: fmt.Sprintf("item type %d version %d", it.Type, it.Version)}
		}
	default:
		return &UnsupportedError{Msg: fmt.Sprintf("item type %d", it.Type)}
	}
	if (it.Type == ItemByte || it.Type == ItemByte14) && it.Size == 0 {
		return &FormatError{What: "LASzip item", Msg: "extra bytes item of size 0"}
	}
	if it.layered() != layered {
		return &UnsupportedError{Msg: fmt.Sprintf("item type %d with compressor of the other family", it.Type)}
	}
	return nil
}

// ItemsFor returns the items LASzip writes for point format f with recLen
// bytes per record: POINT10/GPSTIME11/RGB12/WAVEPACKET13/BYTE version 2 for
// formats 0-5 (WAVEPACKET13 has only version 1), POINT14, RGB14 or
// RGBNIR14, WAVEPACKET14 and BYTE14 version 3 for formats 6-10.
func ItemsFor(f uint8, recLen int) ([]Item, error) {
	type parts struct {
		base          int
		gps, rgb, nir bool
		wave, point14 bool
	}
	p := map[uint8]parts{
		0:  {20, false, false, false, false, false},
		1:  {28, true, false, false, false, false},
		2:  {26, false, true, false, false, false},
		3:  {34, true, true, false, false, false},
		4:  {57, true, false, false, true, false},
		5:  {63, true, true, false, true, false},
		6:  {30, false, false, false, false, true},
		7:  {36, false, true, false, false, true},
		8:  {38, false, true, true, false, true},
		9:  {59, false, false, false, true, true},
		10: {67, false, true, true, true, true},
	}
	q, ok := p[f]
	if !ok {
		return nil, &UnsupportedError{Msg: fmt.Sprintf("point format %d", f)}
	}
	extra := recLen - q.base
	if extra < 0 || extra > 0xFFFF {
		return nil, &FormatError{What: "point record length", Msg: fmt.Sprintf("%d bytes for point format %d, which needs %d", recLen, f, q.base)}
	}
	if q.point14 {
		items := []Item{{ItemPoint14, 30, 3}}
		switch {
		case q.nir:
			items = append(items, Item{ItemRGBNIR14, 8, 3})
		case q.rgb:
			items = append(items, Item{ItemRGB14, 6, 3})
		}
		if q.wave {
			items = append(items, Item{ItemWavePacket14, 29, 3})
		}
		if extra > 0 {
			items = append(items, Item{ItemByte14, uint16(extra), 3})
		}
		return items, nil
	}
	items := []Item{{ItemPoint10, 20, 2}}
	if q.gps {
		items = append(items, Item{ItemGPSTime11, 8, 2})
	}
	if q.rgb {
		items = append(items, Item{ItemRGB12, 6, 2})
	}
	if q.wave {
		items = append(items, Item{ItemWavePacket13, 29, 1})
	}
	if extra > 0 {
		items = append(items, Item{ItemByte, uint16(extra), 2})
	}
	return items, nil
}

// NewVLR returns the VLR LASzip writes for point format f: chunked, with
// chunkSize points per chunk (DefaultChunkSize when 0).
func NewVLR(f uint8, recLen int, chunkSize uint32) (*VLR, error) {
	items, err := ItemsFor(f, recLen)
	if err != nil {
		return nil, err
	}
	if chunkSize == 0 {
		chunkSize = DefaultChunkSize
	}
	c := uint16(CompressorPointwiseChunk)
	if f >= 6 {
		c = CompressorLayeredChunk
	}
	return &VLR{Compressor: c, VersionMajor: 3, VersionMinor: 4, VersionRev: 3,
		ChunkSize: chunkSize, SpecialEVLRs: -1, SpecialOffset: -1, Items: items}, nil
}

// Selection names the groups of point fields a caller needs, so that the
// layered codecs of formats 6-10 can leave the other layers compressed.
// The zero value selects everything.
type Selection uint32

// The field groups of a Selection.
const (
	SelectXYZ            Selection = 1 << iota
	SelectIntensity                // Intensity
	SelectReturns                  // return numbers, flags, scan channel, direction, edge
	SelectClassification           // Classification (and formats 0-5 flags)
	SelectScanAngle                // ScanAngleRank / ScanAngle
	SelectUserData                 // UserData
	SelectPointSourceID            // PointSourceId
	SelectGPSTime                  // GpsTime
	SelectRGB                      // Red, Green, Blue
	SelectNIR                      // Infrared
	SelectWavePacket               // the wave packet fields
	SelectExtraBytes               // the extra bytes
)

// Has reports whether s selects group g (the zero Selection selects all).
func (s Selection) Has(g Selection) bool { return s == 0 || s&g != 0 }
