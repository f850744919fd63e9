// Printing values (issue 12, item 9): console.log shows the type and the fields, not internals;
// JSON.stringify works (64-bit as strings, bytes as base64); passing a ProtobufType where a
// descriptor belongs says what to pass.
import { inspect } from "node:util";
import { describe, expect, test } from "vitest";
import { DynamicMessage, ProtobufType } from "../src/index.js";
import { pbjsType } from "./adversarial/support.js";

const type = ProtobufType.of(
  pbjsType(`message Leaf { string name = 1; } message Order { int64 id = 1; bytes blob = 2; double d = 3; repeated Leaf leaves = 4; map<string, uint64> m = 5; }`, "Order"),
);
const value = DynamicMessage.create(type.descriptor, {
  id: 7n,
  blob: Uint8Array.of(1, 2, 3, 250),
  d: Number.NaN,
  leaves: [{ name: "a" }],
  m: { k: 2n ** 64n - 1n },
});

describe("printing a DynamicMessage", () => {
  test("util.inspect shows the type and the fields", () => {
    expect(inspect(value, { depth: 4 })).toBe(
      "DynamicMessage<Order> {\n  id: 7n,\n  blob: Uint8Array(4) [ 1, 2, 3, 250 ],\n  d: NaN,\n  leaves: [ { name: 'a' } ],\n  m: { k: 18446744073709551615n }\n}",
    );
    expect(inspect({ nested: { deeper: value } }, { depth: 0 })).toBe("{ nested: [Object] }");
    expect(inspect([value], { depth: 0 })).toBe("[ [DynamicMessage<Order>] ]");
  });

  test("JSON.stringify gives 64-bit integers as strings, bytes as base64, NaN as a string", () => {
    expect(JSON.parse(JSON.stringify(value))).toEqual({ id: "7", blob: "AQID+g==", d: "NaN", leaves: [{ name: "a" }], m: { k: "18446744073709551615" } });
    expect(JSON.stringify(DynamicMessage.create(type.descriptor, { blob: Uint8Array.of(1, 2) }))).toContain('"blob":"AQI="');
  });

  test("a ProtobufType where a descriptor belongs: pass type.descriptor", () => {
    expect(() => DynamicMessage.create(type as never, {})).toThrow(
      new TypeError("DynamicMessage.create expects a DescMessage (@bufbuild/protobuf), got a ProtobufType; pass type.descriptor"),
    );
  });
});
