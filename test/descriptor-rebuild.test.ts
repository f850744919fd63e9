import { describe, expect, test } from "vitest";
import { normalize } from "../src/descriptor/normalize.js";
import { rebuildRoot } from "../src/descriptor/rebuild.js";
import { compileProtoDir, messageFromDir } from "./support/buf.js";
import { ProtobufType } from "../src/index.js";
import { typeFromNormalized } from "../src/type.js";
import { acme, L, scalar, setBytes, T } from "./support/descriptors.js";

describe("rebuildRoot", () => {
  test("rebuilds a fresh descriptor from normalized bytes", () => {
    const desc = messageFromDir("fixtures/descriptors/canonical", "acme.Order");
    const rebuilt = rebuildRoot(normalize(desc), "acme.Order");
    expect(rebuilt).not.toBe(desc);
    expect(rebuilt.typeName).toBe("acme.Order");
    expect(rebuilt.fields.map((f) => f.number)).toEqual([...desc.fields.map((f) => f.number)].sort((a, b) => a - b));
    expect(rebuildRoot(normalize(desc), "acme.Order")).not.toBe(rebuilt);
  });

  test.each<[string, Uint8Array, string, string, string]>([
    [
      "bytes that do not decode",
      new Uint8Array([0x0a, 0xff]),
      "acme.Order",
      "REBUILD_FAILED",
      "invalid descriptor acme.Order: the descriptor set does not decode (premature EOF)",
    ],
    ["a missing root", setBytes([acme({ messageType: [{ name: "Item" }] })]), "acme.Order", "ROOT_NOT_FOUND", "invalid descriptor acme.Order: the descriptor set does not declare message acme.Order"],
    [
      "a root declared twice",
      setBytes([acme({ messageType: [{ name: "Order" }] }), acme({ name: "acme/again.proto", messageType: [{ name: "Order" }] })]),
      "acme.Order",
      "ROOT_NOT_UNIQUE",
      "invalid descriptor acme.Order: the descriptor set declares message acme.Order 2 times",
    ],
    [
      "another type declared twice",
      setBytes([acme({ messageType: [{ name: "Order" }, { name: "Item" }] }), acme({ name: "acme/again.proto", messageType: [{ name: "Item" }] })]),
      "acme.Order",
      "REBUILD_FAILED",
      "invalid descriptor acme.Order: the descriptor set declares acme.Item more than once",
    ],
    [
      "an unresolvable type",
      setBytes([acme({ messageType: [{ name: "Order", field: [{ ...scalar("x", 1), type: T.MESSAGE, typeName: ".acme.Missing", label: L.OPTIONAL }] }] })]),
      "acme.Order",
      "REBUILD_FAILED",
      "invalid descriptor acme.Order: the descriptor set does not rebuild (invalid FieldDescriptorProto: type_name .acme.Missing not found)",
    ],
  ])("rejects %s", (_name, bytes, root, code, message) => {
    expect(() => rebuildRoot(bytes, root)).toThrow(expect.objectContaining({ name: "InvalidDescriptorError", code, message }));
  });
});

describe("typeFromNormalized (transfer and snapshot restore)", () => {
  const settings = { maxMessageBytes: 1000, maxDepth: 10, deterministic: true, aliasThreshold: 0 };

  test("rebuilds a type with its own descriptors and the given settings", () => {
    const desc = messageFromDir("fixtures/descriptors/canonical", "acme.Order");
    const original = ProtobufType.newBuilder(desc).maxMessageBytes(1000).maxDepth(10).deterministic(true).build();
    const restored = typeFromNormalized(original.normalizedDescriptorSet(), "acme.Order", settings);
    expect(restored.equals(original)).toBe(true);
    expect(restored.descriptor).not.toBe(desc);
  });

  test.each<[string, () => Uint8Array, string, string]>([
    [
      "a set that is not normalized",
      () => compileProtoDir("fixtures/descriptors/canonical"),
      "SET_NOT_NORMALIZED",
      "invalid descriptor acme.Order: the descriptor set is not in normalization version 1 form, so it would not keep its identity",
    ],
    [
      "a set that breaks a payload rule",
      () => setBytes([acme({ messageType: [{ name: "Order", field: [scalar("id", 0)] }] })]),
      "FIELD_NUMBER_TOO_SMALL",
      "invalid descriptor acme.Order: field acme.Order.id has number 0 below 1; use a number in 1..536870911",
    ],
  ])("rejects %s", (_name, make, code, message) => {
    expect(() => typeFromNormalized(make(), "acme.Order", settings)).toThrow(
      expect.objectContaining({ name: "InvalidDescriptorError", code, message }),
    );
  });
});
