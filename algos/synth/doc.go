// Package synth makes deterministic synthetic point clouds with known ground
// truth, for trying pctk's commands, for tests that need labelled scenes and
// for benchmarks of any size.
//
// Three kinds are offered:
//
//   - [Uniform]: points uniform in a cube, the usual benchmark cloud.
//   - [Blobs]: Gaussian clusters (ObjectID 0..K−1) over a sparse uniform
//     background of noise (ObjectID −1), the usual clustering test.
//   - [Street]: a LiDAR-like street scene: sloping ground with a road,
//     buildings, trees, parked cars, poles carrying wires, scattered noise
//     and isolated outliers, labelled with ASPRS classification codes and an
//     object id per point.
//
// Every generator is a pure function of its [Options]: the same options give
// the same cloud, point for point and bit for bit, on any machine and with
// any number of goroutines. A scene is split into parts (a building, a stretch
// of ground, ...); each part is sampled with its own random stream, seeded
// from the scene's seed and the part's index, and written to its own range of
// the output, so the parts are sampled in parallel without changing the result.
package synth
