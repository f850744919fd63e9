// The bench's protokeel adapter skips with a reason until dist/ has what it calls, and so starts
// measuring protokeel by itself once the serializer is built.
import { describe, expect, test } from "vitest";
import { missingApi } from "../bench/adapters/protokeel.mjs";

class WithSerializer {
  static of() {
    return new WithSerializer();
  }
  createSerializer() {
    return {};
  }
}
class WithoutSerializer {
  static of() {
    return new WithoutSerializer();
  }
}
const DynamicMessage = { create: () => ({}) };

describe("bench protokeel adapter", () => {
  test.each([
    ["no ProtobufType", {}, "dist/ does not export ProtobufType"],
    ["no createSerializer", { ProtobufType: WithoutSerializer, DynamicMessage }, "ProtobufType has no createSerializer()"],
    ["no DynamicMessage", { ProtobufType: WithSerializer }, "dist/ does not export DynamicMessage"],
    ["everything", { ProtobufType: WithSerializer, DynamicMessage }, null],
  ] as const)("%s", (_case, mod, expected) => {
    expect(missingApi(mod as Record<string, unknown>)).toBe(expected);
  });
});
