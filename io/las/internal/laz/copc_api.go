package laz

// MaxPointsPerByte bounds the points a compressed chunk byte can honestly
// hold (see maxPointsPerByte); io/las/copc checks hierarchy entries with it
// before allocating a node's records.
const MaxPointsPerByte = maxPointsPerByte
