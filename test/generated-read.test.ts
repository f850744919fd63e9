// Reading into generated values (docs/design.md §8.3, §11): the same WASM walk as the dynamic kind, so
// malformed input fails with exactly the dynamic kind's error (code, message, path, offset) on
// every read entry point; other legal encodings (scrambled field order, packing, repeated
// occurrences) decode to what protobuf-es decodes; unknown fields are kept in $unknown and
// relayed byte for byte.
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { CodecError, FrameReader, ProtobufType } from "../src/index.js";
import { messageArb } from "./support/arbitrary-message.js";
import { check } from "./support/property.js";
import { rng, scramble } from "./support/wire-scramble.js";
import { AllTypesSchema } from "./fixtures/generated-es/gen/all_types_pb.js";
import { NodeSchema, OrderLiteSchema, OrderSchema } from "./fixtures/generated-es/gen/es_fixtures_pb.js";

const gen = ProtobufType.newGeneratedBuilder(AllTypesSchema).maxDepth(6).maxMessageBytes(4096).build().createSerializer();
const dyn = ProtobufType.newBuilder(AllTypesSchema).maxDepth(6).maxMessageBytes(4096).build().createSerializer();

function outcome(fn: () => unknown): unknown {
  try {
    fn();
    return "ok";
  } catch (e) {
    if (!(e instanceof CodecError)) throw e;
    return { code: e.code, message: e.message, path: e.path, offset: e.offset };
  }
}

const sample = toBinary(AllTypesSchema, create(AllTypesSchema, { fInt32: 300, fString: "héllo", fMessage: { name: "leaf" }, rSint64: [1n, -2n], mString: { k: "v" }, mvMessage: { m: { name: "x" } } }));
let chain = create(AllTypesSchema);
for (let i = 0; i < 8; i++) chain = create(AllTypesSchema, { recursive: chain });

const MALFORMED: [string, Uint8Array][] = [
  ["truncated varint", new Uint8Array([0x28, 0x80])],
  ["length past the end", new Uint8Array([0x8a, 0x01, 0x05, 0x0a])],
  ["group wire type", new Uint8Array([0x0b])],
  ["field number zero", new Uint8Array([0x00, 0x01])],
  ["wire type mismatch", new Uint8Array([0x2d, 0, 0, 0, 0])],
  ["invalid UTF-8", new Uint8Array([0x4a, 0x01, 0xff])],
  ["varint too long", new Uint8Array([0x28, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01])],
  ["deeper than maxDepth", toBinary(AllTypesSchema, chain)],
  ["over maxMessageBytes", new Uint8Array(5000)],
  ...Array.from({ length: sample.length }, (_, n): [string, Uint8Array] => [`sample cut to ${n} bytes`, sample.subarray(0, n)]),
];

describe("malformed input fails exactly as in the dynamic kind", () => {
  test.each(MALFORMED)("%s", (_name, bytes) => {
    expect(outcome(() => gen.fromBinary(bytes))).toEqual(outcome(() => dyn.fromBinary(bytes)));
    expect(outcome(() => gen.validate(bytes))).toEqual(outcome(() => dyn.validate(bytes)));
    const frame = new Uint8Array([...encodeLength(bytes.length), ...bytes]);
    expect(outcome(() => gen.decode(frame))).toEqual(outcome(() => dyn.decode(frame)));
    expect(outcome(() => gen.decodeAll(frame))).toEqual(outcome(() => dyn.decodeAll(frame)));
    const prefixed = new Uint8Array([...gen.encode(create(AllTypesSchema)), ...frame]);
    expect(outcome(() => gen.decodeAll(prefixed))).toEqual(outcome(() => dyn.decodeAll(prefixed)));
    const r1 = new FrameReader(prefixed);
    const r2 = new FrameReader(prefixed);
    gen.deserialize(r1);
    dyn.deserialize(r2);
    expect(outcome(() => gen.deserialize(r1))).toEqual(outcome(() => dyn.deserialize(r2)));
    expect(r1.position).toBe(r2.position);
  });

  test("random byte strings fail (or pass) as in the dynamic kind", () => {
    check("generated-read-random-bytes", 300, fc.uint8Array({ maxLength: 64 }), (bytes) => {
      expect(outcome(() => gen.fromBinary(bytes))).toEqual(outcome(() => dyn.fromBinary(bytes)));
    });
  });
});

function encodeLength(n: number): number[] {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return out;
}

describe("other legal encodings decode to what protobuf-es decodes", () => {
  test("scrambled field order, packing and split occurrences", () => {
    const any = ProtobufType.ofGenerated(AllTypesSchema).createSerializer();
    let seed = 1;
    check("generated-read-scrambled", 80, messageArb(AllTypesSchema, 2), (s) => {
      const bytes = scramble(AllTypesSchema, toBinary(AllTypesSchema, create(AllTypesSchema, s.es as never)), rng(seed++));
      expect(any.fromBinary(bytes)).toEqual(fromBinary(AllTypesSchema, bytes));
    });
  });
});

describe("unknown fields: kept in $unknown, relayed byte for byte", () => {
  const order = ProtobufType.ofGenerated(OrderSchema).createSerializer();
  const lite = ProtobufType.ofGenerated(OrderLiteSchema).createSerializer();
  const full = create(OrderSchema, { id: 3n, items: [{ sku: "a", qty: 1 }], note: "keep me", payment: { case: "card", value: "c" } });
  const bytes = toBinary(OrderSchema, full);

  test("a reader without field 6 keeps it as protobuf-es does, and writes it back", () => {
    const v = lite.fromBinary(bytes);
    expect(v).toEqual(fromBinary(OrderLiteSchema, bytes));
    expect(v.$unknown).toEqual([{ no: 6, wireType: 2, data: new Uint8Array([7, ...new TextEncoder().encode("keep me")]) }]);
    const relayed = lite.toBinary(v);
    expect(order.fromBinary(relayed)).toEqual(fromBinary(OrderSchema, bytes));
    expect(fromBinary(OrderSchema, relayed).note).toBe("keep me");
  });

  test("unknown fields of nested messages and of every wire type survive a relay", () => {
    const tail = [0x48, 0x96, 0x01, 0x55, 1, 2, 3, 4, 0x59, 1, 2, 3, 4, 5, 6, 7, 8];
    const item = [0x0a, 0x01, 0x61, ...tail];
    const input = new Uint8Array([0x12, item.length, ...item, ...tail]);
    const v = lite.fromBinary(input);
    expect(v).toEqual(fromBinary(OrderLiteSchema, input));
    expect(lite.toBinary(v)).toEqual(input);
    expect(toBinary(OrderLiteSchema, v)).toEqual(input);
    expect(lite.decodeAll(lite.encodeAll([v, v]))).toEqual([v, v]);
  });

  test("a value protobuf-es decoded relays through protokeel, and the reverse", () => {
    const es = fromBinary(OrderLiteSchema, bytes);
    expect(lite.toBinary(es)).toEqual(toBinary(OrderLiteSchema, es));
    expect(toBinary(OrderLiteSchema, lite.fromBinary(bytes))).toEqual(toBinary(OrderLiteSchema, es));
  });

  test("a depth-limited reader reads within its limit", () => {
    const node = ProtobufType.newGeneratedBuilder(NodeSchema).maxDepth(2).build().createSerializer();
    const ok = toBinary(NodeSchema, create(NodeSchema, { next: { value: 4 } }));
    expect(node.fromBinary(ok)).toEqual(fromBinary(NodeSchema, ok));
  });
});

// Zero values of lists, map records and oneofs are made per message (src/codec/generated-reader.ts,
// fill and build): no two decoded messages may share one, on either read path.
describe("every decoded message owns its lists, map records and oneof objects", () => {
  const small = toBinary(AllTypesSchema, create(AllTypesSchema, { fInt32: 1 }));
  const large = toBinary(AllTypesSchema, create(AllTypesSchema, { fString: "x".repeat(400), recursive: {} }));
  test.each([
    ["small input (TypeScript reader)", small],
    ["large input (core)", large],
    ["empty input", new Uint8Array(0)],
  ])("%s", (_name, bytes) => {
    const a = gen.fromBinary(bytes);
    const b = gen.fromBinary(bytes);
    expect(a).not.toBe(b);
    a.rInt32.push(7);
    a.mString.k = "v";
    a.choice.case = "cString";
    (a.choice as { value?: unknown }).value = "s";
    a.otherChoice = { case: "ocBool", value: true };
    if (a.recursive !== undefined) a.recursive.rSint64.push(1n);
    expect(b).toEqual(fromBinary(AllTypesSchema, bytes));
    expect(gen.fromBinary(bytes)).toEqual(fromBinary(AllTypesSchema, bytes));
    expect(create(AllTypesSchema)).toEqual(create(AllTypesSchema, {}));
  });
});
