import type { DescMessage } from "@bufbuild/protobuf";
import { describe, expect, test } from "vitest";
import { create, createFileRegistry } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { evaluateSchemaChange, formatFindings, ProtobufType, type EvaluationResult } from "../src/index.js";
import { protoFileText } from "../src/descriptor/proto-text.js";
import { messageFromDir } from "./support/buf.js";

// Each case under test/fixtures/compat/<case>/ is the same schema (saved/) and that schema with
// exactly one change (current/), except `several-incompatibilities`. Every row also checks the
// controls: each side against a separately built copy of itself is compatible with no findings.

type Expected = readonly (readonly [rule: string, path: string])[];

interface Row {
  /** Fixture case directory. */
  readonly name: string;
  /** Incompatibilities, in order. */
  readonly incompatible?: Expected;
  /** Notes, in order. */
  readonly notes?: Expected;
  /** Incompatibilities of the reverse direction (current data read by the saved schema), when pinned. */
  readonly reverse?: Expected;
  readonly savedRoot?: string;
  readonly currentRoot?: string;
}

const ROWS: readonly Row[] = [
  // full names of the root and of paired nested types
  { name: "root-renamed", currentRoot: "acme.Purchase", incompatible: [["MESSAGE_NAME_CHANGED", "acme.Purchase"]] },
  { name: "root-package-changed", currentRoot: "acme.v2.Order", incompatible: [["MESSAGE_NAME_CHANGED", "acme.v2.Order"]] },
  {
    name: "nested-message-renamed",
    incompatible: [
      ["MESSAGE_NAME_CHANGED", "acme.Order.items(4)"],
      ["MESSAGE_NAME_CHANGED", "acme.Order.catalog(17)"],
    ],
  },
  { name: "message-moved-to-top-level", incompatible: [["MESSAGE_NAME_CHANGED", "acme.Order.transfer(9)"]] },
  { name: "enum-moved-to-top-level", incompatible: [["ENUM_NAME_CHANGED", "acme.Order.customer(7).kind(3)"]] },
  { name: "enum-renamed", incompatible: [["ENUM_NAME_CHANGED", "acme.Order.status(3)"]] },
  { name: "same-content-reorganized", reverse: [] },

  // fields added, removed, reserved, renamed
  { name: "field-added", reverse: [["FIELD_REMOVED_NOT_RESERVED", "acme.Order.channel(23)"]] },
  { name: "field-added-reusing-reserved-number", incompatible: [["FIELD_RESERVED_NUMBER_REUSED", "acme.Order.legacy_code(20)"]] },
  { name: "field-added-reusing-reserved-name", incompatible: [["FIELD_RESERVED_NAME_REUSED", "acme.Order.legacy(23)"]] },
  {
    name: "field-renamed-to-reserved-name",
    incompatible: [["FIELD_RESERVED_NAME_REUSED", "acme.Order.legacy(2)"]],
    notes: [["FIELD_RENAMED", "acme.Order.legacy(2)"]],
  },
  {
    name: "field-removed-reserved",
    reverse: [
      ["FIELD_RESERVED_NUMBER_REUSED", "acme.Order.note(2)"],
      ["FIELD_RESERVED_NAME_REUSED", "acme.Order.note(2)"],
    ],
  },
  { name: "field-removed-number-reserved", notes: [["FIELD_NAME_NOT_RESERVED", "acme.Order.note(2)"]] },
  // A dropped reservation is the next check's blind spot: data written before it may carry the
  // number (re-writes keep unknown fields), and a later field taking it is judged fresh.
  { name: "reservation-removed", incompatible: [["FIELD_RESERVATION_REMOVED", "acme.Order"]], reverse: [] },
  { name: "reserved-name-removed", notes: [["FIELD_RESERVED_NAME_REMOVED", "acme.Order"]], reverse: [] },
  { name: "field-removed-not-reserved", incompatible: [["FIELD_REMOVED_NOT_RESERVED", "acme.Order.note(2)"]] },
  { name: "field-renamed", notes: [["FIELD_RENAMED", "acme.Order.memo(2)"]], reverse: [] },
  { name: "json-name-changed", notes: [["JSON_NAME_CHANGED", "acme.Order.note(2)"]] },

  // scalar and kind changes
  { name: "int32-to-int64", reverse: [["FIELD_TYPE_CHANGED", "acme.Order.quantity(10)"]] },
  // every int32 fits a JS number; the reverse is int64 -> int32
  { name: "int32-to-int64-js-number", reverse: [["FIELD_TYPE_CHANGED", "acme.Order.quantity(10)"]] },
  { name: "jstype-number-added", incompatible: [["JSTYPE_NUMBER_ADDED", "acme.Order.id(1)"]], reverse: [] },
  { name: "uint32-to-uint64", reverse: [["FIELD_TYPE_CHANGED", "acme.Order.weight(11)"]] },
  { name: "uint32-to-int64", reverse: [["FIELD_TYPE_CHANGED", "acme.Order.weight(11)"]] },
  { name: "sint32-to-sint64", reverse: [["FIELD_TYPE_CHANGED", "acme.Order.delta(12)"]] },
  { name: "enum-to-int32", reverse: [["FIELD_TYPE_CHANGED", "acme.Order.status(3)"]] },
  { name: "string-to-bytes", reverse: [["FIELD_TYPE_CHANGED", "acme.Order.note(2)"]] },
  { name: "bytes-to-string", incompatible: [["FIELD_TYPE_CHANGED", "acme.Order.blob(18)"]] },
  { name: "int32-to-uint32", incompatible: [["FIELD_TYPE_CHANGED", "acme.Order.quantity(10)"]] },
  { name: "int64-to-int32", incompatible: [["FIELD_TYPE_CHANGED", "acme.Order.id(1)"]] },
  { name: "sint32-to-int32", incompatible: [["FIELD_TYPE_CHANGED", "acme.Order.delta(12)"]] },
  { name: "fixed32-to-sfixed32", incompatible: [["FIELD_TYPE_CHANGED", "acme.Order.code(13)"]] },
  { name: "float-to-double", incompatible: [["FIELD_TYPE_CHANGED", "acme.Order.ratio(14)"]] },
  { name: "bool-to-int32", incompatible: [["FIELD_TYPE_CHANGED", "acme.Order.gift(15)"]] },
  { name: "int32-to-enum", incompatible: [["FIELD_TYPE_CHANGED", "acme.Order.quantity(10)"]] },
  { name: "int32-to-string", incompatible: [["FIELD_TYPE_CHANGED", "acme.Order.quantity(10)"]] },

  // message → bytes needs a current field that keeps an empty value
  { name: "message-to-bytes-implicit", incompatible: [["MESSAGE_TO_BYTES_WITHOUT_PRESENCE", "acme.Order.customer(7)"]] },
  { name: "message-to-bytes-optional", reverse: [["FIELD_TYPE_CHANGED", "acme.Order.customer(7)"]] },
  { name: "message-to-bytes-in-oneof" },
  { name: "message-to-bytes-repeated", reverse: [["FIELD_TYPE_CHANGED", "acme.Order.items(4)"]] },

  // cardinality and encoding of repeated fields
  { name: "singular-to-repeated", reverse: [["REPEATED_TO_SINGULAR", "acme.Order.quantity(10)"]] },
  { name: "singular-message-to-repeated", reverse: [["REPEATED_TO_SINGULAR", "acme.Order.customer(7)"]] },
  { name: "repeated-to-singular", incompatible: [["REPEATED_TO_SINGULAR", "acme.Order.marks(16)"]] },
  { name: "repeated-message-to-singular", incompatible: [["REPEATED_TO_SINGULAR", "acme.Order.items(4)"]] },
  { name: "packed-to-unpacked", notes: [["PACKED_CHANGED", "acme.Order.marks(16)"]], reverse: [] },
  { name: "repeated-element-widened", reverse: [["FIELD_TYPE_CHANGED", "acme.Order.marks(16)"]] },
  { name: "repeated-element-changed", incompatible: [["FIELD_TYPE_CHANGED", "acme.Order.marks(16)"]] },

  // maps
  { name: "map-to-repeated", incompatible: [["FIELD_MAP_CHANGED", "acme.Order.counts(5)"]] },
  { name: "scalar-to-map", incompatible: [["FIELD_MAP_CHANGED", "acme.Order.note(2)"]] },
  { name: "map-key-changed", incompatible: [["MAP_KEY_CHANGED", "acme.Order.counts(5)"]] },
  { name: "map-value-widened", reverse: [["FIELD_TYPE_CHANGED", "acme.Order.counts(5)"]] },
  { name: "map-value-changed", incompatible: [["FIELD_TYPE_CHANGED", "acme.Order.counts(5)"]] },
  { name: "map-value-message-renamed", incompatible: [["MESSAGE_NAME_CHANGED", "acme.Order.catalog(17)"]] },
  { name: "map-value-message-to-bytes", reverse: [["FIELD_TYPE_CHANGED", "acme.Order.catalog(17)"]] },
  // acme.Item is reached first through items(4): each type pair is compared once, at its first path
  { name: "map-value-inner-field-changed", incompatible: [["FIELD_TYPE_CHANGED", "acme.Order.items(4).qty(3)"]] },

  // presence and oneofs
  { name: "optional-added", reverse: [["PRESENCE_EXPLICIT_TO_IMPLICIT", "acme.Order.quantity(10)"]] },
  { name: "optional-removed", incompatible: [["PRESENCE_EXPLICIT_TO_IMPLICIT", "acme.Order.priority(6)"]] },
  { name: "oneof-joined-by-plain-field", incompatible: [["ONEOF_FIELDS_MERGED", "acme.Order.quantity(10)"]] },
  { name: "oneof-joined-across-oneofs", incompatible: [["ONEOF_FIELDS_MERGED", "acme.Order.email(21)"]] },
  { name: "oneof-new-with-one-old-field" },
  { name: "oneof-split", reverse: [["ONEOF_FIELDS_MERGED", "acme.Order.phone(22)"]] },
  { name: "oneof-left-to-optional", reverse: [["ONEOF_FIELDS_MERGED", "acme.Order.transfer(9)"]] },
  { name: "oneof-left-as-message", reverse: [["ONEOF_FIELDS_MERGED", "acme.Order.transfer(9)"]] },
  { name: "oneof-left-to-implicit", incompatible: [["FIELD_LEFT_ONEOF_TO_IMPLICIT", "acme.Order.card(8)"]] },
  { name: "oneof-renamed", notes: [["ONEOF_RENAMED", "acme.Order.card(8)"]] },

  // enums
  { name: "enum-value-added", reverse: [["ENUM_VALUE_REMOVED_NOT_RESERVED", "acme.Order.status(3).DELIVERED(3)"]] },
  {
    name: "enum-value-removed-reserved",
    reverse: [
      ["ENUM_RESERVED_NUMBER_REUSED", "acme.Order.status(3).SHIPPED(2)"],
      ["ENUM_RESERVED_NAME_REUSED", "acme.Order.status(3).SHIPPED(2)"],
    ],
  },
  { name: "enum-value-removed-number-reserved", notes: [["ENUM_VALUE_NAME_NOT_RESERVED", "acme.Order.status(3).SHIPPED(2)"]] },
  { name: "enum-reservation-removed", incompatible: [["ENUM_RESERVATION_REMOVED", "acme.Order.status(3)"]], reverse: [] },
  { name: "enum-reserved-name-removed", notes: [["ENUM_RESERVED_NAME_REMOVED", "acme.Order.status(3)"]], reverse: [] },
  { name: "enum-value-removed-not-reserved", incompatible: [["ENUM_VALUE_REMOVED_NOT_RESERVED", "acme.Order.status(3).SHIPPED(2)"]] },
  { name: "enum-value-renamed", notes: [["ENUM_VALUE_RENAMED", "acme.Order.status(3).SENT(2)"]] },
  { name: "enum-value-reusing-reserved-number", incompatible: [["ENUM_RESERVED_NUMBER_REUSED", "acme.Order.status(3).MISSING(9)"]] },
  { name: "enum-value-reusing-reserved-name", incompatible: [["ENUM_RESERVED_NAME_REUSED", "acme.Order.status(3).LOST(3)"]] },
  { name: "nested-enum-value-removed", incompatible: [["ENUM_VALUE_REMOVED_NOT_RESERVED", "acme.Order.customer(7).kind(3).COMPANY(2)"]] },

  // deep, recursive and mutually recursive types
  { name: "deep-nested-field-changed", incompatible: [["FIELD_TYPE_CHANGED", "acme.Order.customer(7).address(2).zip(2)"]] },
  { name: "recursive-field-added", reverse: [["FIELD_REMOVED_NOT_RESERVED", "acme.Order.customer(7).address(2).city(4)"]] },
  { name: "mutually-recursive-field-changed", incompatible: [["FIELD_TYPE_CHANGED", "acme.Order.category(19).tag(4).weight(3)"]] },
  { name: "mutually-recursive-field-removed", incompatible: [["FIELD_REMOVED_NOT_RESERVED", "acme.Order.category(19).tag(4).owner(2)"]] },

  // several at once: all reported, root first, then fields by number, depth first
  {
    name: "several-incompatibilities",
    incompatible: [
      ["FIELD_TYPE_CHANGED", "acme.Order.id(1)"],
      ["FIELD_REMOVED_NOT_RESERVED", "acme.Order.note(2)"],
      ["ENUM_VALUE_REMOVED_NOT_RESERVED", "acme.Order.status(3).SHIPPED(2)"],
      ["FIELD_TYPE_CHANGED", "acme.Order.items(4).price(2)"],
      ["PRESENCE_EXPLICIT_TO_IMPLICIT", "acme.Order.priority(6)"],
      ["FIELD_TYPE_CHANGED", "acme.Order.customer(7).address(2).zip(2)"],
      ["REPEATED_TO_SINGULAR", "acme.Order.marks(16)"],
      ["FIELD_RESERVED_NUMBER_REUSED", "acme.Order.legacy_code(20)"],
    ],
    notes: [["FIELD_RENAMED", "acme.Order.phone_number(22)"]],
  },
];

function load(name: string, side: "saved" | "current", root = "acme.Order"): DescMessage {
  return messageFromDir(`fixtures/compat/${name}/${side}`, root);
}

function summary(findings: EvaluationResult["incompatibilities"]): [string, string][] {
  return findings.map((f) => [f.rule, f.path]);
}

describe("evaluateSchemaChange: one fixture pair per rule", () => {
  test("has at least 40 fixture pairs", () => {
    expect(ROWS.length).toBeGreaterThanOrEqual(40);
  });

  test.each(ROWS)("$name", (row) => {
    const saved = load(row.name, "saved", row.savedRoot);
    const current = load(row.name, "current", row.currentRoot);

    // controls: each side against its own content (distinct instances) has no findings
    expect(evaluateSchemaChange(saved, load(row.name, "saved", row.savedRoot))).toEqual({
      compatible: true,
      incompatibilities: [],
      notes: [],
    });
    expect(evaluateSchemaChange(current, load(row.name, "current", row.currentRoot))).toEqual({
      compatible: true,
      incompatibilities: [],
      notes: [],
    });

    const result = evaluateSchemaChange(saved, current);
    expect(summary(result.incompatibilities)).toEqual(row.incompatible ?? []);
    expect(summary(result.notes)).toEqual(row.notes ?? []);
    expect(result.compatible).toBe((row.incompatible ?? []).length === 0);
    for (const f of [...result.incompatibilities, ...result.notes]) {
      expect(f.message).toContain(f.path);
      expect(f.message).not.toMatch(/\.$/);
    }

    if (row.reverse !== undefined) {
      const back = evaluateSchemaChange(current, saved);
      expect(summary(back.incompatibilities)).toEqual(row.reverse);
      expect(back.compatible).toBe(row.reverse.length === 0);
    }
  });
});

describe("evaluateSchemaChange: messages", () => {
  test.each([
    [
      "int32-to-uint32",
      "field acme.Order.quantity(10) changed type from int32 to uint32: both use the varint wire type, so saved values parse, but the sign changes meaning (a negative value reads as a large unsigned number); keep int32 or add a new field with a new number instead (and reserve this one)",
    ],
    [
      "float-to-double",
      "field acme.Order.ratio(14) changed type from float to double: saved values use the 32-bit wire type and double reads 64-bit, so they fail to parse or are misread; keep float or add a new field with a new number instead (and reserve this one)",
    ],
    [
      "map-value-changed",
      "the map value of field acme.Order.counts(5) changed type from int32 to uint32: both use the varint wire type, so saved values parse, but the sign changes meaning (a negative value reads as a large unsigned number); keep int32 or add a new field with a new number instead (and reserve this one)",
    ],
    [
      "field-removed-not-reserved",
      'field acme.Order.note(2) (string) was removed without reserving number 2: saved data still carries field 2, and a later field that reuses the number would misread it; add reserved 2 and reserved "note" to acme.Order',
    ],
    [
      "field-added-reusing-reserved-number",
      "field acme.Order.legacy_code(20) reuses number 20, which the saved acme.Order reserves: saved data may still carry field 20 with its retired meaning, and this field would misread it; use a number that was never used and keep 20 reserved",
    ],
    [
      "message-to-bytes-implicit",
      "field acme.Order.customer(7) changed from message acme.Customer to bytes with implicit presence: an empty saved acme.Customer is zero bytes long, which an implicit-presence bytes field reads as absent and drops on re-write; declare it optional bytes",
    ],
    [
      "optional-removed",
      'field acme.Order.priority(6) changed from optional int32 to int32 and lost explicit presence: a saved value explicitly set to its default (0, "", false) reads as absent and is dropped on re-write; keep it optional',
    ],
    [
      "oneof-joined-by-plain-field",
      "field acme.Order.quantity(10) is now in oneof payment together with field acme.Order.card(8), which the saved schema did not keep in one oneof: saved data may set both, and the current reader keeps only the last one; keep them in separate oneofs or add a new field with a new number instead (and reserve this one)",
    ],
    [
      "enum-moved-to-top-level",
      "field acme.Order.customer(7).kind(3) has enum type acme.Kind, saved acme.Customer.Kind: a different full name is a different enum (moving an enum to another scope or package renames it), so saved numbers do not take its meaning; keep acme.Customer.Kind or add a new field with a new number instead (and reserve this one)",
    ],
    [
      "jstype-number-added",
      "field acme.Order.id(1) (int64) has jstype = JS_NUMBER, which the saved int64 did not: its values are JS numbers, exact only within ±(2^53 − 1), and the current reader refuses saved values beyond that (UNSAFE_INTEGER) and does not write values of the saved schema that hold one; remove jstype = JS_NUMBER (or use JS_STRING)",
    ],
    [
      "enum-value-removed-not-reserved",
      'enum value acme.Order.status(3).SHIPPED(2) was removed from acme.Status without reserving number 2: saved data may still hold 2, which now has no name, and a later value that reuses 2 would change its meaning; add reserved 2 and reserved "SHIPPED" to acme.Status',
    ],
  ])("%s", (name, message) => {
    const result = evaluateSchemaChange(load(name, "saved"), load(name, "current"));
    expect(result.incompatibilities.map((f) => f.message)).toEqual([message]);
  });

  test.each([
    [
      "field-renamed",
      'field acme.Order.memo(2) was renamed from note: binary data is unaffected, but code that reads it by name changes and its JSON name changes from "note" to "memo"; update name-based readers and reserve "note" if it should not come back',
    ],
    [
      "packed-to-unpacked",
      "field acme.Order.marks(16) changed from packed to unpacked encoding: readers accept both, so saved data reads unchanged, but re-written bytes differ from the saved bytes, and unpacked ones are larger (a tag per element: a run of 1-byte values doubles), so a saved message near maxMessageBytes may be refused (MESSAGE_TOO_LARGE) when re-written; raise maxMessageBytes if it must be",
    ],
    [
      "enum-value-renamed",
      "enum value acme.Order.status(3).SENT(2) of acme.Status was renamed from SHIPPED to SENT: binary data is unaffected, but JSON and text written with SHIPPED no longer parse; accept the old name where JSON is read",
    ],
  ])("note %s", (name, message) => {
    const result = evaluateSchemaChange(load(name, "saved"), load(name, "current"));
    expect(result.compatible).toBe(true);
    expect(result.notes.map((f) => f.message)).toEqual([message]);
  });

  test("root rename", () => {
    const result = evaluateSchemaChange(load("root-renamed", "saved"), load("root-renamed", "current", "acme.Purchase"));
    expect(result.incompatibilities).toEqual([
      {
        rule: "MESSAGE_NAME_CHANGED",
        path: "acme.Purchase",
        message:
          "message acme.Purchase was acme.Order in the saved schema: a different full name is a different type, so saved acme.Order data is not read as acme.Purchase; keep the name acme.Order or migrate the saved data",
      },
    ]);
  });
});

describe("evaluateSchemaChange: settings", () => {
  const saved = load("field-added", "saved");
  const current = load("field-added", "current");

  test.each([
    [{ savedSettings: { maxMessageBytes: 4096 }, currentSettings: { maxMessageBytes: 1024 } }, [["MAX_MESSAGE_BYTES_LOWERED", "acme.Order"]]],
    [{ savedSettings: { maxMessageBytes: 1024 }, currentSettings: { maxMessageBytes: 4096 } }, []],
    [{ currentSettings: { maxDepth: 10 } }, [["MAX_DEPTH_LOWERED", "acme.Order"]]],
    [{ savedSettings: { maxDepth: 10 } }, []],
    [
      { currentSettings: { maxDepth: 99, maxMessageBytes: 1 << 20 } },
      [
        ["MAX_MESSAGE_BYTES_LOWERED", "acme.Order"],
        ["MAX_DEPTH_LOWERED", "acme.Order"],
      ],
    ],
    [{ savedSettings: { deterministic: true }, currentSettings: { deterministic: false } }, []],
    [{ savedSettings: { deterministic: false }, currentSettings: { deterministic: true } }, []],
    [{ savedSettings: { aliasThreshold: 4096 }, currentSettings: { aliasThreshold: 0 } }, []],
    [{ savedSettings: { aliasThreshold: 0 }, currentSettings: { aliasThreshold: 1 } }, []],
  ])("%o", (options, expected) => {
    const result = evaluateSchemaChange(saved, current, options);
    expect(summary(result.incompatibilities)).toEqual(expected);
    expect(result.notes).toEqual([]);
    expect(result.compatible).toBe(expected.length === 0);
  });

  test("settings findings come before schema findings, with exact messages", () => {
    const result = evaluateSchemaChange(load("int64-to-int32", "saved"), load("int64-to-int32", "current"), {
      savedSettings: { maxMessageBytes: 4096, maxDepth: 32 },
      currentSettings: { maxMessageBytes: 1024, maxDepth: 8 },
    });
    expect(result.incompatibilities.map((f) => [f.rule, f.path, f.message])).toEqual([
      [
        "MAX_MESSAGE_BYTES_LOWERED",
        "acme.Order",
        "setting maxMessageBytes is 1024, saved 4096: saved messages larger than 1024 bytes cannot be read; set maxMessageBytes to at least 4096",
      ],
      [
        "MAX_DEPTH_LOWERED",
        "acme.Order",
        "setting maxDepth is 8, saved 32: saved messages nested deeper than 8 levels cannot be read; set maxDepth to at least 32",
      ],
      [
        "FIELD_TYPE_CHANGED",
        "acme.Order.id(1)",
        "field acme.Order.id(1) changed type from int64 to int32: both use the varint wire type, so saved values parse, but values outside the 32-bit range are truncated; keep int64 or add a new field with a new number instead (and reserve this one)",
      ],
    ]);
  });

  test("out-of-range settings are a RangeError, not a finding", () => {
    expect(() => evaluateSchemaChange(saved, current, { currentSettings: { maxDepth: 0 } })).toThrow(
      new RangeError("setting maxDepth must be an integer in 1..10000, got 0"),
    );
  });
});

describe("evaluateSchemaChange: robustness", () => {
  test("the same instance on both sides is compatible", () => {
    const desc = load("several-incompatibilities", "current");
    expect(evaluateSchemaChange(desc, desc)).toEqual({ compatible: true, incompatibilities: [], notes: [] });
  });

  test("never throws for valid schema content, and the verdict follows the incompatibilities", () => {
    const all = ROWS.flatMap((r) => [load(r.name, "saved", r.savedRoot), load(r.name, "current", r.currentRoot)]);
    let incompatible = 0;
    for (const a of all) {
      for (const b of all) {
        const result = evaluateSchemaChange(a, b);
        expect(result.compatible).toBe(result.incompatibilities.length === 0);
        if (!result.compatible) incompatible++;
      }
    }
    expect(incompatible).toBeGreaterThan(0);
  });

  test("evaluating twice gives equal results (no state leaks between evaluations)", () => {
    const saved = load("several-incompatibilities", "saved");
    const current = load("several-incompatibilities", "current");
    expect(evaluateSchemaChange(saved, current)).toEqual(evaluateSchemaChange(saved, current));
  });
});

describe("formatFindings", () => {
  test("a report past 2^26 characters stops listing, with the count of the rest, instead of exceeding the string limit", () => {
    // A chain of 10,000 types renamed at every level gave 800 million characters of findings (each
    // message repeats its path from the root): the join threw RangeError: Invalid string length.
    const big = (i: number) => ({ rule: "FIELD_TYPE_CHANGED", path: `s.Root.f${i}(1)`, message: `m${i} ${"x".repeat(1 << 20)}` });
    const result = { compatible: false, incompatibilities: Array.from({ length: 100 }, (_, i) => big(i)), notes: [big(100)] } as unknown as EvaluationResult;
    const text = formatFindings(result);
    expect(text.length).toBeLessThanOrEqual((1 << 26) + 1000);
    const lines = text.split("\n");
    expect(lines[0]).toBe("incompatible: 100 incompatibilities, 1 note");
    expect(lines.filter((l) => / {2}\d+\. FIELD_TYPE_CHANGED at /.test(l)).length).toBe(63);
    expect(lines).toContain("  … and 37 more (the report stops at 67108864 characters; evaluateSchemaChange lists them all)");
    expect(lines.at(-1)).toBe("  … and 1 more (the report stops at 67108864 characters; evaluateSchemaChange lists them all)");
  });

  test("150,000 findings (an enum that lost its values) format and resolve without exceeding the argument limit", () => {
    // Spreading the lines of a block into push() threw RangeError past ~120,000 arguments.
    const N = 150_000;
    const set = (n: number) =>
      create(FileDescriptorSetSchema, {
        file: [
          {
            name: "a.proto",
            package: "s",
            syntax: "proto3",
            messageType: [{ name: "Root", field: [{ name: "e", number: 1, label: 1, type: 14, typeName: ".s.E", jsonName: "e" }] }],
            enumType: [{ name: "E", value: Array.from({ length: n }, (_, i) => ({ name: `V${i}`, number: i })) }],
          },
        ],
      });
    const saved = createFileRegistry(set(N)).getMessage("s.Root")!;
    const current = createFileRegistry(set(1)).getMessage("s.Root")!;
    const result = evaluateSchemaChange(saved, current);
    expect(result.incompatibilities.length).toBe(N - 1);
    const text = formatFindings(result);
    const lines = text.split("\n");
    expect(lines.length).toBe(2 + 2 * (N - 1));
    expect(lines[0]).toBe(`incompatible: ${N - 1} incompatibilities, 0 notes`);
    expect(lines.at(-2)).toBe(`  ${N - 1}. ENUM_VALUE_REMOVED_NOT_RESERVED at s.Root.e(1).V${N - 1}(${N - 1})`);
    const verdict = ProtobufType.of(current).createSerializer().snapshotConfiguration().resolveSchemaCompatibility(ProtobufType.of(saved).createSerializer().snapshotConfiguration());
    if (verdict.kind !== "incompatible") throw new Error("expected incompatible");
    expect(verdict.incompatibilities.length).toBe(N - 1);
    // The reason lists the first 20 (a reason of 150,000 findings was ~20 MB); the list keeps all.
    expect(verdict.reason).toBe([...lines.slice(0, 2 + 2 * 20), `  … and ${N - 1 - 20} more (evaluateSchemaChange lists them all)`].join("\n"));
  });

  test("no findings", () => {
    expect(formatFindings(evaluateSchemaChange(load("field-added", "saved"), load("field-added", "current")))).toBe(
      "compatible: no findings",
    );
  });

  test("notes only", () => {
    const result = evaluateSchemaChange(load("field-removed-number-reserved", "saved"), load("field-removed-number-reserved", "current"));
    expect(formatFindings(result)).toBe(
      [
        "compatible, with 1 note",
        "notes (1):",
        "  1. FIELD_NAME_NOT_RESERVED at acme.Order.note(2)",
        '     field acme.Order.note(2) was removed and number 2 is reserved, but name "note" is not: a later field named "note" would take over its JSON name; add reserved "note" to acme.Order',
      ].join("\n"),
    );
  });

  test("incompatibilities and notes", () => {
    const result = evaluateSchemaChange(load("field-renamed-to-reserved-name", "saved"), load("field-renamed-to-reserved-name", "current"));
    expect(formatFindings(result)).toBe(
      [
        "incompatible: 1 incompatibility, 1 note",
        "incompatibilities (1):",
        "  1. FIELD_RESERVED_NAME_REUSED at acme.Order.legacy(2)",
        '     field acme.Order.legacy(2) reuses name "legacy", which the saved acme.Order reserves: JSON and text data with the retired meaning of "legacy" would be read into this field; use a name that was never used and keep "legacy" reserved',
        "notes (1):",
        "  1. FIELD_RENAMED at acme.Order.legacy(2)",
        '     field acme.Order.legacy(2) was renamed from note: binary data is unaffected, but code that reads it by name changes and its JSON name changes from "note" to "legacy"; update name-based readers and reserve "note" if it should not come back',
      ].join("\n"),
    );
  });
});

test("the proto text of a file with a 150,000-value top-level enum (registry and CLI schema text)", () => {
  const file = create(FileDescriptorSetSchema, {
    file: [{ name: "a.proto", package: "s", syntax: "proto3", enumType: [{ name: "E", value: Array.from({ length: 150_000 }, (_, i) => ({ name: `V${i}`, number: i })) }] }],
  }).file[0]!;
  const lines = protoFileText(file).split("\n");
  expect(lines.filter((l) => /^ {2}V\d+ = \d+;$/.test(l)).length).toBe(150_000);
});
