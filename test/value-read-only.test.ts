// What a DynamicMessage hands out of its own state refuses writes (src/message/read-only.ts).
// Before, `get` returned the value's own arrays and maps: an element pushed onto a list of a value
// written once was written again unchecked ("zz" in a fixed32 list as 0, -5 as 0xfffffffb), and a
// `set` on an unset map field's empty map showed in every value's empty map fields.
import { describe, expect, test } from "vitest";
import { DynamicMessage, ProtobufType } from "../src/index.js";
import { registryFromDir } from "./support/buf.js";

const registry = registryFromDir("fixtures/all-types");
const All = registry.getMessage("alltypes.AllTypes")!;
const ser = ProtobufType.of(All).createSerializer();
const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

const init = {
  r_fixed32: [1, 2],
  r_double: [1.5, -2],
  r_string: ["a", "b"],
  r_message: [{ name: "x", value: 1 }],
  m_string: new Map([["k", "v"]]),
  mv_message: { a: { name: "y" } },
};

/** Each way a value comes to be: built, from a builder, decoded (the small and the core reader), relayed. */
const origins: [string, () => DynamicMessage][] = [
  ["create", () => DynamicMessage.create(All, init)],
  ["builder", () => DynamicMessage.create(All, init).toBuilder().add("r_fixed32", 3).build()],
  ["fromBinary", () => ser.fromBinary(ser.toBinary(DynamicMessage.create(All, init)))],
  ["decodeAll", () => ser.decodeAll(ser.encodeAll([DynamicMessage.create(All, init)]))[0]!],
  ["fromBinary of a large input (core)", () => ser.fromBinary(ser.toBinary(DynamicMessage.create(All, { ...init, r_string: ["a", "b", "c".repeat(5000)] })))],
];

const MAP_MESSAGE = (op: string): string =>
  `cannot ${op} on a map of a DynamicMessage: values are immutable; build a changed value with msg.toBuilder().put(...) or DynamicMessage.create, or copy the map with new Map(map)`;

describe.each(origins)("a value from %s", (_, make) => {
  test.each([
    ["push onto a fixed32 list", (m: DynamicMessage) => (m.get("r_fixed32") as number[]).push(-5)],
    ["push a string onto a fixed32 list", (m: DynamicMessage) => (m.get("r_fixed32") as unknown[]).push("zz")],
    ["index write into a double list", (m: DynamicMessage) => ((m.get("r_double") as number[])[0] = 7)],
    ["length write on a string list", (m: DynamicMessage) => ((m.get("r_string") as string[]).length = 0)],
    ["splice of a message list", (m: DynamicMessage) => (m.get("r_message") as unknown[]).splice(0, 1)],
    ["push through getField", (m: DynamicMessage) => (m.getField(All.field.rFixed32!) as number[]).push(9)],
  ])("%s throws the engine's TypeError and changes nothing written", (_, mutate) => {
    const m = make();
    const before = hex(ser.toBinary(m));
    expect(() => mutate(m)).toThrow(TypeError);
    expect(hex(ser.toBinary(m))).toBe(before);
    expect(hex(ser.toBinary(m))).toBe(hex(ser.toBinary(DynamicMessage.create(All, m.toObject()))));
  });

  test.each([
    ["set", (x: Map<unknown, unknown>) => x.set("k", "w")],
    ["delete", (x: Map<unknown, unknown>) => x.delete("k")],
    ["clear", (x: Map<unknown, unknown>) => x.clear()],
  ])("%s on a map field throws and changes nothing", (op, mutate) => {
    const m = make();
    const before = hex(ser.toBinary(m));
    for (const name of ["m_string", "mv_message"]) {
      const map = m.get(name) as Map<unknown, unknown>;
      expect(() => mutate(map)).toThrow(new TypeError(MAP_MESSAGE(op)));
      expect(map.size).toBe(1);
    }
    expect(hex(ser.toBinary(m))).toBe(before);
  });

  test("what it hands out still reads, copies and builds other values", () => {
    const m = make();
    const list = m.get("r_fixed32") as readonly number[];
    expect(list.slice(0, 2)).toEqual([1, 2]);
    const map = m.get("m_string") as ReadonlyMap<string, string>;
    expect([...map]).toEqual([["k", "v"]]);
    const copy = new Map(map);
    copy.set("k2", "v2");
    expect(copy.size).toBe(2);
    const other = DynamicMessage.create(All, { r_fixed32: list, m_string: map });
    expect(other.get("r_fixed32")).toEqual(list);
    expect(m.toBuilder().put("m_string", "k2", "v2").build().get("m_string")).toEqual(new Map([["k", "v"], ["k2", "v2"]]));
    expect(map.size).toBe(1);
  });
});

describe("shared defaults", () => {
  test.each([
    ["an unset map field's empty map", (m: DynamicMessage) => m.get("m_int32") as Map<unknown, unknown>],
    ["the empty unknown-field map", (m: DynamicMessage) => m.unknownFields as Map<unknown, unknown>],
  ])("%s refuses set, and no other value sees an entry", (_, pick) => {
    const a = DynamicMessage.create(All, {});
    expect(() => pick(a).set(1, "x")).toThrow(new TypeError(MAP_MESSAGE("set")));
    expect(pick(DynamicMessage.create(All, { f_int32: 3 })).size).toBe(0);
  });

  test("an unset list field's empty list refuses push", () => {
    expect(() => (DynamicMessage.create(All, {}).get("r_int32") as number[]).push(1)).toThrow(TypeError);
    expect(DynamicMessage.create(All, {}).get("r_int32")).toEqual([]);
  });

  test("a decoded value's unknown-field map refuses set, its occurrences stay", () => {
    const withUnknown = new Uint8Array([0xf8, 0x3e, 0x05]); // field 999, varint 5
    const m = ser.fromBinary(withUnknown);
    const u = m.unknownFields as Map<number, Uint8Array[]>;
    expect(() => u.set(1000, [])).toThrow(new TypeError(MAP_MESSAGE("set")));
    expect(() => u.get(999)!.push(new Uint8Array(1))).toThrow(TypeError);
    expect(hex(ser.toBinary(m))).toBe("f83e05");
  });
});
