// The validating walker and its tape (docs/design.md §8.3, §13): differential against @bufbuild/protobuf,
// every status code with its exact offset, nesting bombs, truncation, unknown fields,
// collisions, sparse field numbers, maps and frame batches.
import { create, toBinary, type DescMessage } from "@bufbuild/protobuf";
import fc from "fast-check";
import protobuf from "protobufjs";
import { describe, expect, test } from "vitest";
import { layoutOf } from "../src/codec/layout.js";
import { CodecError } from "../src/errors.js";
import { memoryGrowCount } from "../src/wasm/memory.js";
import { scanUnknownFields, walkFrames, walkMessage, type ReadLimits } from "../src/wasm/ops.js";
import { views } from "../src/wasm/memory.js";
import { STATUS_CODES } from "../src/wasm/status.js";
import { registryFromDir } from "./support/buf.js";
import { readAll, readTape, type Plain } from "./support/tape-reader.js";

const reg = registryFromDir("fixtures/core");
const msg = (name: string): DescMessage => reg.getMessage(`core.test.${name}`)!;
const Scalars = msg("Scalars");
const Repeated = msg("Repeated");
const Maps = msg("Maps");
const Node = msg("Node");
const Sparse = msg("Sparse");
const limits: ReadLimits = { maxMessageBytes: 64 * 1024 * 1024, maxDepth: 100 };

function read(desc: DescMessage, bytes: Uint8Array | number[], l: ReadLimits = limits): Plain {
  const input = bytes instanceof Uint8Array ? bytes : Uint8Array.from(bytes);
  const layout = layoutOf(desc);
  return readTape(walkMessage(layout.typeOffset, input, l), layout, input).value;
}

function failure(f: () => unknown): { code: string; offset: number | undefined; path: string | undefined; message: string } {
  try {
    f();
  } catch (e) {
    if (e instanceof CodecError) return { code: e.code, offset: e.offset, path: e.path, message: e.message };
    throw e;
  }
  throw new Error("expected a CodecError");
}

function entries(desc: DescMessage, bytes: number[]): number[][] {
  const input = Uint8Array.from(bytes);
  const t = walkMessage(layoutOf(desc).typeOffset, input, limits);
  return Array.from({ length: t.count }, (_, k) => Array.from(views.u32.subarray(t.start + 4 * k, t.start + 4 * k + 4)));
}

describe("tape format", () => {
  test("a small message gives exactly the documented entries", () => {
    // Scalars { i32: -1 (slot 4), s: "hé" (slot 8), child (slot 9) { b: true (slot 7) }, field 99: 5 }
    const bytes = [0x28, ...Array(9).fill(0xff), 0x01, 0x4a, 3, 0x68, 0xc3, 0xa9, 0x5a, 2, 0x40, 1, 0x98, 0x06, 5];
    expect(entries(Scalars, bytes)).toEqual([
      [1, 0, 0, bytes.length], // START root: body offset 0 (a START is never written back to)
      [3 | (4 << 8), 0, 0xffffffff, 0xffffffff], // VARINT slot 4 (i32) = -1 as lo, hi
      [6 | (8 << 8), 0, 13, 3], // BYTES slot 8 (s): offset 13, length 3, not ASCII
      [1 | (9 << 8), 0, 18, 2], // START slot 9 (child)
      [3 | (7 << 8), 0, 1, 0], // VARINT slot 7 (b) = 1
      [2 | (3 << 4), 0, 0, 0], // END of child: ASCII_SELF | ASCII_TREE
      [8, 99, 20, 3], // UNKNOWN field 99 (wire type 0): offset 20, 3 bytes
      [2 | (4 << 4), 0, 0, 0], // END root: HAS_UNKNOWN (a string is not ASCII)
    ]);
  });

  test("zigzag is applied, bool is 0/1, floats are raw words readable as f32/f64", () => {
    const input = toBinary(Scalars, create(Scalars, { s32: -3, s64: -5n, b: true, f: 1.5, d: -2.25, sf64: -7n, fx32: 4000000000 }));
    expect(read(Scalars, input)).toEqual({ s32: -3, s64: -5n, b: true, f: 1.5, d: -2.25, sf64: -7n, fx32: 4000000000 });
  });
});

// What @bufbuild/protobuf writes for a Scalars value, in the tape reader's plain form.
function expectedScalars(v: Record<string, unknown>): Plain {
  const out: Plain = {};
  for (const [k, x] of Object.entries(v)) {
    if (x === undefined || Object.is(x, 0) || x === 0n || x === "" || x === false) continue;
    if (x instanceof Uint8Array) {
      if (x.length) out[k] = Array.from(x);
    } else if (k === "child") out[k] = expectedScalars(x as Record<string, unknown>);
    else if (typeof x === "number" && Object.is(x, -0)) out[k] = x;
    else out[k] = x;
  }
  return out;
}

const scalarsArb: fc.Arbitrary<Record<string, unknown>> = fc.letrec((tie) => ({
  node: fc.record(
    {
      d: fc.double(),
      f: fc.float().filter((x) => !Object.is(x, -0)),
      i64: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
      u64: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
      i32: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
      fx64: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
      fx32: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
      b: fc.boolean(),
      s: fc.string({ unit: "grapheme", maxLength: 20 }),
      by: fc.uint8Array({ maxLength: 20 }),
      u32: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
      e: fc.constantFrom(0, 1, -1),
      sf32: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
      sf64: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
      s32: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
      s64: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
      child: fc.option(tie("node"), { nil: undefined, depthSize: "small" }),
    },
    { requiredKeys: [] },
  ),
})).node;

describe("differential against @bufbuild/protobuf", () => {
  test("property: every scalar kind, nested, decodes to what was encoded", () => {
    fc.assert(
      fc.property(scalarsArb, (v) => {
        const input = toBinary(Scalars, create(Scalars, v as never));
        expect(read(Scalars, input)).toEqual(expectedScalars(v));
      }),
      { numRuns: 500 },
    );
  });

  test("property: repeated fields, packed and unpacked, decode to what was encoded", () => {
    const arb = fc.record({
      i32: fc.array(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { maxLength: 40 }),
      s64: fc.array(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), { maxLength: 20 }),
      d: fc.array(fc.double(), { maxLength: 20 }),
      fx32: fc.array(fc.integer({ min: 0, max: 2 ** 32 - 1 }), { maxLength: 20 }),
      b: fc.array(fc.boolean(), { maxLength: 20 }),
      s: fc.array(fc.string({ maxLength: 8 }), { maxLength: 5 }),
      e: fc.array(fc.constantFrom(0, 1, -1), { maxLength: 10 }),
      u64: fc.array(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), { maxLength: 10 }),
      s32: fc.array(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { maxLength: 20 }),
      sf64: fc.array(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), { maxLength: 10 }),
      fl: fc.array(fc.float().filter((x) => !Number.isNaN(x)), { maxLength: 10 }),
      u32: fc.array(fc.integer({ min: 0, max: 2 ** 32 - 1 }), { maxLength: 10 }),
      i64: fc.array(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), { maxLength: 10 }),
      bys: fc.array(fc.uint8Array({ maxLength: 5 }), { maxLength: 4 }),
    });
    fc.assert(
      fc.property(arb, (v) => {
        const input = toBinary(Repeated, create(Repeated, v));
        const expected: Plain = {};
        for (const [k, x] of Object.entries(v)) {
          if (x.length) expected[k] = k === "bys" ? (x as Uint8Array[]).map((b) => Array.from(b)) : x;
        }
        expect(read(Repeated, input)).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  test("packed and unpacked runs of one field are both accepted and concatenate in order", () => {
    // i32 (field 1): unpacked 7, packed [1, -1], unpacked 3; u64 (field 8, declared unpacked) packed [5, 6]
    const bytes = [0x08, 7, 0x0a, 11, 1, ...Array(9).fill(0xff), 0x01, 0x08, 3, 0x42, 2, 5, 6];
    expect(read(Repeated, bytes)).toEqual({ i32: [7, 1, -1, 3], u64: [5n, 6n] });
  });

  test("maps: entries with string, integer, sint64 keys and message, bytes, enum values", () => {
    const v = create(Maps, {
      ss: { a: "x", "é": "ü" },
      nodeById: { 3: { name: "n3", v: 3 } },
      ub: { "18446744073709551615": new Uint8Array([1, 2]) },
      colors: { "-2": -1 },
    } as never);
    expect(read(Maps, toBinary(Maps, v))).toEqual({
      ss: [{ key: "a", value: "x" }, { key: "é", value: "ü" }],
      node_by_id: [{ key: 3, value: { name: "n3", v: 3 } }],
      ub: [{ key: 18446744073709551615n, value: [1, 2] }],
      colors: [{ key: -2n, value: -1 }],
    });
  });

  test("invalid UTF-8 in a map key or value is refused", () => {
    // ss entry { key: "a", value: 0xff }
    const bytes = [0x0a, 6, 0x0a, 1, 0x61, 0x12, 1, 0xff];
    expect(failure(() => read(Maps, bytes))).toMatchObject({ code: "INVALID_UTF8", offset: 7, path: "core.test.Maps.ss(1).value(2)" });
  });
});

describe("field numbers are looked up correctly from 1 to 536,870,911", () => {
  test.each([
    ["1", 1, { a: 5 }],
    ["7 (oneof string)", 7, { text: "\u0005" }],
    ["9 (optional)", 9, { maybe: 5 }],
    ["100000", 100000, { mid: 5 }],
    ["536870911", 536870911, { top: 5 }],
    ["536870910 (undeclared)", 536870910, { $unknown: [[0xf0, 0xff, 0xff, 0xff, 0x0f, 5]] }],
    ["4999 (undeclared)", 4999, { $unknown: [[0xb8, 0xb8, 0x02, 5]] }],
  ])("field %s", (_, n, expected) => {
    const wt = n === 7 ? 2 : 0;
    const tag = Array.from(protobuf.Writer.create().uint32(((n << 3) | wt) >>> 0).finish());
    const bytes = wt === 2 ? [...tag, 1, 5] : [...tag, 5];
    expect(read(Sparse, bytes)).toEqual(expected);
  });
});

describe("every status code, with its byte offset", () => {
  const u = (...b: number[]) => b;
  test.each([
    ["TRUNCATED: varint value cut", Scalars, u(0x28, 0x80), "TRUNCATED", 1, "core.test.Scalars.i32(5)"],
    ["TRUNCATED: fixed64 cut", Scalars, u(0x09, 1, 2, 3), "TRUNCATED", 1, "core.test.Scalars.d(1)"],
    ["TRUNCATED: fixed32 cut", Scalars, u(0x28, 1, 0x15, 1, 2), "TRUNCATED", 3, "core.test.Scalars.f(2)"],
    ["TRUNCATED: tag cut", Scalars, u(0x28, 1, 0x80), "TRUNCATED", 2, "core.test.Scalars"],
    ["TRUNCATED: packed varint cut", Repeated, u(0x0a, 2, 1, 0x80), "TRUNCATED", 3, "core.test.Repeated.i32(1)"],
    ["VARINT_TOO_LONG", Scalars, u(0x20, ...Array(10).fill(0xff), 0x01), "VARINT_TOO_LONG", 1, "core.test.Scalars.u64(4)"],
    ["VARINT_OVERFLOW", Scalars, u(0x20, ...Array(9).fill(0xff), 0x02), "VARINT_OVERFLOW", 1, "core.test.Scalars.u64(4)"],
    ["FIELD_NUMBER_ZERO", Scalars, u(0x28, 1, 0x00, 1), "FIELD_NUMBER_ZERO", 2, "core.test.Scalars"],
    ["FIELD_NUMBER_TOO_LARGE", Scalars, u(0x80, 0x80, 0x80, 0x80, 0x10, 1), "FIELD_NUMBER_TOO_LARGE", 0, "core.test.Scalars"],
    ["INVALID_WIRE_TYPE 3 (group) on an unknown field", Scalars, u(0x28, 1, 0xfb, 0x01), "INVALID_WIRE_TYPE", 2, "core.test.Scalars.unknown(31)"],
    ["INVALID_WIRE_TYPE 4 on a declared field", Scalars, u(0x2c), "INVALID_WIRE_TYPE", 0, "core.test.Scalars.i32(5)"],
    ["INVALID_WIRE_TYPE 6", Scalars, u(0x2e), "INVALID_WIRE_TYPE", 0, "core.test.Scalars.i32(5)"],
    ["INVALID_WIRE_TYPE 7", Scalars, u(0x5a, 2, 0x2f, 0), "INVALID_WIRE_TYPE", 2, "core.test.Scalars.child(11).i32(5)"],
    ["WIRE_TYPE_MISMATCH: fixed32 for int32", Scalars, u(0x2d, 1, 2, 3, 4), "WIRE_TYPE_MISMATCH", 0, "core.test.Scalars.i32(5)"],
    ["WIRE_TYPE_MISMATCH: length-delimited for singular int32", Scalars, u(0x2a, 0), "WIRE_TYPE_MISMATCH", 0, "core.test.Scalars.i32(5)"],
    ["WIRE_TYPE_MISMATCH: varint for string", Scalars, u(0x48, 1), "WIRE_TYPE_MISMATCH", 0, "core.test.Scalars.s(9)"],
    ["WIRE_TYPE_MISMATCH: varint for message", Scalars, u(0x58, 1), "WIRE_TYPE_MISMATCH", 0, "core.test.Scalars.child(11)"],
    ["LENGTH_PAST_END: string", Scalars, u(0x4a, 5, 0x61), "LENGTH_PAST_END", 0, "core.test.Scalars.s(9)"],
    ["LENGTH_PAST_END: inside a nested message", Scalars, u(0x5a, 3, 0x4a, 5, 0x61), "LENGTH_PAST_END", 2, "core.test.Scalars.child(11).s(9)"],
    ["LENGTH_PAST_END: unknown field", Scalars, u(0xfa, 0x01, 9), "LENGTH_PAST_END", 0, "core.test.Scalars.unknown(31)"],
    ["INVALID_UTF8: lone continuation", Scalars, u(0x4a, 2, 0x61, 0x80), "INVALID_UTF8", 3, "core.test.Scalars.s(9)"],
    ["INVALID_UTF8: overlong", Scalars, u(0x4a, 2, 0xc0, 0x80), "INVALID_UTF8", 2, "core.test.Scalars.s(9)"],
    ["INVALID_UTF8: surrogate", Scalars, u(0x4a, 3, 0xed, 0xa0, 0x80), "INVALID_UTF8", 2, "core.test.Scalars.s(9)"],
    ["INVALID_UTF8: above U+10FFFF", Scalars, u(0x4a, 4, 0xf4, 0x90, 0x80, 0x80), "INVALID_UTF8", 2, "core.test.Scalars.s(9)"],
    ["INVALID_UTF8: cut sequence", Scalars, u(0x4a, 2, 0x61, 0xe2), "INVALID_UTF8", 3, "core.test.Scalars.s(9)"],
    ["INVALID_UTF8: in a repeated string", Repeated, u(0x32, 1, 0xff), "INVALID_UTF8", 2, "core.test.Repeated.s(6)"],
    ["PACKED_LENGTH_INVALID: fixed32", Repeated, u(0x22, 3, 1, 2, 3), "PACKED_LENGTH_INVALID", 0, "core.test.Repeated.fx32(4)"],
    ["PACKED_LENGTH_INVALID: double", Repeated, u(0x1a, 4, 1, 2, 3, 4), "PACKED_LENGTH_INVALID", 0, "core.test.Repeated.d(3)"],
  ])("%s", (_, desc, bytes, code, offset, path) => {
    expect(failure(() => read(desc, bytes))).toMatchObject({ code, offset, path });
  });

  test("a packed run larger than the tape window continues as further PACKED entries", () => {
    // 200,000 one-byte packed int64 elements decode to 1.6 MB of i64, 8x the input: more than
    // one 1 MiB window holds.
    const n = 200_000;
    const header = Array.from(protobuf.Writer.create().uint32((13 << 3) | 2).uint32(n).finish());
    const input = new Uint8Array(header.length + n);
    input.set(header);
    input.fill(1, header.length);
    const v = read(Repeated, input);
    expect((v.i64 as bigint[]).length).toBe(n);
    expect((v.i64 as bigint[])[n - 1]).toBe(1n);
  });

  test("LAYOUT_INVALID: a type offset outside the table is refused", () => {
    const f = failure(() => walkMessage(1 << 30, Uint8Array.from([0x08, 1]), limits));
    expect({ code: f.code, offset: f.offset }).toEqual({ code: "LAYOUT_INVALID", offset: 0 });
  });

  test("DEPTH_LIMIT_EXCEEDED names the field and the limit", () => {
    // root (depth 1) → child (2) → child (3): over maxDepth 2 at the second child's tag, byte 2
    const f = failure(() => read(Node, [0x0a, 4, 0x0a, 2, 0x10, 1], { maxMessageBytes: 100, maxDepth: 2 }));
    expect(f).toEqual({
      code: "DEPTH_LIMIT_EXCEEDED",
      offset: 2,
      path: "core.test.Node.child(1).child(1)",
      message: "cannot decode core.test.Node: field core.test.Node.child(1).child(1) at byte 2 nests deeper than maxDepth 2; raise maxDepth or reject the input",
    });
  });

  test("MESSAGE_TOO_LARGE is refused before the input is copied", () => {
    const before = memoryGrowCount();
    const f = failure(() => read(Scalars, new Uint8Array(1 << 20), { maxMessageBytes: 1000, maxDepth: 10 }));
    expect(f).toEqual({
      code: "MESSAGE_TOO_LARGE",
      offset: 0,
      path: "core.test.Scalars",
      message: "cannot decode core.test.Scalars: the message has 1048576 bytes, above maxMessageBytes 1000; raise maxMessageBytes or split the data",
    });
    expect(memoryGrowCount()).toBe(before);
  });

  test("messages name the type, the field path, the rule and the fix", () => {
    expect(failure(() => read(Scalars, [0x5a, 2, 0x2d, 0])).message).toBe(
      "cannot decode core.test.Scalars: field core.test.Scalars.child(11).i32(5) at byte 2 has wire type 5 (fixed32) but is declared int32; the bytes were written with an incompatible schema or are corrupt",
    );
    expect(failure(() => read(Scalars, [0x4a, 1, 0xff])).message).toBe(
      "cannot decode core.test.Scalars: string field core.test.Scalars.s(9) has invalid UTF-8 at byte 2; string fields must hold valid UTF-8, declare the field as bytes for binary data",
    );
  });
});

/** Node { child { child { ... } } } nested `levels` times, built without quadratic copying. */
function nestingBomb(levels: number): { bytes: Uint8Array; tagOffsets: number[] } {
  const varintLen = (n: number) => (n < 128 ? 1 : n < 16384 ? 2 : n < 2097152 ? 3 : 4);
  const inner: number[] = [0];
  for (let i = 1; i <= levels; i++) inner.push(1 + varintLen(inner[i - 1]!) + inner[i - 1]!);
  const bytes = new Uint8Array(inner[levels]!);
  const tagOffsets: number[] = [];
  let p = 0;
  for (let i = levels; i >= 1; i--) {
    tagOffsets.push(p);
    bytes[p++] = 0x0a;
    let n = inner[i - 1]!;
    while (n >= 128) {
      bytes[p++] = (n & 0x7f) | 0x80;
      n >>>= 7;
    }
    bytes[p++] = n;
  }
  return { bytes, tagOffsets };
}

describe("nesting", () => {
  test("a bomb of 100,000 nested length-delimited fields stops at maxDepth", () => {
    const { bytes, tagOffsets } = nestingBomb(100_000);
    const f = failure(() => read(Node, bytes, { maxMessageBytes: 64 * 1024 * 1024, maxDepth: 100 }));
    // The root is depth 1, so the 100th nested field would open depth 101.
    expect({ code: f.code, offset: f.offset }).toEqual({ code: "DEPTH_LIMIT_EXCEEDED", offset: tagOffsets[99] });
    expect(f.message).toMatch(/^cannot decode core\.test\.Node: field core\.test\.Node\.child\(1\)\.child\(1\)\.\.\.child\(1\)\.child\(1\)\.child\(1\) at byte \d+ nests deeper than maxDepth 100; raise maxDepth or reject the input$/);
  });

  test("the deepest allowed nesting (maxDepth 10,000) is read without recursion", () => {
    const { bytes } = nestingBomb(9_999);
    let v = read(Node, bytes, { maxMessageBytes: 1 << 26, maxDepth: 10_000 });
    let depth = 1;
    while (v.child) {
      v = v.child as Plain;
      depth++;
    }
    expect(depth).toBe(10_000);
  });

  test("nesting inside an unknown field is not parsed, so it cannot exceed the depth", () => {
    const { bytes } = nestingBomb(1000);
    expect(read(Repeated, bytes, { maxMessageBytes: 1 << 26, maxDepth: 2 })).toMatchObject({});
  });
});

describe("truncation and recovery", () => {
  const full = toBinary(
    Scalars,
    create(Scalars, {
      d: 1.25, f: 2.5, i64: -1n, u64: 2n ** 64n - 1n, i32: -2, fx64: 3n, fx32: 4, b: true, s: "héllo",
      by: new Uint8Array([1, 2, 3]), u32: 300, e: 1, sf32: -5, sf64: -6n, s32: -7, s64: -8n,
      child: { s: "nested", i32: 150, child: { b: true } },
    }),
  );
  const reps = toBinary(Repeated, create(Repeated, { i32: [1, -1, 300], d: [1.5], s: ["a", "ü"], msgs: [{ i32: 1 }], u64: [1n, 2n] }));

  test.each([
    ["Scalars", Scalars, full],
    ["Repeated", Repeated, reps],
  ])("every prefix of a valid %s fails with a CodecError or reads a prefix of its fields", (_, desc, bytes) => {
    const whole = read(desc, bytes);
    let failures = 0;
    for (let cut = 0; cut < bytes.length; cut++) {
      try {
        read(desc, bytes.subarray(0, cut));
      } catch (e) {
        expect(e).toBeInstanceOf(CodecError);
        expect(["TRUNCATED", "LENGTH_PAST_END", "INVALID_UTF8"]).toContain((e as CodecError).code);
        failures++;
      }
    }
    expect(failures).toBeGreaterThan(bytes.length / 2);
    // The instance stays usable after every error.
    expect(read(desc, bytes)).toEqual(whole);
  });

  test("the instance stays usable after every status code", () => {
    const bad: number[][] = [[0x28, 0x80], [0x00], [0x2e], [0x2d, 1, 2, 3, 4], [0x4a, 5], [0x4a, 1, 0xff], [0x20, ...Array(10).fill(0xff), 1]];
    for (const b of bad) {
      expect(() => read(Scalars, b)).toThrow(CodecError);
      expect(read(Scalars, [0x28, 7])).toEqual({ i32: 7 });
    }
  });
});

describe("random and mutated input", () => {
  const types = [Scalars, Repeated, Maps, Node, Sparse];
  const valid = toBinary(Maps, create(Maps, { ss: { k: "v", "ключ": "значение" }, nodeById: { 1: { name: "a", child: { v: 2 } } }, colors: { "5": 1 } } as never));

  test("property: random bytes read or fail with a CodecError, for every fixture type", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.constantFrom(...types), (bytes, desc) => {
        try {
          read(desc, bytes, { maxMessageBytes: 1000, maxDepth: 8 });
        } catch (e) {
          expect(e).toBeInstanceOf(CodecError);
          expect(Object.values(STATUS_CODES)).toContain((e as CodecError).code);
          expect((e as CodecError).offset).toBeLessThanOrEqual(bytes.length);
        }
      }),
      { numRuns: 3000 },
    );
  });

  test("property: a valid message with bytes changed reads or fails with a CodecError", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(valid.length - 1), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }), (edits) => {
        const b = valid.slice();
        for (const [i, v] of edits) b[i] = v;
        try {
          read(Maps, b);
        } catch (e) {
          expect(e).toBeInstanceOf(CodecError);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe("unknown fields", () => {
  test("are recorded as byte ranges in input order", () => {
    const bytes = [0x28, 1, 0xf8, 0x01, 5, 0xfd, 0x01, 1, 2, 3, 4, 0xf9, 0x01, 1, 2, 3, 4, 5, 6, 7, 8, 0xfa, 0x01, 2, 9, 9, 0x28, 3];
    expect(read(Scalars, bytes)).toEqual({
      $unknown: [[0xf8, 0x01, 5], [0xfd, 0x01, 1, 2, 3, 4], [0xf9, 0x01, 1, 2, 3, 4, 5, 6, 7, 8], [0xfa, 0x01, 2, 9, 9]],
      i32: 3,
    });
  });
});

describe("scanUnknownFields (collisions)", () => {
  const at = (n: number, wt: number) => Array.from(protobuf.Writer.create().uint32(((n << 3) | wt) >>> 0).finish());
  test.each([
    ["no collision", [...at(100, 0), 1, ...at(4999, 2), 1, 0x61], [[0, 8]], undefined, undefined],
    ["a declared dense number", [...at(100, 0), 1, ...at(1, 0), 1], [[0, 5]], "UNKNOWN_FIELD_COLLISION", 3],
    ["a declared sparse number", [...at(536870911, 0), 1], [[0, 6]], "UNKNOWN_FIELD_COLLISION", 0],
    ["in the second range", [...at(100, 0), 1, ...at(100000, 5), 1, 2, 3, 4], [[0, 3], [3, 7]], "UNKNOWN_FIELD_COLLISION", 3],
    ["a malformed field", [...at(100, 2), 5, 1], [[0, 4]], "LENGTH_PAST_END", 0],
    ["field number 0", [0, 1], [[0, 2]], "FIELD_NUMBER_ZERO", 0],
    ["a group", [...at(100, 3)], [[0, 2]], "INVALID_WIRE_TYPE", 0],
  ])("%s", (_, bytes, ranges, code, offset) => {
    const run = () => scanUnknownFields(layoutOf(Sparse).typeOffset, Uint8Array.from(bytes), ranges.flat());
    if (code === undefined) expect(run()).toBeUndefined();
    else expect(failure(run)).toMatchObject({ code, offset });
  });

  test("the collision message names the declared field", () => {
    const f = failure(() => scanUnknownFields(layoutOf(Sparse).typeOffset, Uint8Array.from([0x08, 1]), [0, 2]));
    expect(f.message).toBe(
      "cannot encode core.test.Sparse: unknown field 1 at byte 0 collides with declared field core.test.Sparse.a(1) of core.test.Sparse; remove the unknown field or write it as the declared field",
    );
  });
});

describe("walkFrames", () => {
  test("validates a batch of frames in one call, one START..END per frame", () => {
    const w = protobuf.Writer.create();
    for (let i = 0; i < 1000; i++) w.bytes(toBinary(Node, create(Node, { name: `n${i}`, v: i })));
    const buf = new Uint8Array(w.finish());
    const layout = layoutOf(Node);
    const out = readAll(walkFrames(layout.typeOffset, buf, limits), layout, buf);
    expect(out.length).toBe(1000);
    expect(out[999]).toEqual({ name: "n999", v: 999 });
  });

  test.each([
    ["a frame over the limit", [0x02, 0x18, 1, 0x05, 0x18, 1, 0x18, 1, 0], { maxMessageBytes: 4, maxDepth: 5 }, "FRAME_TOO_LARGE", 3],
    ["a truncated frame", [0x02, 0x18, 1, 0x05, 0x18], limits, "FRAME_TRUNCATED", 3],
    ["a malformed message in the second frame", [0x02, 0x18, 1, 0x02, 0x18, 0x80], limits, "TRUNCATED", 5],
  ])("%s", (_, bytes, l, code, offset) => {
    expect(failure(() => walkFrames(layoutOf(Node).typeOffset, Uint8Array.from(bytes), l))).toMatchObject({ code, offset });
  });
});
