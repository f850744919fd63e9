import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import protobuf from "protobufjs";
import { fromBinary, type DescMessage } from "@bufbuild/protobuf";
import {
  AnySchema,
  DurationSchema,
  FileDescriptorSetSchema,
  StringValueSchema,
  StructSchema,
  TimestampSchema,
} from "@bufbuild/protobuf/wkt";
import { fingerprintOf, mergeRanges, normalize } from "../src/descriptor/normalize.js";
import { rebuildRoot } from "../src/descriptor/rebuild.js";
import { resolveRoot } from "../src/descriptor/input.js";
import { compileProtoDir, messageFromDir } from "./support/buf.js";
import { acme, L, messageOf, scalar, T } from "./support/descriptors.js";

const CANONICAL = "fixtures/descriptors/canonical";
const VARIANT = "fixtures/descriptors/variant";
const RECURSIVE = "fixtures/descriptors/recursive";
const WKT = ["any", "duration", "struct", "timestamp", "wrappers"];

/** protobufjs `parse` of the canonical .proto text, the well-known types from protobufjs's bundled copies. */
function parsed(keepCase: boolean, typeName = "acme.Order"): unknown {
  const root = new protobuf.Root();
  for (const name of WKT) root.addJSON(protobuf.common.get(`google/protobuf/${name}.proto`)!.nested!);
  const path = fileURLToPath(new URL(`${CANONICAL}/acme/order.proto`, import.meta.url));
  protobuf.parse(readFileSync(path, "utf8"), root, { keepCase });
  return root.lookupType(typeName);
}

function loaded(keepCase: boolean): unknown {
  const path = fileURLToPath(new URL(`${CANONICAL}/acme/order.proto`, import.meta.url));
  return new protobuf.Root().loadSync(path, { keepCase }).lookupType("acme.Order");
}

function normalizedOf(input: unknown): Uint8Array {
  return normalize(resolveRoot(input));
}

function decoded(bytes: Uint8Array) {
  return fromBinary(FileDescriptorSetSchema, bytes);
}

describe("normalization v1: equal content gives identical bytes", () => {
  const reference = normalize(messageFromDir(CANONICAL, "acme.Order"));

  test.each<[string, () => Uint8Array]>([
    ["buf build with source info", () => normalize(messageFromDir(CANONICAL, "acme.Order", { sourceInfo: true }))],
    ["reordered, re-filed variant with other file and custom options and an unused proto2 import", () => normalize(messageFromDir(VARIANT, "acme.Order"))],
    ["protobufjs parse, keepCase on", () => normalizedOf(parsed(true))],
    ["protobufjs parse, keepCase off", () => normalizedOf(parsed(false))],
    ["protobufjs Root.loadSync with its bundled well-known types, keepCase on", () => normalizedOf(loaded(true))],
    ["protobufjs Root.loadSync with its bundled well-known types, keepCase off", () => normalizedOf(loaded(false))],
    ["a FileDescriptorSet input", () => normalizedOf({ fileDescriptorSet: compileProtoDir(CANONICAL), messageName: "acme.Order" })],
    ["the variant as a FileDescriptorSet input", () => normalizedOf({ fileDescriptorSet: compileProtoDir(VARIANT), messageName: "acme.Order" })],
  ])("%s", (_name, make) => {
    expect(make()).toEqual(reference);
  });

  test("well-known types from protobuf-es generated schemas equal buf-compiled ones", () => {
    const compiled = compileProtoDir(CANONICAL);
    for (const schema of [TimestampSchema, DurationSchema, StructSchema, AnySchema, StringValueSchema]) {
      const fromBuf = resolveRoot({ fileDescriptorSet: compiled, messageName: schema.typeName });
      expect(normalize(schema), schema.typeName).toEqual(normalize(fromBuf));
    }
  });

  test("a hand-built DescMessage without json_name equals its buf-compiled twin", () => {
    const hand = messageOf(
      [
        acme({
          messageType: [
            {
              name: "Money",
              field: [scalar("units", 1), scalar("nanos", 2, T.INT32)],
            },
          ],
        }),
      ],
      "acme.Money",
    );
    expect(normalize(hand)).toEqual(normalize(messageFromDir(CANONICAL, "acme.Money")));
  });

  test("the same bytes through a nested root's own closure differ from the whole root's", () => {
    const item = normalize(messageFromDir(CANONICAL, "acme.Item"));
    expect(item).not.toEqual(reference);
    expect(normalizedOf(parsed(true, "acme.Item"))).toEqual(item);
  });
});

describe("normalization v1: form", () => {
  const set = decoded(normalize(messageFromDir(CANONICAL, "acme.Order")));

  test("one file per strongly connected component, in dependency order, ties by name", () => {
    expect(set.file.map((f) => [f.name, f.package, f.dependency])).toEqual([
      ["acme.Money.proto", "acme", []],
      ["acme.Item.proto", "acme", ["acme.Money.proto"]],
      ["acme.Status.proto", "acme", []],
      ["google.protobuf.Any.proto", "google.protobuf", []],
      ["google.protobuf.Duration.proto", "google.protobuf", []],
      ["google.protobuf.NullValue.proto", "google.protobuf", []],
      ["google.protobuf.ListValue.proto", "google.protobuf", ["google.protobuf.NullValue.proto"]],
      ["google.protobuf.StringValue.proto", "google.protobuf", []],
      ["google.protobuf.Timestamp.proto", "google.protobuf", []],
      [
        "acme.Order.proto",
        "acme",
        [
          "acme.Item.proto",
          "acme.Status.proto",
          "google.protobuf.Any.proto",
          "google.protobuf.Duration.proto",
          "google.protobuf.ListValue.proto",
          "google.protobuf.StringValue.proto",
          "google.protobuf.Timestamp.proto",
        ],
      ],
    ]);
    // Struct, Value and ListValue reference each other: one component, one file.
    expect(set.file[6]!.messageType.map((m) => m.name)).toEqual(["ListValue", "Struct", "Value"]);
    expect(set.file.every((f) => f.syntax === "proto3" && f.options === undefined)).toBe(true);
  });

  test("unreachable types and unused imports are not in the closure", () => {
    const names = set.file.flatMap((f) => f.messageType.map((m) => `${f.package}.${m.name}`));
    expect(names).not.toContain("acme.Unused");
    expect(names).not.toContain("google.protobuf.Empty");
  });

  test("fields by number, json_name always set, fully qualified type names, regenerated map entries", () => {
    const order = set.file.find((f) => f.name === "acme.Order.proto")!.messageType[0]!;
    expect(order.field.map((f) => f.number)).toEqual([...[...Array(19).keys()].map((i) => i + 1), 31]);
    expect(order.field.every((f) => f.jsonName !== "")).toBe(true);
    const byName = Object.fromEntries(order.field.map((f) => [f.name, f]));
    expect(byName.customer_name!.jsonName).toBe("customerName");
    expect(byName.display!.jsonName).toBe("displayText");
    expect(byName.items!.typeName).toBe(".acme.Item");
    expect(byName.items_by_sku!.typeName).toBe(".acme.Order.ItemsBySkuEntry");
    expect(byName.items_by_sku!.label).toBe(L.REPEATED);
    expect(order.nestedType.map((n) => n.name)).toEqual(["Cash", "ItemsBySkuEntry", "StatusByCodeEntry"]);
    const entry = order.nestedType[1]!;
    expect(entry.options?.mapEntry).toBe(true);
    expect(entry.field.map((f) => [f.name, f.number, f.type, f.typeName, f.jsonName])).toEqual([
      ["key", 1, T.STRING, "", "key"],
      ["value", 2, T.MESSAGE, ".acme.Item", "value"],
    ]);
  });

  test("real oneofs first, then synthetic ones; allow-listed options only", () => {
    const order = set.file.find((f) => f.name === "acme.Order.proto")!.messageType[0]!;
    expect(order.oneofDecl.map((o) => o.name)).toEqual(["payment", "_note", "_gift_note"]);
    expect(Object.fromEntries(order.field.map((f) => [f.name, f])).gift_note!.oneofIndex).toBe(2);
    const byName = Object.fromEntries(order.field.map((f) => [f.name, f]));
    expect(byName.card_token!.oneofIndex).toBe(0);
    expect(byName.note!.oneofIndex).toBe(1);
    expect(byName.note!.proto3Optional).toBe(true);
    expect(byName.legacy_codes!.options?.packed).toBe(false);
    expect(byName.deltas!.options).toBeUndefined();
    expect(byName.big!.options?.jstype).toBe(1);
    expect(byName.old_field!.options?.deprecated).toBe(true);
    expect(order.reservedRange.map((r) => [r.start, r.end])).toEqual([
      [20, 28],
      [30, 31],
    ]);
    expect(order.reservedName).toEqual(["also_gone", "gone"]);
  });

  test.each([
    [[[20, 25], [30, 30], [26, 27]], [[20, 27], [30, 30]]],
    [[[5, 9], [1, 3], [2, 6]], [[1, 9]]],
    [[[1, 1], [3, 3]], [[1, 1], [3, 3]]],
  ])("mergeRanges(%j)", (input, expected) => {
    expect(mergeRanges(input as Array<[number, number]>)).toEqual(expected);
  });
});

describe("normalization v1: idempotent, recursive, fingerprint", () => {
  test.each([
    [CANONICAL, "acme.Order"],
    [VARIANT, "acme.Order"],
    [RECURSIVE, "acme.Node"],
    [RECURSIVE, "acme.Ping"],
  ])("normalizing the rebuilt root of %s %s gives the same bytes", (dir, name) => {
    const bytes = normalize(messageFromDir(dir, name));
    const rebuilt: DescMessage = rebuildRoot(bytes, name);
    expect(normalize(rebuilt)).toEqual(bytes);
    expect(normalize(rebuildRoot(normalize(rebuilt), name))).toEqual(bytes);
  });

  test("self- and mutually recursive types", () => {
    const set = decoded(normalize(messageFromDir(RECURSIVE, "acme.Node")));
    expect(set.file.map((f) => [f.name, f.dependency, f.messageType.map((m) => m.name)])).toEqual([
      ["acme.Ping.proto", [], ["Ping", "Pong"]],
      ["acme.Node.proto", ["acme.Ping.proto"], ["Node"]],
    ]);
    const ping = set.file[0]!.messageType[0]!;
    expect(ping.nestedType.map((n) => n.name)).toEqual(["PeersEntry"]);
  });

  test("recursive types parsed by protobufjs normalize like buf's", () => {
    const root = protobuf.parse(readFileSync(fileURLToPath(new URL(`${RECURSIVE}/acme/tree.proto`, import.meta.url)), "utf8"), {
      keepCase: true,
    }).root;
    expect(normalizedOf(root.lookupType("acme.Node"))).toEqual(normalize(messageFromDir(RECURSIVE, "acme.Node")));
  });

  test("fingerprint is the lowercase hex SHA-256 of the bytes", () => {
    expect(fingerprintOf(new Uint8Array([0x61, 0x62, 0x63]))).toBe(
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
    const a = fingerprintOf(normalize(messageFromDir(CANONICAL, "acme.Order")));
    expect(a).toBe(fingerprintOf(normalize(messageFromDir(VARIANT, "acme.Order"))));
    expect(a).toMatch(/^[0-9a-f]{64}$/);
  });

  test("field names are content: a camelCased protobufjs JSON is a different schema", () => {
    const snake = protobuf.Root.fromJSON({ nested: { acme: { nested: { M: { fields: { created_at: { type: "int64", id: 1 } } } } } } });
    const camel = protobuf.Root.fromJSON({ nested: { acme: { nested: { M: { fields: { createdAt: { type: "int64", id: 1 } } } } } } });
    expect(normalizedOf(snake.lookupType("acme.M"))).not.toEqual(normalizedOf(camel.lookupType("acme.M")));
  });
});
