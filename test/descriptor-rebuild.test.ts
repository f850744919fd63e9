import { describe, expect, test } from "vitest";
import { normalize } from "../src/descriptor/normalize.js";
import { rebuildRoot } from "../src/descriptor/rebuild.js";
import { messageFromDir } from "./support/buf.js";
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
