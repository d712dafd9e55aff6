// Decodes LAZ files with laz-perf (LASzip compiled to WASM).
// Usage: node decode.mjs [-r repeats] in.laz out.raw [in.laz out.raw ...]
// Writes each file's point records, raw, to its out.raw (skipped when
// out.raw is "-") and prints one line per file on stdout:
// {"points": n, "recLen": bytes, "seconds": wall time, "cpuSeconds": CPU
// time}, of the fastest of the repeated decodes.
import { createRequire } from 'node:module';
import fs from 'node:fs';

const require = createRequire(import.meta.url);
const { createLazPerf } = require('laz-perf');

let args = process.argv.slice(2);
let repeats = 1;
if (args[0] === '-r') {
  repeats = Math.max(1, Number(args[1]));
  args = args.slice(2);
}
const lp = await createLazPerf();
for (let a = 0; a + 1 < args.length; a += 2) {
  const [input, output] = [args[a], args[a + 1]];
  const data = fs.readFileSync(input);
  const filePtr = lp._malloc(data.length);
  lp.HEAPU8.set(data, filePtr);
  let out;
  let best = Infinity;
  let bestCPU = Infinity;
  let n = 0;
  let recLen = 0;
  for (let r = 0; r < repeats; r++) {
    const laszip = new lp.LASZip();
    const t0 = process.hrtime.bigint();
    const c0 = process.cpuUsage();
    laszip.open(filePtr, data.length);
    n = laszip.getCount();
    recLen = laszip.getPointLength();
    const ptr = lp._malloc(recLen);
    const keep = output !== '-' && r === 0;
    if (keep) out = Buffer.alloc(n * recLen);
    for (let i = 0; i < n; i++) {
      laszip.getPoint(ptr);
      if (keep) out.set(lp.HEAPU8.subarray(ptr, ptr + recLen), i * recLen);
    }
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    const c = process.cpuUsage(c0);
    best = Math.min(best, s);
    bestCPU = Math.min(bestCPU, (c.user + c.system) / 1e6);
    lp._free(ptr);
    laszip.delete();
  }
  lp._free(filePtr);
  if (output !== '-') fs.writeFileSync(output, out);
  console.log(JSON.stringify({ points: n, recLen, seconds: best, cpuSeconds: bestCPU }));
}
