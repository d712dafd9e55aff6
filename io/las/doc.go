// Package las reads and writes ASPRS LAS point clouds, versions 1.0 to 1.4,
// point data record formats 0 to 10, losslessly.
//
// Reading maps every record field to a column named as PDAL names it
// (core/dims.go): Intensity, ReturnNumber, NumberOfReturns,
// ScanDirectionFlag, EdgeOfFlightLine, Classification, the classification
// flags Synthetic, KeyPoint, Withheld and (formats 6-10) Overlap and
// ScanChannel, ScanAngleRank (float32 degrees: the legacy rank as is, the
// 1.4 scaled angle times 0.006), UserData, PointSourceId, GpsTime, Red,
// Green, Blue, Infrared, and the waveform packet fields of formats 4, 5, 9
// and 10. Extra Bytes (LASF_Spec/4) become typed columns, scaled ones as
// float64 with scale and offset applied; bytes no descriptor covers become
// uint8 columns ExtraByte<n>. X, Y and Z are raw*scale+offset in float64.
//
// Everything else is kept in an *Info under Meta.Extra["las"]: the header
// field by field, the VLRs and EVLRs verbatim and in order, the bytes
// between the VLRs and the points, the Extra Bytes descriptors, and the
// warnings about what was wrong but could be read past. The CRS (GeoTIFF
// keys and OGC WKT) is also in Meta.CRS.
//
// Writing a cloud that came from LAS keeps its version, point format,
// scale and offset, so its point records come back byte for byte. New
// columns that no point format holds go into the one Extra Bytes VLR (data
// types 1-10), and a file older than 1.4 moves to 1.4 when it gains them.
// Clouds from other formats get the smallest LAS 1.2 point format holding
// their fields (1.4 formats 6-10 when they need near infrared, Overlap,
// ScanChannel or Extra Bytes) and a scale that keeps their precision.
//
// Malformed input gives a *FormatError naming the field and its byte
// offset; valid but unsupported input an *UnsupportedError.
//
// LAZ, LASzip-compressed LAS, is read by the same decoder (the point
// format byte's bit 7 and the LASzip VLR say so) and written by EncodeLAZ
// and NewLAZEncoder: chunks of 50,000 points decoded and encoded on all
// cores by io/las/internal/laz, a corrupt chunk named with its byte
// offset (docs/laz.md).
//
// The package registers itself with io/pcio as format "las" (variants
// "1.2", "1.3" and "1.4") and "laz" (the same variants, extension
// ".laz"), with streaming NewDecoder and NewEncoder. See docs/las.md and
// docs/laz.md for the design and the benchmark figures.
package las
