// Rules protoc's DescriptorBuilder enforces that a hand-edited FileDescriptorSet can break. Each
// row compiles a valid schema with buf, breaks one rule in the decoded set and expects the exact
// refusal; before these checks each set was accepted and then read a value as another (a
// duplicate enum value name), split protokeel from protobufjs or @bufbuild/protobuf (oneof
// membership, type_name on a scalar, a field without a type), or left a schema protoc refuses in
// the normalized set (and so in `protokeel inspect` and a schema registry's .proto text).
import { create, createFileRegistry, fromBinary, toBinary } from "@bufbuild/protobuf";
import {
  DescriptorProto_ReservedRangeSchema,
  DescriptorProtoSchema,
  EnumDescriptorProto_EnumReservedRangeSchema,
  EnumDescriptorProtoSchema,
  EnumValueDescriptorProtoSchema,
  FieldDescriptorProtoSchema,
  FieldOptionsSchema,
  FileDescriptorSetSchema,
  MessageOptionsSchema,
  OneofDescriptorProtoSchema,
  type DescriptorProto,
  type FieldDescriptorProto_Type,
  type FieldDescriptorProto,
  type FileDescriptorSet,
} from "@bufbuild/protobuf/wkt";
import { describe, expect, test } from "vitest";
import { evaluateSchemaChange, ProtobufType, readSnapshot, writeSnapshot } from "../src/index.js";
import { collectClosure } from "../src/descriptor/closure.js";
import { normalizeClosure } from "../src/descriptor/normalize.js";
import { resolveSettings } from "../src/settings.js";
import { typeFromNormalized } from "../src/type.js";
import { compileProtoText } from "./support/buf.js";

const PROTO = `syntax = "proto3";
package p;
message M {
  int64 a = 1;
  repeated string s = 2;
  repeated Sub m = 3;
  int32 single = 4;
  string str = 5;
  map<string, int64> mp = 6;
  oneof o { int32 x = 7; string y = 8; }
  optional int32 opt = 9;
  E e = 10;
  repeated int32 ri = 11;
  int32 after = 12;
  reserved 100 to 110;
  reserved "gone";
}
message Sub { int32 v = 1; }
enum E { E_ZERO = 0; E_ONE = 1; reserved 5 to 6; reserved "E_OLD"; }
`;

const baseSet = (): FileDescriptorSet => fromBinary(FileDescriptorSetSchema, compileProtoText({ "p.proto": PROTO }));
const message = (set: FileDescriptorSet, name: string): DescriptorProto => set.file[0]!.messageType.find((m) => m.name === name)!;
const M = (set: FileDescriptorSet): DescriptorProto => message(set, "M");
const field = (m: DescriptorProto, name: string): FieldDescriptorProto => m.field.find((f) => f.name === name)!;
const enumE = (set: FileDescriptorSet) => set.file[0]!.enumType.find((e) => e.name === "E")!;
const entry = (set: FileDescriptorSet): DescriptorProto => M(set).nestedType.find((n) => n.name === "MpEntry")!;
const jstype = (f: FieldDescriptorProto, value: number) => (f.options = create(FieldOptionsSchema, { jstype: value }));
/** A nested enum N of M holding one value, used by field `single` so that it is reachable. */
const nestedEnum = (set: FileDescriptorSet, value: string) => {
  const m = M(set);
  m.enumType.push(create(EnumDescriptorProtoSchema, { name: "N", value: [create(EnumValueDescriptorProtoSchema, { name: value, number: 0 })] }));
  Object.assign(field(m, "single"), { type: 14, typeName: ".p.M.N" });
};

const head = "invalid descriptor p.M: ";
const SCOPE = "protoc requires distinct names for the fields, oneofs, nested types and enum values of one scope (enum values belong to the scope around their enum, C++ scoping), rename one";
const ENTRY_SHAPE =
  "that is not the entry protoc generates (exactly the fields key = 1 and value = 2, a key of an integer, bool or string type, nothing nested); declare the field as map<K, V> and let protoc generate the entry";
const JSTYPE = "jstype applies only to int64, uint64, sint64, fixed64 and sfixed64 fields, as protoc requires, remove the option";
const ONEOF_PAIR = "an optional field is the only member of its synthetic oneof (protobufjs would make the two exclude each other, @bufbuild/protobuf would not), give each field its own oneof";

const cases: Array<[string, (set: FileDescriptorSet) => void, string, string]> = [
  // jstype
  ["jstype = JS_STRING on an int32", (s) => jstype(field(M(s), "single"), 1), "JSTYPE_INVALID", `field p.M.single (int32) has jstype = JS_STRING; ${JSTYPE}`],
  ["jstype = JS_NUMBER on a string", (s) => jstype(field(M(s), "str"), 2), "JSTYPE_INVALID", `field p.M.str (string) has jstype = JS_NUMBER; ${JSTYPE}`],
  ["jstype on a repeated int32", (s) => jstype(field(M(s), "ri"), 1), "JSTYPE_INVALID", `field p.M.ri (repeated int32) has jstype = JS_STRING; ${JSTYPE}`],
  ["jstype on a map field (int64 values)", (s) => jstype(field(M(s), "mp"), 1), "JSTYPE_INVALID", `field p.M.mp (map) has jstype = JS_STRING; ${JSTYPE}`],
  ["jstype on a message field", (s) => jstype(field(M(s), "m"), 2), "JSTYPE_INVALID", `field p.M.m (repeated message) has jstype = JS_NUMBER; ${JSTYPE}`],
  ["jstype on an enum field", (s) => jstype(field(M(s), "e"), 1), "JSTYPE_INVALID", `field p.M.e (enum) has jstype = JS_STRING; ${JSTYPE}`],
  // json_name: protoc and buf accept a JSON name that is another field's proto name when that
  // field has a json_name of its own; upb refuses it, and ProtoJSON reads "single" as either field.
  ...(
    [
      ["a", "single", "solo"],
      ["a", "single", "Single"],
      ["after", "str", "text"],
    ] as const
  ).map(([a, b, bJson]): [string, (set: FileDescriptorSet) => void, string, string] => [
    `a json_name that is another field's proto name (${a} as ${b}, ${b} as ${bJson})`,
    (s) => {
      field(M(s), a).jsonName = b;
      field(M(s), b).jsonName = bJson;
    },
    "JSON_NAME_CONFLICT",
    `the JSON name of field p.M.${a} is ${b}, the proto name of field p.M.${b}; ProtoJSON reads a field under both names, so "${b}" would name either: give ${a} another json_name`,
  ]),
  // reserved
  [
    "a field number in the message's reserved range",
    (s) => (field(M(s), "after").number = 105),
    "FIELD_NUMBER_RESERVED",
    "field p.M.after has number 105, which message p.M reserves (reserved 100 to 110); use a number the message does not reserve, or unreserve it",
  ],
  [
    "a field name in the message's reserved names",
    (s) => M(s).reservedName.push("after"),
    "FIELD_NAME_RESERVED",
    "field p.M.after has a name that message p.M reserves; rename the field, or unreserve the name",
  ],
  [
    "an empty reserved range",
    (s) => M(s).reservedRange.push(create(DescriptorProto_ReservedRangeSchema, { start: 120, end: 120 })),
    "RESERVED_RANGE_INVALID",
    "message p.M declares reserved range start 120 end 120 (end exclusive), which is empty; reserve positive numbers with the end after the start, as protoc requires",
  ],
  [
    "a reserved range from 0",
    (s) => M(s).reservedRange.push(create(DescriptorProto_ReservedRangeSchema, { start: 0, end: 1 })),
    "RESERVED_RANGE_INVALID",
    "message p.M declares reserved range start 0 end 1 (end exclusive), which is not positive; reserve positive numbers with the end after the start, as protoc requires",
  ],
  [
    "an enum reserved range ending before it starts",
    (s) => enumE(s).reservedRange.push(create(EnumDescriptorProto_EnumReservedRangeSchema, { start: 9, end: 8 })),
    "RESERVED_RANGE_INVALID",
    "enum p.E declares reserved range start 9 end 8 (end inclusive), which is empty; reserve a range whose end is not below its start, as protoc requires",
  ],
  [
    "an enum value number the enum reserves",
    (s) => (enumE(s).value[1]!.number = 6),
    "ENUM_VALUE_RESERVED",
    "enum value p.E.E_ONE has number 6, which enum p.E reserves (reserved 5 to 6); use a number the enum does not reserve, or unreserve it",
  ],
  [
    "an enum value name the enum reserves",
    (s) => (enumE(s).value[1]!.name = "E_OLD"),
    "ENUM_VALUE_RESERVED",
    "enum value p.E.E_OLD has a name that enum p.E reserves; rename the value, or unreserve the name",
  ],
  // names in one scope
  [
    "two values of one enum with one name",
    (s) => enumE(s).value.push(create(EnumValueDescriptorProtoSchema, { name: "E_ONE", number: 2 })),
    "NAME_CONFLICT",
    `enum value p.E.E_ONE (1) and enum value p.E.E_ONE (2) share the name E_ONE in p; ${SCOPE}`,
  ],
  [
    "an enum value named like a message of its package",
    (s) => enumE(s).value.push(create(EnumValueDescriptorProtoSchema, { name: "Sub", number: 2 })),
    "NAME_CONFLICT",
    `enum value p.E.Sub (2) and message p.Sub share the name Sub in p; ${SCOPE}`,
  ],
  ["a nested enum's value named like a field", (s) => nestedEnum(s, "after"), "NAME_CONFLICT", `field p.M.after and enum value p.M.N.after (0) share the name after in p.M; ${SCOPE}`],
  ["a nested enum's value named like a oneof", (s) => nestedEnum(s, "o"), "NAME_CONFLICT", `oneof p.M.o and enum value p.M.N.o (0) share the name o in p.M; ${SCOPE}`],
  [
    "a nested message named like a field",
    (s) => M(s).nestedType.push(create(DescriptorProtoSchema, { name: "after" })),
    "NAME_CONFLICT",
    `field p.M.after and message p.M.after share the name after in p.M; ${SCOPE}`,
  ],
  ["a oneof named like a field", (s) => (M(s).oneofDecl[0]!.name = "after"), "NAME_CONFLICT", `field p.M.after and oneof p.M.after share the name after in p.M; ${SCOPE}`],
  // oneofs
  [
    "a second field in an optional field's synthetic oneof",
    (s) => Object.assign(field(M(s), "after"), { oneofIndex: field(M(s), "opt").oneofIndex, proto3Optional: true }),
    "ONEOF_INVALID",
    `oneof p.M._opt holds proto3 optional field p.M.after and field p.M.opt; ${ONEOF_PAIR}`,
  ],
  [
    "a plain field in an optional field's synthetic oneof",
    (s) => (field(M(s), "after").oneofIndex = field(M(s), "opt").oneofIndex),
    "ONEOF_INVALID",
    `oneof p.M._opt holds proto3 optional field p.M.opt and field p.M.after; ${ONEOF_PAIR}`,
  ],
  ["proto3_optional on a member of a real oneof", (s) => (field(M(s), "x").proto3Optional = true), "ONEOF_INVALID", `oneof p.M.o holds proto3 optional field p.M.x and field p.M.y; ${ONEOF_PAIR}`],
  [
    "proto3_optional outside any oneof",
    (s) => (field(M(s), "after").proto3Optional = true),
    "ONEOF_INVALID",
    "field p.M.after is proto3 optional but in no oneof; protoc declares each optional field as the only member of a synthetic oneof (protobufjs reads the field without presence, @bufbuild/protobuf with), declare it as protoc writes it",
  ],
  [
    "a repeated member of a oneof",
    (s) => (field(M(s), "ri").oneofIndex = 0),
    "ONEOF_INVALID",
    "field p.M.ri (repeated int32) is a member of oneof p.M.o; oneof members are singular (protoc refuses a repeated or map member), move it out of the oneof",
  ],
  [
    "a map member of a oneof",
    (s) => (field(M(s), "mp").oneofIndex = 0),
    "ONEOF_INVALID",
    "field p.M.mp (map) is a member of oneof p.M.o; oneof members are singular (protoc refuses a repeated or map member), move it out of the oneof",
  ],
  // field types
  [
    "a scalar field with a type_name",
    (s) => (field(M(s), "single").typeName = ".p.Sub"),
    "FIELD_TYPE_INVALID",
    'field p.M.single (int32) names type ".p.Sub"; a scalar field names no type (protobufjs would read the named type, @bufbuild/protobuf the scalar), remove the type_name or set type to TYPE_MESSAGE or TYPE_ENUM',
  ],
  [
    "a field with a type_name and no type",
    (s) => (field(M(s), "m").type = 0 as FieldDescriptorProto_Type), // 0 is no type: decoded as unset
    "FIELD_TYPE_INVALID",
    'field p.M.m declares no type, only type_name ".p.Sub"; @bufbuild/protobuf reads such a field as a double where protoc and protobufjs read the named type, set type as protoc writes it (TYPE_MESSAGE or TYPE_ENUM)',
  ],
  [
    "a field of a type number protobuf does not define",
    (s) => (field(M(s), "single").type = 19 as FieldDescriptorProto_Type),
    "FIELD_TYPE_INVALID",
    "field p.M.single declares no type (or a type number protobuf does not define); set its type as protoc writes it",
  ],
  [
    "a message field naming an enum",
    (s) => (field(M(s), "e").type = 11),
    "DESCRIPTOR_SET_INVALID",
    "field p.M.e has type message but names enum p.E; pass the set that protoc or buf wrote",
  ],
  [
    "a repeated enum field naming a message",
    (s) => (field(M(s), "m").type = 14),
    "DESCRIPTOR_SET_INVALID",
    "field p.M.m has type enum but names message p.Sub; pass the set that protoc or buf wrote",
  ],
  [
    "a repeated field naming nothing",
    (s) => (field(M(s), "m").typeName = ".p.Nope"),
    "UNRESOLVED_TYPE",
    "field p.M.m names type p.Nope, which the file descriptor set does not declare; include every imported file (protoc --include_imports)",
  ],
  [
    "a relative type_name",
    (s) => (field(M(s), "m").typeName = "p.Sub"),
    "DESCRIPTOR_SET_INVALID",
    'field p.M.m names type "p.Sub", which is not fully qualified; protoc writes a leading dot and the full name (.pkg.Type), pass the set that protoc or buf wrote',
  ],
  [
    "a oneof_index past the oneofs",
    (s) => (field(M(s), "after").oneofIndex = 9),
    "DESCRIPTOR_SET_INVALID",
    "the file descriptor set is not valid (invalid FieldDescriptorProto: oneof #9 for field #12 not found); pass the set that protoc or buf wrote",
  ],
  // map entries
  ["a map entry whose key is named k", (s) => (entry(s).field[0]!.name = "k"), "MAP_ENTRY_INVALID", `map field p.M.mp has entry p.M.MpEntry ${ENTRY_SHAPE}`],
  [
    "a map entry with a third field",
    (s) => entry(s).field.push(create(FieldDescriptorProtoSchema, { name: "extra", number: 3, label: 1, type: 5, jsonName: "extra" })),
    "MAP_ENTRY_INVALID",
    `map field p.M.mp has entry p.M.MpEntry ${ENTRY_SHAPE}`,
  ],
  ["a map entry with a nested message", (s) => entry(s).nestedType.push(create(DescriptorProtoSchema, { name: "Inner" })), "MAP_ENTRY_INVALID", `map field p.M.mp has entry p.M.MpEntry ${ENTRY_SHAPE}`],
  ["a map entry whose key is number 3", (s) => (entry(s).field[0]!.number = 3), "MAP_ENTRY_INVALID", `map field p.M.mp has entry p.M.MpEntry ${ENTRY_SHAPE}`],
  ["a map entry with a bytes key", (s) => (entry(s).field[0]!.type = 12), "MAP_ENTRY_INVALID", `map field p.M.mp has entry p.M.MpEntry ${ENTRY_SHAPE}`],
  ["a map entry with a repeated value", (s) => (entry(s).field[1]!.label = 3), "MAP_ENTRY_INVALID", `map field p.M.mp has entry p.M.MpEntry ${ENTRY_SHAPE}`],
  [
    "map_entry set on a message used by a repeated field",
    (s) => (message(s, "Sub").options = create(MessageOptionsSchema, { mapEntry: true })),
    "MAP_ENTRY_INVALID",
    `map field p.M.m has entry p.Sub ${ENTRY_SHAPE}`,
  ],
  [
    "a map field whose entry is nested in another message",
    (s) => {
      const e = entry(s);
      M(s).nestedType = [];
      message(s, "Sub").nestedType.push(e);
      field(M(s), "mp").typeName = ".p.Sub.MpEntry";
    },
    "MAP_ENTRY_INVALID",
    'map field p.M.mp uses entry ".p.Sub.MpEntry"; its entry is p.M.MpEntry, nested in its message and used by no other field, declare the field as map<K, V> and let protoc generate the entry',
  ],
  [
    "two map fields sharing one entry",
    (s) => M(s).field.push(create(FieldDescriptorProtoSchema, { ...field(M(s), "mp"), name: "mp2", jsonName: "mp2", number: 20 })),
    "MAP_ENTRY_INVALID",
    'map field p.M.mp2 uses entry ".p.M.MpEntry"; its entry is p.M.Mp2Entry, nested in its message and used by no other field, declare the field as map<K, V> and let protoc generate the entry',
  ],
  [
    "a map entry as a singular field's type",
    (s) => (field(M(s), "mp").label = 1),
    "MAP_ENTRY_INVALID",
    "field p.M.mp has map entry p.M.MpEntry as its type; a map entry is the type of its own map field only, declare the field as map<K, V>",
  ],
];

describe("a FileDescriptorSet that breaks a rule protoc enforces", () => {
  test.each(cases)("%s", (_name, mutate, code, detail) => {
    const set = baseSet();
    mutate(set);
    const input = { fileDescriptorSet: toBinary(FileDescriptorSetSchema, set), messageName: "p.M" };
    expect(() => ProtobufType.of(input)).toThrow(expect.objectContaining({ name: "InvalidDescriptorError", code, message: head + detail }));
  });
});

test("a jstype value JSType does not declare: refused from a DescMessage, dropped (as any decoder drops it) from set bytes", () => {
  // Kept, 7 went into the normalized set, which read back without it: the type's own transfer
  // form failed with TRANSFER_NOT_NORMALIZED, and the same schema as set bytes had another identity.
  const set = baseSet();
  jstype(field(M(set), "a"), 7);
  const desc = createFileRegistry(set).getMessage("p.M")!;
  expect(() => ProtobufType.of(desc)).toThrow(
    expect.objectContaining({
      code: "JSTYPE_INVALID",
      message: `${head}field p.M.a (int64) has jstype = 7, which google.protobuf.FieldOptions.JSType does not declare (JS_NORMAL 0, JS_STRING 1, JS_NUMBER 2); use one of those or remove the option`,
    }),
  );
  const fromBytes = ProtobufType.of({ fileDescriptorSet: toBinary(FileDescriptorSetSchema, set), messageName: "p.M" });
  expect(fromBytes.equals(ProtobufType.of({ fileDescriptorSet: toBinary(FileDescriptorSetSchema, baseSet()), messageName: "p.M" }))).toBe(true);
  expect(ProtobufType.fromBytes(fromBytes.toBytes()).equals(fromBytes)).toBe(true);
});

test.each<[string, (set: FileDescriptorSet) => void, string, string]>([
  // Normalization keeps an entry with its map field only: this was REBUILD_FAILED, "type
  // .p.M.MpEntry.N not found", for a type the input declares.
  [
    "a field naming an enum declared inside a map entry",
    (set) => {
      entry(set).enumType.push(create(EnumDescriptorProtoSchema, { name: "N", value: [create(EnumValueDescriptorProtoSchema, { name: "N_ZERO", number: 0 })] }));
      Object.assign(field(M(set), "single"), { type: 14, typeName: ".p.M.MpEntry.N" });
    },
    "p.M",
    "MAP_ENTRY_INVALID: invalid descriptor p.M: field p.M.single names type p.M.MpEntry.N, which is declared inside map entry p.M.MpEntry; a map entry holds nothing nested (protoc generates it for a map<K, V> field), declare the type elsewhere",
  ],
  // @bufbuild/protobuf makes no message of an entry: this was MESSAGE_NOT_FOUND, "declares no message".
  [
    "a map entry as the root",
    () => undefined,
    "p.M.MpEntry",
    "MAP_ENTRY_INVALID: invalid descriptor p.M.MpEntry: message p.M.MpEntry is a map entry (option map_entry), the type of its own map field only; pass the message that holds the map field, or declare p.M.MpEntry without map_entry",
  ],
])("%s names the map entry", (_name, mutate, messageName, expected) => {
  const set = baseSet();
  mutate(set);
  let e: { code?: string; message?: string } = {};
  try {
    ProtobufType.of({ fileDescriptorSet: toBinary(FileDescriptorSetSchema, set), messageName });
  } catch (x) {
    e = x as typeof e;
  }
  expect(`${e.code}: ${e.message}`).toBe(expected);
});

describe("left alone: normalization gives what the valid schema gives", () => {
  const fingerprint = (set: FileDescriptorSet) => ProtobufType.of({ fileDescriptorSet: toBinary(FileDescriptorSetSchema, set), messageName: "p.M" }).fingerprint();
  const valid = fingerprint(baseSet());
  test.each<[string, (set: FileDescriptorSet) => void]>([
    ["[packed = true] on a repeated string", (s) => (field(M(s), "s").options = create(FieldOptionsSchema, { packed: true }))],
    ["[packed = true] on a repeated message", (s) => (field(M(s), "m").options = create(FieldOptionsSchema, { packed: true }))],
    ["[packed = true] on a singular int32", (s) => (field(M(s), "single").options = create(FieldOptionsSchema, { packed: true }))],
    ["an empty oneof", (s) => M(s).oneofDecl.push(create(OneofDescriptorProtoSchema, { name: "empty" }))],
    ["oneof members declared apart", (s) => M(s).field.push(...M(s).field.splice(M(s).field.indexOf(field(M(s), "x")), 1))],
    ["overlapping reserved ranges", (s) => M(s).reservedRange.push(create(DescriptorProto_ReservedRangeSchema, { start: 105, end: 111 }))],
  ])("%s", (_name, mutate) => {
    const set = baseSet();
    mutate(set);
    expect(fingerprint(set)).toBe(valid);
  });

  test("the valid schema passes every rule again when its snapshot is restored", () => {
    const type = ProtobufType.of({ fileDescriptorSet: toBinary(FileDescriptorSetSchema, baseSet()), messageName: "p.M" });
    expect(ProtobufType.fromBytes(type.toBytes()).equals(type)).toBe(true);
    const restored = readSnapshot(writeSnapshot(type.createSerializer().snapshotConfiguration())).restoreSerializer();
    expect(restored.type.equals(type)).toBe(true);
  });
});

// Rule 5a is checked when a schema enters protokeel (ProtobufType.of, newBuilder, the generated
// kind), not when a type is rebuilt from its own normalized set. protobufjs accepts several of
// these schemas, and protokeel accepted them all before 5a, so snapshots and transfer forms of
// such types exist; they must keep restoring and reading their data. Each normalized set here is
// made as construction made it before 5a (closure and normalization without the 5a checks).
describe("a type accepted before rule 5a still restores", () => {
  const rows: [string, (set: FileDescriptorSet) => void, string][] = [
    ["jstype on an int32 field (protobufjs accepts it)", (s) => jstype(field(M(s), "single"), 1), "JSTYPE_INVALID"],
    ["jstype on a map field (protobufjs accepts it)", (s) => jstype(field(M(s), "mp"), 2), "JSTYPE_INVALID"],
    [
      "two enums of one package sharing a value name (protobufjs accepts it)",
      (s) => {
        s.file[0]!.enumType.push(create(EnumDescriptorProtoSchema, { name: "F", value: [create(EnumValueDescriptorProtoSchema, { name: "E_ZERO", number: 0 })] }));
        Object.assign(field(M(s), "single"), { type: 14, typeName: ".p.F" });
      },
      "NAME_CONFLICT",
    ],
    [
      "a json_name that is another field's proto name (protoc and buf accept it)",
      (s) => {
        field(M(s), "a").jsonName = "single";
        field(M(s), "single").jsonName = "solo";
      },
      "JSON_NAME_CONFLICT",
    ],
  ];
  test.each(rows)("%s", (_name, mutate, code) => {
    const set = baseSet();
    mutate(set);
    const bytes = toBinary(FileDescriptorSetSchema, set);
    expect(() => ProtobufType.of({ fileDescriptorSet: bytes, messageName: "p.M" })).toThrow(expect.objectContaining({ code }));
    const root = createFileRegistry(set).getMessage("p.M")!;
    const before = typeFromNormalized(normalizeClosure(collectClosure(root)), "p.M", resolveSettings({}));
    const value = before.createSerializer().toBinary({ single: 1, mp: { k: 5n }, str: "s" } as never);
    expect(ProtobufType.fromBytes(before.toBytes()).equals(before)).toBe(true);
    const restored = readSnapshot(writeSnapshot(before.createSerializer().snapshotConfiguration())).restoreSerializer();
    expect(restored.type.equals(before)).toBe(true);
    expect(restored.toBinary(restored.fromBinary(value))).toEqual(value);
    expect(evaluateSchemaChange(before.descriptor, before.descriptor).compatible).toBe(true);
  });
});
