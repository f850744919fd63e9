// The generated writer's one-call path for singular uint32, int32, enum, bool, double and short
// string fields (generated-writer.ts scalarFast): a value in the form written is checked and
// written there, anything else goes to the path with every conversion and error. Both must give
// what create + write gives, byte for byte and error for error, around every edge of the checks:
// integral and not, 32-bit ranges, -0 and implicit zeros, strings at SHORT_STRING units, lone
// surrogates, values of another type, and the same fields in messages written inline, in frames
// (a recursive type) and by the generated kind (protobuf-es objects).
import { create, toBinary, type DescMessage } from "@bufbuild/protobuf";
import { describe, expect, test } from "vitest";
import { CodecError, DynamicMessage, ProtobufType } from "../src/index.js";
import { SHORT_STRING } from "../src/codec/wire.js";
import { pbjsType } from "./adversarial/support.js";
import { thrown } from "./support/thrown.js";

const SOURCE = `
package fast;
enum E { E_ZERO = 0; E_ONE = 1; E_NEG = -1; }
message M {
  uint32 u = 1; int32 i = 2; bool b = 3; double d = 4; string s = 5; E e = 6;
  optional uint32 ou = 7; optional int32 oi = 8; optional bool ob = 9; optional double od = 10;
  optional string os = 11; optional E oe = 12;
  fixed32 f32 = 13; sint32 s32 = 14; sfixed32 sf32 = 15; float fl = 16;
  oneof k { uint32 ku = 17; string ks = 18; }
  uint32 far = 2000;
  string sfar = 3000;
}
// Recursive: written by frames, not by bounded recursion.
message Node { uint32 u = 1; int32 i = 2; bool b = 3; double d = 4; string s = 5; E e = 6; Node next = 7; }
// Not recursive: written inline.
message Outer { M m = 1; repeated M ms = 2; }
`;
const type = ProtobufType.of(pbjsType(SOURCE, "fast.M"));
const M = type.descriptor;
const ser = type.createSerializer();
const nodeType = ProtobufType.of(pbjsType(SOURCE, "fast.Node"));
const nodeSer = nodeType.createSerializer();
const outerType = ProtobufType.of(pbjsType(SOURCE, "fast.Outer"));
const outerSer = outerType.createSerializer();

const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

const VALUES: readonly unknown[] = [
  0, -0, 1, 127, 128, 16383, 16384, 2 ** 31 - 1, 2 ** 31, -1, -(2 ** 31), -(2 ** 31) - 1, 2 ** 32 - 1, 2 ** 32, 2 ** 53,
  1.5, -1.5, 1e-300, NaN, Infinity, -Infinity,
  "", "a", "5", "é", "😀", "\uD800", "a\uDFFF", "x".repeat(SHORT_STRING - 1), "x".repeat(SHORT_STRING), "é".repeat(SHORT_STRING - 1),
  "E_ONE", 5n, -1n, true, false, null, undefined, {}, [], new Uint8Array([1]),
];

/** The bytes or the error (its class, code and message) of `run`. */
function outcome(run: () => Uint8Array): string {
  try {
    return hex(run());
  } catch (e) {
    const err = e as Error;
    return `${err.constructor.name} ${(e as CodecError).code ?? ""} ${err.message}`;
  }
}

/** What create + the dynamic writer give for `init` of `desc`, or create's error. */
function expected(desc: DescMessage, write: (m: DynamicMessage) => Uint8Array, init: Record<string, unknown>): string {
  return outcome(() => write(DynamicMessage.create(desc, init)));
}

const FIELDS = ["u", "i", "b", "d", "s", "e", "ou", "oi", "ob", "od", "os", "oe", "f32", "s32", "sf32", "fl", "ku", "ks", "far", "sfar"];

describe.each(FIELDS)("field %s of a plain init object", (field) => {
  test.each(VALUES.map((v) => [typeof v === "string" && v.length > 8 ? `${v.length}-unit string` : String(v), v]))("holding %s", (_, v) => {
    const init = { [field]: v };
    const bare = expected(M, (m) => ser.toBinary(m), init);
    expect(outcome(() => ser.toBinary(init))).toBe(bare);
    expect(outcome(() => ser.encode(init))).toBe(expected(M, (m) => ser.encode(m), init));
    // After other fields, in an object of another key order, and inside messages written inline.
    const wide = { far: 7, s: "z", [field]: v, b: true };
    expect(outcome(() => ser.toBinary(wide))).toBe(expected(M, (m) => ser.toBinary(m), wide));
    const outer = { m: init, ms: [init, { u: 3 }, init] };
    expect(outcome(() => outerSer.toBinary(outer))).toBe(expected(outerType.descriptor, (m) => outerSer.toBinary(m), outer));
    expect(outcome(() => ser.encodeAll([init, { i: -2 }, init]))).toBe(outcome(() => ser.encodeAll([DynamicMessage.create(M, init), { i: -2 }, DynamicMessage.create(M, init)])));
  });
});

describe.each(["u", "i", "b", "d", "s", "e"])("field %s of a recursive type (frames)", (field) => {
  test.each(VALUES.map((v) => [typeof v === "string" && v.length > 8 ? `${v.length}-unit string` : String(v), v]))("holding %s", (_, v) => {
    const chain = { u: 1, [field]: v, next: { [field]: v, next: { s: "end", [field]: v } } };
    expect(outcome(() => nodeSer.toBinary(chain))).toBe(expected(nodeType.descriptor, (m) => nodeSer.toBinary(m), chain));
  });
});

describe("protobuf-es objects through the generated kind", () => {
  const gser = ProtobufType.ofGenerated(M).createSerializer();
  // [field, value] pairs protobuf-es holds (its own form), written as @bufbuild/protobuf writes them.
  const cases: [string, unknown][] = [
    ...[0, 1, 127, 128, 2 ** 31, 2 ** 32 - 1].map((v): [string, unknown] => ["u", v]),
    ...[0, -1, 1, -(2 ** 31), 2 ** 31 - 1].map((v): [string, unknown] => ["i", v]),
    ...[0, 1, -1].map((v): [string, unknown] => ["e", v]),
    ...[true, false].map((v): [string, unknown] => ["b", v]),
    ...[0, -0, 1.5, NaN, Infinity, -Infinity, 1e-300].map((v): [string, unknown] => ["d", v]),
    ...["", "a", "é😀", "x".repeat(SHORT_STRING - 1), "x".repeat(SHORT_STRING), "x".repeat(200)].map((v): [string, unknown] => ["s", v]),
    ...[0, 2 ** 32 - 1].map((v): [string, unknown] => ["ou", v]),
    ...[0, -5].map((v): [string, unknown] => ["oi", v]),
    ...[false, true].map((v): [string, unknown] => ["ob", v]),
    ...[-0, 0].map((v): [string, unknown] => ["od", v]),
    ...["", "q"].map((v): [string, unknown] => ["os", v]),
    ...[0, 70000].map((v): [string, unknown] => ["far", v]),
    ...["", "far away"].map((v): [string, unknown] => ["sfar", v]),
  ];
  test.each(cases)("%s = %s", (field, v) => {
    const msg = create(M, { [field]: v } as never);
    expect(hex(gser.toBinary(msg))).toBe(hex(toBinary(M, msg)));
  });

  // Values protobuf-es' own create would not make, set on its object: refused with the error
  // DynamicMessage.create gives for them (the path with every check), not written.
  test.each([
    ["u", -1],
    ["u", 1.5],
    ["u", 2 ** 32],
    ["i", 2 ** 31],
    ["i", "5"],
    ["b", 1],
    ["d", "1.5"],
    ["s", 5],
  ] as [string, unknown][])("%s set to %s on its object", (field, v) => {
    const msg = create(M) as unknown as Record<string, unknown>;
    msg[field] = v;
    const err = thrown<Error>(() => gser.toBinary(msg as never));
    const want = thrown<Error>(() => DynamicMessage.create(M, { [field]: v }));
    expect(`${err.constructor.name}: ${err.message}`).toBe(`${want.constructor.name}: ${want.message}`);
    expect(err.message).toMatch(new RegExp(`^field fast\\.M\\.${field}\\(\\d+\\) expects `));
  });
});
