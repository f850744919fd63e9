// The evaluator at a JSON boundary: the same schema change judged for binary data, for JSON data
// ({ boundary: "json" }) and for both ({ boundary: "binary+json" }). The README's matrix is this
// table. JSON names fields and enum values, so renames break it and renumbering does not.
import { readFileSync } from "node:fs";
import { createFileRegistry, fromBinary, type DescMessage } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { describe, expect, test } from "vitest";
import { evaluateSchemaChange, type EvaluationResult } from "../src/index.js";
import { compileProtoText } from "./support/buf.js";

function order(body: string, extra = ""): DescMessage {
  const text = `syntax = "proto3";\npackage acme;\nimport "google/protobuf/timestamp.proto";\n${extra}\nmessage Order {\n${body}\n}\n`;
  return createFileRegistry(fromBinary(FileDescriptorSetSchema, compileProtoText({ "acme/order.proto": text }))).getMessage("acme.Order")!;
}

const STATUS = "enum Status { STATUS_UNSPECIFIED = 0; PAID = 1; SHIPPED = 2; }";
const ALIASED = "enum Status { option allow_alias = true; STATUS_UNSPECIFIED = 0; PAID = 1; SETTLED = 1; SHIPPED = 2; }";

/** "RULE at path" for incompatibilities, "note RULE at path" for notes. */
function verdict(r: EvaluationResult): string[] {
  return [...r.incompatibilities.map((f) => `${f.rule} at ${f.path}`), ...r.notes.map((f) => `note ${f.rule} at ${f.path}`)];
}

// [change, saved body, current body, extra declarations (saved, current), binary findings, JSON
// findings, and where they differ from the binary ones, the binary walk's findings for data
// stored as binary and served as JSON ("binary+json": names of fields paired by number matter)]
const MATRIX: [string, string, string, [string, string], string[], string[], string[]?][] = [
  ["field added", "int64 id = 1;", "int64 id = 1; string note = 2;", ["", ""], [], ["note JSON_FIELD_ADDED at acme.Order.note(2)"]],
  ["field renamed (same number and type)", "string note = 2;", "string remark = 2;", ["", ""], ["note FIELD_RENAMED at acme.Order.remark(2)"], ["JSON_FIELD_NAME_CHANGED at acme.Order.remark(2)"]],
  ["json_name changed", 'string note = 2 [json_name = "n"];', 'string note = 2 [json_name = "memo"];', ["", ""], ["note JSON_NAME_CHANGED at acme.Order.note(2)"], ["JSON_FIELD_NAME_CHANGED at acme.Order.note(2)"]],
  ["json_name set where it was the proto name", "string note = 2;", 'string note = 2 [json_name = "memo"];', ["", ""], ["note JSON_NAME_CHANGED at acme.Order.note(2)"], ["note JSON_OUTPUT_NAME_CHANGED at acme.Order.note(2)"]],
  ["renamed keeping the JSON name (foo_bar → fooBar)", "string foo_bar = 2;", "string fooBar = 2;", ["", ""], ["note FIELD_RENAMED at acme.Order.fooBar(2)"], ["JSON_FIELD_NAME_CHANGED at acme.Order.fooBar(2)"]],
  ["removed, number and name reserved", "int64 id = 1; string note = 2;", 'int64 id = 1; reserved 2; reserved "note";', ["", ""], [], ["note JSON_FIELD_REMOVED at acme.Order.note(2)"]],
  ["removed, only the number reserved", "int64 id = 1; string note = 2;", "int64 id = 1; reserved 2;", ["", ""], ["note FIELD_NAME_NOT_RESERVED at acme.Order.note(2)"], ["JSON_FIELD_REMOVED_NOT_RESERVED at acme.Order.note(2)"]],
  ["removed, nothing reserved", "int64 id = 1; string note = 2;", "int64 id = 1;", ["", ""], ["FIELD_REMOVED_NOT_RESERVED at acme.Order.note(2)"], ["JSON_FIELD_REMOVED_NOT_RESERVED at acme.Order.note(2)"]],
  // The name is the current field's: it cannot be reserved (schema-evolution-renumbered.test.ts).
  ["renumbered (same name, old number reserved)", "string note = 2;", "reserved 2; string note = 3;", ["", ""], [], []],
  ["added reusing a reserved name", 'reserved "legacy";', "string legacy = 5;", ["", ""], ["FIELD_RESERVED_NAME_REUSED at acme.Order.legacy(5)"], ["FIELD_RESERVED_NAME_REUSED at acme.Order.legacy(5)", "note JSON_FIELD_ADDED at acme.Order.legacy(5)"]],
  // A dropped reservation leaves the next check without it (schema-evolution.test.ts).
  ["reserved number dropped", "int64 id = 1; reserved 2;", "int64 id = 1;", ["", ""], ["FIELD_RESERVATION_REMOVED at acme.Order"], []],
  ["reserved name dropped", 'int64 id = 1; reserved "note";', "int64 id = 1;", ["", ""], ["note FIELD_RESERVED_NAME_REMOVED at acme.Order"], ["JSON_FIELD_RESERVED_NAME_REMOVED at acme.Order"]],
  ["int32 → int64", "int32 qty = 3;", "int64 qty = 3;", ["", ""], [], ["note JSON_FORM_CHANGED at acme.Order.qty(3)"]],
  ["uint32 → int64", "uint32 qty = 3;", "int64 qty = 3;", ["", ""], [], ["note JSON_FORM_CHANGED at acme.Order.qty(3)"]],
  ["int32 → sint32 (same numbers, other wire encoding)", "int32 qty = 3;", "sint32 qty = 3;", ["", ""], ["FIELD_TYPE_CHANGED at acme.Order.qty(3)"], []],
  ["int32 → double", "int32 qty = 3;", "double qty = 3;", ["", ""], ["FIELD_TYPE_CHANGED at acme.Order.qty(3)"], ["note JSON_FORM_CHANGED at acme.Order.qty(3)"]],
  ["float → double", "float price = 4;", "double price = 4;", ["", ""], ["FIELD_TYPE_CHANGED at acme.Order.price(4)"], ["note JSON_FORM_CHANGED at acme.Order.price(4)"]],
  ["int32 → uint32", "int32 qty = 3;", "uint32 qty = 3;", ["", ""], ["FIELD_TYPE_CHANGED at acme.Order.qty(3)"], ["FIELD_TYPE_CHANGED at acme.Order.qty(3)"]],
  ["int64 → int32", "int64 qty = 3;", "int32 qty = 3;", ["", ""], ["FIELD_TYPE_CHANGED at acme.Order.qty(3)"], ["FIELD_TYPE_CHANGED at acme.Order.qty(3)"]],
  ["string → bytes", "string note = 2;", "bytes note = 2;", ["", ""], [], ["FIELD_TYPE_CHANGED at acme.Order.note(2)"]],
  ["enum → int32", "Status status = 5;", "int32 status = 5;", [STATUS, STATUS], [], ["FIELD_TYPE_CHANGED at acme.Order.status(5)"]],
  ["enum value renamed", "Status status = 5;", "Status status = 5;", [STATUS, STATUS.replace("SHIPPED", "SENT")], ["note ENUM_VALUE_RENAMED at acme.Order.status(5).SENT(2)"], ["JSON_ENUM_VALUE_RENAMED at acme.Order.status(5).SENT(2)"]],
  // Aliases: ProtoJSON writers write a number's first name, but the saved parser read every alias.
  ["enum alias removed", "Status status = 5;", "Status status = 5;", [ALIASED, STATUS], ["note ENUM_VALUE_RENAMED at acme.Order.status(5).PAID(1)"], ["JSON_ENUM_VALUE_RENAMED at acme.Order.status(5).PAID(1)"]],
  // JSON pairs by name: "SETTLED" reads as SETTLED, as a renumbered value reads under its name.
  ["enum alias given its own number", "Status status = 5;", "Status status = 5;", [ALIASED, STATUS.replace("SHIPPED = 2;", "SHIPPED = 2; SETTLED = 3;")], ["note ENUM_VALUE_RENAMED at acme.Order.status(5).PAID(1)"], []],
  ["enum value added", "Status status = 5;", "Status status = 5;", [STATUS, STATUS.replace("SHIPPED = 2;", "SHIPPED = 2; LOST = 3;")], [], ["note JSON_ENUM_VALUE_ADDED at acme.Order.status(5).LOST(3)"]],
  ["enum value removed, number and name reserved", "Status status = 5;", "Status status = 5;", [STATUS, 'enum Status { STATUS_UNSPECIFIED = 0; PAID = 1; reserved 2; reserved "SHIPPED"; }'], [], ["note JSON_ENUM_VALUE_REMOVED at acme.Order.status(5).SHIPPED(2)"]],
  [
    "enum reservations dropped",
    "Status status = 5;",
    "Status status = 5;",
    [STATUS.replace("SHIPPED = 2;", 'SHIPPED = 2; reserved 3; reserved "LOST";'), STATUS],
    ["ENUM_RESERVATION_REMOVED at acme.Order.status(5)", "note ENUM_RESERVED_NAME_REMOVED at acme.Order.status(5)"],
    ["JSON_ENUM_RESERVED_NAME_REMOVED at acme.Order.status(5)"],
  ],
  ["enum value removed, nothing reserved", "Status status = 5;", "Status status = 5;", [STATUS, "enum Status { STATUS_UNSPECIFIED = 0; PAID = 1; }"], ["ENUM_VALUE_REMOVED_NOT_RESERVED at acme.Order.status(5).SHIPPED(2)"], ["JSON_ENUM_VALUE_REMOVED_NOT_RESERVED at acme.Order.status(5).SHIPPED(2)"]],
  ["singular → repeated", "int32 qty = 3;", "repeated int32 qty = 3;", ["", ""], [], ["JSON_SINGULAR_TO_REPEATED at acme.Order.qty(3)"]],
  ["repeated → singular", "repeated int32 qty = 3;", "int32 qty = 3;", ["", ""], ["REPEATED_TO_SINGULAR at acme.Order.qty(3)"], ["REPEATED_TO_SINGULAR at acme.Order.qty(3)"]],
  ["packed → unpacked", "repeated int32 marks = 6;", "repeated int32 marks = 6 [packed = false];", ["", ""], ["note PACKED_CHANGED at acme.Order.marks(6)"], []],
  ["optional removed", "optional int32 priority = 7;", "int32 priority = 7;", ["", ""], ["PRESENCE_EXPLICIT_TO_IMPLICIT at acme.Order.priority(7)"], ["PRESENCE_EXPLICIT_TO_IMPLICIT at acme.Order.priority(7)"]],
  ["optional added", "int32 priority = 7;", "optional int32 priority = 7;", ["", ""], [], []],
  ["two fields into one oneof", "string card = 8; string voucher = 9;", "oneof payment { string card = 8; string voucher = 9; }", ["", ""], ["ONEOF_FIELDS_MERGED at acme.Order.voucher(9)"], ["ONEOF_FIELDS_MERGED at acme.Order.voucher(9)"]],
  ["oneof renamed", "oneof payment { string card = 8; }", "oneof method { string card = 8; }", ["", ""], ["note ONEOF_RENAMED at acme.Order.card(8)"], []],
  ["message type renamed (same fields)", "Item item = 10;", "Line item = 10;", ["message Item { string sku = 1; }", "message Line { string sku = 1; }"], ["MESSAGE_NAME_CHANGED at acme.Order.item(10)"], []],
  ["nested field renamed", "Item item = 10;", "Item item = 10;", ["message Item { string sku = 1; }", "message Item { string code = 1; }"], ["note FIELD_RENAMED at acme.Order.item(10).code(1)"], ["JSON_FIELD_NAME_CHANGED at acme.Order.item(10).code(1)"]],
  ["map key int32 → int64", "map<int32, string> counts = 11;", "map<int64, string> counts = 11;", ["", ""], ["MAP_KEY_CHANGED at acme.Order.counts(11)"], []],
  ["map key int32 → string", "map<int32, string> counts = 11;", "map<string, string> counts = 11;", ["", ""], ["MAP_KEY_CHANGED at acme.Order.counts(11)"], ["MAP_KEY_CHANGED at acme.Order.counts(11)"]],
  ["well-known type → its scalar", "google.protobuf.Timestamp at = 12;", "int64 at = 12;", ["", ""], ["FIELD_TYPE_CHANGED at acme.Order.at(12)"], ["FIELD_TYPE_CHANGED at acme.Order.at(12)"]],
  ["jstype = JS_NUMBER added", "int64 id = 1;", "int64 id = 1 [jstype = JS_NUMBER];", ["", ""], ["JSTYPE_NUMBER_ADDED at acme.Order.id(1)"], ["JSTYPE_NUMBER_ADDED at acme.Order.id(1)"]],
  [
    "two fields swap names",
    "int32 paid_cents = 1; int32 refunded_cents = 2;",
    "int32 refunded_cents = 1; int32 paid_cents = 2;",
    ["", ""],
    ["note FIELD_RENAMED at acme.Order.refunded_cents(1)", "note FIELD_RENAMED at acme.Order.paid_cents(2)"],
    [],
    [
      "JSON_FIELD_NAMES_SWAPPED at acme.Order.refunded_cents(1)",
      "JSON_FIELD_NAMES_SWAPPED at acme.Order.paid_cents(2)",
      "note FIELD_RENAMED at acme.Order.refunded_cents(1)",
      "note FIELD_RENAMED at acme.Order.paid_cents(2)",
    ],
  ],
  [
    "two enum values swap names",
    "Status status = 5;",
    "Status status = 5;",
    [STATUS, "enum Status { STATUS_UNSPECIFIED = 0; PAID = 2; SHIPPED = 1; }"],
    ["note ENUM_VALUE_RENAMED at acme.Order.status(5).SHIPPED(1)", "note ENUM_VALUE_RENAMED at acme.Order.status(5).PAID(2)"],
    [],
    [
      "JSON_ENUM_VALUE_NAMES_SWAPPED at acme.Order.status(5).SHIPPED(1)",
      "JSON_ENUM_VALUE_NAMES_SWAPPED at acme.Order.status(5).PAID(2)",
      "note ENUM_VALUE_RENAMED at acme.Order.status(5).SHIPPED(1)",
      "note ENUM_VALUE_RENAMED at acme.Order.status(5).PAID(2)",
    ],
  ],
];

describe("the matrix: binary, JSON, both", () => {
  test.each(MATRIX)("%s", (_change, savedBody, currentBody, [savedExtra, currentExtra], binary, json, served = binary) => {
    const saved = order(savedBody, savedExtra);
    const current = order(currentBody, currentExtra);
    expect(verdict(evaluateSchemaChange(saved, current))).toEqual(binary);
    expect(verdict(evaluateSchemaChange(saved, current, { boundary: "binary" }))).toEqual(binary);
    const j = evaluateSchemaChange(saved, current, { boundary: "json" });
    expect(verdict(j)).toEqual(json);
    expect(j.compatible).toBe(j.incompatibilities.length === 0);
    // Both: binary findings, then JSON findings that are not the same rule at the same path.
    const seen = new Set(binary.map((f) => f.replace(/^note /, "")));
    const both = evaluateSchemaChange(saved, current, { boundary: "binary+json" });
    const expected = [
      ...served.filter((f) => !f.startsWith("note ")),
      ...json.filter((f) => !f.startsWith("note ") && !seen.has(f)),
      ...served.filter((f) => f.startsWith("note ")),
      ...json.filter((f) => f.startsWith("note ") && !seen.has(f.slice(5))),
    ];
    expect(verdict(both)).toEqual(expected);
    expect(both.compatible).toBe(!expected.some((f) => !f.startsWith("note ")));
  });
});

describe("messages", () => {
  test.each<[string, string, string, [string, string], string | string[]]>([
    [
      "JSON_FIELD_NAME_CHANGED",
      "string note = 2;",
      "string remark = 2;",
      ["", ""],
      'field acme.Order.remark(2) was note in the saved schema: JSON written with property "note" is rejected by the current parser as unknown (or dropped with ignoreUnknownFields), which now expects "remark"; keep the saved name, or set json_name = "note" and keep accepting the old property until no saved JSON has it',
    ],
    [
      "JSON_FIELD_REMOVED_NOT_RESERVED",
      "int64 id = 1; string note = 2;",
      "int64 id = 1;",
      ["", ""],
      'field acme.Order.note(2) (string) was removed without reserving name "note": saved JSON with property "note" is rejected by the current parser as unknown (or dropped with ignoreUnknownFields), and a later field named "note" would read it with another meaning; add reserved "note" to acme.Order and parse old JSON with ignoreUnknownFields',
    ],
    [
      "JSON_FORM_CHANGED",
      "int32 qty = 3;",
      "int64 qty = 3;",
      ["", ""],
      'field acme.Order.qty(3) changed from int32 to int64: the current parser reads saved JSON, but 64-bit integers are JSON strings: current output writes this field as a string ("5") where a strict old consumer expects a number; update strict consumers first',
    ],
    [
      "JSON_ENUM_VALUE_RENAMED",
      "Status status = 5;",
      "Status status = 5;",
      [STATUS, STATUS.replace("SHIPPED", "SENT")],
      'enum value acme.Order.status(5).SENT(2) of acme.Status was renamed from SHIPPED to SENT: enum values travel by name in JSON, so saved JSON with "SHIPPED" is rejected by the current parser, and current JSON with "SENT" by a strict old one; keep SHIPPED (an alias with allow_alias accepts both names)',
    ],
    [
      "FIELD_TYPE_CHANGED",
      "string note = 2;",
      "bytes note = 2;",
      ["", ""],
      "field acme.Order.note(2) changed type from string to bytes: saved JSON holds a string, which the current parser decodes as base64: text that is not base64 is rejected, and text that is reads as other bytes; keep string or add a new field with a new name instead",
    ],
    [
      // Only "b" moves to field 2 ("a" still names field 1): the message named both.
      "JSON_FIELD_NAME_REUSED",
      'int32 a = 1 [json_name = "b"];',
      'int32 a = 1 [json_name = "x"]; int32 b = 2;',
      ["", ""],
      [
        'property "b" of saved field a(1) now names field acme.Order.b(2) (int32): saved JSON is read into another field than binary data is, or into one field twice; give the fields their saved names or new, never used ones',
        'field acme.Order.a(1) (int32) is new: current JSON that sets it is rejected by a strict old consumer as unknown property "x", and one that ignores unknown fields drops it; update consumers before producers write it',
      ],
    ],
  ])("%s", (_rule, savedBody, currentBody, [savedExtra, currentExtra], message) => {
    const r = evaluateSchemaChange(order(savedBody, savedExtra), order(currentBody, currentExtra), { boundary: "json" });
    expect([...r.incompatibilities, ...r.notes].map((f) => f.message)).toEqual(typeof message === "string" ? [message] : message);
  });
});

describe("the walk", () => {
  test("settings rules hold at the JSON boundary too, and are reported once for both", () => {
    const o = order("int64 id = 1;");
    const options = { savedSettings: { maxDepth: 64 }, currentSettings: { maxDepth: 32 } };
    expect(verdict(evaluateSchemaChange(o, o, { ...options, boundary: "json" }))).toEqual(["MAX_DEPTH_LOWERED at acme.Order"]);
    expect(verdict(evaluateSchemaChange(o, o, { ...options, boundary: "binary+json" }))).toEqual(["MAX_DEPTH_LOWERED at acme.Order"]);
  });

  test("recursive types terminate and findings keep field-number order, depth first", () => {
    const saved = order("Order parent = 1; string a = 2; Item item = 3; string z = 4;", "message Item { string sku = 1; Order back = 2; }");
    const current = order("Order parent = 1; string b = 2; Item item = 3; string y = 4;", "message Item { string code = 1; Order back = 2; }");
    expect(verdict(evaluateSchemaChange(saved, current, { boundary: "json" }))).toEqual([
      "JSON_FIELD_NAME_CHANGED at acme.Order.b(2)",
      "JSON_FIELD_NAME_CHANGED at acme.Order.item(3).code(1)",
      "JSON_FIELD_NAME_CHANGED at acme.Order.y(4)",
    ]);
  });

  test("an unknown boundary is a TypeError", () => {
    const o = order("int64 id = 1;");
    expect(() => evaluateSchemaChange(o, o, { boundary: "xml" as never })).toThrow('evaluateSchemaChange: option boundary must be "binary", "json" or "binary+json", got "xml"');
  });

  test("a chain of 10,000 message types: the JSON walk keeps its own stack", () => {
    const DEPTH = 10_000;
    const chain = (leaf: string): DescMessage => {
      const lines = ['syntax = "proto3";', "package deep;"];
      for (let i = 0; i < DEPTH; i++) lines.push(`message M${i} { M${i + 1} next = 1; }`);
      lines.push(`message M${DEPTH} { ${leaf} = 1; }`);
      return createFileRegistry(fromBinary(FileDescriptorSetSchema, compileProtoText({ "deep.proto": lines.join("\n") }))).getMessage("deep.M0")!;
    };
    const r = evaluateSchemaChange(chain("int32 v"), chain("int32 w"), { boundary: "json" });
    // Compared as booleans: a failure must not print a path of 10,000 segments.
    expect(verdict(r).length).toBe(1);
    expect(verdict(r)[0] === `JSON_FIELD_NAME_CHANGED at deep.M0${".next(1)".repeat(DEPTH)}.w(1)`).toBe(true);
  });
});

describe("the README's matrix", () => {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  const start = readme.indexOf("### At a JSON boundary");
  const body = readme.indexOf("\n", start) + 1;
  // The section ends at the next heading of level 2 or 3, whatever follows it.
  const next = readme.slice(body).search(/^###? /m);
  const section = readme.slice(start, next < 0 ? undefined : body + next);
  const rows = new Map(
    section
      .split("\n")
      .filter((l) => l.startsWith("| ") && !l.startsWith("| change"))
      .map((l) => l.split(" | ").map((c) => c.replace(/^\| |\s*\|$/g, "").trim()))
      .map((cells) => [cells[0]!, cells.slice(1)]),
  );
  const cell = (r: EvaluationResult): string => {
    const rules = (fs: readonly { rule: string }[]) => [...new Set(fs.map((f) => `\`${f.rule}\``))].join(", ");
    if (r.incompatibilities.length > 0) return `✗ ${rules(r.incompatibilities)}`;
    return r.notes.length > 0 ? `✓ note ${rules(r.notes)}` : "✓";
  };

  test("lists every row of the table above, and nothing else", () => {
    expect([...rows.keys()]).toEqual(MATRIX.map(([change]) => change));
  });

  test.each(MATRIX)("%s", (change, savedBody, currentBody, [savedExtra, currentExtra]) => {
    const saved = order(savedBody, savedExtra);
    const current = order(currentBody, currentExtra);
    const both = evaluateSchemaChange(saved, current, { boundary: "binary+json" });
    expect(rows.get(change)).toEqual([
      cell(evaluateSchemaChange(saved, current)),
      cell(evaluateSchemaChange(saved, current, { boundary: "json" })),
      both.compatible ? "✓" : "✗",
    ]);
  });
});
