// Varints whose bits above the field's width are set. int32, uint32 and enums keep the low 32 bits
// (protobuf reads a 64-bit varint and truncates), so 2^32 is 0 there: for an implicit-presence
// field that zero is absence, as every other zero is. Both readers (the TypeScript reader of
// small messages and the core's tape) kept it as a present 0 instead: has() was true, equals()
// false against the same content, and toJson and a deterministic toBinary wrote the field. bool
// and the 64-bit types read all 64 bits. Each input is read as protobuf-es reads it (presence,
// JSON, canonical bytes), by both kinds; the projects of vitest.config.ts run it on every path.
import { createFileRegistry, fromBinary, isFieldSet, toBinary, toJson, type DescMessage } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { describe, expect, test } from "vitest";
import { ProtobufType } from "../src/index.js";
import { compileProtoText } from "./support/buf.js";

const PROTO = `syntax = "proto3";
package hb;
enum E { E_ZERO = 0; E_ONE = 1; }
message M {
  int32 i32 = 1;
  uint32 u32 = 2;
  sint32 s32 = 3;
  E e = 4;
  bool b = 5;
  int64 i64 = 6;
  uint64 u64 = 7;
  sint64 s64 = 8;
  optional int32 oi32 = 9;
  optional uint32 ou32 = 10;
  optional E oe = 11;
  optional bool ob = 12;
  repeated int32 ri32 = 13 [packed = false];
  repeated uint32 ru32 = 14;
  repeated bool rb = 15;
  map<int32, uint32> m = 16;
  oneof o { int32 oo32 = 17; E oe2 = 18; }
  Inner inner = 19;
}
message Inner { int32 v = 1; }
`;

const M: DescMessage = createFileRegistry(fromBinary(FileDescriptorSetSchema, compileProtoText({ "hb.proto": PROTO }))).getMessage("hb.M")!;

function varint(v: bigint): number[] {
  const out: number[] = [];
  let x = BigInt.asUintN(64, v);
  while (x >= 0x80n) {
    out.push(Number(x & 0x7fn) | 0x80);
    x >>= 7n;
  }
  out.push(Number(x));
  return out;
}

const tag = (n: number, wt: number): number[] => varint(BigInt((n << 3) | wt));
const hex = (b: number[]): string => b.map((x) => x.toString(16).padStart(2, "0")).join("");

// Values with no bit in the low 32 (zero for 32-bit types), some, and non-minimal zeros.
const VALUES: [string, number[]][] = [
  ["2^32", varint(1n << 32n)],
  ["2^35", varint(1n << 35n)],
  ["2^63", varint(1n << 63n)],
  ["0xffffffff00000000", varint(0xffffffff00000000n)],
  ["2^32 + 1", varint((1n << 32n) + 1n)],
  ["2^32 + 2^31", varint((1n << 32n) + (1n << 31n))],
  ["0 in five bytes", [0x80, 0x80, 0x80, 0x80, 0x00]],
  ["0 in ten bytes", [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00]],
];

const VARINT_FIELDS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 17, 18];

/** Inputs: each value alone in each varint field, after a non-zero value of the same field, in a packed run, a map entry and a nested message. */
function inputs(): [string, Uint8Array][] {
  const out: [string, Uint8Array][] = [];
  for (const [name, v] of VALUES) {
    for (const n of VARINT_FIELDS) {
      out.push([`field ${n} = ${name}`, Uint8Array.from([...tag(n, 0), ...v])]);
      out.push([`field ${n} = 5, then ${name}`, Uint8Array.from([...tag(n, 0), 5, ...tag(n, 0), ...v])]);
    }
    for (const n of [13, 14, 15]) out.push([`field ${n} packed [1, ${name}]`, Uint8Array.from([...tag(n, 2), 1 + v.length, 1, ...v])]);
    const entry = [...tag(1, 0), ...v, ...tag(2, 0), ...v];
    out.push([`map entry ${name} -> ${name}`, Uint8Array.from([...tag(16, 2), entry.length, ...entry])]);
    const inner = [...tag(1, 0), ...v];
    out.push([`inner.v = ${name}`, Uint8Array.from([...tag(19, 2), inner.length, ...inner])]);
  }
  return out;
}

const dynamic = ProtobufType.of(M).createSerializer();
const deterministic = ProtobufType.newBuilder(M).deterministic(true).build().createSerializer();
const generated = ProtobufType.ofGenerated(M).createSerializer();

describe("varints with bits above the field's width", () => {
  test.each(inputs())("%s", (_name, input) => {
    const es = fromBinary(M, input);
    const value = dynamic.fromBinary(input);
    // Presence of every field, as protobuf-es sets it.
    expect(Object.fromEntries(M.fields.map((f) => [f.name, value.has(f.name)]))).toEqual(Object.fromEntries(M.fields.map((f) => [f.name, isFieldSet(es, f)])));
    expect(dynamic.toJson(value)).toEqual(toJson(M, es));
    expect(hex([...deterministic.toBinary(value)])).toBe(hex([...toBinary(M, es)]));
    // The same content built from the canonical bytes is equal.
    expect(value.equals(dynamic.fromBinary(toBinary(M, es)))).toBe(true);
    expect(generated.fromBinary(input)).toEqual(es);
  });
});
