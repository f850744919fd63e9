// npm run bench:store: puts and gets per second of the span-batch message (bench.SpanBatch, ~18 KB)
// on LMDB through protokeel/store (LmdbStore, value state: DynamicMessage → toBinary → put; get →
// fromBinary), against protobufjs-encoded bytes written into LMDB directly (Type.encode → put;
// get → Type.decode), and against protokeel's own bytes into LMDB directly (the store layer alone:
// serializer.toBinary → put; get → fromBinary). Same lmdb version, same options (noSync: the numbers measure the CPU cost
// per operation, not the disk's fsync), separate environments, rounds interleaved in one process;
// the median round of each side is reported with the ratio store/direct. No timed assertion
// anywhere: the machine is shared and noisy, so read the ratios, not the absolute numbers.
// Usage: node bench/store.mjs [--ops N] [--rounds N] [--update-results]   (needs a built dist/)
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { open } from "lmdb";
import protobuf from "protobufjs";
import { ProtobufType } from "../dist/index.js";
import { LmdbStore, valueState } from "../dist/store/index.js";
import { buildFixtures, compileFixtures, protoFiles } from "./lib/fixtures.mjs";

const { values: args } = parseArgs({
  options: { ops: { type: "string", default: "2000" }, rounds: { type: "string", default: "7" }, "update-results": { type: "boolean", default: false } },
});
const OPS = Number(args.ops);
const ROUNDS = Number(args.rounds);

const { registry } = compileFixtures();
const span = buildFixtures(registry).find((f) => f.id === "span");
const type = ProtobufType.of(registry.getMessage(span.typeName));
const value = type.createSerializer().fromBinary(span.bytes);

const root = new protobuf.Root();
for (const file of protoFiles()) protobuf.parse(readFileSync(file, "utf8"), root, { keepCase: false });
root.resolveAll();
const SpanBatch = root.lookupType(span.typeName);
const pbjsMessage = SpanBatch.decode(span.bytes);

const dir = mkdtempSync(join(tmpdir(), "protokeel-bench-store-"));
const store = await LmdbStore.open(join(dir, "store"), { spans: valueState(type) }, { noSync: true });
const state = store.state("spans");
const direct = open({ path: join(dir, "direct"), encoding: "binary", keyEncoding: "binary", noSync: true });
const bare = open({ path: join(dir, "bare"), encoding: "binary", keyEncoding: "binary", noSync: true });
const serializer = type.createSerializer();
const keys = [...Array(OPS).keys()].map((i) => `span-${i}`);
// Every side turns the application's string key into bytes on each operation, as an application does.

const sides = {
  "store put": async () => {
    const pending = [];
    for (const k of keys) pending.push(state.put(k, value));
    await Promise.all(pending);
  },
  "direct put": async () => {
    const pending = [];
    for (const k of keys) pending.push(direct.put(Buffer.from(k), SpanBatch.encode(pbjsMessage).finish()));
    await Promise.all(pending);
  },
  "bare put": async () => {
    const pending = [];
    for (const k of keys) pending.push(bare.put(Buffer.from(k), serializer.toBinary(value)));
    await Promise.all(pending);
  },
  "store get": async () => {
    let n = 0;
    for (const k of keys) n += state.get(k) === undefined ? 0 : 1;
    if (n !== OPS) throw new Error(`store get found ${n} of ${OPS}`);
  },
  "direct get": async () => {
    let n = 0;
    for (const k of keys) n += SpanBatch.decode(direct.getBinary(Buffer.from(k))).spans.length > 0 ? 1 : 0;
    if (n !== OPS) throw new Error(`direct get found ${n} of ${OPS}`);
  },
  "bare get": async () => {
    let n = 0;
    for (const k of keys) n += serializer.fromBinary(bare.getBinary(Buffer.from(k))) === undefined ? 0 : 1;
    if (n !== OPS) throw new Error(`bare get found ${n} of ${OPS}`);
  },
};

const samples = Object.fromEntries(Object.keys(sides).map((k) => [k, []]));
// Warm-up round (JIT, the memory maps), then interleaved measured rounds.
for (const run of Object.values(sides)) await run();
for (let r = 0; r < ROUNDS; r++) {
  const order = r % 2 === 0 ? ["store put", "direct put", "bare put", "store get", "direct get", "bare get"] : ["bare put", "direct put", "store put", "bare get", "direct get", "store get"];
  for (const name of order) {
    const t0 = process.hrtime.bigint();
    await sides[name]();
    samples[name].push(Number(process.hrtime.bigint() - t0) / 1e9);
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const opsPerSecond = Object.fromEntries(Object.entries(samples).map(([k, xs]) => [k, OPS / median(xs)]));
const ratio = (a, b) => opsPerSecond[a] / opsPerSecond[b];
const result = {
  fixture: `${span.title}, ${span.bytes.length} bytes`,
  ops: OPS,
  rounds: ROUNDS,
  opsPerSecond: Object.fromEntries(Object.entries(opsPerSecond).map(([k, v]) => [k, Math.round(v)])),
  // store ops/s ÷ direct ops/s: 1.00 = no overhead; the target is > 0.87 (overhead under 15%).
  ratio: { put: Number(ratio("store put", "direct put").toFixed(3)), get: Number(ratio("store get", "direct get").toFixed(3)) },
  // store ops/s ÷ protokeel's own bytes into LMDB directly: the store layer alone (keys, snapshot, promises).
  layerRatio: { put: Number(ratio("store put", "bare put").toFixed(3)), get: Number(ratio("store get", "bare get").toFixed(3)) },
  node: process.versions.node,
};
console.log(`protokeel/store on LMDB vs protobufjs bytes into LMDB directly: ${result.fixture}, ${OPS} ops × ${ROUNDS} rounds (median)`);
for (const [k, v] of Object.entries(result.opsPerSecond)) console.log(`  ${k.padEnd(11)} ${String(v).padStart(9)} ops/s`);
console.log(`  ratio store/direct: put ${result.ratio.put}, get ${result.ratio.get} (overhead ${((1 / result.ratio.put - 1) * 100).toFixed(1)}% put, ${((1 / result.ratio.get - 1) * 100).toFixed(1)}% get)`);
console.log(`  the store layer alone (store/protokeel bytes into LMDB directly): put ${result.layerRatio.put}, get ${result.layerRatio.get}`);
// Every run writes bench/.results/store.json; the committed bench/results/store.json changes only
// with --update-results (as npm run bench does for latest.*).
const json = `${JSON.stringify({ date: new Date().toISOString(), ...result }, null, 2)}\n`;
mkdirSync(new URL("./.results/", import.meta.url), { recursive: true });
writeFileSync(new URL("./.results/store.json", import.meta.url), json);
if (args["update-results"]) writeFileSync(new URL("./results/store.json", import.meta.url), json);
await store.close();
await direct.close();
await bare.close();
rmSync(dir, { recursive: true, force: true });
