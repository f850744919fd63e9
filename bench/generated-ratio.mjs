// The generated kind against @bufbuild/protobuf's own fromBinary/toBinary (issue 14), in one
// process: for each message fixture, interleaved rounds of both, the median of the per-round
// time ratios (protobuf-es time / protokeel time; above 1 = protokeel faster). Ratios only: the
// machines this runs on are noisy. Run after `npm run build`:
//
//   node bench/generated-ratio.mjs [fixture-id]
//
// The schemas are the fixtures' registry descriptors: protobuf-es generated code holds the same
// descriptors (it has no generated encode/decode functions), so the ratio is the one against
// protoc-gen-es output.
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { buildFixtures, compileFixtures } from "./lib/fixtures.mjs";
import { ProtobufType } from "../dist/index.js";

const { registry } = compileFixtures();
const fixtures = buildFixtures(registry).filter((f) => f.kind === "message");

function per(fn, ms) {
  let k = 0;
  const s = performance.now();
  while (performance.now() - s < ms) {
    fn();
    fn();
    k += 2;
  }
  return (performance.now() - s) / k;
}

function ratio(es, ours, rounds = 21, ms = 15) {
  per(es, 100);
  per(ours, 100);
  const rs = [];
  for (let r = 0; r < rounds; r++) rs.push(per(es, ms) / per(ours, ms));
  rs.sort((x, y) => x - y);
  return rs[rounds >> 1];
}

const only = process.argv[2];
for (const f of fixtures) {
  if (only && f.id !== only) continue;
  const desc = f.desc;
  const ser = ProtobufType.ofGenerated(desc).createSerializer();
  const value = fromBinary(desc, f.bytes);
  const decode = ratio(() => fromBinary(desc, f.bytes), () => ser.fromBinary(f.bytes));
  const encode = ratio(() => toBinary(desc, value), () => ser.toBinary(value));
  console.log(`${f.id.padEnd(8)} ${String(f.bytes.length).padStart(6)} B  decode ${decode.toFixed(2)}x  encode ${encode.toFixed(2)}x`);
}
