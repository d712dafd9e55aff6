// Package copc reads and writes COPC 1.0 files (Cloud Optimized Point
// Cloud, copc.io): LAZ files of LAS 1.4 point formats 6-8 whose points are
// stored as an octree, one LAZ chunk per node, with a "copc" info VLR at
// byte 375 (the root cube and point spacing) and a hierarchy EVLR whose
// pages say where each node's chunk is.
//
// Reading goes through an io.ReaderAt (a file, or io/remote's HTTP range
// reader for a URL): Open reads the first 589 bytes, File.Plan walks the hierarchy
// loading only the pages a query reaches, and File.Read fetches and
// decompresses only the selected nodes, in parallel, and keeps the points
// inside the query's box (pcio.Query: a closed box as PDAL's readers.copc
// tests it, octree levels, or a resolution). The package registers a
// pcio.Indexed reader, so pcio.ReadFileQuery answers queries on COPC files
// from the index, and the pcio format "copc" (extension .copc.laz) for
// writing; a plain read of a COPC file is a LAZ read by io/las.
//
// Write builds the octree as untwine (and PDAL's writers.copc) does: a
// cube around the points with spacing side/128, leaves of at most 100,000
// points, and from the deepest level up each parent taking a spatially even
// sample of its children's points through a grid, so that the levels down
// to any depth are a fair thinning of the cloud; each node is compressed as
// one LAZ chunk on all cores. See docs/copc.md.
package copc
