// The TypeScript reader of small messages (src/codec/small-reader.ts) against the core's path, on
// the same inputs in one process: every input gives the same value, to the internal
// representation (slots and holes, heights, accepted marks, source bytes, unknown fields, whether
// bytes alias the input), or the same CodecError (code, message, path, offset), whichever path
// reads it. Valid inputs are read by the TypeScript reader itself (it gives up only on merges and
// deep nesting), so these cases test it, not the fallback. Inputs: hand-made edge cases of every
// rule, random schemas with random values, their scrambled encodings, and corruptions of them.
// The generated kind (protobuf-es objects, src/codec/generated-reader.ts) reads small messages
// with the same reader and its own builder: the same cases run on it, its objects compared as data.
import { create, toBinary, type DescMessage } from "@bufbuild/protobuf";
import fc from "fast-check";
import { afterAll, describe, expect, test } from "vitest";
import { GENERATED_SMALL } from "../src/codec/generated-reader.js";
import { layoutOf } from "../src/codec/layout.js";
import { planFor, SourceCopy } from "../src/codec/read-plan.js";
import { setSmallDecodeThreshold } from "../src/codec/reader.js";
import { SmallDecoder } from "../src/codec/small-reader.js";
import { CodecError, DynamicMessage, ProtobufGeneratedType, ProtobufType } from "../src/index.js";
import { ld, pbjsType, tag, varint } from "./adversarial/support.js";
import { messageArb } from "./support/arbitrary-message.js";
import { schemaArb } from "./support/arbitrary-schema.js";
import { check, trickyStrings } from "./support/property.js";
import { rng, scramble } from "./support/wire-scramble.js";
import { scalarShape } from "./support/differential.js";

const shipped = setSmallDecodeThreshold(0);
setSmallDecodeThreshold(shipped);
afterAll(() => void setSmallDecodeThreshold(shipped));

const hex = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.length).toString("hex");

/** A decoded value as data: everything a reader sets, holes and aliasing included. */
function shape(v: unknown, input: Uint8Array): unknown {
  if (v instanceof DynamicMessage) {
    const m = v as unknown as {
      descriptor: DescMessage; _okFor: unknown; _height: number; _isLazy: boolean; _src: Uint8Array | undefined;
      _values: readonly unknown[]; _unknown: readonly { number: number; data: Uint8Array }[];
    };
    const lazy = m._isLazy;
    const src = m._src;
    const vals = m._values;
    return {
      type: m.descriptor.typeName,
      accepted: m._okFor === m.descriptor,
      height: m._height,
      lazy,
      src: src === undefined ? undefined : hex(src),
      values: Array.from({ length: vals.length }, (_, i) => (i in vals ? shape(vals[i], input) : "<hole>")),
      unknown: m._unknown.map((u) => [u.number, shape(u.data, input)]),
    };
  }
  if (v instanceof Map) return ["Map", [...v].map(([k, x]) => [shape(k, input), shape(x, input)])];
  if (v !== null && typeof v === "object" && !ArrayBuffer.isView(v) && !Array.isArray(v)) {
    // A protobuf-es message, oneof case or map record: own keys (sorted: an optional field set by
    // a read is added in the order the input has it, on both paths as in protobuf-es), prototype.
    const proto = Object.getPrototypeOf(v) === Object.prototype ? "Object" : String(Object.getPrototypeOf(v));
    return [proto, Object.keys(v).sort().map((k) => [k, shape((v as Record<string, unknown>)[k], input)])];
  }
  if (Array.isArray(v)) return ["Array", v.map((x) => shape(x, input))];
  if (v instanceof Uint8Array) {
    const aliased = v.buffer === input.buffer ? `alias@${v.byteOffset - input.byteOffset}` : "copy";
    return [v.constructor.name, hex(v), aliased];
  }
  return scalarShape(v);
}

/** What reading `input` gives: the value's shape, or the CodecError. */
function outcome(read: (b: Uint8Array) => unknown, input: Uint8Array): unknown {
  try {
    return shape(read(input), input);
  } catch (e) {
    if (!(e instanceof CodecError)) throw e;
    return `${e.code} | ${e.message} | ${e.path} | ${e.offset}`;
  }
}

type Ser = { fromBinary(b: Uint8Array): unknown; decode(b: Uint8Array): unknown; decodeAll(b: Uint8Array): unknown };

function frame(body: Uint8Array): Uint8Array {
  return new Uint8Array([...varint(body.length), ...body]);
}

/**
 * fromBinary, decode (one frame) and decodeAll (a batch of it, an empty frame and it again) of
 * `input` on both paths give the same outcome; returns fromBinary's.
 */
function bothPaths(ser: Ser, input: Uint8Array): unknown {
  const framed = frame(input);
  const batch = new Uint8Array([...framed, 0, ...framed]);
  const reads = (): unknown[] => [outcome((b) => ser.fromBinary(b), input), outcome((b) => ser.decode(b), framed), outcome((b) => ser.decodeAll(b), batch)];
  const was = setSmallDecodeThreshold(Infinity);
  try {
    const ts = reads();
    setSmallDecodeThreshold(0);
    const core = reads();
    expect(ts).toEqual(core);
    return core[0];
  } finally {
    setSmallDecodeThreshold(was);
  }
}

/** True when the TypeScript reader reads `input` itself (does not hand it to the core). */
function handled(type: ProtobufType | ProtobufGeneratedType<DescMessage>, input: Uint8Array): boolean {
  const s = type.settings;
  if (type instanceof ProtobufGeneratedType) {
    return new SmallDecoder(s.maxDepth, s.aliasThreshold, GENERATED_SMALL).read(input, planFor(layoutOf(type.descriptor, false))) !== undefined;
  }
  // As BoundDecoder reads: from the source copy, or from the input with aliasing on.
  const sc = new SourceCopy(input);
  const [buf, start] = s.aliasThreshold === 0 ? [sc.store, sc.base] : [input, 0];
  return new SmallDecoder(s.maxDepth, s.aliasThreshold).decode(buf, start, input.length, planFor(layoutOf(type.descriptor)), sc) !== undefined;
}

const SAFE = 2n ** 53n - 1n;
const u64 = (v: bigint) => BigInt.asUintN(64, v);
const zigzag = (v: bigint) => u64((v << 1n) ^ (v >> 63n));
const fixed64 = (v: bigint) => Array.from(new Uint8Array(new BigUint64Array([u64(v)]).buffer));
const fixed32 = (v: number) => Array.from(new Uint8Array(new Uint32Array([v >>> 0]).buffer));
/** A varint written in `n` bytes (non-minimal: continuation bytes of zero bits). */
const longVarint = (v: bigint, n: number): number[] => {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    out.push(Number((v >> BigInt(7 * i)) & 0x7fn) | (i < n - 1 ? 0x80 : 0));
  }
  return out;
};
const utf8 = (s: string): number[] => [...new TextEncoder().encode(s)];

const Edge = pbjsType(
  `enum E { E0 = 0; E1 = 1; }
  message Leaf { int32 x = 1; repeated Leaf kids = 2; map<string, Leaf> byName = 3; }
  message M {
    int32 i32 = 1; int64 i64 = 2; uint32 u32 = 3; uint64 u64 = 4; sint32 s32 = 5; sint64 s64 = 6;
    bool b = 7; E e = 8; fixed32 f32 = 9; fixed64 f64 = 10; sfixed32 sf32 = 11; sfixed64 sf64 = 12;
    float fl = 13; double d = 14; string s = 15; bytes by = 16; Leaf leaf = 17;
    optional bool ob = 18; optional int32 oi = 19; optional string os = 20; optional double od = 21;
    repeated int32 ri = 22; repeated int32 rpi = 23 [packed = false]; repeated sint64 rs = 24;
    repeated fixed32 rf = 25; repeated double rd = 26; repeated bool rb = 27; repeated uint64 ru = 28;
    repeated float rfl = 29; repeated sfixed64 rsf = 30; repeated string rstr = 31; repeated Leaf rl = 32;
    map<int32, string> mi = 33; map<bool, bytes> mb = 34; map<string, Leaf> ml = 35; map<uint64, E> mu = 36;
    int64 jn = 37 [jstype = JS_NUMBER]; uint64 ju = 38 [jstype = JS_NUMBER]; repeated sint64 jr = 39 [jstype = JS_NUMBER];
    fixed64 jf = 40 [jstype = JS_NUMBER]; sfixed64 jsf = 41 [jstype = JS_NUMBER]; repeated fixed64 jrf = 42 [jstype = JS_NUMBER];
    int64 js = 43 [jstype = JS_STRING]; repeated uint64 jrs = 44 [jstype = JS_STRING];
    oneof one { int32 oa = 45; string ob2 = 46; Leaf oc = 47; }
    oneof two { bool ta = 48; Leaf tb = 49; }
    repeated E re = 50;
    int32 far = 100000; string farther = 536870911;
  }`,
  "M",
);
const edge = ProtobufType.of(Edge);
const edgeSer = edge.createSerializer();
const aliasSer = ProtobufType.newBuilder(edge.descriptor).aliasThreshold(4).build().createSerializer();
const shallow = ProtobufType.newBuilder(edge.descriptor).maxDepth(3).maxMessageBytes(40).build();
const shallowSer = shallow.createSerializer();
const gen = ProtobufType.ofGenerated(edge.descriptor);
const genSer = gen.createSerializer();
const genAliasSer = ProtobufType.newGeneratedBuilder(edge.descriptor).aliasThreshold(4).build().createSerializer();
const genShallowSer = ProtobufType.newGeneratedBuilder(edge.descriptor).maxDepth(3).maxMessageBytes(40).build().createSerializer();

// [name, bytes, who reads it: the TypeScript reader, the core (a merge), or nobody (an error)]
const CASES: [string, number[], "ts" | "core" | "error"][] = [
  ["empty", [], "ts"],
  ["every scalar kind", [
    ...tag(1, 0), ...varint(u64(-5n)), ...tag(2, 0), ...varint(u64(-(2n ** 63n))), ...tag(3, 0), ...varint(0xffffffffn),
    ...tag(4, 0), ...varint(2n ** 64n - 1n), ...tag(5, 0), ...varint(zigzag(-7n)), ...tag(6, 0), ...varint(zigzag(-(2n ** 62n))),
    ...tag(7, 0), 1, ...tag(8, 0), ...varint(u64(-3n)), ...tag(9, 5), ...fixed32(0xfffffffe), ...tag(10, 1), ...fixed64(2n ** 64n - 2n),
    ...tag(11, 5), ...fixed32(-9), ...tag(12, 1), ...fixed64(-(2n ** 60n)), ...tag(13, 5), ...fixed32(0x7fc00001),
    ...tag(14, 1), ...fixed64(0x7ff8000000000001n), ...ld(15, utf8("héllo 😀")), ...ld(16, [0, 1, 2, 255]),
  ], "ts"],
  ["implicit zeros are absence, explicit zeros kept", [
    ...tag(1, 0), 5, ...tag(1, 0), 0, ...tag(7, 0), 0, ...tag(18, 0), 0, ...tag(19, 0), 0, ...ld(20, []), ...tag(21, 1), ...fixed64(0n),
    ...ld(15, []), ...ld(16, []), ...tag(13, 5), ...fixed32(0), ...tag(14, 1), ...fixed64(0n),
  ], "ts"],
  ["-0.0 is a value", [...tag(13, 5), ...fixed32(0x80000000), ...tag(14, 1), ...fixed64(0x8000000000000000n)], "ts"],
  ["int32 of 2^32 (low word zero) and bool of 2^40", [...tag(1, 0), ...varint(2n ** 32n), ...tag(3, 0), ...varint(2n ** 33n), ...tag(7, 0), ...varint(2n ** 40n), ...tag(8, 0), ...varint(2n ** 32n)], "ts"],
  ["sint32 with high bits set", [...tag(5, 0), ...varint(2n ** 40n + 3n), ...tag(5, 0), ...varint(2n ** 40n)], "ts"],
  ["non-minimal varints: values, lengths, tags", [...longVarint(8n, 10), ...longVarint(3n, 10), ...tag(15, 2), ...longVarint(2n, 5), 0x61, 0x62, ...longVarint(BigInt(16 * 8 + 2), 3), 0], "ts"],
  ["varint of 10 bytes, last 1", [...tag(4, 0), ...longVarint(2n ** 63n, 10)], "ts"],
  ["varint of 10 bytes, last 2 (overflow)", [...tag(4, 0), 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02], "error"],
  ["varint of 11 bytes", [...tag(4, 0), 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00], "error"],
  ["varint cut", [...tag(4, 0), 0x80, 0x80], "error"],
  ["tag of field 0", [0x00, 0x01], "error"],
  ["tag of field 0, two bytes", [0x80, 0x00], "error"],
  ["tag above 32 bits", [0x80, 0x80, 0x80, 0x80, 0x10], "error"],
  ["tag of field 2^29 - 1", [...ld(536870911, utf8("x"))], "ts"],
  ["tag of field 2^29 - 1, wrong wire type", [...tag(536870911, 0), 1], "error"],
  ["sparse field number", [...tag(100000, 0), 7], "ts"],
  ["wire type 3, 4, 6, 7", [...tag(1, 3)], "error"],
  ["wire type 4", [...tag(1, 4)], "error"],
  ["wire type 6 unknown", [...tag(99, 6)], "error"],
  ["wire type 7 unknown", [...tag(99, 7)], "error"],
  ["wire type mismatch", [...tag(15, 0), 1], "error"],
  ["unknown fields of every wire type kept byte-exact, in order", [
    ...tag(99, 0), 0x96, 0x01, ...tag(98, 1), ...fixed64(1n), ...ld(97, [1, 2, 3]), ...tag(96, 5), ...fixed32(4), ...tag(99, 0), 0,
    ...tag(17, 2), 4, ...tag(5, 0), 1, ...tag(1, 0), 2,
  ], "ts"],
  ["unknown length past end", [...tag(99, 2), 5, 1, 2], "error"],
  ["unknown fixed64 cut", [...tag(99, 1), 1, 2, 3], "error"],
  ["unknown fixed32 cut", [...tag(99, 5), 1, 2, 3], "error"],
  ["unknown varint cut", [...tag(99, 0), 0x80], "error"],
  ["fixed64 cut", [...tag(10, 1), 1, 2, 3, 4, 5, 6, 7], "error"],
  ["fixed32 cut", [...tag(9, 5), 1, 2, 3], "error"],
  ["length past end", [...tag(15, 2), 3, 0x61], "error"],
  ["length past the enclosing message's end", [...ld(17, [...tag(2, 2), 9, ...tag(1, 0), 1]), 1, 1, 1, 1, 1, 1, 1], "error"],
  ["length of 5 bytes", [...tag(16, 2), 0xff, 0xff, 0xff, 0xff, 0x0f], "error"],
  ["UTF-8: BOM kept, every length class", [...ld(15, [0xef, 0xbb, 0xbf, ...utf8("a\u00e9\u20ac\u{10348}")]), ...ld(31, utf8("\u{10ffff}\u{d7ff}\u{e000}"))], "ts"],
  ["UTF-8: long non-ASCII string", [...ld(15, utf8("é".repeat(80)))], "ts"],
  ["UTF-8: long ASCII string", [...ld(15, utf8("a".repeat(300)))], "ts"],
  ["UTF-8: overlong 2-byte", [...ld(15, [0xc0, 0xaf])], "error"],
  ["UTF-8: overlong 3-byte", [...ld(15, [0xe0, 0x80, 0xaf])], "error"],
  ["UTF-8: overlong 4-byte", [...ld(15, [0xf0, 0x80, 0x80, 0xaf])], "error"],
  ["UTF-8: surrogate", [...ld(15, [0xed, 0xa0, 0x80])], "error"],
  ["UTF-8: above U+10FFFF", [...ld(15, [0xf4, 0x90, 0x80, 0x80])], "error"],
  ["UTF-8: F5", [...ld(15, [0xf5, 0x80, 0x80, 0x80])], "error"],
  ["UTF-8: lone continuation", [...ld(15, [0x61, 0x80])], "error"],
  ["UTF-8: cut sequence", [...ld(15, [0x61, 0xe2, 0x82])], "error"],
  ["UTF-8: bad continuation", [...ld(15, [0xe2, 0x28, 0xa1])], "error"],
  ["UTF-8 in a map key", [...ld(35, [...ld(1, [0xff]), ...ld(2, [])])], "error"],
  ["UTF-8 in an unknown field is not checked", [...ld(99, [0xff, 0xfe])], "ts"],
  ["UTF-8 in bytes is not checked", [...ld(16, [0xff, 0xfe]), ...ld(34, [...tag(1, 0), 1, ...ld(2, [0xc0])])], "ts"],
  ["packed and unpacked runs of one field append", [
    ...ld(22, [1, 0x96, 0x01, ...varint(u64(-1n))]), ...tag(22, 0), 7, ...ld(22, []), ...ld(23, [3, 4]), ...tag(23, 0), 5,
    ...ld(24, [...varint(zigzag(-2n)), ...varint(zigzag(2n ** 62n))]), ...ld(25, [...fixed32(1), ...fixed32(0xffffffff)]),
    ...tag(25, 5), ...fixed32(3), ...ld(26, [...fixed64(0x3ff0000000000000n), ...fixed64(0x8000000000000000n)]),
    ...ld(27, [0, 1, ...varint(2n ** 40n)]), ...ld(28, [...varint(2n ** 64n - 1n)]), ...ld(29, [...fixed32(0xbf800000)]),
    ...ld(30, [...fixed64(-1n)]), ...tag(27, 0), 0, ...tag(28, 0), 0,
  ], "ts"],
  // Packed int32 and enum elements of up to four bytes are read without the varint loop unless
  // fewer than four bytes of the run are left: every length, alone, after a one-byte element, and
  // with one-byte elements after it; non-minimal forms; and runs cut inside their last element.
  ...[22, 50].flatMap((no) =>
    [0n, 1n, 127n, 128n, 16383n, 16384n, 2n ** 21n - 1n, 2n ** 21n, 2n ** 28n - 1n, 2n ** 28n, 2n ** 31n - 1n, -1n, -(2n ** 31n)].flatMap((x) => {
      const e = varint(u64(x));
      return [e, [1, ...e], [...e, 1], [...e, 1, 1, 1], [2, ...e, 3, ...e]].map((run): [string, number[], "ts"] => [`packed ${no === 22 ? "int32" : "enum"} ${x} (${e.length} bytes) in [${run.join(",")}]`, ld(no, run), "ts"]);
    }),
  ),
  ["packed int32: non-minimal elements", [...ld(22, [0x81, 0x00, 0x80, 0x80, 0x00, 0x80, 0x80, 0x80, 0x00, 0xff, 0xff, 0xff, 0x7f, 0x81, 0x80, 0x80, 0x80, 0x70, 5])], "ts"],
  ["packed int32: run cut after a continuation byte of 2-4", [...ld(22, [5, 0x80, 0x80, 0x80]), ...tag(1, 0), 1], "error"],
  ["packed enum: run cut after two continuation bytes", [...ld(50, [0x80, 0x81]), ...tag(1, 0), 1], "error"],
  ["packed fixed32 length not a multiple of 4", [...ld(25, [1, 2, 3])], "error"],
  ["packed double length not a multiple of 8", [...ld(26, [1, 2, 3, 4])], "error"],
  ["packed varint cut at the run's end", [...ld(22, [1, 0x80]), 1], "error"],
  ["packed varint of 11 bytes", [...ld(22, [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00])], "error"],
  ["packed run past end", [...tag(22, 2), 9, 1], "error"],
  ["repeated strings and messages", [...ld(31, utf8("a")), ...ld(31, []), ...ld(32, []), ...ld(32, [...tag(1, 0), 3]), ...ld(31, utf8("b"))], "ts"],
  ["oneof: last member wins, message members replaced", [
    ...tag(45, 0), 1, ...ld(46, utf8("x")), ...ld(47, [...tag(1, 0), 2]), ...tag(45, 0), 0, ...tag(48, 0), 0, ...ld(49, []), ...ld(47, [...tag(1, 0), 9]),
  ], "ts"],
  ["oneof: a message member read twice merges", [...ld(47, [...tag(1, 0), 2]), ...ld(47, [...ld(2, [])])], "core"],
  ["singular message read twice merges", [...ld(17, [...tag(1, 0), 2, ...ld(2, [])]), ...ld(17, [...ld(2, [...tag(1, 0), 4])])], "core"],
  ["singular message, other oneof member between", [...ld(47, [...tag(1, 0), 2]), ...tag(45, 0), 3, ...ld(47, [...tag(1, 0), 5])], "ts"],
  ["maps: last key wins, missing key and value are zeros, unknown fields in entries dropped", [
    ...ld(33, [...tag(1, 0), 1, ...ld(2, utf8("a"))]), ...ld(33, [...ld(2, utf8("b")), ...tag(1, 0), 1]), ...ld(33, []),
    ...ld(33, [...tag(1, 0), 2, ...tag(9, 0), 1, ...tag(1, 0), 3]), ...ld(34, [...tag(1, 0), 1]), ...ld(34, [...ld(2, [7])]),
    ...ld(35, [...ld(1, utf8("k"))]), ...ld(35, [...ld(1, utf8("k2")), ...ld(2, [...tag(1, 0), 4, ...ld(3, [...ld(1, utf8("z"))])])]),
    ...ld(36, [...tag(1, 0), ...varint(2n ** 64n - 1n), ...tag(2, 0), 1]), ...ld(36, [...tag(2, 0), ...varint(u64(-1n))]),
  ], "ts"],
  ["map entry value message read twice merges", [...ld(35, [...ld(1, utf8("k")), ...ld(2, [...tag(1, 0), 1]), ...ld(2, [...tag(1, 0), 2])])], "core"],
  ["map entry with wrong wire type", [...ld(33, [...tag(1, 2), 0])], "error"],
  ["jstype JS_NUMBER: every edge within range", [
    ...tag(37, 0), ...varint(SAFE), ...tag(37, 0), ...varint(u64(-SAFE)), ...tag(38, 0), ...varint(SAFE),
    ...ld(39, [...varint(zigzag(SAFE)), ...varint(zigzag(-SAFE))]), ...tag(39, 0), ...varint(zigzag(-SAFE)),
    ...tag(40, 1), ...fixed64(SAFE), ...tag(41, 1), ...fixed64(-SAFE), ...ld(42, [...fixed64(SAFE), ...fixed64(0n)]),
  ], "ts"],
  ["jstype JS_NUMBER: int64 2^53", [...tag(37, 0), ...varint(SAFE + 1n)], "error"],
  ["jstype JS_NUMBER: int64 -(2^53)", [...tag(37, 0), ...varint(u64(-(SAFE + 1n)))], "error"],
  ["jstype JS_NUMBER: int64 -2^63", [...tag(37, 0), ...varint(u64(-(2n ** 63n)))], "error"],
  ["jstype JS_NUMBER: uint64 2^64 - 1", [...tag(38, 0), ...varint(2n ** 64n - 1n)], "error"],
  ["jstype JS_NUMBER: packed sint64 2^53", [...ld(39, [1, ...varint(zigzag(SAFE + 1n))])], "error"],
  ["jstype JS_NUMBER: unpacked sint64 -(2^53)", [...tag(39, 0), ...varint(zigzag(-(SAFE + 1n)))], "error"],
  ["jstype JS_NUMBER: fixed64 2^53", [...tag(40, 1), ...fixed64(SAFE + 1n)], "error"],
  ["jstype JS_NUMBER: sfixed64 -(2^53)", [...tag(41, 1), ...fixed64(-(SAFE + 1n))], "error"],
  ["jstype JS_NUMBER: packed fixed64 2^63", [...ld(42, [...fixed64(1n), ...fixed64(2n ** 63n)])], "error"],
  ["jstype JS_STRING: beyond 2^53 and negative", [...tag(43, 0), ...varint(u64(-(2n ** 60n) - 3n)), ...ld(44, [...varint(2n ** 64n - 1n), 5, 0])], "ts"],
  ["nested messages and lists of them", [...ld(17, [...ld(2, [...ld(2, [...tag(1, 0), 1])]), ...ld(3, [...ld(1, utf8("n")), ...ld(2, [])])]), ...ld(32, [...ld(2, [])])], "ts"],
];

describe("the TypeScript reader and the core give the same value or error", () => {
  test.each(CASES)("%s", (_name, wire, reader) => {
    const input = new Uint8Array(wire);
    const got = bothPaths(edgeSer, input);
    expect(typeof got === "string").toBe(reader === "error");
    expect(handled(edge, input)).toBe(reader === "ts");
    // Aliasing bytes fields, and a shallow maxDepth with a small maxMessageBytes.
    bothPaths(aliasSer, input);
    bothPaths(shallowSer, input);
  });

  // The generated kind holds jstype = JS_NUMBER fields as bigint over their whole range, so the
  // cases the dynamic kind refuses for range are read there.
  test.each(CASES)("generated kind: %s", (name, wire, reader) => {
    const input = new Uint8Array(wire);
    const got = bothPaths(genSer, input);
    const range = name.startsWith("jstype JS_NUMBER:");
    expect(typeof got === "string").toBe(reader === "error" && !range);
    expect(handled(gen, input)).toBe(reader === "ts" || (range && reader === "error"));
    bothPaths(genAliasSer, input);
    bothPaths(genShallowSer, input);
  });

  test("every prefix of every case (cuts inside each field)", () => {
    for (const [, wire] of CASES) {
      for (let n = 0; n < wire.length; n++) {
        bothPaths(edgeSer, new Uint8Array(wire.slice(0, n)));
        bothPaths(genSer, new Uint8Array(wire.slice(0, n)));
      }
    }
  });

  test("maxDepth counts map entries as a level, at every depth around the limit", () => {
    // Leaf.byName -> entry -> Leaf -> ...: each map step is two levels.
    for (let levels = 1; levels <= 8; levels++) {
      let body: number[] = [...tag(1, 0), 1];
      for (let i = 0; i < levels; i++) body = i % 2 === 0 ? [...ld(2, body)] : [...ld(3, [...ld(1, utf8("k")), ...ld(2, body)])];
      const input = new Uint8Array(ld(17, body));
      for (const maxDepth of [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]) {
        const ser = ProtobufType.newBuilder(edge.descriptor).maxDepth(maxDepth).build().createSerializer();
        bothPaths(ser, input);
        bothPaths(ProtobufType.newGeneratedBuilder(edge.descriptor).maxDepth(maxDepth).build().createSerializer(), input);
      }
    }
  });

  test("maxMessageBytes around the input's size", () => {
    const input = new Uint8Array(CASES[1]![1]);
    for (const max of [input.length - 1, input.length, input.length + 1]) {
      bothPaths(ProtobufType.newBuilder(edge.descriptor).maxMessageBytes(max).build().createSerializer(), input);
      bothPaths(ProtobufType.newGeneratedBuilder(edge.descriptor).maxMessageBytes(max).build().createSerializer(), input);
    }
  });

  test("nesting past the TypeScript reader's recursion bound goes to the core", () => {
    for (const levels of [60, 63, 64, 65, 200]) {
      let body: number[] = [...tag(1, 0), 1];
      for (let i = 0; i < levels; i++) body = [...ld(2, body)];
      const input = new Uint8Array(ld(17, body));
      const ser = ProtobufType.newBuilder(edge.descriptor).maxDepth(1000).build().createSerializer();
      const got = bothPaths(ser, input) as { height: number };
      expect(got.height).toBe(levels + 2);
    }
  });

  test("a Node Buffer and a subarray input give plain Uint8Array bytes, the source copied", () => {
    const wire = [9, 9, ...ld(16, [1, 2, 3, 4, 5]), ...ld(15, utf8("abc")), 9];
    const pool = Buffer.from(wire);
    for (const input of [pool.subarray(2, wire.length - 1), new Uint8Array(wire).subarray(2, wire.length - 1)]) {
      bothPaths(edgeSer, input);
      bothPaths(aliasSer, input);
      const v = edgeSer.fromBinary(input);
      input.fill(0);
      expect(hex(v.get("by") as Uint8Array)).toBe("0102030405");
      expect(hex((v as unknown as { _src: Uint8Array })._src)).toBe(hex(new Uint8Array(wire.slice(2, -1))));
      expect((v.get("by") as Uint8Array).constructor).toBe(Uint8Array);
    }
  });
});

const strings = trickyStrings();

describe("random schemas: both paths agree on valid, scrambled and corrupt inputs", () => {
  test("values, their scrambled encodings and corruptions", () => {
    const schemaAndValue = schemaArb().chain((s) =>
      fc.tuple(fc.constant(s), messageArb(s.root, 2, { maxItems: 3, maxMapEntries: 3, strings }), fc.integer()),
    );
    check("small path vs core", 150, schemaAndValue, ([s, sample, seed]) => {
      const type = ProtobufType.of(s.root);
      const ser = type.createSerializer();
      const gtype = ProtobufType.ofGenerated(s.root);
      const gser = gtype.createSerializer();
      const both = (b: Uint8Array): void => {
        bothPaths(ser, b);
        bothPaths(gser, b);
      };
      const bytes = toBinary(s.root, create(s.root, sample.es as never));
      // Canonical bytes hold no merge and no deep nesting: the TypeScript reader reads them itself.
      expect(handled(type, bytes)).toBe(true);
      expect(handled(gtype, bytes)).toBe(true);
      both(bytes);
      const r = rng(seed);
      const scrambled = scramble(s.root, bytes, r, { splitMessages: true });
      both(scrambled);
      for (let i = 0; i < 6 && scrambled.length > 0; i++) {
        const bad = Uint8Array.from(scrambled);
        const at = Math.floor(r() * bad.length);
        switch (i % 3) {
          case 0:
            bad[at] = Math.floor(r() * 256);
            both(bad);
            break;
          case 1:
            both(bad.subarray(0, at));
            break;
          default:
            both(new Uint8Array([...bad.subarray(0, at), ...[0x80, 0xff, 0x07, 0x0a, 0x12, 0x01].slice(0, 1 + (at % 6)), ...bad.subarray(at)]));
        }
      }
    });
  });
});
