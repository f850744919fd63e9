// A bytes value is a genuine Uint8Array (isBytes) whose `length` may still run application code: a
// subclass's getter or an own property. The writers size a field by a value's length and copy its
// bytes; an array that claimed more than it held made the output carry bytes of an earlier write
// (a reused scratch or FrameWriter buffer), one that claimed less cut its field short. Every value
// is now written as the bytes it holds: what @bufbuild/protobuf writes for a plain copy.
import { create, createFileRegistry, fromBinary, toBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { describe, expect, test } from "vitest";
import { DynamicMessage, FrameWriter, ProtobufType } from "../src/index.js";
import { compileProtoText } from "./support/buf.js";

const PROTO = `syntax = "proto3";
package lie;
import "google/protobuf/wrappers.proto";
message M {
  bytes data = 1;
  repeated bytes list = 2;
  map<string, bytes> byKey = 3;
  google.protobuf.BytesValue wrapped = 4;
  oneof o { bytes member = 5; }
}
`;
const reg = createFileRegistry(fromBinary(FileDescriptorSetSchema, compileProtoText({ "lie.proto": PROTO })));
const M = reg.getMessage("lie.M")!;

class ClaimsMore extends Uint8Array {
  override get length(): number {
    return 200;
  }
}
class ClaimsLess extends Uint8Array {
  override get length(): number {
    return 1;
  }
}
function ownLength(n: number, claimed: number): Uint8Array {
  const a = new Uint8Array(n).fill(0x42);
  Object.defineProperty(a, "length", { get: () => claimed });
  return a;
}

/** The bytes an array holds, read without its own `length`. */
const held = (v: Uint8Array) => new Uint8Array(Uint8Array.prototype.slice.call(v));

const VALUES: [string, () => Uint8Array][] = [
  ["a subclass claiming 200 of 3 bytes", () => new ClaimsMore([0x41, 0x41, 0x41])],
  ["a subclass claiming 1 of 50 bytes", () => new ClaimsLess(new Uint8Array(50).fill(0x43))],
  ["an own length getter claiming 300 of 40 bytes", () => ownLength(40, 300)],
  ["an own length getter claiming 0 of 5 bytes", () => ownLength(5, 0)],
];

const SHAPES: [string, (v: Uint8Array) => Record<string, unknown>, (v: Uint8Array) => Record<string, unknown>][] = [
  ["a singular field", (v) => ({ data: v }), (v) => ({ data: v })],
  ["list elements", (v) => ({ list: [v, v] }), (v) => ({ list: [v, v] })],
  ["a map value", (v) => ({ byKey: { k: v } }), (v) => ({ byKey: { k: v } })],
  ["a wrapper", (v) => ({ wrapped: { value: v } }), (v) => ({ wrapped: v })],
  ["a oneof member", (v) => ({ member: v }), (v) => ({ o: { case: "member", value: v } })],
];

const secret = new TextEncoder().encode("SECRET-".repeat(40));

describe.each(VALUES)("%s", (_name, make) => {
  test.each(SHAPES)("in %s is written as the bytes it holds, by every write of both kinds", (_shape, dynamicInit, esInit) => {
    const expected = toBinary(M, create(M, esInit(held(make())) as never));
    const dynamic = ProtobufType.of(M).createSerializer();
    const generated = ProtobufType.ofGenerated(M).createSerializer();
    const writes: [string, () => Uint8Array][] = [
      ["init object", () => dynamic.toBinary(dynamicInit(make()))],
      ["DynamicMessage", () => dynamic.toBinary(DynamicMessage.create(M, dynamicInit(make())))],
      ["generated", () => generated.toBinary(create(M, esInit(make()) as never))],
    ];
    for (const [what, write] of writes) {
      // An earlier write leaves other bytes in the buffers a later one reuses.
      dynamic.encodeAll(Array.from({ length: 20 }, () => ({ data: secret })));
      generated.encodeAll(Array.from({ length: 20 }, () => create(M, { data: secret })));
      expect(write(), what).toEqual(expected);
    }
    // Framed, into a FrameWriter that held other bytes.
    for (const [what, ser, value] of [
      ["init object", dynamic, dynamicInit(make())],
      ["generated", generated, create(M, esInit(make()) as never)],
    ] as const) {
      const fw = new FrameWriter();
      (ser as typeof dynamic).serialize((ser === dynamic ? { data: secret } : create(M, { data: secret })) as never, fw);
      fw.reset();
      (ser as typeof dynamic).serialize(value as never, fw);
      const out = fw.toUint8Array();
      expect(out.subarray(out.length - expected.length), what).toEqual(expected);
    }
  });
});

test("unknown fields given as arrays whose length lies are written as the bytes they hold", () => {
  const payload = new ClaimsMore([0x08, 0x01]);
  const expected = Uint8Array.of(0x98, 0x06, 0x01);
  const withUnknown = DynamicMessage.newBuilder(M)
    .setUnknownFields([[99, [new ClaimsMore([0x98, 0x06, 0x01])]]])
    .build();
  expect(ProtobufType.of(M).createSerializer().toBinary(withUnknown)).toEqual(expected);
  const generated = ProtobufType.ofGenerated(M).createSerializer();
  const value = create(M, {});
  (value as { $unknown?: unknown }).$unknown = [{ no: 99, wireType: 0, data: new ClaimsMore([0x01]) }];
  expect(generated.toBinary(value)).toEqual(expected);
  expect(payload.length).toBe(200);
});
