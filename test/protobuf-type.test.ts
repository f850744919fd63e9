import { describe, expect, test } from "vitest";
import protobuf from "protobufjs";
import { sha256 } from "@noble/hashes/sha2";
import { bytesToHex } from "@noble/hashes/utils";
import { DynamicMessage, InvalidDescriptorError, MissingTypeInfoError, ProtobufType, typeFor } from "../src/index.js";
import { compileProtoDir, messageFromDir } from "./support/buf.js";
import { acme, L, messageOf, scalar, setBytes, T } from "./support/descriptors.js";

const CANONICAL = "fixtures/descriptors/canonical";
const VARIANT = "fixtures/descriptors/variant";

describe("ProtobufType construction", () => {
  test("from a DescMessage keeps the application's instance", () => {
    const desc = messageFromDir(CANONICAL, "acme.Order");
    const type = ProtobufType.of(desc);
    expect(type.kind).toBe("dynamic");
    expect(type.fullName).toBe("acme.Order");
    expect(type.descriptor).toBe(desc);
    expect(type.settings).toEqual({ maxMessageBytes: 67_108_864, maxDepth: 100, deterministic: false, aliasThreshold: 0 });
    expect(type.isKeyType()).toBe(false);
    expect(String(type)).toBe("ProtobufType(dynamic acme.Order)");
  });

  test("from a protobufjs Type and from a FileDescriptorSet", () => {
    const pbjs = protobuf.parse('syntax = "proto3"; package acme; message Money { int64 units = 1; int32 nanos = 2; }').root;
    const a = ProtobufType.of(pbjs.lookupType("acme.Money"));
    const b = ProtobufType.of({ fileDescriptorSet: compileProtoDir(CANONICAL), messageName: "acme.Money" });
    expect(a.fullName).toBe("acme.Money");
    expect(a.descriptor.typeName).toBe("acme.Money");
    expect(a.descriptor.fields.map((f) => f.name)).toEqual(["units", "nanos"]);
    expect(b.descriptor.typeName).toBe("acme.Money");
    expect(a.equals(b)).toBe(true);
  });

  test("of(root) equals newBuilder(root).build()", () => {
    const desc = messageFromDir(CANONICAL, "acme.Order");
    expect(ProtobufType.of(desc).equals(ProtobufType.newBuilder(desc).build())).toBe(true);
  });

  test("the builder sets all four settings", () => {
    const type = ProtobufType.newBuilder(messageFromDir(CANONICAL, "acme.Order"))
      .maxMessageBytes(1 << 20)
      .maxDepth(64)
      .deterministic(true)
      .aliasThreshold(4096)
      .build();
    expect(type.settings).toEqual({ maxMessageBytes: 1 << 20, maxDepth: 64, deterministic: true, aliasThreshold: 4096 });
  });

  test.each<[string, (b: ReturnType<typeof ProtobufType.newBuilder>) => unknown, string]>([
    ["maxMessageBytes 0", (b) => b.maxMessageBytes(0), "setting maxMessageBytes must be an integer in 1..2147483647, got 0"],
    ["maxDepth 10,001", (b) => b.maxDepth(10_001), "setting maxDepth must be an integer in 1..10000, got 10001"],
    ["aliasThreshold -1", (b) => b.aliasThreshold(-1), "setting aliasThreshold must be an integer in 0..67108864, got -1"],
    ["aliasThreshold above maxMessageBytes", (b) => b.maxMessageBytes(10).aliasThreshold(11), "setting aliasThreshold must be an integer in 0..10, got 11"],
    ["deterministic not a boolean", (b) => b.deterministic("yes" as unknown as boolean), 'setting deterministic must be a boolean, got "yes"'],
    // null and undefined were taken for the default: .maxDepth(5).maxDepth(null) built 100.
    ["maxDepth null after 5", (b) => b.maxDepth(5).maxDepth(null as never), "setting maxDepth must be an integer in 1..10000, got null"],
    ["maxMessageBytes undefined", (b) => b.maxMessageBytes(undefined as never), "setting maxMessageBytes must be an integer in 1..2147483647, got undefined"],
    ["deterministic undefined", (b) => b.deterministic(undefined as never), "setting deterministic must be a boolean, got undefined"],
  ])("a setter rejects %s with RangeError", (_name, apply, message) => {
    const builder = ProtobufType.newBuilder(messageFromDir(CANONICAL, "acme.Money"));
    expect(() => apply(builder)).toThrow(new RangeError(message));
  });

  test("ProtobufType.of(DynamicMessage) names ProtobufType.of(descriptor)", () => {
    const expected = {
      name: "InvalidDescriptorError",
      code: "DYNAMIC_MESSAGE_CLASS",
      message:
        "invalid descriptor: DynamicMessage is a class and cannot select a schema; pass the root message descriptor: ProtobufType.of(descriptor)",
    };
    expect(() => ProtobufType.of(DynamicMessage as never)).toThrow(expect.objectContaining(expected));
    expect(() => ProtobufType.newBuilder(DynamicMessage as never).build()).toThrow(expect.objectContaining(expected));
  });

  const GENERAL = "pass a DescMessage, a protobufjs Type or { fileDescriptorSet, messageName }";
  const pbjsRoot = protobuf.parse('syntax = "proto3"; package acme; message Order { int64 id = 1; }').root;
  test.each<[string, unknown, string, string]>([
    ["null", null, "null", GENERAL],
    ["a plain object", {}, "(Object)", GENERAL],
    ["a number", 42, "(number)", GENERAL],
    ["a protobufjs Enum", protobuf.parse('syntax = "proto3"; enum E { A = 0; }').root.lookup("E"), "(protobufjs Enum .E)", 'a protobufjs Enum is not a message: pass the root message\'s Type, e.g. root.lookupType("acme.Order")'],
    ["a protobufjs Root", pbjsRoot, "(protobufjs Root)", 'a protobufjs Root holds many types: pass the root message\'s Type, e.g. root.lookupType("acme.Order")'],
    ["a protobufjs Namespace", pbjsRoot.lookup("acme"), "(protobufjs Namespace .acme)", 'a protobufjs Namespace holds many types: pass the root message\'s Type, e.g. root.lookupType("acme.Order")'],
    ["a DescEnum", messageFromDir(CANONICAL, "acme.Order").fields[4]!.enum, "(descriptor of kind enum acme.Status)", "an enum descriptor cannot be a root: pass the root message's DescMessage"],
    ["a DescFile", messageFromDir(CANONICAL, "acme.Order").file, "(descriptor of kind file)", 'a file descriptor holds many types: pass one of its messages, e.g. file.messages[0] or registry.getMessage("acme.Order")'],
    ["a ProtobufType", ProtobufType.of(messageFromDir(CANONICAL, "acme.Order")), "(ProtobufType)", "this is a ProtobufType already: use it, or pass type.descriptor to ProtobufType.newBuilder to change its settings"],
  ])("rejects %s", (_name, input, described, hint) => {
    expect(() => ProtobufType.of(input as never)).toThrow(
      expect.objectContaining({
        name: "InvalidDescriptorError",
        code: "UNSUPPORTED_INPUT",
        message: `invalid descriptor: unsupported input ${described}; ${hint}`,
      }),
    );
  });

  test.each<[string, unknown, string, string]>([
    [
      "bytes that are not a descriptor set",
      { fileDescriptorSet: new Uint8Array([0x0a, 0xff]), messageName: "acme.Order" },
      "DESCRIPTOR_SET_INVALID",
      "invalid descriptor acme.Order: the file descriptor set does not decode (premature EOF); pass the bytes written by protoc --descriptor_set_out or buf build",
    ],
    [
      "a message the set does not declare",
      { fileDescriptorSet: compileProtoDir(CANONICAL), messageName: "acme.Nope" },
      "MESSAGE_NOT_FOUND",
      "invalid descriptor acme.Nope: the file descriptor set declares no message acme.Nope; check messageName",
    ],
    [
      "a set that is not bytes",
      { fileDescriptorSet: [1, 2], messageName: "acme.Order" },
      "UNSUPPORTED_INPUT",
      "invalid descriptor acme.Order: fileDescriptorSet must be a Uint8Array holding an encoded google.protobuf.FileDescriptorSet",
    ],
  ])("a FileDescriptorSet input with %s", (_name, input, code, message) => {
    expect(() => ProtobufType.of(input as never)).toThrow(expect.objectContaining({ code, message }));
  });

  test("a leading dot in messageName is accepted", () => {
    expect(ProtobufType.of({ fileDescriptorSet: compileProtoDir(CANONICAL), messageName: ".acme.Money" }).fullName).toBe("acme.Money");
  });

  test("a descriptor that cannot be rebuilt from its own content fails at construction", () => {
    // A map field whose entry has a non-standard name next to a user type called `ItemsEntry`:
    // normalization would regenerate the entry as ItemsEntry and declare that name twice
    // (REBUILD_FAILED, test/descriptor-rebuild.test.ts); the map-entry rule (5a) refuses the
    // entry first, naming it.
    const files = [
      acme({
        messageType: [
          {
            name: "Order",
            field: [{ name: "items", number: 1, type: T.MESSAGE, typeName: ".acme.Order.Pairs", label: L.REPEATED }],
            nestedType: [
              { name: "Pairs", options: { mapEntry: true }, field: [scalar("key", 1, T.STRING), scalar("value", 2, T.STRING)] },
              { name: "ItemsEntry", field: [scalar("x", 1)] },
            ],
          },
        ],
      }),
    ];
    expect(() => ProtobufType.of(messageOf(files, "acme.Order"))).toThrow(
      expect.objectContaining({
        name: "InvalidDescriptorError",
        code: "MAP_ENTRY_INVALID",
        message:
          'invalid descriptor acme.Order: map field acme.Order.items uses entry ".acme.Order.Pairs"; its entry is acme.Order.ItemsEntry, nested in its message and used by no other field, declare the field as map<K, V> and let protoc generate the entry',
      }),
    );
    expect(() => ProtobufType.of({ fileDescriptorSet: setBytes(files), messageName: "acme.Order" })).toThrow(InvalidDescriptorError);
  });
});

describe("ProtobufType identity", () => {
  const canonical = ProtobufType.of(messageFromDir(CANONICAL, "acme.Order"));

  test("types from distinct descriptor instances with equal content are equal", () => {
    const variant = ProtobufType.of(messageFromDir(VARIANT, "acme.Order"));
    expect(variant.descriptor).not.toBe(canonical.descriptor);
    expect(variant.equals(canonical)).toBe(true);
    expect(canonical.equals(variant)).toBe(true);
    expect(variant.fingerprint()).toBe(canonical.fingerprint());
  });

  test.each<[string, (b: ReturnType<typeof ProtobufType.newBuilder>) => unknown]>([
    ["maxMessageBytes", (b) => b.maxMessageBytes(1000)],
    ["maxDepth", (b) => b.maxDepth(99)],
    ["deterministic", (b) => b.deterministic(true)],
    ["aliasThreshold", (b) => b.aliasThreshold(1)],
  ])("a different %s makes types unequal", (_name, apply) => {
    const builder = ProtobufType.newBuilder(messageFromDir(CANONICAL, "acme.Order"));
    apply(builder);
    const other = builder.build();
    expect(other.equals(canonical)).toBe(false);
    expect(other.fingerprint()).toBe(canonical.fingerprint());
  });

  test("a different root or schema makes types unequal", () => {
    expect(ProtobufType.of(messageFromDir(CANONICAL, "acme.Item")).equals(canonical)).toBe(false);
    const changed = messageOf([acme({ messageType: [{ name: "Order", field: [scalar("id", 1)] }] })], "acme.Order");
    expect(ProtobufType.of(changed).equals(canonical)).toBe(false);
    expect(canonical.equals(null)).toBe(false);
    expect(canonical.equals({ ...canonical })).toBe(false);
  });

  test("normalizedDescriptorSet returns a copy; the fingerprint is its SHA-256", () => {
    const bytes = canonical.normalizedDescriptorSet();
    expect(canonical.fingerprint()).toBe(bytesToHex(sha256(bytes)));
    bytes.fill(0);
    expect(canonical.normalizedDescriptorSet()).not.toEqual(bytes);
    expect(canonical.fingerprint()).toBe(bytesToHex(sha256(canonical.normalizedDescriptorSet())));
    expect(ProtobufType.of(messageFromDir(VARIANT, "acme.Order")).equals(canonical)).toBe(true);
  });
});

describe("typeFor", () => {
  const message =
    "missing type info for DynamicMessage: one class represents every schema, so it cannot select one; build the type explicitly with ProtobufType.of(descriptor)";

  test("the DynamicMessage class and a DynamicMessage value throw MissingTypeInfoError", () => {
    const value = DynamicMessage.create(messageFromDir(CANONICAL, "acme.Money"), { units: 1n });
    for (const input of [DynamicMessage, value]) {
      let err: unknown;
      try {
        typeFor(input);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(MissingTypeInfoError);
      expect(err).toMatchObject({ name: "MissingTypeInfoError", code: "DYNAMIC_MESSAGE_TYPE_INFO", message });
    }
  });

  test.each<[string, unknown, string]>([
    ["a number", 42, "cannot infer a protobuf type from number; build it with ProtobufType.of(descriptor)"],
    ["a class", Date, "cannot infer a protobuf type from class Date; build it with ProtobufType.of(descriptor)"],
    ["undefined", undefined, "cannot infer a protobuf type from undefined; build it with ProtobufType.of(descriptor)"],
  ])("other inputs (%s) throw TypeError", (_name, input, msg) => {
    expect(() => typeFor(input)).toThrow(new TypeError(msg));
  });
});

describe("ProtobufType immutability", () => {
  test("identity properties cannot be reassigned", () => {
    const type = ProtobufType.of(messageFromDir(CANONICAL, "acme.Money"));
    const other = ProtobufType.of(messageFromDir(CANONICAL, "acme.Money"));
    for (const key of ["kind", "fullName", "descriptor", "settings", "framingVersion", "normalizationVersion"]) {
      expect(() => {
        (type as unknown as Record<string, unknown>)[key] = "x";
      }, key).toThrow(TypeError);
    }
    expect(() => {
      (type.settings as { maxDepth: number }).maxDepth = 1;
    }).toThrow(TypeError);
    expect(type.equals(other)).toBe(true);
  });
});
