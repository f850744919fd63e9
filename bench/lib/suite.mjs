// The benchmark's cases, checks and timing, without any Node API: `npm run bench` runs it in Node
// (run.mjs) and `npm run bench:runtimes` runs the same code bundled in Deno, Bun and Chromium
// (runtimes-entry.mjs). The caller hands in a context with everything that needs files, child
// processes or a built package (lib/node-context.mjs builds it in Node).
import bufbuild from "../adapters/bufbuild.mjs";
import pbf from "../adapters/pbf.mjs";
import protobufTs from "../adapters/protobuf-ts.mjs";
import protobufjsReflect from "../adapters/protobufjs-reflect.mjs";
import protobufjsStatic from "../adapters/protobufjs-static.mjs";
import protokeel from "../adapters/protokeel.mjs";
import { checkOperation, OPERATIONS } from "./check.mjs";
import { BASELINE, rankRows } from "./report.mjs";
import { DEFAULT_WARMUP_MS, measureGroup } from "./timing.mjs";

export const ADAPTERS = [protokeel, protobufjsReflect, protobufjsStatic, bufbuild, pbf, protobufTs];

const message = (e) => (e instanceof Error ? e.message : String(e));

/** Loads every adapter from the context; a failing one is skipped with the reason. */
export async function loadCodecs(ctx, log = () => {}) {
  const codecs = [];
  for (const adapter of ADAPTERS) {
    let loaded;
    try {
      loaded = await adapter.load(ctx);
    } catch (e) {
      loaded = { skip: `failed to load: ${message(e)}` };
    }
    codecs.push({ adapter, loaded });
    if (loaded.skip) log(`${adapter.name}: skipped, ${loaded.skip}`);
  }
  return codecs;
}

/** The codecs as the record lists them. */
export const codecSummaries = (codecs) =>
  codecs.map(({ adapter, loaded }) => ({ id: adapter.id, name: adapter.name, ...(loaded.skip ? { skip: loaded.skip } : { version: loaded.version, notes: loaded.notes ?? [] }) }));

/**
 * Cases named fixture/operation/codec that match `filter` (and whose operation `operations` allows);
 * a selected fixture×operation always includes the baseline.
 */
export function planCases(fixtures, codecs, filter, operations = () => true) {
  const active = codecs.filter((c) => !c.loaded.skip);
  const base = active.find((c) => c.adapter.id === BASELINE);
  const cases = [];
  for (const fixture of fixtures) {
    for (const operation of OPERATIONS[fixture.kind]) {
      if (!operations(operation)) continue;
      const chosen = active.filter((c) => filter.test(`${fixture.id}/${operation}/${c.adapter.id}`));
      if (chosen.length === 0) continue;
      if (base !== undefined && !chosen.includes(base)) chosen.unshift(base);
      for (const codec of active) if (chosen.includes(codec)) cases.push({ fixture, operation, codec });
    }
  }
  return cases;
}

/**
 * The timed call of a case. Encode cases take a value never encoded before (`fresh` builds one,
 * untimed, before each sample): a codec may memoize sizes on an immutable value, and re-encoding
 * one value would time that cache instead of the writer. Encode from a plain object writes the
 * same plain object every time: a plain object carries no memo (its check confirms that writing
 * leaves it as it was).
 */
function operationFn(bound, fixture, operation) {
  if (fixture.kind === "frames") {
    switch (operation) {
      case "decode":
        return { fn: () => bound.decodeFrames(fixture.bytes) };
      case "encode":
        return { fn: (values) => bound.encodeFrames(values), fresh: () => fixture.contents.map(bound.build) };
      default: {
        const { plains, encodePlainFrames } = bound;
        return { fn: () => encodePlainFrames(plains) };
      }
    }
  }
  switch (operation) {
    case "decode":
      return { fn: () => bound.decode(fixture.bytes) };
    case "encode":
      return { fn: (value) => bound.encode(value), fresh: () => bound.build(fixture.content) };
    case "encode-plain": {
      const { plain, encodePlain } = bound;
      return { fn: () => encodePlain(plain) };
    }
    case "relay":
      return { fn: () => bound.relay(fixture.bytes) };
    default: {
      const validate = bound.validate ?? bound.decode;
      return { fn: () => validate(fixture.bytes) };
    }
  }
}

/**
 * Checks and times the cases, one group per fixture×operation (its codecs timed together in
 * alternating rounds); returns the rows, ranked, with ratios to the baseline.
 * @param {Array<{ fixture: any, operation: string, codec: any }>} cases
 * @param {{ timeMs: number, warmupMs?: number, sampleNs?: number, log?: (line: string) => void }} options
 */
export function runCases(cases, { timeMs, warmupMs = DEFAULT_WARMUP_MS, sampleNs, log = () => {} }) {
  const prepared = new Map();
  const bind = (codec, fixture) => {
    const key = `${codec.adapter.id}/${fixture.id}`;
    if (!prepared.has(key)) {
      try {
        prepared.set(key, { bound: codec.loaded.prepare(fixture) });
      } catch (e) {
        prepared.set(key, { error: `prepare threw: ${message(e)}` });
      }
    }
    return prepared.get(key);
  };
  const measured = new Map();
  const results = [];
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
    const timings = measureGroup(toTime, { timeMs, warmupMs, sampleNs });
    toTime.forEach(({ row, alias }, i) => {
      const m = timings[i];
      if ("error" in m) {
        if (row.check.ok) row.check = { ok: false, reason: `threw while timed: ${message(m.error)}` };
        return;
      }
      const withRate = { ...m, mbPerSec: (m.opsPerSec * row.bytes) / 1e6 };
      measured.set(alias, withRate);
      Object.assign(row, withRate);
    });
    for (const row of rows) {
      const name = `${row.fixture}/${row.operation}/${row.codec}`;
      log(`${name.padEnd(38)} ${row.opsPerSec === undefined ? "—" : Math.round(row.opsPerSec).toLocaleString("en-US").padStart(12) + " ops/s"}${row.check.ok ? "" : `  ✗ ${row.check.reason}`}`);
      results.push(row);
    }
  }
  return rankRows(results);
}

/** The fixtures as the record lists them. */
export const fixtureSummaries = (fixtures) =>
  fixtures.map((f) => ({ id: f.id, title: f.title, typeName: f.typeName, bytes: f.bytes.length, strings: f.stats.strings, ...(f.kind === "frames" ? { frames: f.count } : {}) }));
