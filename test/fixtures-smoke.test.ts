import { expect, test } from "vitest";
import { messageFromDir } from "./support/buf.js";

test("buf compiles fixture directories offline, imports included", () => {
  const order = messageFromDir("fixtures/smoke", "acme.Order");
  expect(order.fields.map((f) => f.name)).toEqual(["id", "at"]);
  expect(order.fields[1]!.message?.typeName).toBe("google.protobuf.Timestamp");
});
