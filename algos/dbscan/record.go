package dbscan

import (
	"fmt"
	"strconv"

	"github.com/pctk/pctk/core"
)

// CountsRecordPrefix starts the record CountsRecord writes: a metadata
// comment, kept by formats with comments (PLY, PCD), that tells a later run
// how a cloud's NeighborCount attribute was computed.
const CountsRecordPrefix = "pctk dbscan NeighborCount:"

// CountsRecord describes how stage-1 neighbour counts (Run.Counts) were
// computed for the points x, y, z (the file's float64 coordinates): ε,
// dims ("xyz" or "xy"), whether lon/lat were projected (geographic), the
// point count and a digest of the exact coordinates (core.HashXYZ: FNV-1a
// per block of points, in parallel; the "xyz-hash" key replaced the slower
// whole-cloud "xyz-fnv64a", whose records no longer match). Counts may be
// passed back as Options.Counts only when a cloud carries the record of the
// run at hand, character for character.
func CountsRecord(x, y, z []float64, eps float64, dims string, geographic bool) string {
	return record(eps, dims, geographic, len(x), core.HashXYZ(x, y, z))
}

// record formats a CountsRecord of n points whose coordinates hash to h.
func record(eps float64, dims string, geographic bool, n int, h uint64) string {
	return fmt.Sprintf("%s eps=%s dims=%s geographic=%t points=%d xyz-hash=%016x",
		CountsRecordPrefix, strconv.FormatFloat(eps, 'g', -1, 64), dims, geographic, n, h)
}

// RecordHash computes CountsRecord over a cloud read in chunks (an
// out-of-core run): Add each chunk's coordinates in order, then Record.
type RecordHash struct {
	h core.XYZHash
	n int
}

// Add hashes the coordinates of the next points.
func (r *RecordHash) Add(x, y, z []float64) {
	r.h.Add(x, y, z)
	r.n += len(x)
}

// Record returns CountsRecord of the points added.
func (r *RecordHash) Record(eps float64, dims string, geographic bool) string {
	return record(eps, dims, geographic, r.n, r.h.Sum64())
}
