// The serializer writes plain init objects first with the direct walk (the generated kind's
// writer with an init plan, src/codec/generated-writer.ts) and hands what it refuses to the
// dynamic writer. The rule that keeps that safe: whatever the direct walk writes, the dynamic
// writer writes byte for byte, and whatever the dynamic writer refuses, the direct walk refuses.
// Checked here against the dynamic writer itself, on random schemas and values with faults and
// edge values put in at random places, and on a table of the values where create's rules and
// protobuf-es' (the walk's first form) differ.
import { create, ScalarType, toBinary, type DescField, type DescMessage } from "@bufbuild/protobuf";
import fc from "fast-check";
import { afterEach, describe, expect, test, vi } from "vitest";
import { GeneratedMessageWriter } from "../src/codec/generated-writer.js";
import { MessageWriter } from "../src/codec/writer.js";
import { DynamicMessage, FrameWriter, ProtobufType } from "../src/index.js";
import type { Settings } from "../src/settings.js";
import { messageArb } from "./support/arbitrary-message.js";
import { schemaArb } from "./support/arbitrary-schema.js";
import { compileProtoText, messageFromDir } from "./support/buf.js";
import { hex } from "./support/differential.js";
import { check } from "./support/property.js";
import { pollute, polluting } from "./support/pollute.js";
import { AllTypesSchema } from "./fixtures/generated-es/gen/all_types_pb.js";

polluting();

type Outcome = { ok: true; bytes: string } | { ok: false; error: unknown };

function outcome(write: () => Uint8Array): Outcome {
  try {
    return { ok: true, bytes: hex(write()) };
  } catch (error) {
    return { ok: false, error };
  }
}

interface Pair {
  readonly direct: GeneratedMessageWriter;
  readonly dynamic: MessageWriter;
}

function pair(root: DescMessage, settings: Settings): Pair {
  return { direct: new GeneratedMessageWriter(root, settings, true), dynamic: new MessageWriter(root, { settings }) };
}

/**
 * The rule, for one init object, bare and framed: returns whether the direct walk wrote it (the
 * dynamic writer then wrote the same bytes).
 */
function agree(p: Pair, init: unknown): boolean {
  const direct = outcome(() => p.direct.toBinary(init));
  const dynamic = outcome(() => p.dynamic.toBinary(init));
  if (direct.ok) expect(dynamic).toEqual(direct);
  if (!dynamic.ok) expect(direct.ok).toBe(false);
  const directFrame = outcome(() => p.direct.encodeFrame(init));
  if (directFrame.ok) expect(outcome(() => p.dynamic.encodeFrame(init))).toEqual(directFrame);
  expect(directFrame.ok).toBe(direct.ok);
  return direct.ok;
}

const All = messageFromDir("fixtures/all-types", "alltypes.AllTypes");
const allType = ProtobufType.of(All);
const all = pair(All, allType.settings);
const allDet = pair(All, ProtobufType.newBuilder(All).deterministic(true).build().settings);

/** The init objects of a sample: the root and every nested message's, with their descriptors. */
function messagesOf(init: unknown, desc: DescMessage, out: [Record<string, unknown>, DescMessage][]): void {
  // An earlier edit may have put anything anywhere: only plain objects are walked.
  if (init === null || typeof init !== "object" || Object.getPrototypeOf(init) !== Object.prototype) return;
  const o = init as Record<string, unknown>;
  out.push([o, desc]);
  for (const f of desc.fields) {
    const v = o[f.name];
    if (f.fieldKind === "message") messagesOf(v, f.message, out);
    else if (f.fieldKind === "list" && f.listKind === "message" && Array.isArray(v)) for (const e of v) messagesOf(e, f.message, out);
    else if (f.fieldKind === "map" && f.mapKind === "message" && v instanceof Map) for (const e of v.values()) messagesOf(e, f.message, out);
  }
}

const LONG = [ScalarType.INT64, ScalarType.UINT64, ScalarType.SINT64, ScalarType.FIXED64, ScalarType.SFIXED64];

/**
 * Values where the two forms' rules could part: signed zeros, floats that round to zero or past
 * float32, wrong types, numbers and strings for 64-bit fields, integers past 2^53, enum names,
 * lone surrogates (short and long), nested values that are not init objects.
 */
function edgeValues(f: DescField): unknown[] {
  const common = [null, undefined, "x", true, 1.5, {}, [], 7n];
  if (f.fieldKind === "scalar" || f.fieldKind === "enum") {
    const t = f.fieldKind === "enum" ? ScalarType.INT32 : f.scalar;
    const names = f.fieldKind === "enum" ? [f.enum.values[0]!.name, "NOT_A_VALUE"] : [];
    if (t === ScalarType.STRING) return [...common, "", "\uD800", `${"a".repeat(60)}\uDC00`, "é".repeat(50), 5];
    if (t === ScalarType.BYTES) return [...common, new Uint8Array(0), new Uint8Array([1, 2]), Buffer.from("ab"), [1, 2]];
    if (LONG.includes(t)) return [...common, 0, -0, 5, -5, 2 ** 53 + 2, "12", "-0", "0", "01", 0n, -1n, 2n ** 60n + 1n, 2n ** 64n, -(2n ** 63n) - 1n];
    return [...common, ...names, 0, -0, 1e-50, -1e-50, 3.5e38, 1e39, NaN, -Infinity, 2 ** 31, -(2 ** 31) - 1, 2 ** 32, -1, 0.5];
  }
  return [...common, 0, new Map(), new Uint8Array(1)];
}

/** A fault or edge put into a sample (see `inject`): where, and what. */
interface Edit {
  readonly at: number;
  readonly field: number;
  readonly what: number;
}

const editArb: fc.Arbitrary<Edit> = fc.record({ at: fc.nat(), field: fc.nat(), what: fc.nat() });

/** Applies `e` to the init objects of `root` (mutated in place). */
function inject(init: Record<string, unknown>, root: DescMessage, e: Edit): void {
  const msgs: [Record<string, unknown>, DescMessage][] = [];
  messagesOf(init, root, msgs);
  const [obj, desc] = msgs[e.at % msgs.length]!;
  const kinds = 6;
  const what = e.what % kinds;
  const f = desc.fields.length > 0 ? desc.fields[e.field % desc.fields.length] : undefined;
  if (what === 0 || f === undefined) {
    // A key that names no field, holding data or not; $typeName; a field by its JSON name.
    const keys = ["nope", "$typeName", "$unknown", f === undefined ? "x" : f.jsonName];
    const key = keys[e.field % keys.length]!;
    if (f !== undefined && key === f.jsonName && key === f.name) return;
    obj[key] = e.what % 3 === 0 ? undefined : 1;
    return;
  }
  if (what === 1 && f.oneof !== undefined) {
    // Every member of the oneof set (the second is refused), or all but one null.
    const nullOthers = e.what % 2 === 0;
    for (const m of f.oneof.fields) {
      if (m === f) continue;
      if (nullOthers) obj[m.name] = null;
      else if (obj[m.name] === undefined) obj[m.name] = m.fieldKind === "message" ? {} : (edgeValues(m).find((v) => typeof v === "number" && v !== 0) ?? "x");
    }
    if (obj[f.name] === undefined) obj[f.name] = f.fieldKind === "message" ? {} : f.fieldKind === "enum" ? 1 : f.fieldKind === "scalar" && f.scalar === ScalarType.STRING ? "s" : 1;
    return;
  }
  if (what === 2 && f.fieldKind === "message") {
    // A built value where an init object goes (only the dynamic writer takes it).
    const inner = obj[f.name];
    let built: DynamicMessage;
    try {
      built = DynamicMessage.create(f.message, inner as Record<string, unknown>);
    } catch {
      // An earlier edit made it invalid.
      built = DynamicMessage.create(f.message, {});
    }
    obj[f.name] = built;
    return;
  }
  if (what === 3 && f.fieldKind === "map") {
    // A plain object for the map: keys that one stored key stands for ("1" and "01").
    const numeric = f.mapKey !== ScalarType.STRING && f.mapKey !== ScalarType.BOOL;
    const value = f.mapKind === "message" ? {} : f.mapKind === "enum" ? 1 : edgeValues(f).find((v) => typeof v === "number") ?? "v";
    const other = f.mapKind === "message" ? { } : value;
    obj[f.name] = numeric ? { "1": value, "01": other, "2": value } : f.mapKey === ScalarType.BOOL ? { true: value, false: other } : { b: value, a: other };
    return;
  }
  if (what === 4 && f.fieldKind === "list") {
    // A list with one edge element.
    const edge = f.listKind === "message" ? [{}, null][e.what % 2] : edgeValues({ ...f, fieldKind: f.listKind } as unknown as DescField)[e.what % 9];
    obj[f.name] = [...((obj[f.name] as unknown[] | undefined) ?? []), edge];
    return;
  }
  const values = edgeValues(f);
  obj[f.name] = values[e.what % values.length];
}

/** A random init object of `root` (fast-check `seed`) and the type it is written with: limits 1 deterministic, 2 small limits. */
function sampleOf(root: DescMessage, seed: number, limits: number): { init: Record<string, unknown>; type: ProtobufType } {
  const sample = fc.sample(messageArb(root, 2, { maxItems: 3, maxMapEntries: 3 }), { seed, numRuns: 1 })[0]!;
  let b = ProtobufType.newBuilder(root).deterministic(limits === 1);
  if (limits === 2) b = b.maxDepth(3).maxMessageBytes(64);
  return { init: sample.ours as Record<string, unknown>, type: b.build() };
}

describe("the direct walk writes what the dynamic writer writes, and refuses all it refuses", () => {
  test("random schemas, values with faults and edges at random places, bare, framed, deterministic, at small limits", () => {
    let accepted = 0;
    let clean = 0;
    check(
      "direct init writes",
      120,
      schemaArb({ wideOneofWeight: 1, chainWeight: 1 }),
      fc.nat(),
      fc.array(editArb, { maxLength: 3 }),
      fc.constantFrom(0, 1, 2),
      (s, seed, edits, limits) => {
        const { init, type } = sampleOf(s.root, seed, limits);
        const p = pair(s.root, type.settings);
        if (edits.length === 0 && limits !== 2) {
          // Valid values are the direct walk's to write: the dynamic writer is only its fallback.
          clean++;
          expect(agree(p, init)).toBe(true);
          accepted++;
          return;
        }
        for (const e of edits) inject(init, s.root, e);
        if (agree(p, init)) accepted++;
      },
    );
    // Not vacuous: the valid ones were all written directly, and so were some of the others.
    expect(clean).toBeGreaterThan(10);
    expect(accepted).toBeGreaterThan(clean);
  });

  test("every field of AllTypes at every edge value, alone, bare and framed, and deterministic", () => {
    let direct = 0;
    let refused = 0;
    for (const f of All.fields) {
      const values = f.fieldKind === "list" ? edgeValues({ ...f, fieldKind: f.listKind } as unknown as DescField).map((v) => [v]) : edgeValues(f);
      for (const v of values) {
        for (const p of [all, allDet]) {
          if (agree(p, { [f.name]: v })) direct++;
          else refused++;
        }
      }
    }
    expect(direct).toBeGreaterThan(100);
    expect(refused).toBeGreaterThan(100);
  });
});

describe("where create's rules and protobuf-es' differ, the direct walk follows create's", () => {
  const ser = allType.createSerializer();
  // [init, bytes written: the field's tag and a zero, or nothing]
  test.each<[Record<string, unknown>, boolean]>([
    // An integer -0 is the zero (create stores 0; protobuf-es skips it too): not written.
    [{ f_int32: -0 }, false],
    [{ f_uint32: -0 }, false],
    [{ f_sint32: -0 }, false],
    [{ f_sfixed32: -0 }, false],
    [{ f_fixed32: -0 }, false],
    [{ f_enum: -0 }, false],
    [{ f_int32: 0 }, false],
    [{ f_enum: 0 }, false],
    // create stores float32(v): a positive value that rounds to 0 is the zero, a negative one -0.
    [{ f_float: 1e-50 }, false],
    [{ f_float: -1e-50 }, true],
    [{ f_double: -0 }, true],
    [{ f_double: 0 }, false],
  ])("%j", (init, written) => {
    const built = DynamicMessage.create(All, init);
    const bytes = ser.toBinary(init);
    expect(hex(bytes)).toBe(hex(ser.toBinary(built)));
    expect(bytes.length > 0).toBe(written);
    expect(agree(all, init)).toBe(true);
  });

  // Leaf: written by bounded recursion; M: a recursive type, written on the frame stack.
  test.each([
    // Integer-like keys come first, in ascending order: "1", "2", then "01".
    ["int32", "Leaf", { "2": { v: 2 }, "1": { v: 1 }, "01": { v: 3 } }, [1, 2]],
    ["int64", "Leaf", { "5": { v: 5 }, "-0": { v: 0 }, "0": { v: 1 }, "005": {} }, [0n, 5n]],
    ["bool", "Leaf", { true: { v: 1 }, false: {} }, [true, false]],
    ["int32", "M", { "2": { v: 2 }, "1": { v: 1 }, "01": { v: 3, m: { "7": {}, "07": { v: 1 } } } }, [1, 2]],
    ["uint64", "M", { "9": { v: 5 }, "09": { m: { "3": { v: 3 } } } }, [9n]],
  ])("a %s-keyed map of %s given as a plain object whose keys stand for one stored key is written once, as create keeps it (the direct walk leaves it to create)", (key, value, entries, keys) => {
    const proto = `syntax = "proto3";\npackage dup;\nmessage Leaf { int32 v = 1; }\nmessage M { map<${key}, ${value}> m = 1; int32 v = 2; }\n`;
    const M = ProtobufType.of({ fileDescriptorSet: compileProtoText({ "dup/maps.proto": proto }), messageName: "dup.M" }).descriptor;
    const init = { m: entries };
    const built = DynamicMessage.create(M, init);
    expect([...(built.get("m") as Map<unknown, unknown>).keys()]).toEqual(keys);
    for (const deterministic of [false, true]) {
      const type = ProtobufType.newBuilder(M).deterministic(deterministic).build();
      // create checks the values it overwrites, which a write of the last alone would not: the
      // direct walk writes only maps whose keys are all distinct.
      expect(agree(pair(M, type.settings), init)).toBe(Object.keys(entries).length === keys.length);
      const s2 = type.createSerializer();
      expect(hex(s2.toBinary(init))).toBe(hex(s2.toBinary(built)));
    }
  });

  test("a jstype = JS_NUMBER field refuses a bigint past 2^53, as create does, in the direct walk too", () => {
    const JsNumber = messageFromDir("fixtures/all-types", "alltypes.JsNumber");
    const p = pair(JsNumber, ProtobufType.of(JsNumber).settings);
    const js = ProtobufType.of(JsNumber).createSerializer();
    for (const n of [2n ** 60n + 1n, -(2n ** 53n)]) {
      expect(agree(p, { n })).toBe(false);
      expect(() => js.toBinary({ n })).toThrow(/JS_NUMBER/);
    }
    for (const n of [5n, -5, 2 ** 53 - 1, 0n, -0]) {
      expect(agree(p, { n })).toBe(true);
      expect(hex(js.toBinary({ n }))).toBe(hex(js.toBinary(DynamicMessage.create(JsNumber, { n }))));
    }
  });
});

/**
 * An AllTypes init object: `agree`, then the serializer's bytes against create + write (undefined
 * when create refuses it). Returns whether the direct walk wrote it, and create's bytes.
 */
function againstCreate(init: Record<string, unknown>): { direct: boolean; want: string | undefined } {
  const direct = agree(all, init);
  const ser = allType.createSerializer();
  let want: string | undefined;
  try {
    want = hex(ser.toBinary(DynamicMessage.create(All, init)));
  } catch {
    want = undefined;
  }
  const got = outcome(() => ser.toBinary(init));
  expect(got.ok ? got.bytes : undefined).toBe(want);
  return { direct, want };
}

/** What a write gives: its bytes, or its error as class, code and message. */
function result(write: () => Uint8Array | void): unknown {
  try {
    const out = write();
    return out === undefined ? "written" : hex(out);
  } catch (e) {
    const err = e as Error & { code?: string };
    return { name: err.constructor.name, code: err.code, message: err.message };
  }
}

/**
 * Every write of an init object gives what create and a write of its value give: create's error
 * when create refuses it (the first fault in create's order, a cycle named as one), else the
 * value's bytes or the write's error. The writers check a level's scalars before its messages and
 * maxDepth before a fault below it; a message map whose keys stand for one stored key had its
 * overwritten values unchecked (written without create's error).
 */
function expectAsCreate(root: DescMessage, settings: ProtobufType, init: Record<string, unknown>): void {
  const ser = settings.createSerializer();
  let built: DynamicMessage | undefined;
  let refused: unknown;
  try {
    built = DynamicMessage.create(root, init);
  } catch (e) {
    refused = result(() => {
      throw e;
    });
  }
  const writes: [string, (v: unknown) => Uint8Array | void][] = [
    ["toBinary", (v) => ser.toBinary(v as never)],
    ["encode", (v) => ser.encode(v as never)],
    ["encodeAll", (v) => ser.encodeAll([v as never])],
    ["encodeAll after a value", (v) => ser.encodeAll([DynamicMessage.create(root, {}), v as never])],
    ["serialize", (v) => ser.serialize(v as never, new FrameWriter())],
  ];
  for (const [name, write] of writes) {
    const want = built === undefined ? refused : result(() => write(built));
    expect(result(() => write(init)), name).toEqual(want);
  }
}

describe("writes of init objects give create's errors, in create's order", () => {
  const proto = `syntax = "proto3";
package t;
message Item { int32 qty = 1; string sku = 2; }
message M {
  Inner a = 1;
  int32 b = 2;
  repeated Inner l = 3;
  map<int32, Item> items = 4;
  map<int64, Item> big = 5;
  Inner c = 6;
}
message Inner { int32 x = 1; Inner c = 2; }
`;
  const M = ProtobufType.of({ fileDescriptorSet: compileProtoText({ "t/m.proto": proto }), messageName: "t.M" }).descriptor;
  const plain = ProtobufType.of(M);
  const shallow = ProtobufType.newBuilder(M).maxDepth(3).build();
  test.each<[string, Record<string, unknown>]>([
    ["a nested fault, then a scalar fault", { a: { x: "bad" }, b: "bad" }],
    ["a scalar fault, then a nested fault", { b: "bad", a: { x: "bad" } }],
    ["a nested fault in a list, then a key that names no field", { l: [{ x: "bad" }], zz: 1 }],
    ["a TypeError in a list, then a RangeError in a field of lower number", { l: [{ x: "q" }], a: { x: 1.5 } }],
    ["a fault, and nesting past maxDepth 3 in a field of lower number", { l: [{ x: "bad" }], a: { c: { c: { c: {} } } } }],
    ["nesting past maxDepth 3 alone", { a: { c: { c: { c: {} } } } }],
    ["a bad value under a map key that a later key overwrites (plain object)", { items: { "1": { nope: 1 }, "01": { qty: 2 } } }],
    ["a bad value type under an overwritten key", { items: { "01": { qty: "not a number" }, "1": { qty: 2 } } }],
    ["a bad value under an overwritten key (Map, 1n and 1)", { big: new Map<unknown, unknown>([[1n, { qty: 1.5 }], [1, { qty: 2 }]]) }],
    ["a non-object under an overwritten key (Map, 1n and \"1\")", { big: new Map<unknown, unknown>([[1n, 42], ["1", { qty: 2 }]]) }],
    ["valid values under keys that stand for one key", { items: { "1": { qty: 1 }, "01": { qty: 2, sku: "x" } }, big: new Map<unknown, unknown>([[1n, {}], ["1", { qty: 3 }]]) }],
  ])("%s", (_name, init) => {
    for (const type of [plain, shallow, ProtobufType.newBuilder(M).deterministic(true).build()]) expectAsCreate(M, type, init);
  });

  test("random schemas and values with up to four faults and edges, at default and small limits", () => {
    let refusedByCreate = 0;
    check(
      "init writes as create",
      100,
      schemaArb({ wideOneofWeight: 1, chainWeight: 1 }),
      fc.nat(),
      fc.array(editArb, { minLength: 1, maxLength: 4 }),
      fc.constantFrom(0, 1, 2),
      (s, seed, edits, limits) => {
        const { init, type } = sampleOf(s.root, seed, limits);
        for (const e of edits) inject(init, s.root, e);
        try {
          DynamicMessage.create(s.root, init);
        } catch {
          refusedByCreate++;
        }
        expectAsCreate(s.root, type, init);
      },
    );
    expect(refusedByCreate).toBeGreaterThan(10);
  });
});

describe("packed lists are checked as they are written", () => {
  const I64 = [-(2n ** 63n), 2n ** 63n - 1n] as const;
  const U64 = [0n, 2n ** 64n - 1n] as const;
  const bigs = ([min, max]: readonly [bigint, bigint]) => (i: number) => (i === 0 ? min : i === 1 ? max : BigInt(i * 7919) ** 3n % (max + 1n));
  const bigBads = ([min, max]: readonly [bigint, bigint]): unknown[] => [min - 1n, max + 1n, 5, -0, "5", 1.5, null, 2 ** 60];
  const FLOAT_MAX = 3.4028234663852886e38;
  // Each list: valid elements (every varint length, each kind's extremes) with one element at
  // `at` replaced by a fault or an edge (a number for a bigint field is converted, not refused).
  // Varint runs are written in blocks of 4,096 elements: a fault in a later block unwinds the
  // earlier; fixed widths are written directly from 8 elements.
  const lengths = [1, 3, 7, 8, 9, 4_096, 4_097, 9_000];
  const fields: [string, (i: number) => unknown, unknown[]][] = [
    ["r_int64", bigs(I64), bigBads(I64)],
    ["r_sint64", bigs(I64), bigBads(I64)],
    ["r_uint64", bigs(U64), bigBads(U64)],
    ["r_fixed64", bigs(U64), bigBads(U64)],
    ["r_sfixed64", bigs(I64), bigBads(I64)],
    ["r_double", (i) => [0, -0, NaN, Infinity, -1.5e300, 5e-324][i % 6]! * (i + 1), ["1", 1n, null, undefined, {}]],
    ["r_float", (i) => [0, -0, NaN, -Infinity, FLOAT_MAX, 1e-50][i % 6]! * (i % 2 ? 1 : -1), [3.5e38, -1e39, "1", 1n, null]],
    ["r_fixed32", (i) => [0, 4294967295, 1, 2 ** 31][i % 4]!, [-1, 2 ** 32, 1.5, -0, "1", 1n, null]],
    ["r_sfixed32", (i) => [0, -2147483648, 2147483647, -1][i % 4]!, [2 ** 31, -(2 ** 31) - 1, 1.5, -0, "1", 1n, null]],
  ];
  test.each(fields)("%s", (name, valid, bads) => {
    for (const n of lengths) {
      const good = Array.from({ length: n }, (_, i) => valid(i));
      // Valid lists are the direct walk's to write.
      expect(againstCreate({ [name]: good }).direct).toBe(true);
      for (const at of [0, n >> 1, n - 1]) {
        for (const bad of bads) {
          const list: unknown[] = [...good];
          list[at] = bad;
          againstCreate({ [name]: list });
        }
      }
    }
  });
});

describe("repeated strings are checked as they are written", () => {
  const ser = allType.createSerializer();
  const gen = ProtobufType.ofGenerated(AllTypesSchema).createSerializer();
  // Lengths in UTF-16 units around the one-byte length (43) and the TextEncoder threshold (128).
  const units = [0, 1, 42, 43, 127, 128, 129, 300];
  const good = units.flatMap((n) => ["a".repeat(n), "é".repeat(n), "😀".repeat(n >> 1)]);
  const bads: unknown[] = ["\uD800", `${"a".repeat(41)}\uDC00`, `${"a".repeat(200)}\uD800`, `\uDC00${"é".repeat(130)}`, 5, null, undefined, new Uint8Array(1)];
  test("every element width and length, with one fault at the start, middle or end, for both kinds", () => {
    let direct = 0;
    for (const at of [0, good.length >> 1, good.length - 1]) {
      for (const bad of ["ok", ...bads]) {
        const list: unknown[] = [...good];
        if (bad !== "ok") list[at] = bad;
        const { direct: written, want } = againstCreate({ r_string: list });
        if (written) direct++;
        // The generated kind: protobuf-es' bytes, or create's refusal.
        const es = create(AllTypesSchema, { rString: list as string[] });
        const g = outcome(() => gen.toBinary(es));
        if (want === undefined) expect(g.ok).toBe(false);
        else expect(g).toEqual({ ok: true, bytes: hex(toBinary(AllTypesSchema, es)) });
      }
    }
    expect(direct).toBe(3);
  });

  // Each element must have made its room first (a typed array drops writes past its end). An
  // output over 4 MiB leaves the writer a fresh 128 KiB scratch, and a frame written into a
  // FrameWriter starts at its first byte: k bytes before the list put its elements at the end.
  test("elements of 3-byte units at every offset around the end of the buffer", () => {
    const list = ["\u8a9e".repeat(100), "\u8a9e".repeat(42)];
    for (let k = 131_072 - 330; k < 131_072 + 5; k++) {
      ser.toBinary({ f_bytes: new Uint8Array(4_200_000) });
      const init = { f_bytes: new Uint8Array(k).fill(7), r_string: list };
      const w = new FrameWriter();
      ser.serialize(init, w);
      const want = ser.encode(DynamicMessage.create(All, init));
      const got = w.view();
      expect({ k, same: got.length === want.length && Buffer.compare(got, want) === 0 }).toEqual({ k, same: true });
    }
  });
});

describe("what only the dynamic writer takes still writes", () => {
  const ser = allType.createSerializer();
  afterEach(() => vi.restoreAllMocks());

  test("init objects go through the direct walk, and a DynamicMessage inside one through the dynamic writer", () => {
    const spy = vi.spyOn(GeneratedMessageWriter.prototype, "toBinary");
    const init = { f_string: "a", f_message: { value: 3 } };
    const bytes = ser.toBinary(init);
    expect(spy).toHaveBeenCalledTimes(1);
    expect(spy.mock.results[0]!.type).toBe("return");
    const mixed = { f_string: "a", f_message: DynamicMessage.create(All.fields.find((f) => f.name === "f_message")!.message!, { value: 3 }) };
    expect(hex(ser.toBinary(mixed))).toBe(hex(bytes));
    expect(spy).toHaveBeenCalledTimes(2);
    expect(spy.mock.results[1]!.type).toBe("throw");
  });

  test("a batch that starts with init objects and holds a DynamicMessage later is written whole", () => {
    const inits = [{ f_int32: 1 }, { f_int32: 2 }, { f_int32: 3 }];
    const mixed = [inits[0], inits[1], DynamicMessage.create(All, inits[2]!)];
    expect(hex(ser.encodeAll(mixed))).toBe(hex(ser.encodeAll(inits)));
    const out = new FrameWriter();
    ser.serialize(inits[0]!, out);
    ser.serialize(mixed[2]!, out);
    expect(hex(out.view())).toBe(hex(ser.encodeAll([inits[0]!, inits[2]!])));
  });

  test("an iterable batch is read once", () => {
    let reads = 0;
    function* values() {
      reads++;
      yield { f_int32: 1 };
      yield DynamicMessage.create(All, { f_int32: 2 });
    }
    expect(hex(ser.encodeAll(values()))).toBe(hex(ser.encodeAll([{ f_int32: 1 }, { f_int32: 2 }])));
    expect(reads).toBe(1);
  });

  test("members of a type's 32nd oneof and later are written by the dynamic writer, with the same bytes and errors", () => {
    // The direct walk keeps the oneofs it has seen set in a 31-bit mask.
    const oneofs = Array.from({ length: 34 }, (_, k) => `  oneof o${k} { int32 a${k} = ${2 * k + 1}; string b${k} = ${2 * k + 2}; }`);
    const bytes = compileProtoText({ "wide/oneofs.proto": `syntax = "proto3";\npackage wide;\nmessage Wide {\n${oneofs.join("\n")}\n}\n` });
    const Wide = ProtobufType.of({ fileDescriptorSet: bytes, messageName: "wide.Wide" }).descriptor;
    const p = pair(Wide, ProtobufType.of(Wide).settings);
    const wide = ProtobufType.of(Wide).createSerializer();
    const cases: [Record<string, unknown>, "direct" | "dynamic" | "refused"][] = [
      [{ a0: 1, b1: "x", a30: 3 }, "direct"],
      [{ a30: 1, b30: "x" }, "refused"],
      [{ a30: 1, b30: null }, "direct"],
      [{ a31: 1 }, "dynamic"],
      [{ a0: 1, b33: "y" }, "dynamic"],
      [{ a33: 1, b33: "y" }, "refused"],
      [{ a33: 1, b33: undefined }, "dynamic"],
    ];
    for (const [init, by] of cases) {
      expect(agree(p, init)).toBe(by === "direct");
      const dynamic = outcome(() => p.dynamic.toBinary(init));
      expect(dynamic.ok).toBe(by !== "refused");
      if (by === "refused") expect(() => wide.toBinary(init)).toThrow(/has two members set/);
      else expect(hex(wide.toBinary(init))).toBe(hex(wide.toBinary(DynamicMessage.create(Wide, init))));
    }
  });

  test("with Object.prototype polluted, inherited keys are not fields for either walk", () => {
    const init = { f_int32: 4 };
    pollute("f_string", "inherited");
    expect(agree(all, init)).toBe(true);
    expect(hex(ser.toBinary(init))).toBe(hex(ser.toBinary(DynamicMessage.create(All, { f_int32: 4 }))));
  });
});
