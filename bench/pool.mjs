// npm run bench:pool: frames decoded per second of the span batch (bench.SpanBatch, ~18 KB a frame)
// through protokeel/pool at 1, 2 and N workers (N = the machine's available parallelism; also 2N,
// oversubscribed), against one thread without a pool, in one process with interleaved rounds.
// Rows:
//   one thread, values            serializer.decodeAll(frames): DynamicMessage values
//   one thread, objects           decodeAll, then toObject() on each (what "object" results hold)
//   pool ×k, objects              pool.decode(frames): plain objects (decoded and converted in the
//                                 workers, structured-cloned back)
//   pool ×k, messages             pool.decode(frames, { as: "message" }): validated in the workers,
//                                 read lazily on this thread (not read here)
//   pool ×k, messages read        the same, every value then read (toObject) on this thread
// Each sample keeps IN_FLIGHT batches in flight (a service decoding a stream does), so the pool's
// workers are not idle while this thread receives a batch. Speed-up is against the one-thread row
// of the same result form; per-core efficiency = speed-up ÷ min(workers, cores). No timed
// assertion anywhere: the machine is shared and noisy, so read the ratios, not the absolute numbers.
// Usage: node bench/pool.mjs [--frames N] [--batches N] [--rounds N] [--update-results]   (needs a built dist/)
import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { ProtobufType } from "../dist/index.js";
import { createCodecPool } from "../dist/pool/index.js";
import { buildFixtures, compileFixtures } from "./lib/fixtures.mjs";

const { values: args } = parseArgs({
  options: {
    frames: { type: "string", default: "200" },
    batches: { type: "string", default: "8" },
    rounds: { type: "string", default: "7" },
    "update-results": { type: "boolean", default: false },
  },
});
const FRAMES = Number(args.frames);
const BATCHES = Number(args.batches);
const ROUNDS = Number(args.rounds);
const IN_FLIGHT = 2;
const CORES = availableParallelism();

const { registry } = compileFixtures();
const span = buildFixtures(registry).find((f) => f.id === "span");
const type = ProtobufType.of(registry.getMessage(span.typeName));
const serializer = type.createSerializer();
const frames = serializer.encodeAll(Array(FRAMES).fill(serializer.fromBinary(span.bytes)));

const sizes = [...new Set([1, 2, CORES, 2 * CORES])].sort((a, b) => a - b);
const pools = new Map(sizes.map((k) => [k, createCodecPool({ type, size: k })]));

/** Runs `batch` BATCHES times with IN_FLIGHT at once. */
async function batches(batch) {
  let next = 0;
  const lane = async () => {
    while (next < BATCHES) {
      next++;
      await batch();
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
}

const check = (n) => {
  if (n !== FRAMES) throw new Error(`decoded ${n} of ${FRAMES} frames`);
};
const sides = {
  "one thread, values": () => batches(async () => check(serializer.decodeAll(frames).length)),
  "one thread, objects": () => batches(async () => check(serializer.decodeAll(frames).map((v) => v.toObject()).length)),
};
for (const [k, pool] of pools) {
  sides[`pool ×${k}, objects`] = () => batches(async () => check((await pool.decode(frames)).length));
  sides[`pool ×${k}, messages`] = () => batches(async () => check((await pool.decode(frames, { as: "message" })).length));
  sides[`pool ×${k}, messages read`] = () => batches(async () => check((await pool.decode(frames, { as: "message" })).map((v) => v.toObject()).length));
}

const samples = Object.fromEntries(Object.keys(sides).map((k) => [k, []]));
const busy = Object.fromEntries(Object.keys(sides).map((k) => [k, []]));
for (const run of Object.values(sides)) await run(); // warm-up: JIT, workers' layouts
const names = Object.keys(sides);
for (let r = 0; r < ROUNDS; r++) {
  for (const name of r % 2 === 0 ? names : [...names].reverse()) {
    const elu = performance.eventLoopUtilization();
    const t0 = process.hrtime.bigint();
    await sides[name]();
    samples[name].push(Number(process.hrtime.bigint() - t0) / 1e9);
    busy[name].push(performance.eventLoopUtilization(elu).active / (FRAMES * BATCHES));
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fps = Object.fromEntries(Object.entries(samples).map(([k, xs]) => [k, (FRAMES * BATCHES) / median(xs)]));

const rows = names.map((name) => {
  const pool = /^pool ×(\d+), (.*)$/.exec(name);
  const workers = pool ? Number(pool[1]) : 0;
  const base = pool && pool[2] === "objects" ? fps["one thread, objects"] : fps["one thread, values"];
  const speedup = fps[name] / base;
  return {
    side: name,
    workers,
    framesPerSecond: Math.round(fps[name]),
    speedup: Number(speedup.toFixed(2)),
    perCoreEfficiency: pool ? Number((speedup / Math.min(workers, CORES)).toFixed(2)) : null,
    // Time this thread's event loop was busy per frame (the rest of its time is free for the application).
    mainThreadMicrosPerFrame: Number((median(busy[name]) * 1000).toFixed(1)),
  };
});

console.log(`protokeel/pool vs one thread: ${span.title}, ${span.bytes.length} bytes a frame, ${FRAMES} frames a batch × ${BATCHES} batches (${IN_FLIGHT} in flight) × ${ROUNDS} rounds (median), ${CORES} cores`);
console.log(`  ${"side".padEnd(26)} ${"frames/s".padStart(9)}  ${"speed-up".padStart(8)}  ${"per-core".padStart(8)}  main thread µs/frame`);
for (const r of rows) {
  const eff = r.perCoreEfficiency === null ? "-" : r.perCoreEfficiency.toFixed(2);
  console.log(`  ${r.side.padEnd(26)} ${String(r.framesPerSecond).padStart(9)}  ${`${r.speedup.toFixed(2)}×`.padStart(8)}  ${eff.padStart(8)}  ${r.mainThreadMicrosPerFrame.toFixed(1).padStart(8)}`);
}
console.log("  speed-up: against one thread of the same result (objects rows against \"one thread, objects\", the others against \"one thread, values\")");

// Every run writes bench/.results/pool.json; the committed bench/results/pool.json changes only
// with --update-results (as npm run bench does for latest.*).
const json = `${JSON.stringify({ date: new Date().toISOString(), fixture: `${span.title}, ${span.bytes.length} bytes`, frames: FRAMES, batches: BATCHES, inFlight: IN_FLIGHT, rounds: ROUNDS, cores: CORES, rows, node: process.versions.node }, null, 2)}\n`;
mkdirSync(new URL("./.results/", import.meta.url), { recursive: true });
writeFileSync(new URL("./.results/pool.json", import.meta.url), json);
if (args["update-results"]) writeFileSync(new URL("./results/pool.json", import.meta.url), json);
await Promise.all([...pools.values()].map((p) => p.close()));
