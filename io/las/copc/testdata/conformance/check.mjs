// Reads each COPC file named on the command line with copc.js (copc@0.0.8,
// which decompresses with laz-perf): the header, the info VLR, every
// hierarchy page reached from the root page, and every node's points.
// Prints one JSON object per file: the header and info fields, the number
// of pages, and for each node with points its key and its records, as
// laz-perf decompressed them, in base64. io/las/copc's conformance test
// checks the records against the cloud pctk wrote.
import { Copc } from 'copc';

for (const file of process.argv.slice(2)) {
	const out = { file };
	try {
		const copc = await Copc.create(file);
		const h = copc.header;
		out.header = {
			format: h.pointDataRecordFormat, recordLength: h.pointDataRecordLength,
			pointCount: h.pointCount, scale: h.scale, offset: h.offset, min: h.min, max: h.max,
			evlrCount: h.evlrCount,
		};
		out.info = { cube: copc.info.cube, spacing: copc.info.spacing, gpsTimeRange: copc.info.gpsTimeRange };
		out.pages = 0;
		out.nodes = [];
		const pending = [{ key: '0-0-0-0', page: copc.info.rootHierarchyPage }];
		while (pending.length) {
			const { page } = pending.pop();
			const sub = await Copc.loadHierarchyPage(file, page);
			out.pages++;
			for (const [key, p] of Object.entries(sub.pages)) pending.push({ key, page: p });
			for (const [key, node] of Object.entries(sub.nodes)) {
				if (!node || node.pointCount === 0) continue;
				const buf = await Copc.loadPointDataBuffer(file, h, node);
				out.nodes.push({ key, pointCount: node.pointCount, records: Buffer.from(buf).toString('base64') });
			}
		}
	} catch (e) {
		out.error = String(e && e.stack || e);
	}
	console.log(JSON.stringify(out));
}
