// The testee protobuf's conformance_test_runner starts (scripts/conformance.mjs): requests on
// stdin, responses on stdout, each as a 4-byte little-endian length and the message. Reads the
// built package (dist/). CONFORMANCE_KIND: dynamic | generated; CONFORMANCE_DETERMINISTIC: 1 | 0;
// CONFORMANCE_RECORD: a file to append every answered (not skipped) request and its response to,
// in the same framing (the corpus test/conformance.test.ts replays).
import { appendFileSync, readFileSync, readSync, writeSync } from "node:fs";
import { ProtobufType } from "../../dist/index.js";
import { conformanceHandler } from "./handler.mjs";

const handle = conformanceHandler(ProtobufType, readFileSync(process.env.CONFORMANCE_SET), {
  kind: process.env.CONFORMANCE_KIND ?? "dynamic",
  deterministic: process.env.CONFORMANCE_DETERMINISTIC === "1",
});
const record = process.env.CONFORMANCE_RECORD;

function read(n) {
  const b = Buffer.alloc(n);
  let at = 0;
  while (at < n) {
    const r = readSync(0, b, at, n - at, null);
    if (r === 0) {
      if (at === 0) return undefined;
      throw new Error(`stdin ended inside a message (${at} of ${n} bytes)`);
    }
    at += r;
  }
  return b;
}

const framed = (bytes) => {
  const out = Buffer.alloc(4 + bytes.length);
  out.writeUInt32LE(bytes.length, 0);
  out.set(bytes, 4);
  return out;
};

for (;;) {
  const head = read(4);
  if (head === undefined) break;
  const request = read(head.readUInt32LE(0));
  const response = handle(request);
  writeSync(1, framed(response));
  // A skipped answer is `skipped` (field 5 of ConformanceResponse: tag 0x2a).
  if (record !== undefined && response[0] !== 0x2a) appendFileSync(record, Buffer.concat([framed(request), framed(response)]));
}
