// Schemas travel to the registry as .proto text (protokeel/registry's registrySchemas): printed
// from the type's normalized set, deterministically, with its dependencies as separate files and
// the well-known types as their canonical imports. Compiling the text with buf gives back the
// same schema identity (normalized bytes), on the fixtures, on a schema that uses every option
// the normalization keeps, and on random schemas.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { ProtobufType } from "../src/index.js";
import { registrySchemas, type RegistrySchemas } from "../src/registry/index.js";
import { schemaArb, sameSchemaAgain } from "./support/arbitrary-schema.js";
import { compileProtoText, messageFromDir } from "./support/buf.js";
import { params } from "./support/property.js";

function compileBack(schemas: RegistrySchemas, root: string): ProtobufType {
  const files: Record<string, string> = {};
  for (const f of schemas.files) files[f.name] = f.text;
  return ProtobufType.of({ fileDescriptorSet: compileProtoText(files), messageName: root });
}

function expectRoundTrip(type: ProtobufType): RegistrySchemas {
  const schemas = registrySchemas(type);
  const back = compileBack(schemas, type.fullName);
  expect(back.fingerprint()).toBe(type.fingerprint());
  expect(back.equals(type)).toBe(true);
  // Printing the compiled type again gives the same text.
  expect(registrySchemas(back).files).toEqual(schemas.files);
  return schemas;
}

const TRICKY = `syntax = "proto3";
package acme.v1;

enum Mode {
  option allow_alias = true;
  option deprecated = true;
  MODE_UNSPECIFIED = 0;
  MODE_ON = 1;
  MODE_ENABLED = 1 [deprecated = true];
  MODE_LOW = -5;
  reserved 7 to 9, 100 to max, -20 to -10;
  reserved "MODE_OLD", "MODE_GONE";
}

message Order {
  option deprecated = true;
  int64 id = 1 [jstype = JS_STRING];
  uint64 big = 2 [jstype = JS_NUMBER, deprecated = true];
  string quoted = 3 [json_name = "q\\"u\\\\o\\001t\\ted é"];
  repeated int32 unpacked = 4 [packed = false];
  repeated int32 packed = 5;
  optional string _hidden = 6;
  optional string hidden = 7;
  oneof choice {
    string a = 10;
    Mode m = 11;
    Order self = 12;
  }
  map<string, Order.Line> lines = 13;
  map<sint64, Mode> modes = 14;
  reserved 20 to 29, 1000 to max;
  reserved "old_field", "gone";
  Line first = 15;
  message Line {
    string sku = 1;
    Line.Part part = 2;
    message Part { bytes blob = 1; }
    enum Kind { KIND_UNSPECIFIED = 0; }
  }
  string acme = 16;
}
`;

describe("text of the fixtures compiles back to the same type", () => {
  test.each([
    ["fixtures/all-types", "alltypes.AllTypes"],
    ["fixtures/all-types", "alltypes.AllTypes.Nested"],
    ["fixtures/all-types", "alltypes.JsNumber"],
    ["fixtures/all-types", "alltypes.MapAsEntries"],
    ["fixtures/smoke", "acme.Order"],
  ])("%s %s", (dir, name) => {
    expectRoundTrip(ProtobufType.of(messageFromDir(dir, name)));
  });

  test("a schema with every option normalization keeps, reserved ranges to max, escapes and a field named like its package", () => {
    const type = ProtobufType.of({ fileDescriptorSet: compileProtoText({ "acme/v1/order.proto": TRICKY }), messageName: "acme.v1.Order" });
    const schemas = expectRoundTrip(type);
    expect(schemas.files.map((f) => f.name)).toEqual(["acme.v1.Mode.proto", "acme.v1.Order.proto"]);
    expect(schemas.main.references).toEqual(["acme.v1.Mode.proto"]);
    expect(schemas.messageIndexes).toEqual([0]);
    expect(schemas.main.text).toContain('string quoted = 3 [json_name = "q\\"u\\\\o\\001t\\011ed é"];');
    expect(schemas.files[0]!.text).toContain("reserved -20 to -10, 7 to 9, 100 to max;");
    expect(schemas.main.text).toContain("reserved 20 to 29, 1000 to max;");
  });

  test("the exact text of a small schema: qualified names, one file per dependency, well-known types imported by path", () => {
    const text = `syntax = "proto3"; package shop;
import "google/protobuf/timestamp.proto";
message Item { string sku = 1; }
message Order { int64 id = 1; repeated Item items = 2; google.protobuf.Timestamp at = 3; map<string, Item> by_sku = 4; }`;
    const type = ProtobufType.of({ fileDescriptorSet: compileProtoText({ "shop.proto": text }), messageName: "shop.Order" });
    const schemas = expectRoundTrip(type);
    expect(schemas.files).toEqual([
      { name: "shop.Item.proto", references: [], text: 'syntax = "proto3";\npackage shop;\n\nmessage Item {\n  string sku = 1;\n}\n' },
      {
        name: "shop.Order.proto",
        references: ["shop.Item.proto"],
        text: [
          'syntax = "proto3";',
          "package shop;",
          'import "google/protobuf/timestamp.proto";',
          'import "shop.Item.proto";',
          "",
          "message Order {",
          "  int64 id = 1;",
          "  repeated .shop.Item items = 2;",
          "  .google.protobuf.Timestamp at = 3;",
          "  map<string, .shop.Item> by_sku = 4;",
          "}",
          "",
        ].join("\n"),
      },
    ]);
  });

  test("a nested root's message indexes count nested messages, not map entries (as Confluent's serializers do)", () => {
    const text = `syntax = "proto3"; package p;
message A { map<string, int32> m = 1; message Z { int32 x = 1; } message B { int32 y = 1; } }`;
    const set = compileProtoText({ "a.proto": text });
    // Normalized nested types sorted by name: B, MEntry (a map entry, not counted), Z.
    expect(registrySchemas(ProtobufType.of({ fileDescriptorSet: set, messageName: "p.A.Z" })).messageIndexes).toEqual([0, 1]);
    expect(registrySchemas(ProtobufType.of({ fileDescriptorSet: set, messageName: "p.A.B" })).messageIndexes).toEqual([0, 0]);
  });
});

describe("random schemas", () => {
  test("type → text → buf → type keeps the normalized bytes, for the root and for a nested message", () => {
    fc.assert(
      fc.property(schemaArb({ maxFields: 6 }), fc.nat(), (schema, pick) => {
        expectRoundTrip(ProtobufType.of(schema.root));
        const name = schema.messageNames[pick % schema.messageNames.length]!;
        expectRoundTrip(ProtobufType.of(schema.registry.getMessage(name)!));
      }),
      params("registry proto text round-trip", 25),
    );
  });

  test("long chains of types (hundreds of files, one reference each) and oneofs of hundreds of members round-trip", () => {
    fc.assert(
      fc.property(schemaArb({ chainWeight: 10, wideOneofWeight: 10 }), (schema) => {
        expectRoundTrip(ProtobufType.of(schema.root));
      }),
      params("registry proto text round-trip, wide and long", 4),
    );
  });

  test("the text is deterministic: the same schema from other descriptor instances prints the same", () => {
    fc.assert(
      fc.property(schemaArb(), (schema) => {
        const again = sameSchemaAgain(schema);
        expect(registrySchemas(ProtobufType.of(again.root)).files).toEqual(registrySchemas(ProtobufType.of(schema.root)).files);
      }),
      params("registry proto text deterministic", 100),
    );
  });
});
