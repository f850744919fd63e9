// google.protobuf.Struct, Value and ListValue are converted as one JSON value, so a look-alike
// of them (a protobufjs schema, a hand-made set, a local struct.proto) is taken for the real one
// only when all three are shaped as struct.proto declares them. Names, numbers and kinds alone
// passed: a Struct with int32 or bool map keys took JSON keys into that map and wrote garbage
// ({a, b} came back as the one key 0), uint64 keys threw an untyped SyntaxError, map<string,
// int32> an untyped TypeError, and a Value whose members are in no oneof lost all but one.
import protobuf from "protobufjs";
import { describe, expect, test } from "vitest";
import { DynamicMessage, ProtobufType } from "../src/index.js";

const STRUCT_PROTO = (struct: string, value: string, list: string) => `syntax = "proto3"; package google.protobuf;
message Struct { ${struct} }
message Value { ${value} }
message ListValue { ${list} }
enum NullValue { NULL_VALUE = 0; }`;
const REAL = ["map<string, Value> fields = 1;", "oneof kind { NullValue null_value = 1; double number_value = 2; string string_value = 3; bool bool_value = 4; Struct struct_value = 5; ListValue list_value = 6; }", "repeated Value values = 1;"] as const;

function typeWith(wkt: string): ProtobufType {
  const root = protobuf.parse(wkt, { keepCase: true }).root;
  protobuf.parse(`syntax = "proto3"; package t; message M { google.protobuf.Struct s = 1; google.protobuf.Value v = 2; google.protobuf.ListValue l = 3; }`, root, { keepCase: true });
  return ProtobufType.of(root.lookupType("t.M"));
}

describe("look-alikes are ordinary messages", () => {
  test.each([
    ["int32 map keys", STRUCT_PROTO("map<int32, Value> fields = 1;", REAL[1], REAL[2])],
    ["bool map keys", STRUCT_PROTO("map<bool, Value> fields = 1;", REAL[1], REAL[2])],
    ["uint64 map keys", STRUCT_PROTO("map<uint64, Value> fields = 1;", REAL[1], REAL[2])],
    ["int32 map values", STRUCT_PROTO("map<string, int32> fields = 1;", REAL[1], REAL[2])],
    ["string list elements", STRUCT_PROTO(REAL[0], REAL[1], "repeated string values = 1;")],
    ["Value members outside a oneof", STRUCT_PROTO(REAL[0], "NullValue null_value = 1; double number_value = 2; string string_value = 3; bool bool_value = 4; Struct struct_value = 5; ListValue list_value = 6;", REAL[2])],
  ])("%s: the JSON form of Struct is refused with a typed error, fields read as fields", (_what, wkt) => {
    const ser = typeWith(wkt).createSerializer();
    expect(() => ser.fromJson({ s: { a: 1, b: 2 } })).toThrow(expect.objectContaining({ name: "CodecError", code: "JSON_UNKNOWN_FIELD" }));
    const asFields = ser.toJson(ser.fromJson({ s: {} }));
    expect(asFields).toEqual({ s: {} });
  });

  test("a Value whose members are outside a oneof writes every member it holds", () => {
    const type = typeWith(STRUCT_PROTO(REAL[0], "NullValue null_value = 1; double number_value = 2; string string_value = 3; bool bool_value = 4; Struct struct_value = 5; ListValue list_value = 6;", REAL[2]));
    const m = DynamicMessage.create(type.descriptor, { v: { number_value: 1, string_value: "x", bool_value: true } });
    expect(type.createSerializer().toJson(m)).toEqual({ v: { numberValue: 1, stringValue: "x", boolValue: true } });
  });
});

test("struct.proto's own shape is the JSON value", () => {
  const ser = typeWith(STRUCT_PROTO(...REAL)).createSerializer();
  const json = { s: { a: 1, b: [true, null, "x", { c: {} }] }, v: "y", l: [1, "z"] };
  expect(ser.toJson(ser.fromJson(json))).toEqual(json);
});
