// Times copc.js (copc@0.0.8 on laz-perf 0.0.7) decoding every node of one
// COPC file, for io/las/copc's BenchmarkQuery: usage `node bench.mjs FILE
// RUNS`. The file is read into memory first (as the Go benchmark reads
// from memory), one warm-up run is not timed; prints JSON with the points
// decoded and the milliseconds per run.
import { readFile } from 'node:fs/promises';
import { Copc } from 'copc';

const [file, runsArg] = process.argv.slice(2);
const runs = Number(runsArg || 3);
const data = await readFile(file);
const get = async (begin, end) => new Uint8Array(data.buffer, data.byteOffset + begin, end - begin);

async function decodeAll() {
	const copc = await Copc.create(get);
	let points = 0;
	const pending = [copc.info.rootHierarchyPage];
	while (pending.length) {
		const sub = await Copc.loadHierarchyPage(get, pending.pop());
		for (const p of Object.values(sub.pages)) pending.push(p);
		for (const node of Object.values(sub.nodes)) {
			if (!node || node.pointCount === 0) continue;
			const view = await Copc.loadPointDataView(get, copc, node);
			const x = view.getter('X');
			for (let i = 0; i < view.pointCount; i++) x(i);
			points += view.pointCount;
		}
	}
	return points;
}

await decodeAll();
const t0 = performance.now();
let points = 0;
for (let i = 0; i < runs; i++) points = await decodeAll();
console.log(JSON.stringify({ points, ms: (performance.now() - t0) / runs }));
