// The generated kind against @bufbuild/protobuf itself (issue 14): bytes that protobuf-es writes
// decode in a generated serializer to exactly what protobuf-es' fromBinary gives (same object
// shape: $typeName, local names, oneof ADTs, maps as objects, unboxed wrappers, Struct as JSON),
// and what the generated serializer writes protobuf-es reads back to the same value — bare,
// framed, in batches, through FrameWriter/FrameReader, eager and with aliasing.
import { create, fromBinary, toBinary, type MessageShape } from "@bufbuild/protobuf";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { FrameReader, FrameWriter, ProtobufType } from "../src/index.js";
import { messageArb } from "./support/arbitrary-message.js";
import { check } from "./support/property.js";
import { AllTypesSchema, Color, JsNumberSchema } from "./fixtures/generated-es/gen/all_types_pb.js";
import { OrderSchema } from "./fixtures/generated-es/gen/es_fixtures_pb.js";

type AllTypes = MessageShape<typeof AllTypesSchema>;

const ser = ProtobufType.ofGenerated(AllTypesSchema).createSerializer();
const det = ProtobufType.newGeneratedBuilder(AllTypesSchema).deterministic(true).build().createSerializer();
const aliasing = ProtobufType.newGeneratedBuilder(AllTypesSchema).aliasThreshold(1).build().createSerializer();

/** Hand-picked values: one per shape protobuf-es represents specially. */
const CASES: [string, AllTypes][] = [
  ["empty", create(AllTypesSchema)],
  ["implicit scalars", create(AllTypesSchema, { fDouble: 1.5, fFloat: -2.5, fInt64: -3n, fUint64: 2n ** 64n - 1n, fInt32: -1, fBool: true, fString: "héllo 😀", fBytes: new Uint8Array([0, 1, 255]), fEnum: Color.NEGATIVE })],
  ["explicit zeros", create(AllTypesSchema, { oInt32: 0, oString: "", oBool: false, oBytes: new Uint8Array(0), oEnum: Color.UNSPECIFIED, oInt64: 0n })],
  ["messages", create(AllTypesSchema, { fMessage: { name: "leaf", value: 3 }, oMessage: {}, rMessage: [{ name: "a" }, {}] })],
  ["packed and unpacked", create(AllTypesSchema, { rInt32: [1, -1, 2 ** 31 - 1], rDouble: [0, -0, Infinity], rSint64: [-(2n ** 63n)], uInt32: [5, 6], uBool: [true, false], rString: ["a", ""], rBytes: [new Uint8Array([1])] })],
  ["maps of every key", create(AllTypesSchema, { mInt32: { "-1": "a", "7": "b" }, mInt64: { "-5": "c" }, mUint64: { "18446744073709551615": "d" }, mBool: { true: "t", false: "f" }, mString: { "": "e" }, mvMessage: { k: { name: "n" }, z: {} }, mvEnum: { e: Color.RED }, mvBytes: { b: new Uint8Array([9]) } })],
  ["oneofs", create(AllTypesSchema, { choice: { case: "cMessage", value: { name: "x" } }, otherChoice: { case: "ocDouble", value: 0 } })],
  ["oneof scalar member", create(AllTypesSchema, { choice: { case: "cInt64", value: 9n } })],
  ["jstype JS_STRING", create(AllTypesSchema, { jsStringInt64: "-9223372036854775808", jsStringUint64s: ["0", "18446744073709551615"] })],
  ["unboxed wrappers", create(AllTypesSchema, { wktInt32: 0, wktInt64: -1n, wktString: "s", wktBytes: new Uint8Array([1, 2]), wktBool: false, wktDouble: 1.25 })],
  ["Struct, Value, ListValue", create(AllTypesSchema, { wktStruct: { a: 1, b: [true, "x", null, { c: {} }] }, wktValue: { kind: { case: "stringValue", value: "v" } }, wktListValue: { values: [{ kind: { case: "boolValue", value: true } }] } })],
  ["timestamp, duration, any, empty, field mask", create(AllTypesSchema, { wktTimestamp: { seconds: 5n, nanos: 6 }, wktDuration: { seconds: -1n }, wktEmpty: {}, wktFieldMask: { paths: ["a.b"] }, wktAny: { typeUrl: "type.googleapis.com/alltypes.Leaf", value: new Uint8Array([10, 1, 120]) } })],
  ["recursion", create(AllTypesSchema, { recursive: { fInt32: 1, recursive: { fString: "deep" } }, children: [{ nested: { a: 1, inner: { a: 2 }, outer: { fBool: true } } }] })],
  ["largest field number", create(AllTypesSchema, { fMaxNumber: "max" })],
];

describe("hand-picked values, one per representation", () => {
  test.each(CASES)("%s: decode equals fromBinary, encode reads back, deterministic bytes equal protobuf-es'", (_name, value) => {
    const bytes = toBinary(AllTypesSchema, value);
    const expected = fromBinary(AllTypesSchema, bytes);
    expect(ser.fromBinary(bytes)).toEqual(expected);
    expect(aliasing.fromBinary(bytes)).toEqual(expected);
    expect(fromBinary(AllTypesSchema, ser.toBinary(value))).toEqual(expected);
    // all_types.proto declares fields in number order, so canonical output is protobuf-es' own
    // (maps of one entry per key type aside, which the cases keep in key order).
    if (_name !== "maps of every key") expect(det.toBinary(value)).toEqual(bytes);
    expect(ser.decode(ser.encode(value))).toEqual(expected);
  });

  test("a JS_NUMBER 64-bit field decodes to a bigint, as protobuf-es (which ignores JS_NUMBER) gives it", () => {
    const js = ProtobufType.ofGenerated(JsNumberSchema).createSerializer();
    const value = create(JsNumberSchema, { n: 2n ** 53n - 1n, ns: [-5n, 7n] });
    const bytes = toBinary(JsNumberSchema, value);
    expect(js.fromBinary(bytes)).toEqual(fromBinary(JsNumberSchema, bytes));
    expect(js.toBinary(value)).toEqual(bytes);
  });

  test("a repeated occurrence of a singular message merges, as in protobuf-es", () => {
    const a = toBinary(AllTypesSchema, create(AllTypesSchema, { fMessage: { name: "a" }, recursive: { fInt32: 1 }, wktInt32: 5 }));
    const b = toBinary(AllTypesSchema, create(AllTypesSchema, { fMessage: { value: 2 }, recursive: { fString: "s" }, wktStruct: { k: 1 } }));
    const c = toBinary(AllTypesSchema, create(AllTypesSchema, { wktStruct: { j: 2 } }));
    const bytes = new Uint8Array([...a, ...b, ...c]);
    expect(ser.fromBinary(bytes)).toEqual(fromBinary(AllTypesSchema, bytes));
  });
});

describe("random values of every field shape (fast-check)", () => {
  test("decode equals @bufbuild/protobuf's fromBinary; protokeel's bytes read back in it", () => {
    check("generated-differential", 150, messageArb(AllTypesSchema, 2, { maxMapEntries: 1 }), (sample) => {
      const value = create(AllTypesSchema, sample.es as never);
      const bytes = toBinary(AllTypesSchema, value);
      const expected = fromBinary(AllTypesSchema, bytes);
      expect(ser.fromBinary(bytes)).toEqual(expected);
      expect(det.toBinary(value)).toEqual(bytes);
      expect(fromBinary(AllTypesSchema, ser.toBinary(value))).toEqual(expected);
    });
  });

  test("batches: encodeAll/decodeAll and FrameWriter/FrameReader agree with protobuf-es per frame", () => {
    check("generated-differential-frames", 30, fc.array(messageArb(AllTypesSchema, 1, { maxMapEntries: 1 }), { maxLength: 5 }), (samples) => {
      const values = samples.map((s) => create(AllTypesSchema, s.es as never));
      const expected = values.map((v) => fromBinary(AllTypesSchema, toBinary(AllTypesSchema, v)));
      expect(ser.decodeAll(ser.encodeAll(values))).toEqual(expected);
      const w = new FrameWriter();
      for (const v of values) ser.serialize(v, w);
      const r = new FrameReader(w.view().slice());
      const out = [];
      while (r.hasMore()) out.push(ser.deserialize(r));
      expect(out).toEqual(expected);
    });
  });
});

describe("the generated serializer's other members", () => {
  const order = ProtobufType.ofGenerated(OrderSchema).createSerializer();
  test("createInstance is create(schema); copy is a deep copy; values are mutable", () => {
    expect(order.createInstance()).toEqual(create(OrderSchema));
    const v = create(OrderSchema, { id: 1n, items: [{ sku: "a" }] });
    const c = order.copy(v);
    expect(c).toEqual(v);
    expect(c.items[0]).not.toBe(v.items[0]);
    expect(order.isImmutableType()).toBe(false);
  });
  test("validate and validateAll check without building values", () => {
    const bytes = order.toBinary(create(OrderSchema, { id: 2n }));
    expect(() => order.validate(bytes)).not.toThrow();
    expect(() => order.validateAll(order.encodeAll([create(OrderSchema), create(OrderSchema, { id: 3n })]))).not.toThrow();
  });
  test("duplicate and equals", () => {
    const d = order.duplicate();
    expect(d).not.toBe(order);
    expect(d.equals(order)).toBe(true);
    expect(ProtobufType.of(OrderSchema).createSerializer().equals(order)).toBe(false);
    expect(String(order)).toBe("ProtobufGeneratedSerializer(esfix.Order)");
  });
});
