// A FileDescriptorSet whose fields set no json_name (optional in descriptor.proto: protoc fills it
// in, hand-made sets and some tools do not). Normalization records protoc's names, and so must
// everything that reads JSON names: @bufbuild/protobuf's DescField.jsonName is "" there, and
// ProtoJSON wrote every field under the key "" (all but the last lost, {"":2}), read none by its
// JSON name, and the evaluator compared "" with "" (false JSON_FIELD_NAMES_SWAPPED and
// JSON_FIELD_NAME_REUSED, a rename note saying the JSON name "stays ''").
import { create, createFileRegistry, fromBinary, toBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { describe, expect, test } from "vitest";
import { DynamicMessage, evaluateSchemaChange, ProtobufType } from "../src/index.js";

const setOf = (names: string[]): Uint8Array =>
  toBinary(
    FileDescriptorSetSchema,
    create(FileDescriptorSetSchema, {
      file: [{ name: "a.proto", package: "acme", syntax: "proto3", messageType: [{ name: "Order", field: names.map((n, i) => ({ name: n, number: i + 1, label: 1, type: 5 })) }] }],
    }),
  );
const bare = { fileDescriptorSet: setOf(["order_id", "qty"]), messageName: "acme.Order" };

describe.each<[string, () => ProtobufType]>([
  ["descriptor set input", () => ProtobufType.of(bare)],
  ["a DescMessage of a registry made from it", () => ProtobufType.of(createFileRegistry(fromBinary(FileDescriptorSetSchema, bare.fileDescriptorSet)).getMessage("acme.Order")!)],
  ["the type after its transfer form", () => ProtobufType.fromBytes(ProtobufType.of(bare).toBytes())],
])("%s", (_name, make) => {
  const type = make();
  const ser = type.createSerializer();
  const value = DynamicMessage.create(type.descriptor, { order_id: 7, qty: 2 });

  test("ProtoJSON writes and reads protoc's JSON names", () => {
    expect(ser.toJson(value)).toEqual({ orderId: 7, qty: 2 });
    expect(ser.fromJson({ orderId: 7, qty: 2 }).equals(value)).toBe(true);
    expect(ser.fromJson({ order_id: 7 }).get("order_id")).toBe(7);
    expect(() => ser.fromJson({ order_id: 7, orderId: 8 })).toThrow(expect.objectContaining({ code: "JSON_FIELD_SET_TWICE" }));
  });

  test("it is the same type as the one compiled by buf, and writes the same JSON", () => {
    expect(type.equals(ProtobufType.of(bare))).toBe(true);
    expect(ProtobufType.fromBytes(type.toBytes()).createSerializer().toJson(ProtobufType.fromBytes(type.toBytes()).createSerializer().fromBinary(ser.toBinary(value)))).toEqual(ser.toJson(value));
  });
});

test("the evaluator reads protoc's JSON names: no findings for the same schema, one JSON change for a rename", () => {
  const same = evaluateSchemaChange(bare, { fileDescriptorSet: setOf(["order_id", "qty"]), messageName: "acme.Order" }, { boundary: "binary+json" });
  expect([same.compatible, same.incompatibilities.length, same.notes.length]).toEqual([true, 0, 0]);
  const renamed = evaluateSchemaChange(bare, { fileDescriptorSet: setOf(["order_no", "qty"]), messageName: "acme.Order" }, { boundary: "binary+json" });
  expect(renamed.incompatibilities.map((f) => `${f.rule} at ${f.path}`)).toEqual(["JSON_FIELD_NAME_CHANGED at acme.Order.order_no(1)"]);
  expect(renamed.incompatibilities[0]!.message).toContain('was order_id (JSON "orderId")');
  expect(renamed.notes.map((f) => f.rule)).toEqual(["FIELD_RENAMED"]);
  expect(renamed.notes[0]!.message).toContain('its JSON name changes from "orderId" to "orderNo"');
});
