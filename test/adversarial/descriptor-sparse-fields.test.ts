// One message of 100,000 fields numbered up to 536,870,911, with 100,000 reserved ranges and
// names (hardening, descriptors items 2 and 5): rules, normalization and the evaluator must not
// scan all fields or all reserved ranges per field. Correctness at this size, never time.
import { describe, expect, test } from "vitest";
import { fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { ProtobufType, evaluateSchemaChange } from "../../src/index.js";
import { messageOf, sparseFields, sparseNumber } from "../../stress/schemas.mjs";
import { expectRoundTrips } from "./support/round-trip.js";

const N = 100_000;
const MAX = 536_870_911;
const saved = messageOf(sparseFields(N), "s.Sparse");
const type = ProtobufType.of(saved);

describe("100,000 sparse fields", () => {
  test("normalize: fields by number up to 536,870,911, reserved ranges and names sorted", () => {
    const message = fromBinary(FileDescriptorSetSchema, type.normalizedDescriptorSet()).file[0]!.messageType[0]!;
    expect(message.field.length).toBe(N + 1);
    const numbers = message.field.map((f) => f.number);
    expect(numbers.every((n, i) => i === 0 || numbers[i - 1]! < n)).toBe(true);
    expect(numbers[N]).toBe(MAX);
    expect(message.field[N]!.name).toBe("last");
    // Each reserved range is the one number after a field: none are adjacent, none merge.
    expect(message.reservedRange.length).toBe(N);
    expect(message.reservedRange[N - 1]).toMatchObject({ start: sparseNumber(N - 1, N) + 1, end: sparseNumber(N - 1, N) + 2 });
    expect(message.reservedName.length).toBe(N);
    expect(message.reservedName.slice(0, 3)).toEqual(["old0", "old1", "old10"]);
  });

  test("the transfer form and a snapshot restore an equal type", () => {
    expectRoundTrips(type);
  });

  test("evaluate: removals checked against 150,000 reserved ranges and names, renames in number order", () => {
    const result = evaluateSchemaChange(saved, messageOf(sparseFields(N, "current"), "s.Sparse"));
    expect(result.compatible).toBe(false);
    expect(result.incompatibilities).toEqual([
      {
        rule: "FIELD_REMOVED_NOT_RESERVED",
        path: "s.Sparse.f0(1)",
        message:
          'field s.Sparse.f0(1) (int32) was removed without reserving number 1: saved data still carries field 1, and a later field that reuses the number would misread it; add reserved 1 and reserved "f0" to s.Sparse',
      },
    ]);
    // Every even i > 0 is renamed; every odd i is removed with number and name reserved (no finding).
    const renamed = Array.from({ length: N / 2 - 1 }, (_, k) => 2 * (k + 1));
    expect(result.notes.map((f) => f.path)).toEqual(renamed.map((i) => `s.Sparse.g${i}(${sparseNumber(i, N)})`));
    expect(new Set(result.notes.map((f) => f.rule))).toEqual(new Set(["FIELD_RENAMED"]));
    const p = `s.Sparse.g${N - 2}(${sparseNumber(N - 2, N)})`;
    expect(result.notes.at(-1)!.message).toBe(
      `field ${p} was renamed from f${N - 2}: binary data is unaffected, but code that reads it by name changes and its JSON name changes from "f${N - 2}" to "g${N - 2}"; update name-based readers and reserve "f${N - 2}" if it should not come back`,
    );
  });

  test("evaluate: 100,000 added fields that reuse reserved numbers and names", () => {
    const current = sparseFields(N);
    const message = current.file[0]!.messageType[0]!;
    for (let i = 0; i < N; i++) {
      message.field.push({ ...message.field[i]!, name: `old${i}`, jsonName: `old${i}`, number: sparseNumber(i, N) + 1 });
    }
    message.reservedRange = [];
    message.reservedName = [];
    const result = evaluateSchemaChange(saved, messageOf(current, "s.Sparse"));
    expect(result.incompatibilities.length).toBe(2 * N);
    const at = `s.Sparse.old0(${sparseNumber(0, N) + 1})`;
    expect(result.incompatibilities.slice(0, 2).map((f) => [f.rule, f.path])).toEqual([
      ["FIELD_RESERVED_NUMBER_REUSED", at],
      ["FIELD_RESERVED_NAME_REUSED", at],
    ]);
    expect(result.notes).toEqual([]);
  });

  test.each<[string, (fields: { name: string; number: number; jsonName: string }[]) => void, string, string]>([
    [
      "a number above 536,870,911 on the last field",
      (fields) => {
        fields[N]!.number = MAX + 1;
      },
      "FIELD_NUMBER_TOO_LARGE",
      "invalid descriptor s.Sparse: field s.Sparse.last has number 536870912 above 536870911; use a number in 1..536870911",
    ],
    [
      "a number reused by the last field",
      (fields) => {
        fields[N]!.number = sparseNumber(N - 1, N);
      },
      "FIELD_NUMBER_DUPLICATE",
      `invalid descriptor s.Sparse: fields s.Sparse.f${N - 1} and s.Sparse.last share number ${sparseNumber(N - 1, N)}; give each field its own number`,
    ],
    [
      "a JSON name that the last field shares with the first",
      (fields) => {
        fields[N]!.jsonName = "f0";
      },
      "JSON_NAME_CONFLICT",
      "invalid descriptor s.Sparse: fields s.Sparse.f0 and s.Sparse.last have the same JSON name f0; rename one of them or give it a distinct json_name",
    ],
  ])("%s fails exactly, and again on a second call", (_name, breakIt, code, message) => {
    const set = sparseFields(N);
    breakIt(set.file[0]!.messageType[0]!.field);
    const broken = messageOf(set, "s.Sparse");
    const expected = expect.objectContaining({ name: "InvalidDescriptorError", code, message });
    expect(() => ProtobufType.of(broken)).toThrow(expected);
    expect(() => ProtobufType.of(broken)).toThrow(expected);
  });

  test("after those failures the valid schema still builds an equal type", () => {
    expect(ProtobufType.of(saved).equals(type)).toBe(true);
  });
});
