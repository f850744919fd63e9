// npm run bench: protokeel against protobufjs (reflection and static), @bufbuild/protobuf, pbf and
// protobuf-ts on seeded fixtures, in one process. Every case is checked against the reference
// before it is timed. Usage: node --expose-gc bench/run.mjs [--filter REGEX] [--time MS] [--seed N]
// [--write] [--update-results] (BENCH_FILTER works like --filter, BENCH_UPDATE_RESULTS=1 like
// --update-results). Results go to the gitignored bench/.results/; the committed
// bench/results/latest.* change only with --update-results (lib/output.mjs). The same cases run
// in Deno, Bun and Chromium with `npm run bench:runtimes` (runtimes.mjs). BENCH_DIST_ENTRY=<path
// to another build's index.js> times that build instead of dist/ (before/after comparisons with
// the same harness; never with --update-results).
import { cpus } from "node:os";
import { parseArgs } from "node:util";
import { buildFixtures } from "./lib/fixtures.mjs";
import { DEFAULT_SEED } from "./lib/generate.mjs";
import { loadNodeContext } from "./lib/node-context.mjs";
import { planOutputs, updateRequested, writeOutputs } from "./lib/output.mjs";
import { BASELINE, evaluateTargets, formatHeader, formatMatrix, formatTable, formatTargets, renderSvg } from "./lib/report.mjs";
import { codecSummaries, fixtureSummaries, loadCodecs, planCases, runCases } from "./lib/suite.mjs";
import { DEFAULT_TIME_MS, DEFAULT_WARMUP_MS, ROUNDS } from "./lib/timing.mjs";

const { values: args } = parseArgs({
  options: {
    filter: { type: "string" },
    time: { type: "string" },
    seed: { type: "string" },
    write: { type: "boolean", default: false },
    "update-results": { type: "boolean", default: false },
    help: { type: "boolean", default: false },
  },
});
if (args.help) {
  console.log(
    "usage: npm run bench -- [--filter REGEX] [--time MS] [--seed N] [--write] [--update-results]\n" +
      "cases are named fixture/operation/codec, e.g. span/decode/bufbuild or small/encode-plain/protokeel\n" +
      "results go to bench/.results/ (gitignored); --update-results (full runs only) also rewrites the committed bench/results/latest.*",
  );
  process.exit(0);
}
const filterText = args.filter ?? process.env.BENCH_FILTER ?? "";
const filter = new RegExp(filterText);
const timeMs = args.time === undefined ? DEFAULT_TIME_MS : Number(args.time);
const seed = args.seed === undefined ? DEFAULT_SEED : Number(args.seed);
if (!(timeMs > 0) || !Number.isInteger(seed)) throw new Error("--time must be a positive number of ms and --seed an integer");
// Decided before the run, so that a refused combination does not cost a full run first.
let outputs;
try {
  const update = updateRequested(args["update-results"]);
  if (update && process.env.BENCH_DIST_ENTRY !== undefined) throw new Error("--update-results records dist/: unset BENCH_DIST_ENTRY");
  outputs = planOutputs({ filtered: filterText !== "", write: args.write, update });
} catch (e) {
  console.error(`bench: ${e.message}`);
  process.exit(2);
}
if (globalThis.gc === undefined) console.error("note: run with node --expose-gc so each case starts after a full GC");

const started = Date.now();
const log = (s) => process.stderr.write(s + "\n");

const ctx = await loadNodeContext();
const fixtures = buildFixtures(ctx.registry, seed);
const codecs = await loadCodecs(ctx, log);
const cases = planCases(fixtures, codecs, filter);
if (cases.length === 0) throw new Error(`no case matches ${filter}; cases are named fixture/operation/codec, e.g. span/decode/bufbuild`);

log(`${cases.length} cases, ${timeMs} ms each in ${ROUNDS} rounds${filterText ? `, filter /${filterText}/` : ""}`);
const results = runCases(cases, { timeMs, log });

const cpu = cpus();
const record = {
  date: new Date().toISOString(),
  machine: { cpu: cpu[0]?.model.trim() ?? "unknown", cores: cpu.length, node: process.versions.node, v8: process.versions.v8, platform: process.platform, arch: process.arch },
  packages: Object.fromEntries(Object.entries(ctx.versions).filter(([name]) => name !== "protokeel")),
  settings: { timeMs, warmupMs: DEFAULT_WARMUP_MS, rounds: ROUNDS, seed, filter: filterText || null, statistic: "median of tinybench samples", baseline: BASELINE },
  fixtures: fixtureSummaries(fixtures),
  codecs: codecSummaries(codecs),
  results,
  targets: undefined,
  seconds: Math.round((Date.now() - started) / 1000),
};

record.targets = evaluateTargets(record);

console.log(`\n${formatHeader(record)}\n\n${formatTable(record)}\n\nRatio to protobufjs reflection (ops/s in parentheses):\n\n${formatMatrix(record)}\n`);
if (codecs.some((c) => c.adapter.id === "protokeel" && !c.loaded.skip)) console.log(`docs/design.md §14 targets:\n\n${formatTargets(record)}\n`);
if (outputs.dirs.length > 0) {
  log(`wrote ${writeOutputs(outputs.dirs, record, renderSvg(record)).join(", ")} (${record.seconds} s)`);
} else {
  log(`${outputs.skipped} (${record.seconds} s)`);
}
