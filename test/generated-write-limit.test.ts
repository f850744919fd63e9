// A packed run, a string or bytes value over maxMessageBytes is refused by the generated writer
// with the size and error the dynamic kind gives, and before its output grows for the value's worst
// case (10 bytes per varint element, 3 per UTF-16 unit: FieldWriter.least): nothing is written.
import { create, toBinary } from "@bufbuild/protobuf";
import fc from "fast-check";
import { describe, expect, test, vi } from "vitest";
import { DynamicMessage, FrameWriter, ProtobufType } from "../src/index.js";
import { FieldWriter } from "../src/codec/field-writer.js";
import { registryFromDir } from "./support/buf.js";
import { thrown } from "./support/thrown.js";
import { messageArb } from "./support/arbitrary-message.js";
import { schemaArb } from "./support/arbitrary-schema.js";
import { check } from "./support/property.js";
import { AllTypesSchema } from "./fixtures/generated-es/gen/all_types_pb.js";

const All = registryFromDir("fixtures/all-types").getMessage("alltypes.AllTypes")!;

describe("maxMessageBytes", () => {
  const small = ProtobufType.newGeneratedBuilder(AllTypesSchema).maxMessageBytes(1000).build().createSerializer();
  const dyn = ProtobufType.newBuilder(All).maxMessageBytes(1000).build().createSerializer();
  // [what, the protobuf-es value's fields, the init object's]
  const OVER: [string, Record<string, unknown>, Record<string, unknown>][] = [
    ["more elements than the limit has bytes", { rInt32: new Array(2000).fill(1) }, { r_int32: new Array(2000).fill(1) }],
    ["100 ten-byte elements", { rInt32: new Array(100).fill(-1) }, { r_int32: new Array(100).fill(-1) }],
    ["10,000 ten-byte elements after a string", { fString: "x".repeat(900), rSint32: new Array(10_000).fill(2 ** 30) }, { f_string: "x".repeat(900), r_sint32: new Array(10_000).fill(2 ** 30) }],
    ["a string of 70,000 units", { fString: "\u00e9".repeat(70_000) }, { f_string: "\u00e9".repeat(70_000) }],
    ["bytes of 70,000", { fBytes: new Uint8Array(70_000) }, { f_bytes: new Uint8Array(70_000) }],
    ["a repeated string of 70,000 units", { rString: ["a", "x".repeat(70_000)] }, { r_string: ["a", "x".repeat(70_000)] }],
    ["a map value of 70,000 units", { mString: { k: "x".repeat(70_000) } }, { m_string: { k: "x".repeat(70_000) } }],
    ["a map key of 70,000 units", { mString: { ["k".repeat(70_000)]: "v" } }, { m_string: { ["k".repeat(70_000)]: "v" } }],
  ];
  test.each(OVER)("%s", (_name, es, init) => {
    const want = thrown(() => dyn.toBinary(init as never)) as Error & { code: string };
    expect(want.code).toBe("MESSAGE_TOO_LARGE");
    const e = thrown(() => small.toBinary(create(AllTypesSchema, es as never))) as Error & { code: string };
    expect([e.constructor, e.code, e.message]).toEqual([want.constructor, want.code, want.message]);
    const w = new FrameWriter();
    expect(() => small.serialize(create(AllTypesSchema, es as never), w)).toThrow(want.message);
    expect(w.length).toBe(0);
  });

  test("at the limit exactly, written", () => {
    // tag (2 bytes) + length (2 bytes) + 996 one-byte elements = 1000 bytes.
    const v = create(AllTypesSchema, { rInt32: new Array(996).fill(3) });
    expect(toBinary(AllTypesSchema, v).length).toBe(1000);
    expect(small.toBinary(v)).toEqual(toBinary(AllTypesSchema, v));
  });
});

/** The payload of a length-delimited unknown field of 2,000,000 bytes: its length, then the bytes. */
function unknownPayload(): Uint8Array {
  const out = new Uint8Array(3 + 2_000_000);
  out.set([0x80, 0x89, 0x7a]); // 2,000,000 as a varint
  return out;
}

/** A DynamicMessage holding that unknown field (field 900), changed after decode so that it is written, not relayed. */
function unknownValue(): DynamicMessage {
  const big = ProtobufType.of(All).createSerializer();
  const bytes = new Uint8Array([0xa2, 0x38, ...unknownPayload().subarray(0, 3)]);
  const whole = new Uint8Array(bytes.length + 2_000_000);
  whole.set(bytes);
  return big.fromBinary(whole).toBuilder().set("f_int32", 1).build();
}

// White-box: the writers' output buffer grows through FieldWriter.room(need). A value over the
// limit must be refused without room for its worst case: no growth request passes the limit by
// more than one block of a packed run (4,096 ten-byte elements). The dynamic kind sizes a value
// before it writes it; the generated kind writes as it reads.
describe("no room is made for a value's worst case past the limit", () => {
  const limit = 1_000_000;
  const gen = ProtobufType.newGeneratedBuilder(AllTypesSchema).maxMessageBytes(limit).build().createSerializer();
  const dyn = ProtobufType.newBuilder(All).maxMessageBytes(limit).build().createSerializer();
  // [what, the protobuf-es value's fields, the init object's]
  const ROWS: [string, Record<string, unknown>, Record<string, unknown> | DynamicMessage][] = [
    ["a string of 2,000,000 units", { fString: "\u00e9".repeat(2_000_000) }, { f_string: "\u00e9".repeat(2_000_000) }],
    ["bytes of 2,000,000", { fBytes: new Uint8Array(2_000_000) }, { f_bytes: new Uint8Array(2_000_000) }],
    ["a map key of 2,000,000 units", { mString: { ["k".repeat(2_000_000)]: "v" } }, { m_string: { ["k".repeat(2_000_000)]: "v" } }],
    ["a message map's key of 2,000,000 units", { mvMessage: { ["k".repeat(2_000_000)]: { name: "n" } } }, { mv_message: { ["k".repeat(2_000_000)]: { name: "n" } } }],
    ["an unknown field of 2,000,000 bytes", { $unknown: [{ no: 900, wireType: 2, data: unknownPayload() }] }, unknownValue()],
    ["600,000 ten-byte elements (fewer than the limit's bytes)", { rInt32: new Array(600_000).fill(-1) }, { r_int32: new Array(600_000).fill(-1) }],
    ["600,000 ten-byte 64-bit elements", { rInt64: new Array(600_000).fill(-1n) }, { r_int64: new Array(600_000).fill(-1n) }],
    ["400,000 unpacked elements", { uInt32: new Array(400_000).fill(-1) }, { u_int32: new Array(400_000).fill(-1) }],
    ["2,000,000 elements", { rUint32: new Array(2_000_000).fill(1) }, { r_uint32: new Array(2_000_000).fill(1) }],
  ];
  test.each(ROWS)("%s", (_name, es, init) => {
    const needs: number[] = [];
    const proto = FieldWriter.prototype as unknown as { room(need: number): void };
    const original = proto.room;
    const spy = vi.spyOn(proto, "room").mockImplementation(function (this: unknown, need: number) {
      needs.push(need);
      original.call(this, need);
    });
    try {
      // protobuf-es' create does not take $unknown from its init: set after.
      const value = Object.assign(create(AllTypesSchema, es as never), "$unknown" in es ? { $unknown: es.$unknown } : {});
      expect((thrown(() => gen.toBinary(value)) as Error & { code: string }).code).toBe("MESSAGE_TOO_LARGE");
      expect((thrown(() => dyn.toBinary(init as never)) as Error & { code: string }).code).toBe("MESSAGE_TOO_LARGE");
    } finally {
      spy.mockRestore();
    }
    expect(Math.max(0, ...needs)).toBeLessThan(limit);
  });
});

// The bounds above refuse only what is over the limit: a value of exactly maxMessageBytes is
// written by both kinds, and one byte over is MESSAGE_TOO_LARGE with its exact size.
describe("exactly at the limit, and one byte over", () => {
  // [what, the protobuf-es value's fields, the init object's]
  const ROWS: [string, Record<string, unknown>, Record<string, unknown>][] = [
    ["a string of 70,000 two-byte units", { fString: "\u00e9".repeat(70_000) }, { f_string: "\u00e9".repeat(70_000) }],
    ["bytes of 70,000", { fBytes: new Uint8Array(70_000).fill(1) }, { f_bytes: new Uint8Array(70_000).fill(1) }],
    ["a map value of 70,000 units", { mString: { k: "x".repeat(70_000) } }, { m_string: { k: "x".repeat(70_000) } }],
    ["a repeated string of 70,000 units", { rString: ["a", "x".repeat(70_000)] }, { r_string: ["a", "x".repeat(70_000)] }],
    ["9,000 ten-byte int32 elements (three blocks)", { rInt32: new Array(9000).fill(-1) }, { r_int32: new Array(9000).fill(-1) }],
    ["9,000 ten-byte 64-bit elements", { rSint64: new Array(9000).fill(-(2n ** 62n)) }, { r_sint64: new Array(9000).fill(-(2n ** 62n)) }],
    ["9,000 unpacked elements", { uInt32: new Array(9000).fill(-1) }, { u_int32: new Array(9000).fill(-1) }],
    ["9,000 fixed64 elements", { rFixed64: new Array(9000).fill(7n) }, { r_fixed64: new Array(9000).fill(7n) }],
  ];
  test.each(ROWS)("%s", (_name, es, init) => {
    const value = create(AllTypesSchema, es as never);
    const want = toBinary(AllTypesSchema, value);
    const size = want.length;
    for (const [limit, fits] of [[size, true], [size - 1, false]] as const) {
      const gen = ProtobufType.newGeneratedBuilder(AllTypesSchema).maxMessageBytes(limit).build().createSerializer();
      const dyn = ProtobufType.newBuilder(All).maxMessageBytes(limit).build().createSerializer();
      if (fits) {
        expect(Buffer.compare(gen.toBinary(value), want)).toBe(0);
        expect(Buffer.compare(dyn.toBinary(init as never), want)).toBe(0);
        continue;
      }
      const message = `cannot write alltypes.AllTypes: encoded size ${size} bytes exceeds maxMessageBytes ${limit}; raise maxMessageBytes or write a smaller value`;
      expect(thrown(() => gen.toBinary(value)).message).toBe(message);
      expect(thrown(() => dyn.toBinary(init as never)).message).toBe(message);
    }
  });
});

test("random schemas and values, a limit around their size: written when it fits, else the exact size (both kinds)", () => {
  const arb = schemaArb({}).chain((s) => fc.tuple(fc.constant(s), messageArb(s.root, 2, { maxItems: 40, maxMapEntries: 3 }), fc.integer({ min: -3, max: 3 })));
  check("write limit around the size", 80, arb, ([s, sample, delta]) => {
    const value = create(s.root, sample.es as never);
    const want = toBinary(s.root, value);
    const limit = Math.max(1, want.length + delta);
    const gen = ProtobufType.newGeneratedBuilder(s.root).maxMessageBytes(limit).build().createSerializer();
    const dyn = ProtobufType.newBuilder(s.root).maxMessageBytes(limit).build().createSerializer();
    if (want.length <= limit) {
      expect(gen.toBinary(value)).toEqual(want);
      expect(dyn.toBinary(dyn.fromBinary(want))).toEqual(want);
      expect(dyn.toBinary(sample.ours as never).length).toBe(want.length);
      return;
    }
    const message = `cannot write ${s.root.typeName}: encoded size ${want.length} bytes exceeds maxMessageBytes ${limit}; raise maxMessageBytes or write a smaller value`;
    expect(thrown(() => gen.toBinary(value)).message).toBe(message);
    expect(thrown(() => dyn.toBinary(sample.ours as never)).message).toBe(message);
  });
});
