// A value's and a builder's descriptor are fixed. Declared readonly in the types, `descriptor`
// was a plain property at run time: assigning another type re-bound the stored values, and a
// serializer of that type wrote them by its plan unchecked (a Leaf's string went out as an int32
// varint of Node; found by a helper's attack pass). It is a getter over a private field now:
// an assignment throws (ES modules are strict), and reads, writes and equality are unchanged.
import { describe, expect, test } from "vitest";
import { DynamicMessage, ProtobufType } from "../src/index.js";
import { messageFromDir } from "./support/buf.js";

const All = messageFromDir("fixtures/all-types", "alltypes.AllTypes");
const Leaf = All.fields.find((f) => f.name === "f_message")!.message!;
const ser = ProtobufType.of(All).createSerializer();
const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

const values: [string, () => { descriptor: unknown }][] = [
  ["a created value", () => DynamicMessage.create(Leaf, { name: "hello", value: 7 })],
  ["a decoded value", () => ser.fromBinary(ser.toBinary(DynamicMessage.create(All, { f_string: "x" })))],
  ["a default instance", () => DynamicMessage.getDefaultInstance(Leaf)],
  ["a builder", () => DynamicMessage.newBuilder(Leaf).set("name", "b")],
];

describe("descriptor cannot be re-bound", () => {
  test.each(values)("%s: assigning descriptor throws a TypeError and changes nothing", (_, make) => {
    const v = make();
    const before = v.descriptor;
    expect(() => {
      (v as { descriptor: unknown }).descriptor = All;
    }).toThrow(TypeError);
    expect(v.descriptor).toBe(before);
    expect(Object.keys(v)).not.toContain("descriptor");
  });

  test("a Leaf value stays a Leaf: the AllTypes serializer refuses it as before", () => {
    const leaf = DynamicMessage.create(Leaf, { name: "hello" });
    try {
      (leaf as { descriptor: unknown }).descriptor = All;
    } catch {
      // expected
    }
    expect(() => ser.toBinary(leaf as unknown as DynamicMessage)).toThrow(/alltypes\.Leaf/);
    const inside = DynamicMessage.create(All, { f_message: leaf });
    expect(hex(ser.toBinary(inside))).toBe(hex(ser.toBinary(DynamicMessage.create(All, { f_message: { name: "hello" } }))));
  });
});
