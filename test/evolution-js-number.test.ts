// Adding [jstype = JS_NUMBER] to a 64-bit field: the dynamic kind then holds its values as JS
// numbers and refuses any beyond ±(2^53 − 1) (UNSAFE_INTEGER), which data written without the
// option may hold. The evaluator called this compatible, so a store restored and checkpointed
// under the new schema and a serializer of the new schema wrote saved values it could not read
// back. Now it is JSTYPE_NUMBER_ADDED for the dynamic kind at every entry point, while the
// generated kind (bigint, as protobuf-es) still reads, writes and resolves such data.
import { createFileRegistry, fromBinary, type DescMessage } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { describe, expect, test } from "vitest";
import { CodecError, DynamicMessage, ProtobufType, evaluateSchemaChange, readSnapshot, writeSnapshot } from "../src/index.js";
import { compileProtoText } from "./support/buf.js";

function reading(body: string): DescMessage {
  const text = `syntax = "proto3";\npackage iot;\nmessage Reading {\n  string device = 1;\n${body}\n}\n`;
  return createFileRegistry(fromBinary(FileDescriptorSetSchema, compileProtoText({ "iot/reading.proto": text }))).getMessage("iot.Reading")!;
}

const BEYOND = 9007199254740993n; // 2^53 + 1

// [change, saved field, current field, flagged, the JSON boundary's findings where the JSON walk
// stops at another incompatibility of the field first]
const CASES: [string, string, string, boolean, string[]?][] = [
  ["int64 gains JS_NUMBER", "int64 total = 2;", "int64 total = 2 [jstype = JS_NUMBER];", true],
  ["uint64 gains JS_NUMBER", "uint64 total = 2;", "uint64 total = 2 [jstype = JS_NUMBER];", true],
  ["sint64 gains JS_NUMBER", "sint64 total = 2;", "sint64 total = 2 [jstype = JS_NUMBER];", true],
  ["fixed64 gains JS_NUMBER", "fixed64 total = 2;", "fixed64 total = 2 [jstype = JS_NUMBER];", true],
  ["sfixed64 gains JS_NUMBER", "sfixed64 total = 2;", "sfixed64 total = 2 [jstype = JS_NUMBER];", true],
  ["JS_STRING becomes JS_NUMBER", "int64 total = 2 [jstype = JS_STRING];", "int64 total = 2 [jstype = JS_NUMBER];", true],
  ["repeated int64 gains JS_NUMBER", "repeated int64 total = 2;", "repeated int64 total = 2 [jstype = JS_NUMBER];", true],
  ["singular int64 becomes repeated with JS_NUMBER", "int64 total = 2;", "repeated int64 total = 2 [jstype = JS_NUMBER];", true, ["JSON_SINGULAR_TO_REPEATED at iot.Reading.total(2)"]],
  ["optional int64 gains JS_NUMBER", "optional int64 total = 2;", "optional int64 total = 2 [jstype = JS_NUMBER];", true],
  ["int32 widened to int64 with JS_NUMBER (every int32 fits)", "int32 total = 2;", "int64 total = 2 [jstype = JS_NUMBER];", false],
  ["uint32 widened to int64 with JS_NUMBER", "uint32 total = 2;", "int64 total = 2 [jstype = JS_NUMBER];", false],
  ["JS_NUMBER kept", "int64 total = 2 [jstype = JS_NUMBER];", "int64 total = 2 [jstype = JS_NUMBER];", false],
  ["JS_NUMBER removed", "int64 total = 2 [jstype = JS_NUMBER];", "int64 total = 2;", false],
  ["JS_NUMBER becomes JS_STRING", "int64 total = 2 [jstype = JS_NUMBER];", "int64 total = 2 [jstype = JS_STRING];", false],
];

describe("the verdict", () => {
  test.each(CASES)("%s", (_change, savedField, currentField, flagged, jsonFirst) => {
    const saved = reading(savedField);
    const current = reading(currentField);
    const expected = flagged ? ["JSTYPE_NUMBER_ADDED at iot.Reading.total(2)"] : [];
    const found = (boundary: "binary" | "json" | "binary+json") =>
      evaluateSchemaChange(saved, current, { boundary }).incompatibilities.map((f) => `${f.rule} at ${f.path}`);
    expect(found("binary")).toEqual(expected);
    expect(found("json")).toEqual(jsonFirst ?? expected);
    expect(found("binary+json")).toEqual([...expected, ...(jsonFirst ?? [])]);
    // Snapshots: the dynamic kind resolves by the same rule; the generated kind never reports it.
    const savedDynamic = readSnapshot(writeSnapshot(ProtobufType.of(saved).createSerializer().snapshotConfiguration()));
    const dynamic = ProtobufType.of(current).createSerializer().snapshotConfiguration().resolveSchemaCompatibility(savedDynamic);
    expect(dynamic.kind === "incompatible" ? dynamic.incompatibilities.map((f) => f.rule) : []).toEqual(flagged ? ["JSTYPE_NUMBER_ADDED"] : []);
    const savedGenerated = readSnapshot(writeSnapshot(ProtobufType.ofGenerated(saved).createSerializer().snapshotConfiguration()));
    expect(ProtobufType.ofGenerated(current).createSerializer().snapshotConfiguration().resolveSchemaCompatibility(savedGenerated)).toEqual({
      kind: "compatibleAsIs",
    });
  });

  test("the message names the field, both types and what to do", () => {
    const r = evaluateSchemaChange(reading("repeated int64 total = 2;"), reading("repeated int64 total = 2 [jstype = JS_NUMBER];"), { boundary: "json" });
    expect(r.incompatibilities.map((f) => f.message)).toEqual([
      "field iot.Reading.total(2) (repeated int64) has jstype = JS_NUMBER, which the saved repeated int64 did not: its values are JS numbers, exact only within ±(2^53 − 1), and the current parser rejects saved JSON values beyond that (JSON_INVALID_VALUE); remove jstype = JS_NUMBER (or use JS_STRING)",
    ]);
  });
});

describe("what the verdict protects", () => {
  const saved = reading("int64 total = 2;");
  const current = reading("int64 total = 2 [jstype = JS_NUMBER];");

  test("the saved data is what the current dynamic reader refuses, in binary and in JSON", () => {
    const value = DynamicMessage.create(saved, { device: "d", total: BEYOND });
    const bytes = ProtobufType.of(saved).createSerializer().toBinary(value);
    const reader = ProtobufType.of(current).createSerializer();
    expect(() => reader.fromBinary(bytes)).toThrow(
      expect.objectContaining({
        code: "UNSAFE_INTEGER",
        message:
          "cannot decode iot.Reading: field iot.Reading.total(2) at byte 3 holds an int64 value beyond ±(2^53 − 1), which the field's jstype = JS_NUMBER cannot hold exactly; remove jstype = JS_NUMBER (or use JS_STRING) to read such values, or have the writer keep the field within Number.MAX_SAFE_INTEGER",
      }),
    );
    const json = ProtobufType.of(saved).createSerializer().toJsonString(value);
    expect(() => reader.fromJsonString(json)).toThrow(expect.objectContaining({ code: "JSON_INVALID_VALUE" }));
  });

  test("a current dynamic serializer refuses a saved value before writing a byte, and keeps writing", () => {
    const writer = ProtobufType.of(current).createSerializer();
    const value = DynamicMessage.create(saved, { device: "d", total: BEYOND });
    let error: unknown;
    try {
      writer.encode(value);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CodecError);
    expect((error as CodecError).code).toBe("INCOMPATIBLE_VALUE_DESCRIPTOR");
    expect((error as CodecError).message).toContain("JSTYPE_NUMBER_ADDED at iot.Reading.total(2)");
    expect(() => writer.encodeAll([DynamicMessage.create(current, { device: "ok", total: 5 }), value])).toThrow(
      expect.objectContaining({ code: "INCOMPATIBLE_VALUE_DESCRIPTOR" }),
    );
    // Its own values still write and read back.
    const own = writer.toBinary(DynamicMessage.create(current, { device: "ok", total: 2 ** 53 - 1 }));
    expect(writer.fromBinary(own).get("total")).toBe(2 ** 53 - 1);
  });

  test("a current generated serializer writes a saved value and reads it back exactly", () => {
    const writer = ProtobufType.ofGenerated(current).createSerializer();
    const value = ProtobufType.ofGenerated(saved).createSerializer().fromBinary(
      ProtobufType.of(saved).createSerializer().toBinary(DynamicMessage.create(saved, { device: "d", total: BEYOND })),
    );
    const back = writer.fromBinary(writer.toBinary(value));
    expect((back as unknown as { total: bigint }).total).toBe(BEYOND);
  });
});
