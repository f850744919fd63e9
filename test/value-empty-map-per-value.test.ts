// The empty Map that `get` hands out for an unset map field, and the one `unknownFields` hands out
// for a value without unknown fields, were one shared object each (for every value of every type).
// Their own set/delete/clear refuse (src/message/read-only.ts), but Map.prototype.set.call does
// not: an entry planted through one value showed in every other value's unset map fields and
// unknown fields, and a value built from what an untouched value handed out took it in (or threw:
// "map key of field alltypes.AllTypes.m_int32(81) expects int32, got string \"k\""). Each is now
// a map of its own.
import { describe, expect, test } from "vitest";
import { DynamicMessage, ProtobufType } from "../src/index.js";
import { registryFromDir } from "./support/buf.js";

const registry = registryFromDir("fixtures/all-types");
const All = registry.getMessage("alltypes.AllTypes")!;
const Leaf = registry.getMessage("alltypes.Leaf")!;
const ser = ProtobufType.of(All).createSerializer();
const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");
const set = Map.prototype.set;

/** What is planted, through which value's hand-out. */
const plants: [string, (via: DynamicMessage) => void][] = [
  ["a string key in an int32 map field", (via) => void set.call(via.get("m_int32"), "k", "v")],
  ["a value in a message map field", (via) => void set.call(via.get("mv_message"), "k", DynamicMessage.create(Leaf, { name: "planted" }))],
  ["an int32 key in a string map field", (via) => void set.call(via.get("m_string"), 1, 2)],
  ["an unknown field colliding with f_int32", (via) => void set.call(via.unknownFields, 5, [new Uint8Array([0x28, 0x01])])],
];

/** Values that did not hand out the planted map. */
const victims: [string, () => DynamicMessage][] = [
  ["a created value", () => DynamicMessage.create(All, { f_int32: 1 })],
  ["a decoded value", () => ser.fromBinary(new Uint8Array([0x28, 0x02]))],
  ["the default instance", () => DynamicMessage.getDefaultInstance(All)],
  ["a value of another type", () => DynamicMessage.create(Leaf, { name: "x" })],
];

describe.each(plants)("%s planted through one value's unset field", (_, plant) => {
  test.each(victims)("does not show in %s, nor in a value built from what it hands out", (_, victim) => {
    plant(DynamicMessage.create(All, {}));
    const v = victim();
    expect([...v.unknownFields]).toEqual([]);
    if (v.descriptor !== All) return;
    for (const name of ["m_int32", "mv_message", "m_string"]) expect([...(v.get(name) as ReadonlyMap<unknown, unknown>)]).toEqual([]);
    const built = DynamicMessage.newBuilder(All)
      .set("m_int32", v.get("m_int32"))
      .set("mv_message", v.get("mv_message"))
      .set("m_string", v.get("m_string"))
      .setUnknownFields(v.unknownFields)
      .build();
    expect(hex(ser.toBinary(built))).toBe("");
  });
});

test("each unset map field's map still refuses its own set, delete and clear", () => {
  const m = DynamicMessage.create(All, {}).get("m_int32") as Map<unknown, unknown>;
  const message = (op: string) =>
    `cannot ${op} on a map of a DynamicMessage: values are immutable; build a changed value with msg.toBuilder().put(...) or DynamicMessage.create, or copy the map with new Map(map)`;
  expect(() => m.set(1, "x")).toThrow(new TypeError(message("set")));
  expect(() => m.delete(1)).toThrow(new TypeError(message("delete")));
  expect(() => m.clear()).toThrow(new TypeError(message("clear")));
});
