// Bulk packed encoding in the core (the writer's fast path for packed repeated numerics):
// the bytes equal protobufjs's packed encoding for every packable kind.
import fc from "fast-check";
import protobuf from "protobufjs";
import { describe, expect, test } from "vitest";
import { packedSize, writePacked } from "../src/wasm/ops.js";
import {
  KIND_BOOL, KIND_DOUBLE, KIND_ENUM, KIND_FIXED32, KIND_FIXED64, KIND_FLOAT, KIND_INT32, KIND_INT64, KIND_SFIXED32, KIND_SFIXED64,
  KIND_SINT32, KIND_SINT64, KIND_UINT32, KIND_UINT64,
} from "../src/wasm/table.js";

type W = protobuf.Writer;
const i32 = fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
const u32 = fc.integer({ min: 0, max: 2 ** 32 - 1 });
const i64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
const u64 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });

const cases: [string, number, fc.Arbitrary<unknown>, (v: never[]) => ArrayBufferView, (w: W, v: never) => W][] = [
  ["int32", KIND_INT32, i32, (v) => Int32Array.from(v), (w, v) => w.int32(v)],
  ["enum", KIND_ENUM, i32, (v) => Int32Array.from(v), (w, v) => w.int32(v)],
  ["sint32", KIND_SINT32, i32, (v) => Int32Array.from(v), (w, v) => w.sint32(v)],
  ["uint32", KIND_UINT32, u32, (v) => Uint32Array.from(v), (w, v) => w.uint32(v)],
  ["int64", KIND_INT64, i64, (v) => BigInt64Array.from(v), (w, v: bigint) => w.int64(String(v))],
  ["uint64", KIND_UINT64, u64, (v) => BigUint64Array.from(v), (w, v: bigint) => w.uint64(String(v))],
  ["sint64", KIND_SINT64, i64, (v) => BigInt64Array.from(v), (w, v: bigint) => w.sint64(String(v))],
  ["bool", KIND_BOOL, fc.boolean(), (v) => Uint8Array.from(v as boolean[], (b) => (b ? 1 : 0)), (w, v) => w.bool(v)],
  ["fixed32", KIND_FIXED32, u32, (v) => Uint32Array.from(v), (w, v) => w.fixed32(v)],
  ["sfixed32", KIND_SFIXED32, i32, (v) => Int32Array.from(v), (w, v) => w.sfixed32(v)],
  ["float", KIND_FLOAT, fc.float({ noNaN: true }), (v) => Float32Array.from(v), (w, v) => w.float(v)],
  ["fixed64", KIND_FIXED64, u64, (v) => BigUint64Array.from(v), (w, v: bigint) => w.fixed64(String(v))],
  ["sfixed64", KIND_SFIXED64, i64, (v) => BigInt64Array.from(v), (w, v: bigint) => w.sfixed64(String(v))],
  ["double", KIND_DOUBLE, fc.double({ noNaN: true }), (v) => Float64Array.from(v), (w, v) => w.double(v)],
];

describe("packed encoding", () => {
  test.each(cases)("%s matches protobufjs", (_, kind, arb, toArray, write) => {
    fc.assert(
      fc.property(fc.array(arb, { maxLength: 50 }), (values) => {
        let w = protobuf.Writer.create();
        for (const v of values) w = write(w, v as never);
        const expected = new Uint8Array(w.finish());
        const arr = toArray(values as never[]);
        expect(packedSize(kind, arr, values.length)).toBe(expected.length);
        const out = new Uint8Array(expected.length + 4);
        expect(writePacked(kind, arr, values.length, out, 2)).toBe(expected.length);
        expect(out.subarray(2, 2 + expected.length)).toEqual(expected);
      }),
      { numRuns: 100 },
    );
  });

  test.each([
    ["int32 -1 takes 10 bytes", KIND_INT32, Int32Array.of(-1), 10],
    ["sint32 -1 takes 1 byte", KIND_SINT32, Int32Array.of(-1), 1],
    ["uint64 2^64-1 takes 10 bytes", KIND_UINT64, BigUint64Array.of(2n ** 64n - 1n), 10],
    ["an unsupported kind (string) is 0", 9, new Uint8Array(4), 0],
  ])("%s", (_, kind, arr, size) => {
    expect(packedSize(kind, arr, arr.length)).toBe(size);
  });
});
