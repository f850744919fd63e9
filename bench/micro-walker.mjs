// Micro-benchmark: the WASM walker (dist/protokeel.wasm) against an equivalent plain-JavaScript
// validating loop, on one ~16 KB OpenTelemetry-like span batch, in one process (tinybench).
// Both read the same flat layout table (format in assembly/table.ts) and check the same rules:
// tags, field numbers, wire types against the declaration, varints <= 10 bytes, lengths,
// depth with an explicit stack, and UTF-8 of every string. The WASM side also copies the input
// into linear memory and writes the decode tape, which the JS loop does not; the validate-only
// row is the same walk without the tape (assembly/validate.ts), and the copy row is the input
// copy alone.
// A second part walks the bench's "1000 small frames" fixture (bench.Small, 86.9 KB) with
// walkFrames, and one small message with walk: field-dense data where the per-field cost of the
// walker dominates. With BASE_WASM=path, the same cases also run on that build in the same
// process (an A/B of two walkers without the noise of two runs).
// Usage: npm run build && node bench/micro-walker.mjs [time-ms]
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import protobuf from "protobufjs";
import { Bench } from "tinybench";
import { buildFixtures, compileFixtures } from "./lib/fixtures.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const wasmBytes = readFileSync(join(here, "..", "dist", "protokeel.wasm"));
const timeMs = Number(process.argv[2] ?? 2000);

// --- the fixture: 50 spans, ~16 KB -------------------------------------------------------
const root = protobuf.parse(`
syntax = "proto3";
package bench;
message Batch { repeated Span spans = 1; }
message Span {
  bytes trace_id = 1; bytes span_id = 2; string name = 3; fixed64 start_ns = 4; fixed64 end_ns = 5;
  repeated Attr attrs = 6; int32 kind = 7; Status status = 8; bytes parent_span_id = 9;
}
message Attr { string key = 1; Value value = 2; }
message Value { oneof v { string s = 1; int64 i = 2; double d = 3; bool b = 4; } }
message Status { string message = 1; int32 code = 2; }
`).root;
const Batch = root.lookupType("bench.Batch");

let seed = 42;
const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
const word = (n) => Array.from({ length: n }, () => String.fromCharCode(97 + Math.floor(rnd() * 26))).join("");
const bytes = (n) => Uint8Array.from({ length: n }, () => Math.floor(rnd() * 256));
const spans = [];
for (let i = 0; i < 50; i++) {
  const attrs = [];
  for (let j = 0; j < 10; j++) {
    const k = j % 3;
    attrs.push({ key: `${word(4)}.${word(5)}`, value: k === 0 ? { s: word(8) } : k === 1 ? { i: Math.floor(rnd() * 1e9) } : { d: rnd() } });
  }
  spans.push({
    traceId: bytes(16), spanId: bytes(8), parentSpanId: bytes(8), name: `GET /api/${word(6)}`,
    startNs: 1700000000000000000n + BigInt(i), endNs: 1700000000000500000n + BigInt(i),
    attrs, kind: 2, status: { message: "ok", code: 1 },
  });
}
const input = Batch.encode(Batch.fromObject({ spans })).finish();

// --- the layout table (assembly/table.ts), built by hand for this schema ------------------
const K = { double: 1, int64: 3, int32: 5, fixed64: 6, bool: 8, string: 9, message: 11, bytes: 12 };
const types = {
  Batch: [[1, "message", "Span", true]],
  Span: [[1, "bytes"], [2, "bytes"], [3, "string"], [4, "fixed64"], [5, "fixed64"], [6, "message", "Attr", true], [7, "int32"], [8, "message", "Status"], [9, "bytes"]],
  Attr: [[1, "string"], [2, "message", "Value"]],
  Value: [[1, "string"], [2, "int64"], [3, "double"], [4, "bool"]],
  Status: [[1, "string"], [2, "int32"]],
};
/**
 * A layout table (assembly/table.ts) for `types`: name -> [number, kind (FieldDescriptorProto
 * type), nested type name, repeated][]; returns the words and each type's word offset.
 */
function layoutTable(types) {
  const WIRE_OF = (k) => (k === 1 || k === 6 || k === 16 ? 1 : k === 2 || k === 7 || k === 15 ? 5 : k === 9 || k === 11 || k === 12 ? 2 : 0);
  // Tag actions (validate's lean loop): one byte per tag of numbers 0..max(dmax, 15).
  const actionOf = (k) => (k === 11 ? 6 : k === 9 ? 5 : k === 12 ? 4 : [1, 2, 0, 0, 0, 3][WIRE_OF(k)]);
  const actionNumbers = (dmax) => Math.min(Math.max(dmax + 1, 16), 2048);
  const offsets = {};
  let words = 0;
  for (const [name, fields] of Object.entries(types)) {
    offsets[name] = words;
    const dmax = Math.max(...fields.map((f) => f[0]));
    words += 4 + 2 * (dmax + 1) + 2 * actionNumbers(dmax);
  }
  const table = new Int32Array(words);
  for (const [name, fields] of Object.entries(types)) {
    const t = offsets[name];
    const dmax = Math.max(...fields.map((f) => f[0]));
    const actions = 4 + 2 * (dmax + 1);
    table.set([actions * 4, dmax, 0, actions + 2 * actionNumbers(dmax)], t);
    fields.forEach(([n, k, sub, repeated], slot) => {
      let a = k | (WIRE_OF(k) << 5) | (slot << 12);
      if (k === 9) a |= 1 << 9;
      if (k === 11) a |= 1 << 10;
      if (repeated) a |= 1 << 11;
      table[t + 4 + 2 * n] = a;
      table[t + 5 + 2 * n] = sub ? offsets[sub] : 0;
      const tag = (n << 3) | WIRE_OF(k);
      table[t + actions + (tag >> 2)] |= actionOf(k) << ((tag & 3) << 3);
    });
  }
  return { table, offsets };
}
const { table, offsets } = layoutTable(
  Object.fromEntries(Object.entries(types).map(([name, fields]) => [name, fields.map(([n, kind, sub, rep]) => [n, K[kind], sub, rep])])),
);

// --- WASM: one instance, the table uploaded once, cached views ----------------------------
const wasm = new WebAssembly.Instance(new WebAssembly.Module(wasmBytes), {}).exports;
const heap = wasm.heapBase();
const tbl = heap;
const stack = tbl + table.length * 4 + 64;
const maxDepth = 100;
const base = stack + maxDepth * 16;
const tape = base + ((input.length + 15) & ~15);
const tapeEnd = tape + input.length * 4 + 4096;
const text = tapeEnd;
const textEnd = text + input.length + 16;
wasm.memory.grow(Math.ceil(textEnd / 65536));
const u8 = new Uint8Array(wasm.memory.buffer);
new Int32Array(wasm.memory.buffer).set(table, tbl >>> 2);

function walkWasm(buf) {
  u8.set(buf, base);
  const s = wasm.walk(tbl, table.length, offsets.Batch, base, buf.length, 67108864, maxDepth, stack, tape, tapeEnd, text, textEnd);
  if (s !== 0) throw new Error(`wasm status ${s}`);
  return s;
}

function validateWasm(buf) {
  u8.set(buf, base);
  const s = wasm.validate(tbl, table.length, offsets.Batch, base, buf.length, 67108864, maxDepth, stack);
  if (s !== 0) throw new Error(`wasm status ${s}`);
  return s;
}

// The copy into linear memory alone: what every call pays before the walk starts.
function copyOnly(buf) {
  u8.set(buf, base);
  return 0;
}

// --- the equivalent JavaScript validating loop ---------------------------------------------
const jsStack = new Int32Array(maxDepth * 2);

function utf8Valid(b, p, end) {
  while (p < end) {
    const c = b[p];
    if (c < 0x80) { p++; continue; }
    if (c < 0xc2) return false;
    if (c < 0xe0) {
      if (end - p < 2 || (b[p + 1] & 0xc0) !== 0x80) return false;
      p += 2;
    } else if (c < 0xf0) {
      if (end - p < 3) return false;
      const c1 = b[p + 1];
      if (c1 < (c === 0xe0 ? 0xa0 : 0x80) || c1 > (c === 0xed ? 0x9f : 0xbf) || (b[p + 2] & 0xc0) !== 0x80) return false;
      p += 3;
    } else if (c < 0xf5) {
      if (end - p < 4) return false;
      const c1 = b[p + 1];
      if (c1 < (c === 0xf0 ? 0x90 : 0x80) || c1 > (c === 0xf4 ? 0x8f : 0xbf) || (b[p + 2] & 0xc0) !== 0x80 || (b[p + 3] & 0xc0) !== 0x80) return false;
      p += 4;
    } else return false;
  }
  return true;
}

// Returns the position after a varint, or -1 (truncated, > 10 bytes or overflowing).
function skipVarint(b, p, end) {
  for (let i = 0; i < 10; i++) {
    if (p >= end) return -1;
    const c = b[p++];
    if (c < 0x80) return i === 9 && c > 1 ? -1 : p;
  }
  return -1;
}

let lenValue = 0;
function readLen(b, p, end) {
  let v = 0;
  for (let shift = 0; shift < 35; shift += 7) {
    if (p >= end) return -1;
    const c = b[p++];
    v += (c & 0x7f) * 2 ** shift;
    if (c < 0x80) { lenValue = v; return p; }
  }
  return -1;
}

function walkJs(b) {
  let p = 0;
  let end = b.length;
  let T = offsets.Batch;
  let depth = 0;
  for (;;) {
    if (p >= end) {
      if (depth === 0) return 0;
      depth--;
      end = jsStack[2 * depth];
      T = jsStack[2 * depth + 1];
      continue;
    }
    let tag = b[p];
    if (tag < 0x80) p++;
    else {
      p = readLen(b, p, end);
      if (p < 0 || lenValue > 0xffffffff) throw new Error("bad tag");
      tag = lenValue;
    }
    const num = tag >>> 3;
    const wt = tag & 7;
    if (num === 0) throw new Error("field 0");
    const a = num <= table[T + 1] ? table[T + 4 + 2 * num] : 0;
    if (a !== 0 && wt !== ((a >>> 5) & 7)) throw new Error("wire type mismatch");
    if (wt === 0) {
      p = skipVarint(b, p, end);
      if (p < 0) throw new Error("bad varint");
    } else if (wt === 1) {
      if (end - p < 8) throw new Error("truncated");
      p += 8;
    } else if (wt === 5) {
      if (end - p < 4) throw new Error("truncated");
      p += 4;
    } else if (wt === 2) {
      p = readLen(b, p, end);
      if (p < 0 || lenValue > end - p) throw new Error("length past end");
      const vend = p + lenValue;
      if (a & (1 << 10)) {
        if (depth + 1 >= maxDepth) throw new Error("too deep");
        jsStack[2 * depth] = end;
        jsStack[2 * depth + 1] = T;
        depth++;
        T = table[T + 5 + 2 * num];
        end = vend;
        continue;
      }
      if (a & (1 << 9) && !utf8Valid(b, p, vend)) throw new Error("invalid utf-8");
      p = vend;
    } else throw new Error("invalid wire type");
  }
}

walkWasm(input);
validateWasm(input);
walkJs(input);

const bench = new Bench({ time: timeMs, warmup: true });
bench.add("wasm walker (copy in + validate + tape)", () => walkWasm(input));
bench.add("wasm validate-only (copy in + validate)", () => validateWasm(input));
bench.add("copy into linear memory only", () => copyOnly(input));
bench.add("plain JS validating loop", () => walkJs(input));
await bench.run();

const median = (t) => t.result.latency.p50 ?? t.result.latency.mean;
const [w, v, , j] = bench.tasks;
console.log(`message: ${input.length} bytes (50 spans, 500 attributes), Node ${process.version}`);
for (const t of bench.tasks) {
  const ns = median(t) * 1e6;
  console.log(`${t.name.padEnd(42)} ${(ns / 1000).toFixed(2).padStart(8)} µs  ${((input.length / ns) * 1e9 / 1e9).toFixed(2)} GB/s`);
}
console.log(`ratio (JS time / WASM time, medians): ${(median(j) / median(w)).toFixed(2)}x`);
console.log(`ratio (walk time / validate-only time, medians): ${(median(w) / median(v)).toFixed(2)}x`);

// --- field-dense: 1000 small frames (walkFrames) and one small message (walk) -------------
const small = {
  offsets: { Small: 0 },
  // bench.Small: uint64 id, string name, string email, int32 age, bool active, double balance,
  // repeated string tags, Tier tier (enum), sint32 delta.
  fields: [[1, 4, 0], [2, 9, 2], [3, 9, 2], [4, 5, 0], [5, 8, 0], [6, 1, 1], [7, 9, 2, true], [8, 14, 0], [9, 17, 0]],
};
const smallTable = layoutTable({ Small: small.fields.map(([n, k, _w, rep]) => [n, k, undefined, rep]) }).table;
const fixtures = buildFixtures(compileFixtures().registry);
const framesInput = fixtures.find((f) => f.id === "frames").bytes;
const smallInput = fixtures.find((f) => f.id === "small").bytes;

function denseRunner(bytes) {
  const x = new WebAssembly.Instance(new WebAssembly.Module(bytes), {}).exports;
  const tb = x.heapBase();
  const st = tb + smallTable.length * 4 + 64;
  const b = st + maxDepth * 16;
  const n = framesInput.length;
  const tx = b + ((n + 15) & ~15);
  const txEnd = tx + n + 16;
  const tp = (txEnd + 15) & ~15;
  const tpEnd = tp + n * 4 + 4096;
  x.memory.grow(Math.ceil(tpEnd / 65536));
  const m = new Uint8Array(x.memory.buffer);
  new Int32Array(x.memory.buffer).set(smallTable, tb >>> 2);
  const check = (s) => {
    if (s !== 0) throw new Error(`wasm status ${s}`);
    return s;
  };
  // Builds before the resumable walker (no walkResume) take the whole buffer; later ones a
  // segment [from, to) with the bytes after it (here the whole buffer: from 0, to n, none after).
  const segmented = typeof x.walkResume === "function";
  const walkFrames = segmented
    ? () => x.walkFrames(tb, smallTable.length, 0, b, 0, n, 0, 67108864, maxDepth, st, tp, tpEnd, tx, txEnd)
    : () => x.walkFrames(tb, smallTable.length, 0, b, n, 67108864, maxDepth, st, tp, tpEnd, tx, txEnd);
  const validateFrames = segmented
    ? () => x.validateFrames(tb, smallTable.length, 0, b, 0, n, 0, 67108864, maxDepth, st)
    : () => x.validateFrames(tb, smallTable.length, 0, b, n, 67108864, maxDepth, st);
  return {
    frames: () => (m.set(framesInput, b), check(walkFrames())),
    framesValidate: () => (m.set(framesInput, b), check(validateFrames())),
    small: () => (m.set(smallInput, b), check(x.walk(tb, smallTable.length, 0, b, smallInput.length, 67108864, maxDepth, st, tp, tpEnd, tx, txEnd))),
  };
}

const runners = [["", denseRunner(wasmBytes)]];
if (process.env.BASE_WASM) runners.push([" [base]", denseRunner(readFileSync(process.env.BASE_WASM))]);
// Rounds interleaved across builds and cases, min and median per case: on 2 shared noisy cores
// a slow spell then hits every case alike instead of whichever tinybench task ran during it.
const cases = [];
for (const [label, r] of runners) {
  cases.push([`walkFrames 1000 small frames${label}`, r.frames, 40]);
  cases.push([`walk one small message${label}`, r.small, 20000]);
  cases.push([`validateFrames 1000 small frames${label}`, r.framesValidate, 40]);
}
const samples = cases.map(() => []);
const cpuSamples = cases.map(() => []);
const rounds = Math.max(20, Math.round(timeMs / 25));
for (let round = -3; round < rounds; round++) {
  cases.forEach(([, fn, n], i) => {
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    for (let k = 0; k < n; k++) fn();
    const ns = Number(process.hrtime.bigint() - t0) / n;
    const c1 = process.cpuUsage(c0);
    if (round >= 0) {
      samples[i].push(ns);
      // CPU time of this thread's process: time lost to the other tenants' preemption is left out.
      cpuSamples[i].push(((c1.user + c1.system) * 1000) / n);
    }
  });
}
console.log(`frames: ${framesInput.length} bytes (1000 bench.Small), small: ${smallInput.length} bytes; ${rounds} interleaved rounds`);
cases.forEach(([name], i) => {
  const xs = samples[i].sort((a, b) => a - b);
  const cs = cpuSamples[i].sort((a, b) => a - b);
  const us = (ns) => (ns / 1000).toFixed(3).padStart(8);
  console.log(`${name.padEnd(42)} min ${us(xs[0])} µs  median ${us(xs[xs.length >> 1])} µs  cpu median ${us(cs[cs.length >> 1])} µs`);
});
