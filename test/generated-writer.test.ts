// The generated kind's direct writer (src/codec/generated-writer.ts): its bytes are
// @bufbuild/protobuf's toBinary bytes (random schemas, every length around the varint thresholds
// of nested lengths, and -0), deterministic bytes are the dynamic kind's,
// depth is counted as the dynamic kind counts it, and a refused value — whatever the fault and
// wherever in a batch — throws the conversion path's error and leaves no byte and no state behind.
import { create, toBinary } from "@bufbuild/protobuf";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { CodecError, FrameWriter, ProtobufType } from "../src/index.js";
import { messageArb } from "./support/arbitrary-message.js";
import { schemaArb } from "./support/arbitrary-schema.js";
import { check, trickyStrings } from "./support/property.js";
import { AllTypesSchema } from "./fixtures/generated-es/gen/all_types_pb.js";
import { InvoiceSchema, ItemSchema, NodeSchema, OrderSchema } from "./fixtures/generated-es/gen/es_fixtures_pb.js";
import { thrown } from "./support/thrown.js";

const all = ProtobufType.ofGenerated(AllTypesSchema).createSerializer();
const order = ProtobufType.ofGenerated(OrderSchema).createSerializer();

/** A frame: the varint length, then the bytes. */
function framed(b: Uint8Array): Uint8Array {
  const out: number[] = [];
  let n = b.length;
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return new Uint8Array([...out, ...b]);
}

/** Byte equality without an element-by-element diff (outputs here reach 2 MiB). */
function same(a: Uint8Array, b: Uint8Array): void {
  expect(a.length).toBe(b.length);
  expect(Buffer.compare(a, b)).toBe(0);
}

describe("bytes equal @bufbuild/protobuf's toBinary", () => {
  test("random schemas: bare, framed, batched; deterministic equals the dynamic kind's deterministic bytes", () => {
    const strings = trickyStrings();
    const arb = schemaArb({}).chain((s) => fc.tuple(fc.constant(s), fc.array(messageArb(s.root, 2, { maxItems: 3, maxMapEntries: 3, strings }), { minLength: 1, maxLength: 3 })));
    check("generated writer random schemas", 60, arb, ([s, samples]) => {
      const ser = ProtobufType.ofGenerated(s.root).createSerializer();
      const det = ProtobufType.newGeneratedBuilder(s.root).deterministic(true).build().createSerializer();
      const dynDet = ProtobufType.newBuilder(s.root).deterministic(true).build().createSerializer();
      const values = samples.map((x) => create(s.root, x.es as never));
      const bytes = values.map((v) => toBinary(s.root, v));
      for (let i = 0; i < values.length; i++) {
        expect(ser.toBinary(values[i]!)).toEqual(bytes[i]);
        expect(ser.encode(values[i]!)).toEqual(framed(bytes[i]!));
        expect(det.toBinary(values[i]!)).toEqual(dynDet.toBinary(dynDet.fromBinary(bytes[i]!)));
      }
      expect(ser.encodeAll(values)).toEqual(new Uint8Array(bytes.flatMap((b) => [...framed(b)])));
    });
  });

  // Nested bodies of every size around 128 and 16,384 bytes (a length then needs a second or a
  // third byte), three levels deep, in singular fields, lists and map values, bare and framed.
  const LENGTHS = [0, 1, 100, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127, 128, 129, 130, 131, 200, 16_360, 16_370, 16_375, 16_376, 16_377, 16_378, 16_379, 16_380, 16_381, 16_382, 16_383, 16_384, 16_385, 16_400];
  test.each(LENGTHS)("nested lengths: payload of %i bytes", (n) => {
    const s = "x".repeat(n);
    const value = create(AllTypesSchema, {
      fString: s,
      recursive: { fString: s, recursive: { fString: s, rMessage: [{ name: s }, { name: "" }] }, mvMessage: { a: { name: s }, b: {} } },
      rMessage: [{ name: s }],
      children: [{ recursive: { fBytes: new Uint8Array(n) } }],
    });
    const bytes = toBinary(AllTypesSchema, value);
    same(all.toBinary(value), bytes);
    same(all.encode(value), framed(bytes));
    same(all.encodeAll([value, value]), new Uint8Array([...framed(bytes), ...framed(bytes)]));
  });

  test("a 2 MiB body (a four-byte length) inside three levels", () => {
    const value = create(AllTypesSchema, { recursive: { recursive: { fBytes: new Uint8Array(2 ** 21).fill(7) } } });
    same(all.toBinary(value), toBinary(AllTypesSchema, value));
  });

  test("integer -0 is zero and a float -0 is not, as protobuf-es writes them", () => {
    const value = create(AllTypesSchema, { fInt32: -0, fInt64: 0n, fDouble: -0, fFloat: -0 });
    expect(all.toBinary(value)).toEqual(toBinary(AllTypesSchema, value));
  });

});

describe("depth, counted as the dynamic kind counts it (a map entry is a level)", () => {
  function chain(n: number) {
    let v = create(NodeSchema, { value: n });
    for (let i = n - 1; i >= 1; i--) v = create(NodeSchema, { value: i, next: v });
    return v;
  }
  test.each([1, 2, 50, 1000])("a chain of exactly maxDepth = %i messages is written; one more is refused", (d) => {
    const ser = ProtobufType.newGeneratedBuilder(NodeSchema).maxDepth(d).build().createSerializer();
    expect(ser.toBinary(chain(d))).toEqual(toBinary(NodeSchema, chain(d)));
    const e = thrown(() => ser.toBinary(chain(d + 1))) as CodecError;
    expect(e).toBeInstanceOf(CodecError);
    expect(e.code).toBe("DEPTH_LIMIT_EXCEEDED");
    // The message keeps a long path's first two and last three steps (error-path-bounds.test.ts).
    expect(e.path).toBe(`esfix.Node${".next(2)".repeat(d)}`);
    const at = d <= 8 ? e.path : "esfix.Node.next(2).next(2)...next(2).next(2).next(2)";
    expect(e.message).toContain(`nesting depth ${d + 1} at ${at} exceeds maxDepth ${d}`);
  });

  const MAPS: [string, Record<string, unknown>, number][] = [
    ["a scalar map at the root needs 2", { mInt32: { "1": "a" } }, 2],
    ["a message map value at the root needs 3", { mvMessage: { k: { name: "n" } } }, 3],
    ["an empty message map needs 1", { mvMessage: {} }, 1],
    ["a message map value one level down needs 4", { recursive: { mvMessage: { k: {} } } }, 4],
    ["a wrapper one level down needs 3", { recursive: { wktInt32: 5 } }, 3],
  ];
  // Order nests two levels (no recursive type): written without frames, depth counted alike.
  const ORDERS: [string, Record<string, unknown>, number][] = [
    ["an order item needs 2", { items: [{ sku: "a" }] }, 2],
    ["an order map value needs 3", { bySku: { k: {} } }, 3],
    ["a oneof message member needs 2", { payment: { case: "voucher", value: {} } }, 2],
  ];
  test.each(ORDERS)("%s", (_name, init, need) => {
    const value = create(OrderSchema, init as never);
    const ok = ProtobufType.newGeneratedBuilder(OrderSchema).maxDepth(need).build().createSerializer();
    expect(ok.toBinary(value)).toEqual(toBinary(OrderSchema, value));
    const low = ProtobufType.newGeneratedBuilder(OrderSchema).maxDepth(need - 1).build().createSerializer();
    expect((thrown(() => low.toBinary(value)) as CodecError).code).toBe("DEPTH_LIMIT_EXCEEDED");
  });

  test.each(MAPS)("%s", (_name, init, need) => {
    const value = create(AllTypesSchema, init as never);
    const ok = ProtobufType.newGeneratedBuilder(AllTypesSchema).maxDepth(need).build().createSerializer();
    expect(ok.toBinary(value)).toEqual(toBinary(AllTypesSchema, value));
    if (need > 1) {
      const low = ProtobufType.newGeneratedBuilder(AllTypesSchema).maxDepth(need - 1).build().createSerializer();
      expect((thrown(() => low.toBinary(value)) as CodecError).code).toBe("DEPTH_LIMIT_EXCEEDED");
    }
  });
});

describe("refused values: the conversion path's error, nothing written, no state left", () => {
  const good = create(OrderSchema, { id: 5n, items: [{ sku: "a", qty: 2 }], bySku: { k: { sku: "b" } }, payment: { case: "card", value: "c" }, note: "n" });
  const small = ProtobufType.newGeneratedBuilder(OrderSchema).maxMessageBytes(30).build().createSerializer();
  const BAD: [string, () => unknown][] = [
    ["a type error in a list element, before later fields", () => ({ ...good, items: [{ ...create(ItemSchema), qty: "x" }] })],
    ["another schema in a map value", () => ({ ...good, bySku: { k: create(InvoiceSchema) } })],
    ["an undeclared property holding data", () => ({ ...good, legacy: [1] })],
    ["a oneof case without a value", () => ({ ...good, payment: { case: "voucher" } })],
    ["a oneof case with a value of the wrong kind", () => ({ ...good, payment: { case: "voucher", value: "x" } })],
    ["$unknown not an array", () => ({ ...good, $unknown: 5 })],
    ["an unknown field colliding, in a nested message", () => ({ ...good, items: [{ ...create(ItemSchema), $unknown: [{ no: 2, wireType: 0, data: new Uint8Array([1]) }] }] })],
    ["a malformed unknown field", () => ({ ...good, $unknown: [{ no: 9, wireType: 2, data: new Uint8Array([5, 1]) }] })],
    ["an unknown field with wire type 3", () => ({ ...good, $unknown: [{ no: 9, wireType: 3, data: new Uint8Array([]) }] })],
    ["a lone surrogate in a string", () => ({ ...good, note: "\uD800" })],
    ["a lone surrogate in a string of 200 units", () => ({ ...good, note: `${"x".repeat(199)}\uDC00` })],
    ["a lone surrogate in a nested string of 127 units", () => ({ ...good, items: [{ ...create(ItemSchema), sku: `\uDBFF${"x".repeat(126)}` }] })],
    ["an int64 out of range", () => ({ ...good, id: 2n ** 63n })],
    ["null as a list element", () => ({ ...good, items: [null] })],
  ];

  test.each(BAD)("%s: toBinary, encode, encodeAll mid-batch and serialize agree, and the next write is clean", (_name, make) => {
    const bad = make() as never;
    const e = thrown(() => order.toBinary(bad));
    expect(e).toBeInstanceOf(Error);
    expect(thrown(() => order.encode(bad))).toEqual(e);
    expect(thrown(() => order.encodeAll([good, bad, good]))).toEqual(e);
    const w = new FrameWriter();
    order.serialize(good, w);
    const before = w.view().slice();
    expect(thrown(() => order.serialize(bad, w))).toEqual(e);
    expect(w.view()).toEqual(before);
    // Nothing of the refused value is left in the writer: an empty value writes nothing.
    expect(order.toBinary(create(OrderSchema))).toEqual(new Uint8Array(0));
    expect(order.encodeAll([good, create(OrderSchema)])).toEqual(new Uint8Array([...framed(toBinary(OrderSchema, good)), 0]));
  });

  test("a value over maxMessageBytes mid-batch: the exact size, nothing written", () => {
    const big = create(OrderSchema, { note: "x".repeat(40) });
    const e = thrown(() => small.encodeAll([create(OrderSchema, { id: 1n }), big])) as CodecError;
    expect([e.code, e.message]).toEqual(["MESSAGE_TOO_LARGE", "cannot write esfix.Order: encoded size 42 bytes exceeds maxMessageBytes 30; raise maxMessageBytes or write a smaller value"]);
    const w = new FrameWriter();
    expect(() => small.serialize(big, w)).toThrow(CodecError);
    expect(w.length).toBe(0);
    expect(small.toBinary(create(OrderSchema, { id: 1n }))).toEqual(toBinary(OrderSchema, create(OrderSchema, { id: 1n })));
  });

  test("a value whose size passes maxMessageBytes only by a nested length widened to two bytes", () => {
    const v = create(OrderSchema, { items: [{ sku: "x".repeat(125) }] });
    const over = create(OrderSchema, { items: [{ sku: "x".repeat(126) }] });
    const n = toBinary(OrderSchema, v).length;
    // The item's body is 127 bytes in v and 128 in over: one more payload byte, two more bytes.
    expect(toBinary(OrderSchema, over).length).toBe(n + 2);
    const limit = ProtobufType.newGeneratedBuilder(OrderSchema).maxMessageBytes(n + 1).build().createSerializer();
    expect(limit.toBinary(v)).toEqual(toBinary(OrderSchema, v));
    expect((thrown(() => limit.toBinary(over)) as CodecError).message).toContain(`encoded size ${n + 2} bytes exceeds maxMessageBytes ${n + 1}`);
  });
});

// Strings shorter than 43 units take the writer's short-string path (one length byte, no size
// bound); 43 and longer the general one. Every width at the lengths around that edge and the
// encodeInto threshold (128), in every singular string shape: implicit, optional, oneof member.
describe("strings around the short-string edge", () => {
  const LENGTHS = [0, 1, 14, 41, 42, 43, 44, 63, 64, 127, 128, 129];
  const UNITS = ["a", "\u00e9", "\u8a9e", "\u{1F600}", "a\u00e9"];
  test.each(UNITS)("units %j", (unit) => {
    for (const len of LENGTHS) {
      // len UTF-16 units exactly, never cutting a surrogate pair
      const s = len % unit.length === 0 ? unit.repeat(len / unit.length) : `x${unit.repeat((len - 1) / unit.length)}`;
      for (const init of [{ fString: s }, { oString: s }, { choice: { case: "cString" as const, value: s } }, { fString: s, rString: [s], mString: { [s]: s } }]) {
        const v = create(AllTypesSchema, init);
        expect(all.toBinary(v)).toEqual(toBinary(AllTypesSchema, v));
      }
    }
  });

  // A string placed at every offset around the end of the writer's buffer must have made its room
  // first (a typed array drops writes past its end). An output over 4 MiB leaves the writer a fresh
  // 128 KiB scratch, and a frame written into a FrameWriter starts at the scratch's first byte:
  // bytes of k ≈ 128 KiB then put the string at the scratch's end.
  test("a short string of 3-byte units at every offset around the end of the buffer", () => {
    const s = "\u8a9e".repeat(42);
    const huge = create(AllTypesSchema, { fBytes: new Uint8Array(4_200_000) });
    for (let k = 131_072 - 150; k < 131_072 + 10; k++) {
      all.toBinary(huge);
      const v = create(AllTypesSchema, { fBytes: new Uint8Array(k).fill(7), oString: s });
      const want = framed(toBinary(AllTypesSchema, v));
      const w = new FrameWriter();
      all.serialize(v, w);
      const got = w.view();
      expect({ k, same: got.length === want.length && Buffer.compare(got, want) === 0 }).toEqual({ k, same: true });
    }
  });

  test.each([0, 1, 41, 42, 43, 127, 128])("a lone surrogate after %i units is refused, as create refuses it", (len) => {
    const v = create(AllTypesSchema, { fString: `${"x".repeat(len)}\uD800` });
    expect(thrown(() => all.toBinary(v))).toEqual(
      new RangeError("field alltypes.AllTypes.f_string(9) expects a well-formed string, got one with a lone surrogate; strings are written as UTF-8"),
    );
  });
});
