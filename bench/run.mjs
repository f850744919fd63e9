// npm run bench: protokeel against protobufjs (reflection and static), @bufbuild/protobuf and pbf
// on seeded fixtures, in one process. Every case is checked against the reference before it is
// timed. Usage: node --expose-gc bench/run.mjs [--filter REGEX] [--time MS] [--seed N] [--write]
// [--update-results] (BENCH_FILTER works like --filter, BENCH_UPDATE_RESULTS=1 like
// --update-results). Results go to the gitignored bench/.results/; the committed
// bench/results/latest.* change only with --update-results (lib/output.mjs).
import { cpus } from "node:os";
import { parseArgs } from "node:util";
import bufbuild from "./adapters/bufbuild.mjs";
import pbf from "./adapters/pbf.mjs";
import protobufjsReflect from "./adapters/protobufjs-reflect.mjs";
import protobufjsStatic from "./adapters/protobufjs-static.mjs";
import protokeel from "./adapters/protokeel.mjs";
import { checkOperation, OPERATIONS } from "./lib/check.mjs";
import { generateCode } from "./lib/codegen.mjs";
import { buildFixtures, compileFixtures, protoFiles } from "./lib/fixtures.mjs";
import { DEFAULT_SEED } from "./lib/generate.mjs";
import { planOutputs, updateRequested, writeOutputs } from "./lib/output.mjs";
import { BASELINE, evaluateTargets, formatHeader, formatMatrix, formatTable, formatTargets, rankRows, renderSvg } from "./lib/report.mjs";
import { DEFAULT_TIME_MS, DEFAULT_WARMUP_MS, measureGroup, ROUNDS } from "./lib/timing.mjs";
import { packageVersion } from "./lib/versions.mjs";

const ADAPTERS = [protokeel, protobufjsReflect, protobufjsStatic, bufbuild, pbf];

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
      "cases are named fixture/operation/codec, e.g. span/decode/bufbuild\n" +
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
  outputs = planOutputs({ filtered: filterText !== "", write: args.write, update: updateRequested(args["update-results"]) });
} catch (e) {
  console.error(`bench: ${e.message}`);
  process.exit(2);
}
if (globalThis.gc === undefined) console.error("note: run with node --expose-gc so each case starts after a full GC");

const started = Date.now();
const log = (s) => process.stderr.write(s + "\n");

const { registry, fileDescriptorSet } = compileFixtures();
const fixtures = buildFixtures(registry, seed);
const files = protoFiles();
const generated = generateCode(files);

const codecs = [];
for (const adapter of ADAPTERS) {
  let loaded;
  try {
    loaded = await adapter.load({ registry, fileDescriptorSet, generated, protoFiles: files });
  } catch (e) {
    loaded = { skip: `failed to load: ${e instanceof Error ? e.message : e}` };
  }
  codecs.push({ adapter, loaded });
  if (loaded.skip) log(`${adapter.name}: skipped, ${loaded.skip}`);
}
const active = codecs.filter((c) => !c.loaded.skip);

// Cases: fixture/operation/codec; a selected fixture×operation always includes the baseline.
const cases = [];
for (const fixture of fixtures) {
  for (const operation of OPERATIONS[fixture.kind]) {
    const chosen = active.filter((c) => filter.test(`${fixture.id}/${operation}/${c.adapter.id}`));
    if (chosen.length === 0) continue;
    const base = active.find((c) => c.adapter.id === BASELINE);
    if (base !== undefined && !chosen.includes(base)) chosen.unshift(base);
    for (const codec of active) if (chosen.includes(codec)) cases.push({ fixture, operation, codec });
  }
}
if (cases.length === 0) throw new Error(`no case matches ${filter}; cases are named fixture/operation/codec, e.g. span/decode/bufbuild`);

const prepared = new Map();
function bind(codec, fixture) {
  const key = `${codec.adapter.id}/${fixture.id}`;
  if (!prepared.has(key)) {
    try {
      prepared.set(key, { bound: codec.loaded.prepare(fixture) });
    } catch (e) {
      prepared.set(key, { error: `prepare threw: ${e instanceof Error ? e.message : e}` });
    }
  }
  return prepared.get(key);
}

/**
 * The timed call of a case. Encode cases take a value never encoded before (`fresh` builds one,
 * untimed, before each sample): a codec may memoize sizes on an immutable value, and re-encoding
 * one value would time that cache instead of the writer.
 */
function operationFn(bound, fixture, operation) {
  if (fixture.kind === "frames") {
    return operation === "decode"
      ? { fn: () => bound.decodeFrames(fixture.bytes) }
      : { fn: (values) => bound.encodeFrames(values), fresh: () => fixture.contents.map(bound.build) };
  }
  switch (operation) {
    case "decode":
      return { fn: () => bound.decode(fixture.bytes) };
    case "encode":
      return { fn: (value) => bound.encode(value), fresh: () => bound.build(fixture.content) };
    case "relay":
      return { fn: () => bound.relay(fixture.bytes) };
    default: {
      const validate = bound.validate ?? bound.decode;
      return { fn: () => validate(fixture.bytes) };
    }
  }
}

log(`${cases.length} cases, ${timeMs} ms each in ${ROUNDS} rounds${filterText ? `, filter /${filterText}/` : ""}`);
const measured = new Map();
const results = [];
// one group per fixture×operation, timed together in alternating rounds
const groups = new Map();
for (const c of cases) {
  const key = `${c.fixture.id}/${c.operation}`;
  if (!groups.has(key)) groups.set(key, []);
  groups.get(key).push(c);
}
for (const group of groups.values()) {
  const rows = [];
  const toTime = [];
  for (const { fixture, operation, codec } of group) {
    const name = `${fixture.id}/${operation}/${codec.adapter.id}`;
    const row = { fixture: fixture.id, operation, codec: codec.adapter.id, bytes: fixture.bytes.length };
    rows.push(row);
    const p = bind(codec, fixture);
    if (p.error) {
      row.check = { ok: false, reason: p.error };
      continue;
    }
    row.check = checkOperation(p.bound, fixture, operation);
    // a full decode stands in for validate-only: reuse its measurement instead of timing it twice
    const alias = operation === "validate" && p.bound.validate === undefined ? `${fixture.id}/decode/${codec.adapter.id}` : name;
    if (measured.has(alias)) Object.assign(row, measured.get(alias));
    else toTime.push({ row, alias, name, ...operationFn(p.bound, fixture, operation) });
  }
  const timings = measureGroup(toTime, { timeMs, warmupMs: DEFAULT_WARMUP_MS });
  toTime.forEach(({ row, alias }, i) => {
    const m = timings[i];
    if ("error" in m) {
      if (row.check.ok) row.check = { ok: false, reason: `threw while timed: ${m.error instanceof Error ? m.error.message : m.error}` };
      return;
    }
    const withRate = { ...m, mbPerSec: (m.opsPerSec * row.bytes) / 1e6 };
    measured.set(alias, withRate);
    Object.assign(row, withRate);
  });
  for (const row of rows) {
    const name = `${row.fixture}/${row.operation}/${row.codec}`;
    log(`${name.padEnd(34)} ${row.opsPerSec === undefined ? "—" : Math.round(row.opsPerSec).toLocaleString("en-US").padStart(12) + " ops/s"}${row.check.ok ? "" : `  ✗ ${row.check.reason}`}`);
    results.push(row);
  }
}
rankRows(results);

const cpu = cpus();
const record = {
  date: new Date().toISOString(),
  machine: { cpu: cpu[0]?.model.trim() ?? "unknown", cores: cpu.length, node: process.versions.node, v8: process.versions.v8, platform: process.platform, arch: process.arch },
  packages: Object.fromEntries(["protobufjs", "protobufjs-cli", "@bufbuild/protobuf", "pbf", "tinybench", "@bufbuild/buf"].map((n) => [n, packageVersion(n)])),
  settings: { timeMs, warmupMs: DEFAULT_WARMUP_MS, rounds: ROUNDS, seed, filter: filterText || null, statistic: "median of tinybench samples", baseline: BASELINE },
  fixtures: fixtures.map((f) => ({ id: f.id, title: f.title, typeName: f.typeName, bytes: f.bytes.length, strings: f.stats.strings, ...(f.kind === "frames" ? { frames: f.count } : {}) })),
  codecs: codecs.map(({ adapter, loaded }) => ({ id: adapter.id, name: adapter.name, ...(loaded.skip ? { skip: loaded.skip } : { version: loaded.version, notes: loaded.notes ?? [] }) })),
  results,
  targets: undefined,
  seconds: Math.round((Date.now() - started) / 1000),
};

record.targets = evaluateTargets(record);

console.log(`\n${formatHeader(record)}\n\n${formatTable(record)}\n\nRatio to protobufjs reflection (ops/s in parentheses):\n\n${formatMatrix(record)}\n`);
if (codecs.some((c) => c.adapter.id === "protokeel" && !c.loaded.skip)) console.log(`DESIGN §14 targets:\n\n${formatTargets(record)}\n`);
if (outputs.dirs.length > 0) {
  log(`wrote ${writeOutputs(outputs.dirs, record, renderSvg(record)).join(", ")} (${record.seconds} s)`);
} else {
  log(`${outputs.skipped} (${record.seconds} s)`);
}
