// A decoded value keeps its source bytes, and a write may copy them (the relay). Those bytes can
// nest deeper than the value's fields: a later occurrence of a oneof member or of a map key
// replaces a deeper one on the wire, and the reader keeps only the last. The writer checked such
// a value by its fields and then copied its bytes (a oneof member 6 levels deep replaced by a
// string, written under maxDepth 4, was refused with DEPTH_LIMIT_EXCEEDED by the same serializer
// reading it back), and a write by fields recorded the fields' height, after which relays, the
// trusted recursion and acceptBuilt copied the bytes on that height. The height a value with
// source bytes is trusted at is the bytes' own (src/codec/writer.ts, sourceHeight and close);
// where they do not fit, the value is written by its fields.
import { describe, expect, test } from "vitest";
import { CodecError, DynamicMessage, ProtobufType, type ProtobufSerializer } from "../src/index.js";
import { messageFromDir } from "./support/buf.js";
import { thrown } from "./support/thrown.js";

const LINK = messageFromDir("fixtures/writer-levels", "levels.Link");
type Init = Record<string, unknown>;
const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");
const wide = ProtobufType.newBuilder(LINK).maxDepth(100).build().createSerializer();
const serializer = (maxDepth: number, deterministic = false) => ProtobufType.newBuilder(LINK).maxDepth(maxDepth).deterministic(deterministic).build().createSerializer();
const enc = (init: Init): Uint8Array => wide.toBinary(DynamicMessage.create(LINK, init));
const cat = (...parts: Uint8Array[]): Uint8Array => new Uint8Array(parts.flatMap((p) => [...p]));
const chain = (n: number): Init => {
  let v: Init = { id: n };
  for (let i = n - 1; i >= 1; i--) v = { id: i, next: v };
  return v;
};

/** Bytes whose last occurrences make a value 1 or 2 levels high while the bytes nest 7 or 8 deep. */
const inputs: [string, Uint8Array][] = [
  ["a oneof member 6 deep, then the other member", cat(enc({ member: chain(6) }), enc({ info: { a: "x" } }))],
  ["a oneof member 6 deep, then the other, then the first 1 deep", cat(enc({ member: chain(6) }), enc({ info: { a: "x" } }), enc({ member: { id: 9 } }))],
  ["a map entry 6 deep, then the same key 1 deep", cat(enc({ map: { k: chain(6) } }), enc({ map: { k: { id: 1 } } }))],
  ["a long one (read lazily): a oneof member 6 deep, then a string", cat(enc({ member: chain(6) }), enc({ info: { a: "x" }, label: "y".repeat(5000) }))],
];

/** The ways such a value comes to be: read by a serializer, or a pool's body (read on first access, no height known). */
const origins: [string, (bytes: Uint8Array) => DynamicMessage][] = [
  ["fromBinary", (bytes) => wide.fromBinary(bytes)],
  ["decodeAll", (bytes) => wide.decodeAll(wide.encodeAll([wide.fromBinary(bytes)]))[0]!],
  ["a pool body", (bytes) => (wide as unknown as { _lazyBodies(s: Uint8Array, b: number[]): DynamicMessage[] })._lazyBodies(bytes.slice(), [0, bytes.length])[0]!],
];

/** What happens to the value before the write under test, and what that write writes. */
const scenarios: [string, number, (v: DynamicMessage) => DynamicMessage][] = [
  ["its first write", 4, (v) => v],
  ["after a deterministic write", 4, (v) => (serializer(4, true).toBinary(v), v)],
  ["after a write as a list element", 4, (v) => (serializer(4).toBinary(DynamicMessage.create(LINK, { list: [v] })), v)],
  ["as a child of a created value, after a deterministic write", 5, (v) => (serializer(4, true).toBinary(v), DynamicMessage.create(LINK, { next: v }))],
  [
    "in a parent written once (frames: a child with unknown fields), inside another",
    6,
    (v) => {
      const parent = DynamicMessage.create(LINK, { next: v, list: [DynamicMessage.newBuilder(LINK).setUnknownFields(new Map([[99, [new Uint8Array([0x98, 0x06, 0x01])]]])).build()] });
      serializer(5).toBinary(parent);
      return DynamicMessage.create(LINK, { next: parent });
    },
  ],
];

const cases = inputs.flatMap(([what, bytes]) => origins.flatMap(([origin, read]) => scenarios.map(([how, maxDepth, prepare]) => [what, origin, how, maxDepth, bytes, read, prepare] as const)));

describe("a decoded value whose source bytes nest deeper than its fields", () => {
  test.each(cases)("%s, from %s, %s: written within maxDepth %i, read back by the same serializer", (_, _origin, _how, maxDepth, bytes, read, prepare) => {
    const value = prepare(read(bytes));
    for (const ser of [serializer(maxDepth), serializer(maxDepth, true)] as ProtobufSerializer[]) {
      for (let i = 0; i < 2; i++) {
        const out = ser.toBinary(value);
        expect(ser.fromBinary(out).equals(value)).toBe(true);
        expect(hex(ser.encode(value))).toBe(hex(ser.encode(ser.fromBinary(out))));
      }
    }
  });

  test.each(inputs)("%s: a serializer its bytes fit still relays them as read", (_, bytes) => {
    for (const [, read] of origins) {
      const value = read(bytes);
      // Its first write is checked, its second trusted: both copy the bytes read.
      expect(hex(serializer(8).toBinary(value))).toBe(hex(bytes));
      expect(hex(serializer(8).toBinary(value))).toBe(hex(bytes));
      expect(hex(serializer(9).toBinary(DynamicMessage.create(LINK, { next: value })))).toBe(hex(cat(new Uint8Array([0x1a]), varint(bytes.length), bytes)));
    }
  });

  test.each(origins)("from %s: fields deeper than maxDepth are refused as before", (_, read) => {
    const value = read(cat(enc({ member: chain(6) }), enc({ member: chain(3) })));
    const e = thrown<CodecError>(() => serializer(3).toBinary(value));
    expect(e).toBeInstanceOf(CodecError);
    expect([e.code, e.message]).toEqual([
      "DEPTH_LIMIT_EXCEEDED",
      "cannot write levels.Link: nesting depth 4 at levels.Link.member(6).next(3).next(3) exceeds maxDepth 3 (a map entry counts as a level); raise maxDepth or flatten the value",
    ]);
  });
});

function varint(n: number): Uint8Array {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return new Uint8Array(out);
}
