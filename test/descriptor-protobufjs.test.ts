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

/** A protobufjs type from a JSON descriptor of package `a` (Root.fromJSON types are proto3). */
function fromJson(nested: object, name = "a.M"): protobuf.Type {
  return protobuf.Root.fromJSON({ nested: { a: { nested } } } as protobuf.INamespace).lookupType(name);
}

describe("protobufjs input that protobufjs accepts and a descriptor cannot hold", () => {
  const enumOf = (values: Record<string, number>) => ({ M: { fields: { e: { type: "E", id: 1 } } }, E: { values } });
  const reservedOf = (reserved: unknown[]) => ({ M: { fields: { x: { type: "int32", id: 1 } }, reserved } });
  const INT32 = "an integer in -2147483648..2147483647";
  test.each([
    ["an enum value of 1.5", enumOf({ Z: 0, B: 1.5 }), `enum a.E value B is 1.5, not ${INT32}; give it a 32-bit integer value`],
    ["an enum value of 2^31", enumOf({ Z: 0, B: 2 ** 31 }), `enum a.E value B is 2147483648, not ${INT32}; give it a 32-bit integer value`],
    ["an enum value below -2^31", enumOf({ Z: 0, B: -(2 ** 31) - 1 }), `enum a.E value B is -2147483649, not ${INT32}; give it a 32-bit integer value`],
    ["an enum value NaN", enumOf({ Z: 0, B: NaN }), `enum a.E value B is NaN, not ${INT32}; give it a 32-bit integer value`],
    [
      "a message reserved range past 2^31 - 2",
      reservedOf([[1000, 2 ** 31 - 1]]),
      "message a.M reserves 1000 to 2147483647, which a descriptor cannot hold; reserve field numbers in 1..536870911 (max)",
    ],
    [
      "a message reserved range of fractions",
      reservedOf([[1.5, 3]]),
      "message a.M reserves 1.5 to 3, which a descriptor cannot hold; reserve field numbers in 1..536870911 (max)",
    ],
    [
      "an enum reserved range past 2^31 - 1",
      { ...enumOf({ Z: 0 }), E: { values: { Z: 0 }, reserved: [[5, 2 ** 31]] } },
      "enum a.E reserves 5 to 2147483648, which a descriptor cannot hold; reserve enum numbers in -2147483648..2147483647 (max)",
    ],
  ])("%s is INPUT_INVALID, not a plain error from the encoder", (_name, nested, rest) => {
    expect(() => ProtobufType.of(fromJson(nested))).toThrow(
      expect.objectContaining({ name: "InvalidDescriptorError", code: "INPUT_INVALID", message: `invalid descriptor a.M: ${rest}` }),
    );
  });

  test.each([
    ["float", "field M.m has map key type float; map keys are integer, bool or string types, use one of them"],
    ["double", "field M.m has map key type double; map keys are integer, bool or string types, use one of them"],
    ["bytes", "field M.m has map key type bytes; map keys are integer, bool or string types, use one of them"],
    ["N", "field M.m has map key type N; map keys are integer, bool or string types, use one of them"],
  ])("a MapField built with key type %s", (keyType, rest) => {
    // MapField's constructor checks only that the key type is a string; Root.fromJSON and parse refuse these.
    const root = protobuf.Root.fromJSON({ nested: { M: { fields: {} }, N: { fields: {} } } });
    const type = root.lookupType("M").add(new protobuf.MapField("m", 1, keyType, "int32"));
    expect(() => ProtobufType.of(type)).toThrow(
      expect.objectContaining({ name: "InvalidDescriptorError", code: "INPUT_INVALID", message: `invalid descriptor M: ${rest}` }),
    );
  });
});

describe("protobufjs extensions of a payload type", () => {
  // protobufjs copies each extension field into the extended type's fields, named `.a.tag`.
  test.each([
    [
      "extended, with an extension range",
      { M: { fields: { x: { type: "int32", id: 1 } }, extensions: [[100, 199]] }, tag: { type: "string", id: 100, extend: "M" } },
      "a.M",
      "EXTENSION_RANGE_DECLARED",
      "invalid descriptor a.M: message a.M declares extension range 100..199; payload types cannot be extended, remove the extensions statement",
    ],
    [
      "extended without an extension range (JSON only)",
      { M: { fields: { x: { type: "int32", id: 1 } } }, tag: { type: "string", id: 100, extend: "M" } },
      "a.M",
      "EXTENSION_DECLARED",
      "invalid descriptor a.M: message a.M is extended by a.tag; payload types cannot be extended, remove the extend block",
    ],
    [
      "reached through a field",
      { R: { fields: { m: { type: "M", id: 1 } } }, M: { fields: { x: { type: "int32", id: 1 } } }, tag: { type: "string", id: 100, extend: "M" } },
      "a.R",
      "EXTENSION_DECLARED",
      "invalid descriptor a.R: message a.M is extended by a.tag; payload types cannot be extended, remove the extend block",
    ],
  ])("%s", (_name, nested, root, code, message) => {
    expect(() => ProtobufType.of(fromJson(nested, root))).toThrow(expect.objectContaining({ name: "InvalidDescriptorError", code, message }));
  });

  test("a proto2 message extended by a custom option is SYNTAX_NOT_PROTO3, as from the FileDescriptorSet", () => {
    const root = protobuf.parse(
      `syntax = "proto2"; package a; message Opts { extensions 1000 to max; }
       extend Opts { optional string label = 1000; }`,
      { keepCase: true },
    ).root;
    root.resolveAll();
    expect(() => ProtobufType.of(root.lookupType("a.Opts"))).toThrow(
      expect.objectContaining({
        code: "SYNTAX_NOT_PROTO3",
        message:
          'invalid descriptor a.Opts: message a.Opts is declared in proto2 file a.Opts.proto; payload types must be declared in a proto3 file (syntax = "proto3")',
      }),
    );
  });
});

// A proto2 message that declares an extension inside it (as protobuf's own json_format.proto
// does): the FileDescriptorSet and DescMessage forms say SYNTAX_NOT_PROTO3 first; protobufjs
// input said EXTENSION_DECLARED.
test("a proto2 message declaring an extension is SYNTAX_NOT_PROTO3 from protobufjs too", () => {
  const root = protobuf.parse(
    `syntax = "proto2"; package t; message Base { extensions 100 to 200; }
     message TestExtension { extend Base { optional TestExtension ext = 100; } optional string value = 1; }`,
    { keepCase: true },
  ).root;
  root.resolveAll();
  for (const name of ["t.TestExtension", "t.Base"]) {
    expect(() => ProtobufType.of(root.lookupType(name)), name).toThrow(expect.objectContaining({ name: "InvalidDescriptorError", code: "SYNTAX_NOT_PROTO3" }));
  }
  expect(() => ProtobufType.of(root.lookupType("t.TestExtension"))).toThrow(
    'invalid descriptor t.TestExtension: message t.TestExtension is declared in a proto2 file; payload types must be declared in a proto3 file (syntax = "proto3")',
  );
});

describe("protobufjs objects without a syntax", () => {
  // protobufjs encodes a Type outside any Root as proto2 (explicit presence, unpacked lists); the
  // error said "declared in proto2 file M.proto", a file that does not exist.
  test("a Type built with new Type() and no Root is SYNTAX_NOT_PROTO3 saying where its syntax comes from", () => {
    const bare = new protobuf.Type("M").add(new protobuf.Field("a", 1, "int32"));
    expect(() => ProtobufType.of(bare)).toThrow(
      expect.objectContaining({
        code: "SYNTAX_NOT_PROTO3",
        message:
          "invalid descriptor M: message M is a protobufjs object outside any Root and without a syntax (built with new Type()), which protobufjs encodes as proto2; payload types must be proto3: load them from proto3 source (protobuf.parse, load) or from JSON descriptors (Root.fromJSON)",
      }),
    );
  });

  test("JSON descriptors are proto3, as protobufjs reads them", () => {
    const root = protobuf.Root.fromJSON({ nested: { p: { nested: { M: { fields: { a: { type: "int32", id: 1 }, r: { rule: "repeated", type: "int32", id: 2 } } } } } } });
    const type = ProtobufType.of(root.lookupType("p.M"));
    const m = DynamicMessage.create(type.descriptor, { a: 0, r: [1, 2] });
    expect(Buffer.from(type.createSerializer().toBinary(m))).toEqual(Buffer.from(root.lookupType("p.M").encode({ a: 0, r: [1, 2] }).finish()));
  });
});

describe("protobufjs types reached from different Roots", () => {
  test("two distinct types with one full name are INPUT_INVALID, not one silently standing for both", () => {
    const root = protobuf.parse('syntax = "proto3"; package a; message M { N n = 1; O o = 2; } message N { string s = 1; } message O {}', { keepCase: true }).root;
    root.resolveAll();
    const other = protobuf.parse('syntax = "proto3"; package a; message N { int32 s = 1; }', { keepCase: true }).root;
    const type = root.lookupType("a.M");
    (type.fields.o as { resolvedType: unknown }).resolvedType = other.lookupType("a.N");
    expect(() => ProtobufType.of(type)).toThrow(
      expect.objectContaining({
        name: "InvalidDescriptorError",
        code: "INPUT_INVALID",
        message:
          "invalid descriptor a.M: two different protobufjs types are named a.N (field a.M.o reaches the second); resolve every type against one Root",
      }),
    );
  });
});

describe("protobufjs proto3_optional", () => {
  test("without its synthetic oneof binds implicit presence, as protobufjs encodes it", () => {
    const type = fromJson({ M: { fields: { x: { type: "int32", id: 1, options: { proto3_optional: true } } } } });
    const bound = ProtobufType.of(type);
    expect(bound.createSerializer().toBinary({ x: 0 })).toEqual(new Uint8Array(type.encode({ x: 0 }).finish()));
    expect(bound.equals(fromBuf('syntax = "proto3"; package a; message M { int32 x = 1; }', "a.M"))).toBe(true);
  });
});
