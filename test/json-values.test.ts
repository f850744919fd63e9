// Which values ProtoJSON writes and what it reads into: DynamicMessage#toJSON (JSON.stringify),
// plain init objects, values of another descriptor instance or schema version (written with the
// serializer's own names, after the checks encode makes), presence and defaults.
import { describe, expect, test } from "vitest";
import { DynamicMessage, ProtobufType, type ProtobufSerializer } from "../src/index.js";
import { messageFromDir, registryFromDir } from "./support/buf.js";

const registry = registryFromDir("fixtures/all-types");
const All = registry.getMessage("alltypes.AllTypes")!;
const ser = ProtobufType.of(All).createSerializer();
const relay = (version: string): ProtobufSerializer => ProtobufType.of(messageFromDir(`fixtures/relays/${version}`, "probe.Record")).createSerializer();

describe("DynamicMessage#toJSON", () => {
  const value = DynamicMessage.create(All, { f_int64: 5n, f_bytes: new Uint8Array([1]), f_enum: 1, m_bool: { true: "t" }, wkt_duration: { seconds: 3n } });

  test("is the ProtoJSON form, so JSON.stringify writes ProtoJSON", () => {
    expect(value.toJSON()).toEqual({ fInt64: "5", fBytes: "AQ==", fEnum: "COLOR_RED", mBool: { true: "t" }, wktDuration: "3s" });
    expect(JSON.stringify(value)).toBe('{"fInt64":"5","fBytes":"AQ==","fEnum":"COLOR_RED","mBool":{"true":"t"},"wktDuration":"3s"}');
    expect(JSON.stringify({ order: value })).toBe(`{"order":${ser.toJsonString(value)}}`);
  });

  test("writes each value with its own descriptor's names", () => {
    const old = relay("old");
    const v = DynamicMessage.create(old.type.descriptor, { id: 7, name: "alpha" });
    expect(JSON.stringify(v)).toBe('{"id":7,"name":"alpha"}');
  });

  test("reads back through fromJson as an equal value", () => {
    expect(ser.fromJson(value.toJSON()).equals(value)).toBe(true);
  });
});

describe("what toJson takes", () => {
  test("a plain init object, checked as encode checks it", () => {
    expect(ser.toJson({ f_int32: 3, r_string: ["a"] })).toEqual({ fInt32: 3, rString: ["a"] });
    expect(() => ser.toJson({ f_int32: "x" })).toThrow(TypeError);
  });

  test("a value of another instance of the same schema", () => {
    const other = registryFromDir("fixtures/all-types").getMessage("alltypes.AllTypes")!;
    const v = DynamicMessage.create(other, { f_string: "s", f_message: { name: "n" } });
    expect(ser.toJson(v)).toEqual({ fString: "s", fMessage: { name: "n" } });
  });

  test("a value of an older schema version is written with the serializer's names", () => {
    const old = relay("old");
    const renamed = relay("new"); // id(1) is event_id(1) here
    const v = DynamicMessage.create(old.type.descriptor, { id: 7, name: "alpha" });
    expect(renamed.toJson(v)).toEqual({ eventId: 7, name: "alpha" });
  });

  test("a field the serializer's schema does not declare, kept as an unknown field, is refused or dropped on request", () => {
    const noted = relay("noted");
    const bare = relay("bare");
    const held = bare.fromBinary(noted.toBinary({ id: 7, note: "retain me" }));
    expect(() => bare.toJson(held)).toThrow(expect.objectContaining({ code: "JSON_UNKNOWN_FIELDS", path: "probe.Record" }));
    expect(bare.toJson(held, { discardUnknownFields: true })).toEqual({ id: 7 });
  });

  test("a value whose schema the serializer's does not accept is refused as encode refuses it", () => {
    const noted = relay("noted");
    const v = DynamicMessage.create(noted.type.descriptor, { id: 7, note: "retain me" });
    expect(() => relay("bare").toJson(v)).toThrow(expect.objectContaining({ code: "INCOMPATIBLE_VALUE_DESCRIPTOR" }));
  });

  test("a nested value of another schema version is read back by the serializer's schema", () => {
    const nestedOld = DynamicMessage.create(registryFromDir("fixtures/all-types").getMessage("alltypes.Leaf")!, { name: "x", value: 2 });
    expect(ser.toJson(DynamicMessage.create(All, { r_message: [nestedOld] }))).toEqual({ rMessage: [{ name: "x", value: 2 }] });
  });
});

describe("presence and defaults", () => {
  test.each([
    ["implicit zeros are left out", {}, {}, {}],
    ["explicit zeros are written", { o_int32: 0, o_enum: 0, o_bytes: new Uint8Array(0) }, {}, { oInt32: 0, oEnum: "COLOR_UNSPECIFIED", oBytes: "" }],
    ["a oneof member holding its default is written", { c_int64: 0n }, {}, { cInt64: "0" }],
    [
      "emitDefaultValues writes implicit fields, lists and maps, not explicit ones",
      { r_message: [{}] },
      { emitDefaultValues: true },
      { fInt32: 0, fInt64: "0", fString: "", fBytes: "", fBool: false, fEnum: "COLOR_UNSPECIFIED", rInt32: [], mString: {}, rMessage: [{ name: "", value: 0 }] },
    ],
  ])("%s", (_name, init, options, expected) => {
    const json = ser.toJson(DynamicMessage.create(All, init), options) as Record<string, unknown>;
    expect(json).toMatchObject(expected);
    if (!("emitDefaultValues" in options)) expect(Object.keys(json).sort()).toEqual(Object.keys(expected).sort());
    else for (const absent of ["oInt32", "fMessage", "cInt64", "wktTimestamp"]) expect(json).not.toHaveProperty(absent);
  });

  test("a deterministic serializer writes map keys in key order (as far as JS objects keep an order)", () => {
    const det = ProtobufType.newBuilder(All).deterministic(true).build().createSerializer();
    const v = DynamicMessage.create(All, { m_string: new Map([["b", "2"], ["a", "1"]]), m_int32: new Map([[-1, "y"], [10, "x"], [2, "z"]]) });
    expect(det.toJsonString(v)).toBe('{"mInt32":{"2":"z","10":"x","-1":"y"},"mString":{"a":"1","b":"2"}}');
    // JS objects list integer-like keys first, ascending, whatever the insertion order.
    expect(ser.toJsonString(v)).toBe('{"mInt32":{"2":"z","10":"x","-1":"y"},"mString":{"b":"2","a":"1"}}');
  });

  test("fromJson values carry the serializer's descriptor instance and no unknown fields", () => {
    const v = ser.fromJson({ fInt32: 1 });
    expect(v.descriptor).toBe(ser.type.descriptor);
    expect(v.unknownFields.size).toBe(0);
  });
});
