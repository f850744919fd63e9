// The generated kind's tape reader sets a message's fields as they are read (src/codec/generated-
// reader.ts): create's properties in order, fields with explicit presence (messages, proto3
// optional) after them in wire order, and a later occurrence of a singular message read into the
// earlier one. Types where that bookkeeping has its edge cases: messages with no property but
// fields with explicit presence (nothing to count them by), oneof-only messages, and presence
// fields read before and after create's properties. Each input is the concatenation of several
// encodings, which protobuf defines as their merge; the value must be protobuf-es' own reading of
// it, with its key order.
import { create, createFileRegistry, fromBinary, toBinary, type DescMessage } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { afterAll, describe, expect, test } from "vitest";
import { ProtobufType } from "../src/index.js";
import { setSmallDecodeThreshold } from "../src/codec/reader.js";
import { compileProtoText } from "./support/buf.js";
import { keyOrder } from "./support/key-order.js";

const PROTO = `syntax = "proto3";
package p;
import "google/protobuf/wrappers.proto";
message L { int32 a = 1; int32 b = 2; repeated int32 r = 3; }
// No property at all: every field has explicit presence.
message OnlyMessages { L first = 1; L second = 2; }
message OnlyOptional { optional int32 x = 1; L l = 2; optional string s = 3; }
message OnlyOneof { oneof o { L l = 1; int32 i = 2; string s = 3; } }
message Mixed { L l = 1; int32 n = 2; optional string s = 3; repeated L list = 4; int32 last = 5; }
message Root { OnlyMessages m = 1; OnlyOptional o = 2; OnlyOneof one = 3; Mixed mixed = 4; Root self = 5; Many many = 6; }
// Many fields with explicit presence, read out of declaration order, read again and merged.
message Many {
  optional int32 a = 1; optional int32 b = 2; L c = 3; optional string d = 4; L e = 5;
  optional int32 f = 6; google.protobuf.Int32Value w = 7; repeated int32 r = 8; int32 z = 9;
}
`;
const reg = createFileRegistry(fromBinary(FileDescriptorSetSchema, compileProtoText({ "p.proto": PROTO })));
const Root = reg.getMessage("p.Root")!;

/** The bytes of each init object, concatenated (protobuf's merge of the messages). */
function merged(desc: DescMessage, ...inits: object[]): Uint8Array {
  const parts = inits.map((i) => toBinary(desc, create(desc, i as never)));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => (out.set(p, at), at + p.length), 0);
  return out;
}

const ROWS: [string, Uint8Array][] = [
  ["a message with no property, its message field twice", merged(Root, { m: { first: { a: 1 } } }, { m: { first: { b: 2 } } })],
  ["a message with no property, two fields then the first again", merged(Root, { m: { first: { a: 1, r: [1] } } }, { m: { second: { a: 5 } } }, { m: { first: { b: 2, r: [2] } } })],
  ["optional fields only: each set in a different occurrence, the message merged", merged(Root, { o: { l: { a: 1 } } }, { o: { x: 0 } }, { o: { s: "s", l: { b: 3 } } }, { o: { x: 4 } })],
  ["a oneof-only message: its message member merged, switched, and merged again", merged(Root, { one: { o: { case: "l", value: { a: 1 } } } }, { one: { o: { case: "l", value: { b: 2 } } } }, { one: { o: { case: "i", value: 7 } } }, { one: { o: { case: "l", value: { r: [9] } } } })],
  ["presence fields before, between and after create's properties", merged(Root, { mixed: { l: { a: 1 } } }, { mixed: { n: 2, last: 3 } }, { mixed: { s: "x", list: [{ a: 4 }] } }, { mixed: { l: { b: 5 }, list: [{ b: 6 }] } })],
  ["all of it one level down, through a recursive field", merged(Root, { self: { m: { first: { a: 1 } }, one: { o: { case: "l", value: { a: 1 } } } } }, { self: { m: { first: { b: 2 } }, one: { o: { case: "l", value: { b: 2 } } }, mixed: { s: "y" } } })],
];

const Many = reg.getMessage("p.Many")!;
// Each a Many message whose fields come in the order of the parts (one occurrence, not a merge of
// several: a top-level message's fields are one message whatever their order).
const MANY_ROWS: [string, Uint8Array][] = [
  ["five presence fields in reverse order", merged(Many, { f: 1 }, { e: { a: 1 } }, { d: "x" }, { c: { a: 2 } }, { b: 3 }, { a: 4 })],
  ["presence fields, then create's properties after them", merged(Many, { e: { a: 1 } }, { c: { b: 2 } }, { r: [1, 2] }, { z: 5 })],
  ["a message read again (merged) and a scalar read again", merged(Many, { c: { a: 1, r: [1] } }, { r: [3] }, { a: 7 }, { c: { b: 2, r: [2] } }, { a: 8 }, { z: 1 })],
  ["a wrapper read again between other presence fields", merged(Many, { w: 5 }, { f: 2 }, { w: 6 }, { e: { a: 1 } }, { d: "y" }, { b: 1 }, { w: 7 }, { c: { a: 3 } }, { e: { b: 4 } })],
  ["a message merged after other presence fields", merged(Many, { c: { a: 1 } }, { f: 1 }, { e: {} }, { d: "" }, { b: 0 }, { c: { b: 2 } }, { a: 0 }, { r: [9] })],
];

const initial = setSmallDecodeThreshold(setSmallDecodeThreshold(0));
afterAll(() => void setSmallDecodeThreshold(initial));

describe.each([
  ["the core's tape", 0],
  ["the small reader", 1 << 20],
])("through %s", (path, threshold) => {
  const ser = ProtobufType.ofGenerated(Root).createSerializer();
  test.each(ROWS)("%s", (_name, bytes) => {
    setSmallDecodeThreshold(threshold);
    const theirs = fromBinary(Root, bytes);
    const ours = ser.fromBinary(bytes);
    expect(ours).toStrictEqual(theirs);
    // The small reader adds presence fields in declaration order (generated-build.test.ts).
    if (path === "the core's tape") expect(keyOrder(ours)).toEqual(keyOrder(theirs));
    expect(ser.toBinary(ours)).toEqual(toBinary(Root, theirs));
  });

  const many = ProtobufType.ofGenerated(Many).createSerializer();
  test.each(MANY_ROWS)("%s", (_name, bytes) => {
    setSmallDecodeThreshold(threshold);
    for (const [desc, reader, input] of [
      [Many, many, bytes],
      // The same fields one level down, and again merged into by a second occurrence.
      [Root, ser, merged(Root, { many: { z: 1 } }, {})],
    ] as const) {
      const inner = desc === Root ? concat(input, field(6, bytes), field(6, bytes)) : input;
      const theirs = fromBinary(desc, inner);
      const ours = reader.fromBinary(inner);
      expect(ours).toStrictEqual(theirs);
      if (path === "the core's tape") expect(keyOrder(ours)).toEqual(keyOrder(theirs));
      expect(reader.toBinary(ours)).toEqual(toBinary(desc, theirs));
    }
  });
});

/** Field `no` holding `body` as length-delimited bytes (its length under 128). */
function field(no: number, body: Uint8Array): Uint8Array {
  if (body.length > 127) throw new Error("a longer body needs a longer length");
  return concat(Uint8Array.of((no << 3) | 2, body.length), body);
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => (out.set(p, at), at + p.length), 0);
  return out;
}
