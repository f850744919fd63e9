import { describe, expect, test } from "vitest";
import protobuf from "protobufjs";
import { InvalidDescriptorError, ProtobufType } from "../src/index.js";
import { checkPayloadRules, checkRootName } from "../src/descriptor/rules.js";
import { acme, L, messageOf, scalar, setBytes, T, type FileInit } from "./support/descriptors.js";
import { compileProtoText } from "./support/buf.js";

const order = (fields: object[], extra: object = {}): FileInit =>
  acme({ messageType: [{ name: "Order", field: fields, ...extra }] } as Partial<FileInit>);

const RANGE = "use a number in 1..536870911";

// Each row: a deliberately invalid schema (hand-built: buf and protoc refuse these), the rule code
// and the exact message.
const cases: Array<[string, FileInit[], string, string]> = [
  [
    "field number 0",
    [order([scalar("id", 0)])],
    "FIELD_NUMBER_TOO_SMALL",
    `invalid descriptor acme.Order: field acme.Order.id has number 0 below 1; ${RANGE}`,
  ],
  [
    "field number 19,500",
    [order([scalar("id", 19_500)])],
    "FIELD_NUMBER_RESERVED",
    "invalid descriptor acme.Order: field acme.Order.id has number 19500 in 19000..19999, which protobuf reserves for its implementation; use a number in 1..536870911 outside that range",
  ],
  [
    "field number 536,870,912",
    [order([scalar("id", 536_870_912)])],
    "FIELD_NUMBER_TOO_LARGE",
    `invalid descriptor acme.Order: field acme.Order.id has number 536870912 above 536870911; ${RANGE}`,
  ],
  [
    "duplicate field numbers",
    [order([scalar("id", 1), scalar("code", 1)])],
    "FIELD_NUMBER_DUPLICATE",
    "invalid descriptor acme.Order: fields acme.Order.id and acme.Order.code share number 1; give each field its own number",
  ],
  [
    "duplicate field names",
    [order([scalar("id", 1), scalar("id", 2)])],
    "FIELD_NAME_DUPLICATE",
    "invalid descriptor acme.Order: message acme.Order declares field name id twice (numbers 1 and 2); rename one of them",
  ],
  [
    "JSON name conflict (computed)",
    [order([scalar("foo_bar", 1), scalar("fooBar", 2)])],
    "JSON_NAME_CONFLICT",
    "invalid descriptor acme.Order: fields acme.Order.foo_bar and acme.Order.fooBar have the same JSON name fooBar; rename one of them or give it a distinct json_name",
  ],
  [
    "JSON name conflict (explicit json_name)",
    [order([scalar("a", 1, T.INT64, { jsonName: "x" }), scalar("b", 2, T.INT64, { jsonName: "x" })])],
    "JSON_NAME_CONFLICT",
    "invalid descriptor acme.Order: fields acme.Order.a and acme.Order.b have the same JSON name x; rename one of them or give it a distinct json_name",
  ],
  [
    "a proto2 file in the closure",
    [
      { name: "legacy/old.proto", package: "legacy", syntax: "proto2", messageType: [{ name: "Old", field: [scalar("a", 1)] }] },
      acme({
        dependency: ["legacy/old.proto"],
        messageType: [{ name: "Order", field: [{ name: "old", number: 1, type: T.MESSAGE, typeName: ".legacy.Old", label: L.OPTIONAL }] }],
      }),
    ],
    "SYNTAX_NOT_PROTO3",
    'invalid descriptor acme.Order: message legacy.Old is declared in proto2 file legacy/old.proto, reached as acme.Order → legacy.Old; payload types must be declared in a proto3 file (syntax = "proto3")',
  ],
  [
    "editions",
    [{ name: "acme/order.proto", package: "acme", syntax: "editions", edition: 1000, messageType: [{ name: "Order", field: [scalar("id", 1)] }] }],
    "EDITIONS_NOT_SUPPORTED",
    'invalid descriptor acme.Order: message acme.Order is declared in file acme/order.proto with edition 2023; editions are not supported, declare it in a proto3 file (syntax = "proto3")',
  ],
  [
    "an extension range",
    [order([scalar("id", 1)], { extensionRange: [{ start: 100, end: 200 }] })],
    "EXTENSION_RANGE_DECLARED",
    "invalid descriptor acme.Order: message acme.Order declares extension range 100..199; payload types cannot be extended, remove the extensions statement",
  ],
  [
    "an extension field",
    [
      { name: "legacy/base.proto", package: "legacy", syntax: "proto2", messageType: [{ name: "Base", extensionRange: [{ start: 100, end: 200 }] }] },
      acme({
        dependency: ["legacy/base.proto"],
        messageType: [
          {
            name: "Order",
            field: [scalar("id", 1)],
            extension: [{ name: "tag", number: 100, type: T.STRING, label: L.OPTIONAL, extendee: ".legacy.Base" }],
          },
        ],
      }),
    ],
    "EXTENSION_DECLARED",
    "invalid descriptor acme.Order: message acme.Order declares extension acme.Order.tag; payload types declare no extensions, move the extend block out of the message",
  ],
  [
    "a group",
    [order([scalar("id", 1), { name: "g", number: 2, type: T.GROUP, typeName: ".acme.Order.G", label: L.OPTIONAL }], { nestedType: [{ name: "G" }] })],
    "GROUP_FIELD",
    "invalid descriptor acme.Order: field acme.Order.g is a group; groups are not supported, use a message field",
  ],
  [
    "a required field",
    [order([scalar("id", 1, T.INT64, { label: L.REQUIRED })])],
    "REQUIRED_FIELD",
    "invalid descriptor acme.Order: field acme.Order.id is required; required fields are not supported, remove the label",
  ],
  [
    "an explicit default",
    [order([scalar("id", 1, T.INT64, { defaultValue: "7" })])],
    "EXPLICIT_DEFAULT",
    'invalid descriptor acme.Order: field acme.Order.id declares default "7"; proto3 fields have no explicit defaults, remove the default option',
  ],
  [
    "an enum whose first value is not 0",
    [
      acme({
        messageType: [{ name: "Order", field: [{ name: "status", number: 1, type: T.ENUM, typeName: ".acme.Status", label: L.OPTIONAL }] }],
        enumType: [{ name: "Status", value: [{ name: "OPEN", number: 1 }, { name: "UNKNOWN", number: 0 }] }],
      }),
    ],
    "ENUM_FIRST_VALUE_NOT_ZERO",
    "invalid descriptor acme.Order: enum acme.Status has first value OPEN = 1; proto3 enums must start with a value numbered 0, add one first",
  ],
  [
    "an alias without allow_alias (nested enum)",
    [
      order([scalar("id", 1)], {
        enumType: [{ name: "Kind", value: [{ name: "NONE", number: 0 }, { name: "A", number: 1 }, { name: "B", number: 1 }] }],
      }),
    ],
    "ENUM_ALIAS_NOT_ALLOWED",
    "invalid descriptor acme.Order: enum acme.Order.Kind values A and B share number 1 without allow_alias; renumber one or set option allow_alias = true",
  ],
  [
    "a violation in a nested type of a referenced top-level type",
    [
      acme({
        messageType: [
          { name: "Order", field: [{ name: "item", number: 1, type: T.MESSAGE, typeName: ".acme.Item", label: L.OPTIONAL }] },
          { name: "Item", field: [scalar("sku", 1, T.STRING)], nestedType: [{ name: "Note", field: [scalar("x", 536_870_912)] }] },
        ],
      }),
    ],
    "FIELD_NUMBER_TOO_LARGE",
    `invalid descriptor acme.Order: field acme.Item.Note.x has number 536870912 above 536870911; ${RANGE}`,
  ],
  [
    "a map value type",
    [
      acme({
        messageType: [
          {
            name: "Order",
            field: [{ name: "by_key", number: 1, type: T.MESSAGE, typeName: ".acme.Order.ByKeyEntry", label: L.REPEATED }],
            nestedType: [
              {
                name: "ByKeyEntry",
                options: { mapEntry: true },
                field: [scalar("key", 1, T.STRING), { name: "value", number: 2, type: T.MESSAGE, typeName: ".acme.Bad", label: L.OPTIONAL }],
              },
            ],
          },
          { name: "Bad", field: [scalar("x", 0)] },
        ],
      }),
    ],
    "FIELD_NUMBER_TOO_SMALL",
    `invalid descriptor acme.Order: field acme.Bad.x has number 0 below 1; ${RANGE}`,
  ],
];

test("a proto2 type reached by a sibling of a nested root: the message says how the root reaches it", () => {
  // A nested root brings every type its top-level message declares or names: the message said
  // only that legacy.Old is proto2, not how acme.Order.Inner (whose own fields are proto3) got to it.
  const files = [
    { name: "legacy/old.proto", package: "legacy", syntax: "proto2", messageType: [{ name: "Old", field: [scalar("a", 1)] }] },
    acme({
      dependency: ["legacy/old.proto"],
      messageType: [
        {
          name: "Order",
          field: [{ name: "old", number: 1, type: T.MESSAGE, typeName: ".legacy.Old", label: L.OPTIONAL }],
          nestedType: [{ name: "Inner", field: [scalar("a", 1)] }],
        },
      ],
    }),
  ];
  const expected = {
    code: "SYNTAX_NOT_PROTO3",
    message:
      'invalid descriptor acme.Order.Inner: message legacy.Old is declared in proto2 file legacy/old.proto, reached as acme.Order → legacy.Old (the top-level message of acme.Order.Inner, whose payload holds every type it declares or names); payload types must be declared in a proto3 file (syntax = "proto3")',
  };
  expect(() => ProtobufType.of(messageOf(files, "acme.Order.Inner"))).toThrow(expect.objectContaining(expected));
  expect(() => ProtobufType.of({ fileDescriptorSet: setBytes(files), messageName: "acme.Order.Inner" })).toThrow(expect.objectContaining(expected));
});

// A proto2 root in a cycle of proto2 types (descriptor.proto's): the error named another member of
// the cycle, reached from the root, as if the root's own file were not the problem.
test("a proto2 root in a cycle of proto2 types is named itself", async () => {
  const { FileDescriptorSetSchema } = await import("@bufbuild/protobuf/wkt");
  expect(() => ProtobufType.of(FileDescriptorSetSchema)).toThrow(
    expect.objectContaining({
      code: "SYNTAX_NOT_PROTO3",
      message:
        'invalid descriptor google.protobuf.FileDescriptorSet: message google.protobuf.FileDescriptorSet is declared in proto2 file google/protobuf/descriptor.proto; payload types must be declared in a proto3 file (syntax = "proto3")',
    }),
  );
});

// The first type of a proto2 file the root reaches is named (breadth-first), not the first by name;
// a nested root in a proto2 file is named itself.
test.each<[string, Record<string, string>, string, string]>([
  [
    "a proto3 root holding descriptor.proto's FileDescriptorSet",
    { "x.proto": 'syntax = "proto3"; package p; import "google/protobuf/descriptor.proto"; message R { google.protobuf.FileDescriptorSet s = 1; }' },
    "p.R",
    'invalid descriptor p.R: message google.protobuf.FileDescriptorSet is declared in proto2 file google/protobuf/descriptor.proto, reached as p.R → google.protobuf.FileDescriptorSet; payload types must be declared in a proto3 file (syntax = "proto3")',
  ],
  [
    "a nested root of a proto2 file",
    { "x.proto": 'syntax = "proto2"; package p; message Outer { message In { optional int32 x = 1; } }' },
    "p.Outer.In",
    'invalid descriptor p.Outer.In: message p.Outer.In is declared in proto2 file x.proto; payload types must be declared in a proto3 file (syntax = "proto3")',
  ],
])("%s: SYNTAX_NOT_PROTO3 names the nearest proto2 type", (_name, files, root, message) => {
  expect(() => ProtobufType.of({ fileDescriptorSet: compileProtoText(files), messageName: root })).toThrow(expect.objectContaining({ code: "SYNTAX_NOT_PROTO3", message }));
});

describe("payload rules", () => {
  test.each(cases)("%s", (_name, files, code, message) => {
    const root = messageOf(files, "acme.Order");
    const expected = { name: "InvalidDescriptorError", code, message };
    expect(() => checkPayloadRules(root)).toThrow(expect.objectContaining(expected));
    // The same rule applies on every input path.
    expect(() => ProtobufType.of(root)).toThrow(expect.objectContaining(expected));
    expect(() => ProtobufType.of({ fileDescriptorSet: setBytes(files), messageName: "acme.Order" })).toThrow(
      expect.objectContaining(expected),
    );
  });

  test("an unreachable invalid type does not matter", () => {
    const root = messageOf(
      [acme({ messageType: [{ name: "Order", field: [scalar("id", 1)] }, { name: "Other", field: [scalar("x", 0)] }] })],
      "acme.Order",
    );
    expect(() => checkPayloadRules(root)).not.toThrow();
  });

  test("allow_alias permits aliases", () => {
    const root = messageOf(
      [
        acme({
          messageType: [{ name: "Order", field: [{ name: "k", number: 1, type: T.ENUM, typeName: ".acme.Kind", label: L.OPTIONAL }] }],
          enumType: [{ name: "Kind", options: { allowAlias: true }, value: [{ name: "NONE", number: 0 }, { name: "A", number: 1 }, { name: "B", number: 1 }] }],
        }),
      ],
      "acme.Order",
    );
    expect(() => checkPayloadRules(root)).not.toThrow();
  });

  test("the largest valid number and the numbers around the reserved range pass", () => {
    const root = messageOf([order([scalar("a", 536_870_911), scalar("b", 18_999), scalar("c", 20_000), scalar("d", 1)])], "acme.Order");
    expect(() => checkPayloadRules(root)).not.toThrow();
  });

  test("a root name over 65,535 UTF-8 bytes", () => {
    const pkg = "p".repeat(65_531);
    const root = messageOf([{ name: "big.proto", package: pkg, syntax: "proto3", messageType: [{ name: "Order", field: [scalar("id", 1)] }] }], `${pkg}.Order`);
    const err = catchError(() => ProtobufType.of(root));
    expect(err).toBeInstanceOf(InvalidDescriptorError);
    expect(err.code).toBe("ROOT_NAME_TOO_LONG");
    expect(err.message).toBe(
      `invalid descriptor ${"p".repeat(120)}…(65537 chars): the root full name is 65537 UTF-8 bytes, above 65535; use a shorter package or message name`,
    );
    // 65,535 bytes exactly is allowed.
    const okPkg = "p".repeat(65_529);
    const ok = messageOf([{ name: "ok.proto", package: okPkg, syntax: "proto3", messageType: [{ name: "Order" }] }], `${okPkg}.Order`);
    expect(() => checkPayloadRules(ok)).not.toThrow();
  });

  test("the root name limit counts UTF-8 bytes, not characters", () => {
    // 40,000 two-byte characters: 40,000 UTF-16 units but 80,000 UTF-8 bytes.
    expect(() => checkRootName(`acme.${"é".repeat(40_000)}`)).toThrow(
      expect.objectContaining({ code: "ROOT_NAME_TOO_LONG", message: expect.stringContaining("80005 UTF-8 bytes") }),
    );
    expect(() => checkRootName(`acme.${"é".repeat(32_765)}`)).not.toThrow();
  });

  test("a normalized set over 64 MiB", () => {
    // ~1,100 enum values of 61,000 characters each: ~67 MB of names, nothing else large.
    const long = "V".repeat(61_000);
    const values = Array.from({ length: 1_100 }, (_, i) => ({ name: `${long}${i}`, number: i }));
    const root = messageOf(
      [
        acme({
          messageType: [{ name: "Order", field: [{ name: "v", number: 1, type: T.ENUM, typeName: ".acme.Huge", label: L.OPTIONAL }] }],
          enumType: [{ name: "Huge", value: values }],
        }),
      ],
      "acme.Order",
    );
    const err = catchError(() => ProtobufType.of(root));
    expect(err.code).toBe("NORMALIZED_SET_TOO_LARGE");
    expect(err.message).toMatch(
      /^invalid descriptor acme\.Order: the normalized descriptor set is \d+ bytes, above 67108864 \(64 MiB\); reduce the types reachable from the root$/,
    );
  });
});

describe("payload rules on protobufjs input", () => {
  test.each([
    [
      "proto2",
      'syntax = "proto2"; package acme; message Order { optional int32 id = 1; }',
      "SYNTAX_NOT_PROTO3",
      'invalid descriptor acme.Order: message acme.Order is declared in proto2 file acme.Order.proto; payload types must be declared in a proto3 file (syntax = "proto3")',
    ],
    [
      "editions",
      'edition = "2023"; package acme; message Order { int32 id = 1; }',
      "EDITIONS_NOT_SUPPORTED",
      'invalid descriptor acme.Order: message acme.Order is declared in file acme.Order.proto with edition 2023; editions are not supported, declare it in a proto3 file (syntax = "proto3")',
    ],
    [
      "a proto2 group",
      'syntax = "proto2"; package acme; message Order { optional group G = 1 { optional int32 x = 2; } }',
      "SYNTAX_NOT_PROTO3",
      'invalid descriptor acme.Order: message acme.Order is declared in proto2 file acme.Order.proto; payload types must be declared in a proto3 file (syntax = "proto3")',
    ],
    [
      "an extension range",
      'syntax = "proto3"; package acme; message Order { int32 id = 1; extensions 100 to 199; }',
      "EXTENSION_RANGE_DECLARED",
      "invalid descriptor acme.Order: message acme.Order declares extension range 100..199; payload types cannot be extended, remove the extensions statement",
    ],
    [
      "an enum whose first value is not 0",
      'syntax = "proto3"; package acme; enum S { A = 1; } message Order { S s = 1; }',
      "ENUM_FIRST_VALUE_NOT_ZERO",
      "invalid descriptor acme.Order: enum acme.S has first value A = 1; proto3 enums must start with a value numbered 0, add one first",
    ],
  ])("%s", (_name, text, code, message) => {
    const type = protobuf.parse(text, { keepCase: true }).root.lookupType("acme.Order");
    expect(() => ProtobufType.of(type)).toThrow(expect.objectContaining({ name: "InvalidDescriptorError", code, message }));
  });

  // protobufjs reads editions features in a proto3 file (protoc and buf refuse them) and encodes
  // by them; they were dropped, so each library misread the other's bytes.
  const FEATURES = "which proto3 does not have (protoc and buf refuse them; protobufjs encodes by them); remove them, payload types are plain proto3";
  test.each([
    ["a DELIMITED message field", "message N { int32 x = 1; } message Order { N n = 1 [features.message_encoding = DELIMITED]; }", "field acme.Order.n sets editions features (features.message_encoding)"],
    ["an EXPANDED list", "message Order { repeated int32 r = 1 [features.repeated_field_encoding = EXPANDED]; }", "field acme.Order.r sets editions features (features.repeated_field_encoding)"],
    ["EXPLICIT presence", "message Order { int32 p = 1 [features.field_presence = EXPLICIT]; }", "field acme.Order.p sets editions features (features.field_presence)"],
    ["a message-level feature", "message Order { option features.field_presence = EXPLICIT; int32 p = 1; }", "message acme.Order sets editions features (features.field_presence)"],
    // protobufjs hands a oneof's features to its members.
    ["a oneof-level feature", "message N { int32 x = 1; } message Order { oneof k { option features.message_encoding = DELIMITED; N n = 1; } }", "oneof k of message acme.Order sets editions features (features.message_encoding)"],
  ])("editions features in a proto3 file: %s", (_name, body, what) => {
    const type = protobuf.parse(`syntax = "proto3"; package acme; ${body}`, { keepCase: true }).root.lookupType("acme.Order");
    expect(() => ProtobufType.of(type)).toThrow(expect.objectContaining({ name: "InvalidDescriptorError", code: "EDITIONS_NOT_SUPPORTED", message: `invalid descriptor acme.Order: ${what}, ${FEATURES}` }));
  });

  test.each([
    ["a closed enum (features in JSON)", { fields: { e: { type: "E", id: 1 } }, nested: { E: { values: { Z: 0, A: 1 }, options: { features: { enum_type: "CLOSED" } } } } }, `enum acme.Order.E sets editions features (features.enum_type), ${FEATURES}`],
    ["a field with an edition of its own", { fields: { a: { type: "int32", id: 1, edition: "proto2" } } }, 'field acme.Order.a is declared with edition proto2 of its own; payload types must be proto3 throughout, declare it in the proto3 file (syntax = "proto3") without an edition'],
  ])("from Root.fromJSON: %s", (_name, order, detail) => {
    const root = protobuf.Root.fromJSON({ nested: { acme: { nested: { Order: order } } } });
    expect(() => ProtobufType.of(root.lookupType("acme.Order"))).toThrow(expect.objectContaining({ code: "EDITIONS_NOT_SUPPORTED", message: `invalid descriptor acme.Order: ${detail}` }));
  });

  // Only "JS_STRING" and "JS_NUMBER" were read: anything else was dropped, and numbers too.
  test.each([
    ['"JS_BOGUS"', "JS_BOGUS", 'jstype = "JS_BOGUS"'],
    ['"js_number"', "js_number", 'jstype = "js_number"'],
    ["7", 7, "jstype = 7"],
    // Read as a string first, [1] was "1": JS_STRING.
    ["[1]", [1], "jstype = [1]"],
  ])("a protobufjs jstype of %s is JSTYPE_INVALID", (_name, jstype, shown) => {
    const root = protobuf.Root.fromJSON({ nested: { acme: { nested: { Order: { fields: { a: { type: "int64", id: 1, options: { jstype } } } } } } } });
    expect(() => ProtobufType.of(root.lookupType("acme.Order"))).toThrow(
      expect.objectContaining({
        code: "JSTYPE_INVALID",
        message: `invalid descriptor acme.Order: field acme.Order.a has ${shown}, which google.protobuf.FieldOptions.JSType does not declare (JS_NORMAL, JS_STRING, JS_NUMBER); use one of those names or remove the option`,
      }),
    );
  });

  test.each([
    [1, "string"],
    [2, "number"],
    ["JS_NUMBER", "number"],
    [0, "bigint"],
  ])("a protobufjs jstype of %o is read (values of type %s)", (jstype, kind) => {
    const root = protobuf.Root.fromJSON({ nested: { acme: { nested: { Order: { fields: { a: { type: "int64", id: 1, options: { jstype } } } } } } } });
    const type = ProtobufType.of(root.lookupType("acme.Order"));
    expect(typeof type.createSerializer().fromBinary(Uint8Array.of(8, 5)).get("a")).toBe(kind);
  });

  test("field number 536,870,912 from Root.fromJSON", () => {
    const root = protobuf.Root.fromJSON({ nested: { acme: { nested: { Order: { fields: { id: { type: "int64", id: 536_870_912 } } } } } } });
    expect(() => ProtobufType.of(root.lookupType("acme.Order"))).toThrow(
      expect.objectContaining({
        code: "FIELD_NUMBER_TOO_LARGE",
        message: `invalid descriptor acme.Order: field acme.Order.id has number 536870912 above 536870911; ${RANGE}`,
      }),
    );
  });

  test("a recursive cycle across packages", () => {
    const root = protobuf.Root.fromJSON({
      nested: {
        a: { nested: { A: { fields: { b: { type: "b.B", id: 1 } } } } },
        b: { nested: { B: { fields: { a: { type: "a.A", id: 1 } } } } },
      },
    });
    expect(() => ProtobufType.of(root.lookupType("a.A"))).toThrow(
      expect.objectContaining({
        name: "InvalidDescriptorError",
        code: "CYCLE_SPANS_PACKAGES",
        message:
          "invalid descriptor a.A: a.A and b.B reference each other across packages a and b; move mutually recursive types into one package",
      }),
    );
  });

  test("an unresolvable type", () => {
    // parse does not resolve, so the missing type reaches protokeel.
    const type = protobuf.parse('syntax = "proto3"; package acme; message Order { Missing x = 1; }').root.lookupType("acme.Order");
    expect(() => ProtobufType.of(type)).toThrow(
      expect.objectContaining({
        code: "UNRESOLVED_TYPE",
        message:
          "invalid descriptor acme.Order: field acme.Order.x references type Missing, which does not resolve; load the file that declares it into the same protobufjs Root",
      }),
    );
  });

  test("an extension declared inside a message", () => {
    // A JSON descriptor (no syntax: proto3): in a proto2 file the file's syntax is the reason
    // given first (SYNTAX_NOT_PROTO3, as from a FileDescriptorSet; descriptor-protobufjs.test.ts).
    const root = protobuf.Root.fromJSON({
      nested: { acme: { nested: { Base: { fields: {}, extensions: [[10, 20]] }, Order: { fields: { id: { type: "int32", id: 1 } }, nested: { tag: { type: "int32", id: 10, extend: "Base" } } } } } },
    });
    const type = root.lookupType("acme.Order");
    expect(() => ProtobufType.of(type)).toThrow(
      expect.objectContaining({
        code: "EXTENSION_DECLARED",
        message:
          "invalid descriptor acme.Order: message acme.Order declares extension acme.Order.tag; payload types declare no extensions, move the extend block out of the message",
      }),
    );
  });
});

describe("payload rules on FileDescriptorSet input", () => {
  test("an unresolvable type", () => {
    const files = [order([{ name: "x", number: 1, type: T.MESSAGE, typeName: ".acme.Missing", label: L.OPTIONAL }])];
    expect(() => ProtobufType.of({ fileDescriptorSet: setBytes(files), messageName: "acme.Order" })).toThrow(
      expect.objectContaining({
        code: "UNRESOLVED_TYPE",
        message:
          "invalid descriptor acme.Order: field acme.Order.x names type acme.Missing, which the file descriptor set does not declare; include every imported file (protoc --include_imports)",
      }),
    );
  });
});

function catchError(fn: () => unknown): InvalidDescriptorError {
  try {
    fn();
  } catch (e) {
    return e as InvalidDescriptorError;
  }
  throw new Error("expected an error");
}

describe("a DescMessage built by hand with numbers a descriptor cannot hold", () => {
  // create() and createFileRegistry keep any JS number; the FileDescriptorSet encoder throws a plain Error.
  test.each([
    [
      "an enum value of 1.5",
      [acme({ messageType: [{ name: "Order", field: [{ name: "s", number: 1, type: T.ENUM, typeName: ".acme.S", label: L.OPTIONAL }] }], enumType: [{ name: "S", value: [{ name: "Z", number: 0 }, { name: "B", number: 1.5 }] }] })],
      "invalid descriptor acme.Order: the descriptor does not encode as a FileDescriptorSet (cannot encode field google.protobuf.EnumValueDescriptorProto.number to binary: invalid int32: 1.5); numbers in a descriptor are 32-bit integers",
    ],
    [
      "a field number of 1.5",
      [acme({ messageType: [{ name: "Order", field: [scalar("id", 1.5)] }] })],
      "invalid descriptor acme.Order: the descriptor does not encode as a FileDescriptorSet (cannot encode field google.protobuf.FieldDescriptorProto.number to binary: invalid int32: 1.5); numbers in a descriptor are 32-bit integers",
    ],
  ])("%s is INPUT_INVALID", (_name, files, message) => {
    expect(() => ProtobufType.of(messageOf(files as FileInit[], "acme.Order"))).toThrow(
      expect.objectContaining({ name: "InvalidDescriptorError", code: "INPUT_INVALID", message }),
    );
  });
});
