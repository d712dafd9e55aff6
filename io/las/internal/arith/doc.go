// Package arith is the adaptive arithmetic coder of LASzip: the binary and
// multi-symbol adaptive models, the decoder and encoder, and the integer
// compressor that codes a value as the difference from a prediction.
//
// It follows the published description of LASzip's coder (M. Isenburg,
// "LASzip: lossless compression of LiDAR data", 2013), itself an adaptation
// of Amir Said's FastAC: 32-bit interval, byte-wise renormalisation when the
// length falls below 2^24, binary models with 13-bit probabilities and
// symbol models with 15-bit cumulative distributions, both refreshed
// periodically with a growing update cycle. The behaviour was checked
// against LASzip's src/arithmeticdecoder.cpp, arithmeticencoder.cpp,
// arithmeticmodel.cpp and integercompressor.cpp and against laz-rs
// (src/decoders.rs, encoders.rs, models.rs, compressors.rs); every rounding
// and update rule must match bit for bit, or the streams of other tools
// would not decode. docs/laz.md cites what was read.
//
// Models are re-initialisable: Init on a SymbolModel, BitModel or
// IntCompressor puts it back into its initial equiprobable state (storage is
// kept), as LAZ does at the start of every chunk.
package arith
