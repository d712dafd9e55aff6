// Times @loaders.gl/las parsing a LAS file already in memory (fp64
// positions, as pctk keeps float64 coordinates) and prints the mean
// seconds per parse over REPS runs after one warm-up. io/las's
// BenchmarkPeerLoadersGL reports it beside pctk's own decode benchmark.
//
// usage: node bench.mjs FILE REPS
import {readFileSync} from 'node:fs';
import {parse} from '@loaders.gl/core';
import {LASLoader} from '@loaders.gl/las';

const [path, repsArg] = process.argv.slice(2);
const reps = Number(repsArg || 3);
const buf = readFileSync(path);
const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
const opts = {las: {fp64: true, colorDepth: 16}, worker: false};
let m = await parse(ab.slice(0), LASLoader, opts);
const t0 = process.hrtime.bigint();
for (let i = 0; i < reps; i++) {
  m = await parse(ab.slice(0), LASLoader, opts);
}
const secs = Number(process.hrtime.bigint() - t0) / 1e9 / reps;
process.stdout.write(JSON.stringify({seconds: secs, points: m.header.vertexCount}));
