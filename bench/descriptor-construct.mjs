// Time to construct a ProtobufType (payload rules, normalization v1, one rebuild) for a
// synthesized 200-message schema, from each input form. Runs against dist/:
//   npm run build && node bench/descriptor-construct.mjs
import { Bench } from "tinybench";
import protobuf from "protobufjs";
import { ProtobufType } from "../dist/index.js";

const MESSAGES = 200;

/** proto3 text: M0 → M1 → … → M199 (a chain, so the root's closure is the whole schema), with
 * scalars, a repeated message, a map, an optional field, a oneof and a shared enum. */
function schemaText() {
  const lines = ['syntax = "proto3";', "package bench;", "enum Kind { KIND_UNSPECIFIED = 0; KIND_A = 1; KIND_B = 2; }"];
  for (let i = 0; i < MESSAGES; i++) {
    const next = i + 1 < MESSAGES ? `M${i + 1}` : "Leaf";
    lines.push(`message M${i} {
  int64 id = 1;
  string name = 2;
  repeated double values = 3;
  ${next} next = 4;
  repeated ${next} children = 5;
  map<string, ${next}> by_key = 6;
  Kind kind = 7;
  optional bytes blob = 8;
  oneof choice { string text = 9; sint64 delta = 10; }
  reserved 20 to 29;
}`);
  }
  lines.push("message Leaf { string note = 1; }");
  return lines.join("\n");
}

const text = schemaText();
const pbjsRoot = protobuf.parse(text, { keepCase: true }).root;
const pbjsType = pbjsRoot.lookupType("bench.M0");
// The same schema as the other two inputs: a FileDescriptorSet (the normalized one, one file per
// top-level type) and a DescMessage from a registry over it.
const reference = ProtobufType.of(pbjsType);
const setBytes = reference.normalizedDescriptorSet();
const desc = ProtobufType.fromBytes(reference.toBytes()).descriptor;
const transfer = reference.toBytes();

console.log(
  `schema: ${MESSAGES + 1} messages, normalized set ${setBytes.length} bytes, fingerprint ${reference.fingerprint().slice(0, 16)}…`,
);

const bench = new Bench({ time: 3000, warmupTime: 500 });
bench
  .add("ProtobufType.of(DescMessage)", () => ProtobufType.of(desc))
  .add("ProtobufType.of(protobufjs Type)", () => ProtobufType.of(pbjsType))
  .add("ProtobufType.of({ fileDescriptorSet, messageName })", () =>
    ProtobufType.of({ fileDescriptorSet: setBytes, messageName: "bench.M0" }),
  )
  .add("ProtobufType.fromBytes(toBytes())", () => ProtobufType.fromBytes(transfer));
await bench.run();

const rows = bench.tasks.map((t) => {
  const r = t.result;
  return {
    task: t.name,
    "median ms": r.latency.p50.toFixed(2),
    "mean ms": r.latency.mean.toFixed(2),
    "±%": r.latency.rme.toFixed(1),
    samples: r.latency.samples?.length ?? r.latency.samplesCount ?? "",
  };
});
console.table(rows);
