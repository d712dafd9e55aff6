// Reads LAS files with two independent readers from npm and prints, as
// JSON, what each one found: @loaders.gl/las (LAS 1.0-1.3, point formats
// 0-3 only) and
// las-reader (header and the first 20 bytes of every record). io/las's
// conformance test compares this with what pctk meant to write.
//
// usage: node check.mjs FILE...
import {readFileSync} from 'node:fs';
import {Readable} from 'node:stream';
import {parse} from '@loaders.gl/core';
import {LASLoader} from '@loaders.gl/las';
import lasReader from 'las-reader';

async function loadersgl(path) {
  const buf = readFileSync(path);
  const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
  // colorDepth 16 keeps the high byte of each colour, 8 the low byte.
  const hi = await parse(ab, LASLoader, {las: {fp64: true, colorDepth: 16}, worker: false});
  const lo = await parse(ab.slice(0), LASLoader, {las: {fp64: true, colorDepth: 8}, worker: false});
  const out = {
    count: hi.header.vertexCount,
    position: Array.from(hi.attributes.POSITION.value),
    intensity: Array.from(hi.attributes.intensity.value),
    classification: Array.from(hi.attributes.classification.value),
  };
  if (hi.attributes.COLOR_0) {
    const h = hi.attributes.COLOR_0.value, l = lo.attributes.COLOR_0.value;
    out.rgb = [];
    for (let i = 0; i < h.length; i += 4) {
      for (let k = 0; k < 3; k++) out.rgb.push(h[i + k] * 256 + l[i + k]);
    }
  }
  return out;
}

function lasreader(path) {
  return new Promise((resolve) => {
    const s = new lasReader.LasStreamReader({transform_lnglat: false, ignore_projection: true});
    const out = {count: 0, raw: [], scaled: [], pointSourceId: [], userData: [], scanAngle: []};
    s.on('error', (e) => { out.error = String(e); });
    s.on('onParseVLR', (vlrs) => {
      out.vlrs = [];
      for (const user of Object.keys(vlrs)) {
        for (const [id, v] of Object.entries(vlrs[user])) {
          out.vlrs.push({user: v.user_id, record: v.record_id, length: v.length_after_header, ascii: v.ascii_data});
        }
      }
    });
    s.on('onParseHeader', (h) => {
      out.version = `${h.version.major}.${h.version.minor}`;
      out.format = h.point_data_record.format;
      out.recordLength = h.point_data_record.length;
      out.offsetToPoints = h.offset_to_point_data;
      out.numVLRs = h.number_of_variable_length_records;
      out.scale = h.scale;
      out.offset = h.offset;
      out.maxMin = h.max_min;
      out.software = h.generating_software.replace(/\0+$/, '');
    });
    s.on('data', (recs) => {
      for (const r of recs) {
        out.count++;
        out.raw.push(...r.raw);
        out.scaled.push(...r.scaled);
        out.pointSourceId.push(r.point_source_id);
        out.userData.push(r.user_data & 0xff);
        out.scanAngle.push(r.scan_angle_rank);
      }
    });
    s.on('end', () => resolve(out));
    s.on('close', () => resolve(out));
    // las-reader decodes chunk.buffer, the whole ArrayBuffer behind a
    // chunk, so it must get chunks that own exactly their bytes: a file
    // stream's last chunk does not, nor does the small Buffer.concat it makes
    // of a record split across chunks (Node's shared pool), and either
    // yields garbage records. One chunk holding the whole file avoids both.
    const buf = readFileSync(path);
    const whole = Buffer.from(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length));
    Readable.from([whole], {objectMode: false}).pipe(s);
  });
}

const results = {};
for (const path of process.argv.slice(2)) {
  const r = {};
  try {
    r.loadersgl = await loadersgl(path);
  } catch (e) {
    r.loadersglError = String(e);
  }
  r.lasreader = await lasreader(path);
  results[path] = r;
}
process.stdout.write(JSON.stringify(results));
