// Advice for a field or enum value that was renumbered: its number is gone, its name lives on in
// the current schema. The advice said to reserve the name too, which protoc refuses (a reserved
// name must not be used) and which the evaluator's own construction rule refuses; the renamed
// note and the name-not-reserved note said the same. Found on a real change (Envoy's
// envoy.data.tap.v3.Connection: local_address 2 -> 1, remote_address 3 -> 2). Now only the
// number is advised, and the name is said to be in use.
import { createFileRegistry, fromBinary, type DescMessage } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { expect, test } from "vitest";
import { evaluateSchemaChange } from "../src/index.js";
import { compileProtoText } from "./support/buf.js";

function message(body: string): DescMessage {
  const set = compileProtoText({ "t.proto": `syntax = "proto3"; package t; ${body}` });
  return createFileRegistry(fromBinary(FileDescriptorSetSchema, set)).getMessage("t.Connection")!;
}

const SAVED = message("message Connection { string local_address = 2; string remote_address = 3; S s = 4; } enum S { S_A = 0; S_B = 1; S_C = 2; }");

test("a renumbered field: reserve its old number, not its name", () => {
  const current = message("message Connection { string local_address = 1; string remote_address = 2; S s = 4; } enum S { S_A = 0; S_C = 1; }");
  const r = evaluateSchemaChange(SAVED, current);
  expect(r.incompatibilities.map((f) => [f.rule, f.message])).toEqual([
    [
      "FIELD_REMOVED_NOT_RESERVED",
      'field t.Connection.remote_address(3) (string) was removed without reserving number 3: saved data still carries field 3, and a later field that reuses the number would misread it; add reserved 3 to t.Connection (the name "remote_address" is field 2\'s now)',
    ],
    [
      "ENUM_VALUE_REMOVED_NOT_RESERVED",
      'enum value t.Connection.s(4).S_C(2) was removed from t.S without reserving number 2: saved data may still hold 2, which now has no name, and a later value that reuses 2 would change its meaning; add reserved 2 to t.S (the name "S_C" is another value\'s now)',
    ],
  ]);
  expect(r.notes.filter((n) => n.rule === "FIELD_RENAMED").map((n) => n.message)).toEqual([
    'field t.Connection.remote_address(2) was renamed from local_address: binary data is unaffected, but code that reads it by name changes and its JSON name changes from "localAddress" to "remoteAddress"; update name-based readers ("local_address" is field 1\'s name now)',
  ]);
});

test("following the advice leaves no finding and no note about the names", () => {
  const current = message("message Connection { reserved 3; string local_address = 1; string remote_address = 2; S s = 4; } enum S { reserved 2; S_A = 0; S_C = 1; }");
  const r = evaluateSchemaChange(SAVED, current);
  expect(r.incompatibilities).toEqual([]);
  expect(r.notes.map((n) => n.rule).filter((c) => c.endsWith("NOT_RESERVED"))).toEqual([]);
});

test("a field removed and not renumbered: reserve its number and its name, as before", () => {
  const current = message("message Connection { string local_address = 2; S s = 4; } enum S { S_A = 0; S_B = 1; S_C = 2; }");
  expect(evaluateSchemaChange(SAVED, current).incompatibilities.map((f) => f.message)).toEqual([
    'field t.Connection.remote_address(3) (string) was removed without reserving number 3: saved data still carries field 3, and a later field that reuses the number would misread it; add reserved 3 and reserved "remote_address" to t.Connection',
  ]);
});

// protobuf-es keys a message's fields by local name in a plain object: a field named like an
// Object.prototype method found the inherited method ("is field undefined's now"), and its
// name-not-reserved note was lost.
test.each(["hasOwnProperty", "isPrototypeOf", "propertyIsEnumerable", "toLocaleString"])("a removed field named %s gets the usual advice and note", (name) => {
  const saved = message(`message Connection { string ${name} = 1; string keep = 2; }`);
  expect(evaluateSchemaChange(saved, message("message Connection { string keep = 2; }")).incompatibilities.map((f) => f.message)).toEqual([
    `field t.Connection.${name}(1) (string) was removed without reserving number 1: saved data still carries field 1, and a later field that reuses the number would misread it; add reserved 1 and reserved "${name}" to t.Connection`,
  ]);
  const reserved = evaluateSchemaChange(saved, message("message Connection { reserved 1; string keep = 2; }"));
  expect(reserved.notes.map((n) => n.rule)).toEqual(["FIELD_NAME_NOT_RESERVED"]);
});

// The advice named the first name of a removed number only: its aliases came as a second-step note.
test("a removed number with aliases: every name not in use is to be reserved, the ones in use are named", () => {
  const saved = message('message Connection { S s = 1; } enum S { option allow_alias = true; S_Z = 0; A = 1; B = 1; C = 1; }');
  const current = message('message Connection { S s = 1; } enum S { S_Z = 0; A = 2; }');
  expect(evaluateSchemaChange(saved, current).incompatibilities.map((f) => f.message)).toEqual([
    'enum value t.Connection.s(1).A(1) was removed from t.S without reserving number 1: saved data may still hold 1, which now has no name, and a later value that reuses 1 would change its meaning; add reserved 1 and reserved "B", "C" to t.S (the name "A" is another value\'s now)',
  ]);
});
