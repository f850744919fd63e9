// Differential properties through the serializer: protokeel reads what protokeel,
// @bufbuild/protobuf and protobufjs write as the same content, and relays bytes unchanged.
import { create, toBinary } from "@bufbuild/protobuf";
import fc from "fast-check";
import protobuf from "protobufjs";
import { describe, expect, test } from "vitest";
import { DynamicMessage, FrameReader, FrameWriter, ProtobufType } from "../src/index.js";
import { messageArb } from "./support/arbitrary-message.js";
import { registryFromDir } from "./support/buf.js";

const registry = registryFromDir("fixtures/all-types");
const All = registry.getMessage("alltypes.AllTypes")!;
const type = ProtobufType.of(All);
const ser = type.createSerializer();
const det = ProtobufType.newBuilder(All).deterministic(true).build().createSerializer();
const pbjsRoot = protobuf.loadSync(new URL("./fixtures/all-types/all_types.proto", import.meta.url).pathname);
const PbjsAll = pbjsRoot.lookupType("alltypes.AllTypes");
const JSON_TYPES = ["google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue"];

function hex(b: Uint8Array): string {
  return Buffer.from(b).toString("hex");
}

describe("round trips", () => {
  test("protokeel → protokeel, bare and framed, equal content and the serializer's descriptor", () => {
    fc.assert(
      fc.property(messageArb(All, 2), (s) => {
        const msg = DynamicMessage.create(All, s.ours);
        const back = ser.fromBinary(ser.toBinary(msg));
        expect(back.descriptor).toBe(All);
        expect(back.equals(msg)).toBe(true);
        expect(ser.decode(ser.encode(msg)).equals(msg)).toBe(true);
        // Deterministic re-encoding of the decoded value is the same bytes as of the original.
        expect(hex(det.toBinary(back))).toBe(hex(det.toBinary(msg)));
      }),
      { numRuns: 250 },
    );
  });

  test("@bufbuild/protobuf and protobufjs bytes → protokeel, equal content", () => {
    fc.assert(
      fc.property(messageArb(All, 1, { skipTypes: JSON_TYPES }), (s) => {
        const msg = DynamicMessage.create(All, s.ours);
        const esBytes = toBinary(All, create(All, s.es as never));
        expect(ser.fromBinary(esBytes).equals(msg)).toBe(true);
        const pbjsBytes = PbjsAll.encode(PbjsAll.decode(esBytes)).finish();
        expect(ser.fromBinary(pbjsBytes).equals(msg)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  test("a decoded value relays its bytes unchanged, unknown fields included", () => {
    fc.assert(
      fc.property(messageArb(All, 1), fc.uint8Array({ minLength: 0, maxLength: 8 }), (s, junk) => {
        const base = DynamicMessage.create(All, s.ours);
        const unknown = new Uint8Array([0xa2, 0x06, junk.length, ...junk]); // field 100, bytes
        const withUnknown = base.toBuilder().setUnknownFields(new Map([[100, [unknown]]])).build();
        const bytes = ser.toBinary(withUnknown);
        const back = ser.fromBinary(bytes);
        expect(back.unknownFields.get(100)).toEqual([unknown]);
        expect(hex(ser.toBinary(back))).toBe(hex(bytes));
        expect(back.equals(withUnknown)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});

describe("batches and streams", () => {
  const values = [
    DynamicMessage.create(All, { f_int32: 1, f_string: "a" }),
    DynamicMessage.create(All, {}),
    DynamicMessage.create(All, { r_message: [{ name: "é" }], m_string: { k: "v" } }),
  ];

  test("encodeAll / decodeAll", () => {
    const back = ser.decodeAll(ser.encodeAll(values));
    expect(back).toHaveLength(3);
    back.forEach((v, i) => expect(v.equals(values[i])).toBe(true));
    expect(ser.decodeAll(new Uint8Array(0))).toEqual([]);
  });

  test("serialize / deserialize over a FrameWriter and FrameReader", () => {
    const out = new FrameWriter();
    for (const v of values) ser.serialize(v, out);
    const reader = new FrameReader(out.toUint8Array());
    const back: DynamicMessage[] = [];
    while (reader.hasMore()) back.push(ser.deserialize(reader));
    expect(back.map((v, i) => v.equals(values[i]))).toEqual([true, true, true]);
  });

  test("serializer basics", () => {
    const v = values[0]!;
    expect(ser.copy(v)).toBe(v);
    expect(ser.createInstance()).toBe(DynamicMessage.getDefaultInstance(All));
    expect(ser.isImmutableType()).toBe(true);
    expect(ser.duplicate().equals(ser)).toBe(true);
    expect(ser.duplicate()).not.toBe(ser);
    expect(ser.equals(det)).toBe(false);
    expect(ser.snapshotConfiguration().fullName).toBe("alltypes.AllTypes");
  });
});
