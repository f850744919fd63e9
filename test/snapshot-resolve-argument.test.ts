// resolveSchemaCompatibility takes a serializer snapshot. Anything else (the bytes writeSnapshot
// wrote, before readSnapshot; null; {}) was answered "incompatible, SNAPSHOT_KIND_CHANGED",
// and a program following the README's upgrade pattern dropped its state for a programming
// error: it is a TypeError now, on both kinds. A snapshot of the other kind stays incompatible.
import { describe, expect, test } from "vitest";
import { ProtobufType, readSnapshot, writeSnapshot } from "../src/index.js";
import { OrderSchema } from "./fixtures/generated-es/gen/es_fixtures_pb.js";

const dynamic = ProtobufType.of(OrderSchema).createSerializer().snapshotConfiguration();
const generated = ProtobufType.ofGenerated(OrderSchema).createSerializer().snapshotConfiguration();
const bytes = writeSnapshot(dynamic);
const expects = "resolveSchemaCompatibility expects a serializer snapshot (readSnapshot(bytes) returns one), got";

describe.each([
  ["dynamic", dynamic],
  ["generated", generated],
] as const)("a %s snapshot", (_kind, current) => {
  test.each([
    ["writeSnapshot's bytes", bytes, `${expects} Uint8Array: read the bytes with readSnapshot first`],
    ["null", null, `${expects} null`],
    ["undefined", undefined, `${expects} undefined`],
    ["{}", {}, `${expects} Object`],
    ["a string", "x", `${expects} string`],
    ["an object with a className but no writePayload", { className: "protokeel.ProtobufDynamicSerializerSnapshot" }, `${expects} Object`],
  ])("given %s: TypeError", (_what, saved, message) => {
    expect(() => current.resolveSchemaCompatibility(saved as never)).toThrow(new TypeError(message));
    expect(() => current.resolveSchemaCompatibility(saved as never)).toThrow(TypeError);
  });

  test("given a snapshot of either kind: a verdict", () => {
    expect(current.resolveSchemaCompatibility(readSnapshot(bytes)).kind).toBe(current === dynamic ? "compatibleAsIs" : "incompatible");
    expect(current.resolveSchemaCompatibility(generated).kind).toBe(current === generated ? "compatibleAsIs" : "incompatible");
  });
});
