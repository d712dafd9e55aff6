package dbscan

import (
	"encoding/binary"
	"fmt"
	"hash"
	"hash/fnv"
	"math"
	"strconv"
)

// CountsRecordPrefix starts the record CountsRecord writes: a metadata
// comment, kept by formats with comments (PLY, PCD), that tells a later run
// how a cloud's NeighborCount attribute was computed.
const CountsRecordPrefix = "pctk dbscan NeighborCount:"

// CountsRecord describes how stage-1 neighbour counts (Run.Counts) were
// computed for the points x, y, z (the file's float64 coordinates): ε,
// dims ("xyz" or "xy"), whether lon/lat were projected (geographic), the
// point count and an FNV-64a hash of the exact coordinates. Counts may be
// passed back as Options.Counts only when a cloud carries the record of the
// run at hand, character for character.
func CountsRecord(x, y, z []float64, eps float64, dims string, geographic bool) string {
	var h RecordHash
	h.Add(x, y, z)
	return h.Record(eps, dims, geographic)
}

// RecordHash computes CountsRecord over a cloud read in chunks (an
// out-of-core run): Add each chunk's coordinates in order, then Record.
type RecordHash struct {
	h hash.Hash64
	n int
}

// Add hashes the coordinates of the next points.
func (r *RecordHash) Add(x, y, z []float64) {
	if r.h == nil {
		r.h = fnv.New64a()
	}
	var buf [24]byte
	for i := range x {
		binary.LittleEndian.PutUint64(buf[0:], math.Float64bits(x[i]))
		binary.LittleEndian.PutUint64(buf[8:], math.Float64bits(y[i]))
		binary.LittleEndian.PutUint64(buf[16:], math.Float64bits(z[i]))
		r.h.Write(buf[:])
	}
	r.n += len(x)
}

// Record returns CountsRecord of the points added.
func (r *RecordHash) Record(eps float64, dims string, geographic bool) string {
	if r.h == nil {
		r.h = fnv.New64a()
	}
	return fmt.Sprintf("%s eps=%s dims=%s geographic=%t points=%d xyz-fnv64a=%016x",
		CountsRecordPrefix, strconv.FormatFloat(eps, 'g', -1, 64), dims, geographic, r.n, r.h.Sum64())
}
