// Field, oneof and map-key names that mean something to JavaScript objects: __proto__,
// constructor, toString, hasOwnProperty, valueOf, prototype, then, length, and the oneof members
// "case" and "value" that protobuf-es' oneof objects themselves use. Each is data: the dynamic kind
// (init objects, DynamicMessage, toObject, ProtoJSON) and the generated kind (protobuf-es' local
// names, "constructor$" and the like) read and write them as @bufbuild/protobuf does, and no
// object's prototype changes. (protobuf-es' create copies an inherited `hasOwnProperty` from its
// init object into a field of that name: such a value is refused, by protobuf-es too.)
//
// protobufjs drops every declaration named __proto__ when it parses (a guard against prototype
// pollution, src/type.js), so such a schema loaded through protobufjs has lost the field before
// protokeel sees it; load it as a FileDescriptorSet instead (README, "protobufjs input").
import { create, createFileRegistry, fromBinary, toBinary, toJson, type Message } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import protobuf from "protobufjs";
import { describe, expect, test } from "vitest";
import { DynamicMessage, ProtobufType } from "../src/index.js";
import { compileProtoText } from "./support/buf.js";

const PROTO = `syntax = "proto3";
package names;
message Odd {
  int32 __proto__ = 1;
  string constructor = 2;
  int32 to_string = 3;
  int32 has_own_property = 4;
  int32 value_of = 5;
  oneof kind { int32 case = 6; string value = 7; }
  map<string, int32> prototype = 8;
  int32 type_name = 9;
  int32 _type_name = 10;
  Odd child = 11;
  int32 unknown = 12;
  int32 __define_getter__ = 13;
  int32 is_prototype_of = 14;
  oneof proto_x { int64 a = 15; }
  int32 then = 16;
  repeated int32 length = 17;
  map<string, Odd> __lookup_getter__ = 18;
}
`;
const reg = createFileRegistry(fromBinary(FileDescriptorSetSchema, compileProtoText({ "names.proto": PROTO })));
const Odd = reg.getMessage("names.Odd")!;
const ser = ProtobufType.of(Odd).createSerializer();
const gen = ProtobufType.ofGenerated(Odd).createSerializer();

/** An init object (proto names) with every field set; __proto__ as an own property. */
function init(): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  Object.defineProperty(o, "__proto__", { value: 5, enumerable: true, writable: true, configurable: true });
  const prototype: Record<string, unknown> = { a: 1 };
  Object.defineProperty(prototype, "__proto__", { value: 2, enumerable: true, writable: true, configurable: true });
  const child: Record<string, unknown> = { constructor: "cc", then: 3 };
  Object.assign(o, {
    constructor: "c", to_string: 3, has_own_property: 4, value_of: 5, value: "v", prototype, type_name: 9, _type_name: 10, child,
    unknown: 12, __define_getter__: 13, is_prototype_of: 14, a: 15n, then: 16, length: [1, 2, 3], __lookup_getter__: { toString: { length: [7] } },
  });
  return o;
}

describe("every name is a field, in both kinds", () => {
  const bytes = ser.toBinary(DynamicMessage.create(Odd, init() as never));
  const es = fromBinary(Odd, bytes);

  test("the bytes hold every field, as protobuf-es reads and writes them", () => {
    expect(ser.toBinary(init() as never)).toEqual(bytes);
    expect(toBinary(Odd, es)).toEqual(bytes);
    const json = toJson(Odd, es) as Record<string, unknown>;
    expect(Object.keys(json).sort()).toEqual(
      ["Proto", "constructor", "toString", "hasOwnProperty", "valueOf", "value", "prototype", "typeName", "TypeName", "child", "unknown", "DefineGetter", "isPrototypeOf", "a", "then", "length", "LookupGetter"].sort(),
    );
    expect(json.Proto).toBe(5);
    expect(json.prototype).toEqual(JSON.parse('{"a":1,"__proto__":2}'));
  });

  test("dynamic kind: decode, ProtoJSON both ways, toObject", () => {
    const value = ser.fromBinary(bytes);
    expect(value.get("__proto__")).toBe(5);
    expect(value.get("constructor")).toBe("c");
    expect(value.get("value")).toBe("v");
    expect(ser.toJson(value)).toEqual(toJson(Odd, es));
    expect(ser.toBinary(ser.fromJson(toJson(Odd, es)))).toEqual(bytes);
    const obj = value.toObject() as Record<string, unknown>;
    expect(Object.getPrototypeOf(obj)).toBe(Object.prototype);
    expect(Object.hasOwn(obj, "__proto__")).toBe(true);
    expect(obj.__proto__).toBe(5);
    expect([...(value.get("prototype") as Map<string, number>).entries()]).toEqual([["a", 1], ["__proto__", 2]]);
    expect(ser.toBinary(DynamicMessage.create(Odd, obj as never))).toEqual(bytes);
  });

  test("generated kind: protobuf-es' local names, both ways", () => {
    expect(gen.toBinary(es)).toEqual(bytes);
    const value = gen.fromBinary(bytes) as unknown as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(Object.keys(es));
    expect([value.Proto, value.constructor$, value.toString$, value.valueOf$, value.then]).toEqual([5, "c", 3, 5, 16]);
    expect(value.kind).toEqual({ case: "value", value: "v" });
    expect(Object.getPrototypeOf(value.prototype)).toBe(Object.prototype);
    expect(Object.keys(value.prototype as object)).toEqual(["a", "__proto__"]);
    expect(toBinary(Odd, value as never)).toEqual(bytes);
    const caseMember = fromBinary(Odd, new Uint8Array(0)) as unknown as { kind: unknown } & Message;
    caseMember.kind = { case: "case", value: 6 };
    expect(gen.toBinary(caseMember)).toEqual(toBinary(Odd, caseMember));
  });

  test("protobuf-es' create copies an inherited hasOwnProperty from its init object: both refuse to write it", () => {
    // create(Odd, {}) reads init.hasOwnProperty, Object.prototype's function, into the field.
    const broken = create(Odd, {});
    expect(typeof (broken as unknown as Record<string, unknown>).hasOwnProperty).toBe("function");
    expect(() => toBinary(Odd, broken)).toThrow(/has_own_property/);
    expect(() => gen.toBinary(broken)).toThrow(new TypeError("field names.Odd.has_own_property(4) expects int32, got a function"));
  });

  test("no prototype changed on the way", () => {
    ser.fromBinary(bytes).toObject();
    gen.fromBinary(bytes);
    expect(({} as Record<string, unknown>).a).toBeUndefined();
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
  });
});

test("protobufjs drops a field named __proto__ when it parses: protokeel sees the type without it", () => {
  const T = protobuf.parse(PROTO, { keepCase: true }).root.lookupType("names.Odd");
  const lowered = ProtobufType.of(T as never);
  expect(lowered.descriptor.fields.map((f) => f.name)).not.toContain("__proto__");
  expect(lowered.descriptor.fields.length).toBe(Odd.fields.length - 1);
  // Its bytes then arrive as an unknown field, kept and relayed.
  const relayed = lowered.createSerializer();
  const bytes = ser.toBinary(init() as never);
  expect(relayed.toBinary(relayed.fromBinary(bytes))).toEqual(bytes);
});
