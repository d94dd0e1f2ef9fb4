// warcio_validate.mjs FILE...: reads WARC files with warcio.js (the
// Webrecorder project's reader, not ours), recomputes every record's
// WARC-Block-Digest and WARC-Payload-Digest, and prints one JSON line per
// record. Exits 1 when a digest differs, a response has no payload digest,
// or a file cannot be read to its end. WARCIO_DIR is the directory npm
// installed warcio into (it holds node_modules/warcio).
import { pathToFileURL } from "node:url";
import { createReadStream } from "node:fs";
import { createHash } from "node:crypto";

const { WARCParser } = await import(pathToFileURL(process.env.WARCIO_DIR + "/node_modules/warcio/dist/index.js").href);

const A = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
function b32(buf) {
  let bits = 0, v = 0, out = "";
  for (const b of buf) {
    v = ((v << 8) | b) & 0xffff; bits += 8;
    while (bits >= 5) { out += A[(v >>> (bits - 5)) & 31]; bits -= 5; }
  }
  if (bits > 0) out += A[(v << (5 - bits)) & 31];
  while (out.length % 8) out += "=";
  return out;
}
const sha1 = (b) => "sha1:" + b32(createHash("sha1").update(b).digest());

let bad = 0;
for (const file of process.argv.slice(2)) {
  try {
    // Pass 1: the whole blocks, for the block digests.
    const blocks = [];
    for await (const rec of new WARCParser(createReadStream(file), { parseHttp: false })) {
      const block = await rec.readFully(false);
      blocks.push({ got: sha1(block), want: rec.warcBlockDigest, length: rec.warcContentLength, read: block.length });
    }
    // Pass 2: HTTP parsed, the raw payload (after the HTTP header, as it
    // came: transfer coding and content coding kept).
    let i = 0;
    for await (const rec of new WARCParser(createReadStream(file))) {
      const b = blocks[i++];
      const out = { file, type: rec.warcType, uri: rec.warcTargetURI || null,
        status: rec.httpHeaders && rec.httpHeaders.statusCode ? Number(rec.httpHeaders.statusCode) : null };
      const payload = rec.httpHeaders ? sha1(await rec.readFully(false)) : null;
      if (b.read !== b.length) { out.error = `block of ${b.read} bytes, Content-Length ${b.length}`; bad++; }
      if (b.want && b.want !== b.got) { out.error = `WARC-Block-Digest ${b.want}, computed ${b.got}`; bad++; }
      if (rec.warcPayloadDigest && payload && rec.warcPayloadDigest !== payload) { out.error = `WARC-Payload-Digest ${rec.warcPayloadDigest}, computed ${payload}`; bad++; }
      if (rec.warcType === "response" && !rec.warcPayloadDigest) { out.error = "no WARC-Payload-Digest"; bad++; }
      if (!rec.warcHeader("WARC-Record-ID") || !rec.warcDate) { out.error = "no WARC-Record-ID or WARC-Date"; bad++; }
      console.log(JSON.stringify(out));
    }
    if (i !== blocks.length) { console.log(JSON.stringify({ file, error: "the two passes read different records" })); bad++; }
  } catch (e) {
    console.log(JSON.stringify({ file, error: String(e) }));
    bad++;
  }
}
process.exit(bad ? 1 : 0);
