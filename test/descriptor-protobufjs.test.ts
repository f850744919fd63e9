import { describe, expect, test } from "vitest";
import protobuf from "protobufjs";
import { DynamicMessage, ProtobufType } from "../src/index.js";
import { messageFromDir } from "./support/buf.js";
import { compileProtoText } from "./support/buf.js";
import { createFileRegistry, fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";

const CANONICAL = "fixtures/descriptors/canonical";

function fromText(text: string, keepCase: boolean, name: string): ProtobufType {
  return ProtobufType.of(protobuf.parse(text, { keepCase }).root.lookupType(name));
}

function fromBuf(text: string, name: string): ProtobufType {
  const reg = createFileRegistry(fromBinary(FileDescriptorSetSchema, compileProtoText({ "x.proto": text })));
  return ProtobufType.of(reg.getMessage(name)!);
}

describe("protobufjs input", () => {
  test("a nested root resolves to its own full name; its top-level parent enters the closure", () => {
    const root = new protobuf.Root().loadSync(new URL(`${CANONICAL}/acme/order.proto`, import.meta.url).pathname, { keepCase: true });
    const cash = ProtobufType.of(root.lookupType("acme.Order.Cash"));
    expect(cash.fullName).toBe("acme.Order.Cash");
    expect(cash.equals(ProtobufType.of(messageFromDir(CANONICAL, "acme.Order.Cash")))).toBe(true);
  });

  test("the lowered descriptor builds values", () => {
    const type = fromText('syntax = "proto3"; package acme; message M { int64 id = 1; map<string, int32> counts = 2; }', true, "acme.M");
    const m = DynamicMessage.create(type.descriptor, { id: 5n, counts: { a: 1 } });
    expect(m.get("id")).toBe(5n);
    expect(type.descriptor.field.counts!.fieldKind).toBe("map");
  });

  test.each([true, false])("proto3 optional, maps and nested enums match buf with keepCase %s", (keepCase) => {
    const text = `syntax = "proto3";
package acme;
message Order {
  optional string gift_note = 1;
  map<string, Line> line_items = 2;
  enum Mode { MODE_UNSPECIFIED = 0; MODE_FAST = 1; }
  Mode delivery_mode = 3;
  repeated Mode past_modes = 4 [packed = false];
  message Line { string sku = 1; }
}`;
    expect(fromText(text, keepCase, "acme.Order").equals(fromBuf(text, "acme.Order"))).toBe(true);
  });

  test("protobufjs camelCases oneof names under keepCase: false, so such a schema is different content", () => {
    // protobufjs keeps field proto names but not oneof names; load with keepCase: true instead.
    const text = 'syntax = "proto3"; package acme; message Pay { oneof pay_method { string card = 1; string cash = 2; } }';
    const buf = fromBuf(text, "acme.Pay");
    expect(fromText(text, true, "acme.Pay").equals(buf)).toBe(true);
    expect(fromText(text, false, "acme.Pay").equals(buf)).toBe(false);
  });
});
