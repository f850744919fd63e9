// Well-known types read from and written to ProtoJSON only as values that come back unchanged:
// - a Value's number_value -0 is written "-0" whatever else the message holds (it was "-0" only
//   when another double field held -0, so the text of one Value depended on its siblings);
// - a FieldMask path with a comma, or an empty path, is not representable (it was written as
//   text that reads back as other paths, silently);
// - a FieldMask or an Any type URL with a lone surrogate is refused on read (it was accepted,
//   and encoded as U+FFFD: the bytes read back as another value), as every string field is;
// - a Value number of 400 digits is refused like 1e400 (it read as Infinity, which toJson then
//   refused).
import { describe, expect, test } from "vitest";
import { CodecError, DynamicMessage, ProtobufType } from "../src/index.js";
import { createFileRegistry, fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { compileProtoText, registryFromDir } from "./support/buf.js";

const registry = registryFromDir("fixtures/all-types");
const All = registry.getMessage("alltypes.AllTypes")!;
const ser = ProtobufType.of(All).createSerializer();
const HEAD = "cannot read alltypes.AllTypes from JSON: ";

function code(run: () => unknown): string {
  try {
    run();
  } catch (e) {
    if (e instanceof CodecError) return e.code;
    throw e;
  }
  return "ok";
}

describe("a Value's -0", () => {
  test.each([
    ["alone", { wkt_value: { number_value: -0 } }, '{"wktValue":-0}'],
    ["beside a double 1", { wkt_value: { number_value: -0 }, f_double: 1 }, '{"fDouble":1,"wktValue":-0}'],
    ["in a list", { wkt_list_value: { values: [{ number_value: -0 }, { number_value: 0 }] } }, '{"wktListValue":[-0,0]}'],
    ["in a struct", { wkt_struct: { fields: { a: { number_value: -0 } } } }, '{"wktStruct":{"a":-0}}'],
  ])("%s", (_name, init, text) => {
    const value = DynamicMessage.create(All, init);
    expect(ser.toJsonString(value)).toBe(text);
    expect(ser.toBinary(ser.fromJsonString(text))).toEqual(ser.toBinary(value));
  });
});

describe("FieldMask paths that do not survive the comma-joined text", () => {
  test.each([
    ["a comma", ["a,b"], "a,b", "the comma"],
    ["an empty path", [""], "", "the empty path"],
    ["an empty path among others", ["a", ""], "", "the empty path"],
  ])("%s", (_name, paths, shown, fix) => {
    let error: unknown;
    try {
      ser.toJson(DynamicMessage.create(All, { wkt_field_mask: { paths } }));
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({
      code: "JSON_NOT_REPRESENTABLE",
      message: `cannot write alltypes.AllTypes to JSON: alltypes.AllTypes.wkt_field_mask(148) is a google.protobuf.FieldMask with path ${JSON.stringify(shown)}, which the comma-separated form cannot hold; remove ${fix}`,
    });
  });

  // The reader refuses what the writer cannot write back (as Go's protojson does): "a,,b" was read
  // as the paths a, "" and b, whose JSON then failed to write.
  test.each(['"a,,b"', '"a,"', '","', '",a"'])("the text %s is refused when read", (text) => {
    let error: unknown;
    try {
      ser.fromJsonString(`{"wktFieldMask": ${text}}`);
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({
      code: "JSON_INVALID_VALUE",
      message: `cannot read alltypes.AllTypes from JSON: alltypes.AllTypes.wkt_field_mask(148) expects comma-separated non-empty paths in a google.protobuf.FieldMask, got string ${text}; fix the value or read with the schema that wrote it`,
    });
  });

  test("an empty text is no paths, and every non-empty path list reads back", () => {
    expect(ser.fromJsonString('{"wktFieldMask": ""}').get("wkt_field_mask")).toBeDefined();
    for (const paths of [["a"], ["a", "b_c"], ["a.b", "c"]]) {
      const v = DynamicMessage.create(All, { wkt_field_mask: { paths } });
      expect(ser.fromJson(ser.toJson(v)).equals(v)).toBe(true);
    }
  });
});

describe("text with a lone surrogate is refused wherever it would be stored", () => {
  test.each([
    ["a FieldMask", '{"wktFieldMask": "ab\\ud800"}', "alltypes.AllTypes.wkt_field_mask(148) expects a well-formed string, with no lone surrogate"],
    ["an Any's type URL", '{"wktAny": {"@type": "x\\udc00/alltypes.Leaf", "value": 1}}', 'alltypes.AllTypes.wkt_any(143) expects a well-formed "@type", with no lone surrogate'],
  ])("%s", (_name, text, message) => {
    let error: unknown;
    try {
      ser.fromJsonString(text, { registry });
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ code: "JSON_INVALID_VALUE" });
    expect((error as Error).message.startsWith(HEAD + message)).toBe(true);
  });
});

describe("Value numbers", () => {
  test.each([
    ["400 digits", `{"wktValue": ${"1".padEnd(400, "0")}}`, "JSON_INVALID_VALUE"],
    ["-400 digits in a list", `{"wktListValue": [-${"1".padEnd(400, "0")}]}`, "JSON_INVALID_VALUE"],
    ["1e400", '{"wktValue": 1e400}', "JSON_INVALID_VALUE"],
    ["300 digits", `{"wktValue": ${"1".padEnd(300, "0")}}`, "ok"],
  ])("%s", (_name, text, expected) => {
    expect(code(() => ser.fromJsonString(text))).toBe(expected);
  });
});

describe('an Any holding a type with a field whose JSON name is "@type"', () => {
  // protoc and buf accept json_name = "@type". The field's key overwrote the Any's type URL
  // ({"any":{"@type":5}}), text that no reader (protokeel's own included) reads back.
  const proto = `syntax = "proto3";
package x;
import "google/protobuf/any.proto";
message Odd { int32 a = 1 [json_name = "@type"]; int32 b = 2; google.protobuf.Any any = 7; }
`;
  const reg = createFileRegistry(fromBinary(FileDescriptorSetSchema, compileProtoText({ "x/odd.proto": proto })));
  const Odd = reg.getMessage("x.Odd")!;
  const odd = ProtobufType.of(Odd).createSerializer();
  const value = DynamicMessage.create(Odd, { any: { type_url: "type.googleapis.com/x.Odd", value: odd.toBinary({ a: 5, b: 6 }) } });

  test("is JSON_NOT_REPRESENTABLE with JSON names", () => {
    let error: unknown;
    try {
      odd.toJsonString(value, { registry: reg });
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({
      code: "JSON_NOT_REPRESENTABLE",
      message:
        'cannot write x.Odd to JSON: x.Odd.any(7) is a google.protobuf.Any holding x.Odd, whose field a has the JSON name "@type", which the Any\'s JSON object uses for its type URL; write with proto field names (useProtoFieldName) or rename the field\'s json_name',
    });
  });

  test("is written with proto field names, and reads back", () => {
    const json = odd.toJson(value, { registry: reg, useProtoFieldName: true });
    expect(json).toEqual({ any: { "@type": "type.googleapis.com/x.Odd", a: 5, b: 6 } });
    expect(odd.fromJson(json, { registry: reg }).equals(value)).toBe(true);
  });
});
