// Unit tests of the core's varint, zigzag and tag primitives at edge values, and property
// tests against protobufjs's Reader/Writer in both directions.
import fc from "fast-check";
import protobuf from "protobufjs";
import { describe, expect, test } from "vitest";
import { C, bytesAt, coreNow, ctrl, ctrlU64, put } from "./support/core.js";
import { STATUS_CODES } from "../src/wasm/status.js";

const U64 = (1n << 64n) - 1n;

function pbjsVarint(v: bigint): Uint8Array {
  return protobuf.Writer.create().uint64(v.toString()).finish();
}

function coreWrite(v: bigint): Uint8Array {
  const at = put([], 16);
  const n = coreNow().writeVarintAt(at, BigInt.asIntN(64, v));
  return bytesAt(at, n);
}

function coreRead(bytes: Uint8Array | number[]): { status: string | number; value?: bigint; length?: number; offset?: number } {
  const at = put(bytes);
  const s = coreNow().readVarintAt(at, bytes.length);
  if (s !== 0) return { status: STATUS_CODES[s] ?? s, offset: ctrl(C.OFFSET) };
  return { status: 0, value: ctrlU64(), length: ctrl(C.COUNT) };
}

const edges: [string, bigint][] = [
  ["0", 0n],
  ["1", 1n],
  ["127", 127n],
  ["128", 128n],
  ["16383", 16383n],
  ["16384", 16384n],
  ["2^31-1", 2n ** 31n - 1n],
  ["2^31", 2n ** 31n],
  ["2^32-1", 2n ** 32n - 1n],
  ["2^53", 2n ** 53n],
  ["2^63-1", 2n ** 63n - 1n],
  ["2^63", 2n ** 63n],
  ["-1 as u64", U64],
  ["2^64-1", U64],
];

describe("varint", () => {
  test.each(edges)("%s round-trips and matches protobufjs bytes", (_, v) => {
    const ours = coreWrite(v);
    expect(ours).toEqual(new Uint8Array(pbjsVarint(v)));
    expect(coreRead(ours)).toEqual({ status: 0, value: v, length: ours.length });
    expect(coreNow().varintSize64(BigInt.asIntN(64, v))).toBe(ours.length);
  });

  test.each([
    ["empty input", [], "TRUNCATED", 0],
    ["continuation then end", [0x80], "TRUNCATED", 0],
    ["nine continuation bytes then end", [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], "TRUNCATED", 0],
    ["11 bytes", [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x81, 0x00], "VARINT_TOO_LONG", 0],
    ["10th byte 2 overflows", [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02], "VARINT_OVERFLOW", 0],
    ["10th byte 0x7f overflows", [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f], "VARINT_OVERFLOW", 0],
  ])("%s → %s", (_, bytes, code, offset) => {
    expect(coreRead(bytes)).toEqual({ status: code, offset });
  });

  test("a redundant 10-byte encoding of 1 is accepted", () => {
    expect(coreRead([0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00])).toEqual({ status: 0, value: 1n, length: 10 });
  });

  test("property: core writes what protobufjs reads, protobufjs writes what the core reads", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: U64 }), (v) => {
        const ours = coreWrite(v);
        expect(protobuf.Reader.create(ours).uint64().toString()).toBe(v.toString());
        const theirs = new Uint8Array(pbjsVarint(v));
        expect(coreRead(theirs)).toEqual({ status: 0, value: v, length: theirs.length });
      }),
      { numRuns: 2000 },
    );
  });
});

describe("zigzag", () => {
  test.each([0, 1, -1, 63, -64, 2 ** 31 - 1, -(2 ** 31)])("32-bit %d matches protobufjs sint32", (v) => {
    const e = coreNow();
    const z = e.zigzag32(v) >>> 0;
    const w = protobuf.Writer.create().sint32(v).finish();
    expect(protobuf.Reader.create(w).uint32()).toBe(z);
    expect(e.unzigzag32(z)).toBe(v);
  });

  test.each([0n, 1n, -1n, 2n ** 53n, -(2n ** 53n), 2n ** 63n - 1n, -(2n ** 63n)])("64-bit %s matches protobufjs sint64", (v) => {
    const e = coreNow();
    const z = BigInt.asUintN(64, e.zigzag64(v));
    const w = protobuf.Writer.create().sint64(v.toString()).finish();
    expect(protobuf.Reader.create(w).uint64().toString()).toBe(z.toString());
    expect(e.unzigzag64(BigInt.asIntN(64, z))).toBe(v);
  });

  test("property: sint64 both ways against protobufjs", () => {
    const e = coreNow();
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), (v) => {
        const z = BigInt.asUintN(64, e.zigzag64(v));
        const theirs = protobuf.Writer.create().sint64(v.toString()).finish();
        expect(coreRead(new Uint8Array(theirs))).toMatchObject({ status: 0, value: z });
        expect(protobuf.Reader.create(coreWrite(z)).sint64().toString()).toBe(v.toString());
      }),
      { numRuns: 1000 },
    );
  });
});

describe("tag", () => {
  function readTag(bytes: Uint8Array | number[]) {
    const at = put(bytes);
    const s = coreNow().readTagAt(at, bytes.length);
    if (s !== 0) return { status: STATUS_CODES[s], offset: ctrl(C.OFFSET) };
    return { status: 0, field: ctrl(C.FIELD), wire: ctrl(C.WIRE), length: ctrl(C.COUNT) };
  }
  function writeTag(n: number, wt: number): Uint8Array {
    const at = put([], 16);
    return bytesAt(at, coreNow().writeTagAt(at, n, wt));
  }

  test.each([
    [1, 0],
    [15, 2],
    [16, 5],
    [2047, 1],
    [2048, 2],
    [19000, 0],
    [536870911, 5],
  ])("field %d wire %d matches protobufjs", (n, wt) => {
    const ours = writeTag(n, wt);
    expect(ours).toEqual(new Uint8Array(protobuf.Writer.create().uint32(((n << 3) | wt) >>> 0).finish()));
    expect(readTag(ours)).toEqual({ status: 0, field: n, wire: wt, length: ours.length });
  });

  test.each([
    ["field number 0", [0x00], "FIELD_NUMBER_ZERO"],
    ["field number 0 with wire type 2", [0x02], "FIELD_NUMBER_ZERO"],
    ["tag above 32 bits", [0x80, 0x80, 0x80, 0x80, 0x10], "FIELD_NUMBER_TOO_LARGE"],
    ["truncated tag", [0x80], "TRUNCATED"],
  ])("%s → %s at 0", (_, bytes, code) => {
    expect(readTag(bytes)).toEqual({ status: code, offset: 0 });
  });

  test("property: tags both ways against protobufjs", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 536870911 }), fc.constantFrom(0, 1, 2, 5), (n, wt) => {
        const ours = writeTag(n, wt);
        const r = protobuf.Reader.create(ours);
        const t = r.uint32();
        expect([t >>> 3, t & 7]).toEqual([n, wt]);
        const theirs = new Uint8Array(protobuf.Writer.create().uint32(((n << 3) | wt) >>> 0).finish());
        expect(readTag(theirs)).toEqual({ status: 0, field: n, wire: wt, length: theirs.length });
      }),
      { numRuns: 2000 },
    );
  });
});
