// Arguments of the wrong shape are TypeErrors that name the call, not the engine's own errors
// ("Cannot read properties of null (reading 'savedSettings')", "values is not iterable").
import { describe, expect, test } from "vitest";
import { evaluateSchemaChange, ProtobufType } from "../src/index.js";
import { OrderSchema } from "./fixtures/generated-es/gen/es_fixtures_pb.js";

describe("evaluateSchemaChange options", () => {
  test.each([
    [null, "evaluateSchemaChange: options must be an object ({ savedSettings?, currentSettings?, boundary? }), got null"],
    ["binary", "evaluateSchemaChange: options must be an object ({ savedSettings?, currentSettings?, boundary? }), got string"],
    [{ savedSettings: null }, "evaluateSchemaChange: option savedSettings must be an object of settings, got null"],
    [{ currentSettings: 5 }, "evaluateSchemaChange: option currentSettings must be an object of settings, got number"],
  ])("%o", (options, message) => {
    expect(() => evaluateSchemaChange(OrderSchema, OrderSchema, options as never)).toThrow(new TypeError(message));
    expect(() => evaluateSchemaChange(OrderSchema, OrderSchema, options as never)).toThrow(TypeError);
  });
});

describe.each([
  ["dynamic", ProtobufType.of(OrderSchema).createSerializer()],
  ["generated", ProtobufType.ofGenerated(OrderSchema).createSerializer()],
] as const)("%s encodeAll", (_kind, ser) => {
  test.each([
    [null, "null"],
    [undefined, "undefined"],
    [5, "number"],
    [{}, "object"],
  ])("of %o", (values, got) => {
    const run = () => (ser.encodeAll as (v: unknown) => Uint8Array)(values);
    expect(run).toThrow(new TypeError(`serializer.encodeAll expects an iterable of values (an array), got ${got}`));
    expect(run).toThrow(TypeError);
  });

  test("of a Set (any iterable) writes its values", () => {
    expect(ser.encodeAll(new Set<never>()).length).toBe(0);
  });
});
