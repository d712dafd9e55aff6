// Counts the points of each classification code of a LAZ file with
// laz-perf (npm laz-perf, the LASzip decoder PDAL's authors compile to
// WASM), for TestInfoClassesLikeLazPerf: node lazperf_classes.js FILE
// prints {"points": n, "classes": {"code": count, ...}}.
const fs = require('fs');
const { createLazPerf } = require('laz-perf');

(async () => {
  const file = fs.readFileSync(process.argv[2]);
  const lp = await createLazPerf();
  const filePtr = lp._malloc(file.length);
  lp.HEAPU8.set(file, filePtr);
  const laz = new lp.LASZip();
  laz.open(filePtr, file.length);
  const fmt = laz.getPointFormat(), len = laz.getPointLength(), n = laz.getCount();
  const pt = lp._malloc(len);
  const classes = {};
  for (let i = 0; i < n; i++) {
    laz.getPoint(pt);
    // LAS 1.4 R15: formats 0-5 keep the class in the low 5 bits of byte
    // 15, formats 6-10 in byte 16.
    const c = fmt >= 6 ? lp.HEAPU8[pt + 16] : lp.HEAPU8[pt + 15] & 31;
    classes[c] = (classes[c] || 0) + 1;
  }
  laz.delete();
  lp._free(pt);
  lp._free(filePtr);
  console.log(JSON.stringify({ points: n, classes }));
})().catch((e) => { console.error(e.message || e); process.exit(1); });
