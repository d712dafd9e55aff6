// Package core holds pctk's point-cloud data model: float64 X, Y, Z coordinates,
// an ordered list of named, typed attribute columns (PDAL's dimension names),
// and metadata carried from the source file (comments, CRS, format headers).
//
// Coordinates stay in float64 so that UTM or geographic coordinates keep their
// millimetres. Computation happens in float32 relative to a local origin (the
// bounding-box centre), which Cloud.Local returns.
package core
