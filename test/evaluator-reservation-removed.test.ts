// A reservation the saved schema holds must stay in the current one. Each check compares with the
// last schema only (a snapshot records that one), and re-writes keep unknown fields, so data
// written at v2 may still carry v1's field 2 after v2 retired it. A helper's attack pass ran the
// README's upgrade loop (check against the stored snapshot, read with the restored serializer,
// re-write with the new one, store its snapshot): v2 removed `int32 count = 2` and reserved it,
// v3 dropped the reservation, v4 added `uint64 count = 2`; every step was compatibleAsIs, and v4
// read v1's -1 as 18446744073709551615 (an enum value the same way). buf's WIRE rules flag it too
// (RESERVED_MESSAGE_NO_DELETE); googleapis dropped `reserved 2` from
// google.pubsub.v1.StreamingPullResponse between google-proto-files 3.0.3 and 4.2.0.
import { describe, expect, test } from "vitest";
import { DynamicMessage, evaluateSchemaChange, ProtobufType, readSnapshot, writeSnapshot, type EvaluationResult } from "../src/index.js";
import { droppedRanges } from "../src/compat/evaluate.js";
import { compileProtoText } from "./support/buf.js";
import { acme, messageOf, scalar } from "./support/descriptors.js";

const typeOf = (body: string, extra = ""): ProtobufType =>
  ProtobufType.of({ fileDescriptorSet: compileProtoText({ "acme/m.proto": `syntax = "proto3";\npackage acme;\n${extra}\nmessage M {\n${body}\n}\n` }), messageName: "acme.M" });

/** "RULE at path" for incompatibilities, "note RULE at path" for notes. */
const verdict = (saved: ProtobufType, current: ProtobufType, boundary: "binary" | "json" | "binary+json" = "binary"): string[] => {
  const r = evaluateSchemaChange(saved.descriptor, current.descriptor, { boundary });
  return [...r.incompatibilities.map((f) => `${f.rule} at ${f.path}`), ...r.notes.map((f) => `note ${f.rule} at ${f.path}`)];
};

describe("the upgrade loop of the README, step by step", () => {
  const v1 = typeOf("int32 id = 1; int32 count = 2;");
  const v2 = typeOf('int32 id = 1; reserved 2; reserved "count";');
  const v3 = typeOf("int32 id = 1;");
  const v4 = typeOf("int32 id = 1; uint64 count = 2;");

  test("the step that drops the reservation is refused; the one that keeps it passes", () => {
    const w1 = v1.createSerializer();
    let data = w1.encode(DynamicMessage.create(v1.descriptor, { id: 1, count: -1 }));
    let stored = writeSnapshot(w1.snapshotConfiguration());
    // v2 keeps v1's field 2 as an unknown field when it re-writes.
    const w2 = v2.createSerializer();
    const saved1 = readSnapshot(stored);
    expect(w2.snapshotConfiguration().resolveSchemaCompatibility(saved1)).toEqual({ kind: "compatibleAsIs" });
    data = w2.encode(saved1.restoreSerializer().decode(data));
    stored = writeSnapshot(w2.snapshotConfiguration());
    expect([...w2.decode(data).unknownFields.keys()]).toEqual([2]);

    const r = v3.createSerializer().snapshotConfiguration().resolveSchemaCompatibility(readSnapshot(stored));
    if (r.kind !== "incompatible") throw new Error(`expected incompatible, got ${r.kind}`);
    expect(r.incompatibilities).toEqual([
      {
        rule: "FIELD_RESERVATION_REMOVED",
        path: "acme.M",
        message:
          "acme.M: the saved acme.M reserves field number 2, which the current acme.M neither reserves nor uses: saved data may still carry that field (a removed field's values, which re-writes keep as unknown fields), and a later schema checked against this one could take that number back and misread them; keep reserved 2 in acme.M",
      },
    ]);
    // What the refused step would have let through: v4 checked against v3 alone.
    expect(verdict(v3, v4)).toEqual([]);
    expect(verdict(v1, v4)).toEqual(["FIELD_TYPE_CHANGED at acme.M.count(2)"]);
    expect(v4.createSerializer().decode(data).get("count")).toBe(18446744073709551615n);
  });

  test("the name at the JSON boundary: incompatible there, a note for binary data", () => {
    expect(verdict(v2, v3, "binary")).toEqual(["FIELD_RESERVATION_REMOVED at acme.M", 'note FIELD_RESERVED_NAME_REMOVED at acme.M']);
    expect(verdict(v2, v3, "json")).toEqual(["JSON_FIELD_RESERVED_NAME_REMOVED at acme.M"]);
    expect(verdict(v2, v3, "binary+json")).toEqual(["FIELD_RESERVATION_REMOVED at acme.M", "JSON_FIELD_RESERVED_NAME_REMOVED at acme.M", "note FIELD_RESERVED_NAME_REMOVED at acme.M"]);
  });

  test("a write is not refused: a value of the saved schema, unknown field 2 and all, is written alike", () => {
    const relayed = v2.createSerializer().fromBinary(v1.createSerializer().toBinary({ id: 7, count: -1 }));
    const bytes = v3.createSerializer().toBinary(relayed);
    expect(v1.createSerializer().fromBinary(bytes).toObject()).toEqual({ id: 7, count: -1 });
  });
});

/** Each finding as "RULE at path", with the reservation its advice says to keep: "RULE at path: 2 to 3". */
function advised(r: EvaluationResult): string[] {
  return [...r.incompatibilities, ...r.notes.map((n) => ({ ...n, rule: `note ${n.rule}` }))].map((f) => {
    const kept = /keep reserved (.*) in acme\.\w+$/.exec(f.message);
    return kept === null ? `${f.rule} at ${f.path}` : `${f.rule} at ${f.path}: ${kept[1]}`;
  });
}

describe("which reservations count as dropped", () => {
  const STATUS = (reserved: string, values = "") => `enum Status { S0 = 0; S1 = 1; ${values} ${reserved} }`;
  test.each<[string, string, string, string[]]>([
    ["kept as it was", "reserved 2 to 9;", "reserved 2 to 9;", []],
    ["widened", "reserved 2 to 9;", "reserved 2 to 20;", []],
    ["split across two statements", "reserved 2 to 9;", "reserved 2 to 4; reserved 5, 6 to 9;", []],
    ["narrowed at both ends", "reserved 2 to 9;", "reserved 4 to 6;", ["FIELD_RESERVATION_REMOVED at acme.M: 2 to 3, 7 to 9"]],
    ["one of several dropped", "reserved 2, 5, 8;", "reserved 2, 8;", ["FIELD_RESERVATION_REMOVED at acme.M: 5"]],
    ["up to max, kept to 2000", "reserved 1000 to max;", "reserved 1000 to 2000;", ["FIELD_RESERVATION_REMOVED at acme.M: 2001 to max"]],
    // A number taken back is FIELD_RESERVED_NUMBER_REUSED, once.
    ["taken by a field", "reserved 2 to 4;", "reserved 2, 4; string three = 3;", ["FIELD_RESERVED_NUMBER_REUSED at acme.M.three(3)"]],
    ["a name taken by a field", 'reserved "old";', "string old = 3;", ["FIELD_RESERVED_NAME_REUSED at acme.M.old(3)"]],
    ["names dropped", 'reserved "a", "b", "c";', 'reserved "b";', ['note FIELD_RESERVED_NAME_REMOVED at acme.M: "a", "c"']],
    // Its JSON name is the field's use of it (FIELD_RESERVED_NAME_REUSED at the JSON boundary).
    ["a name taken as a field's JSON name", 'reserved "fooBar";', "string foo_bar = 3;", []],
  ])("message: %s", (_name, saved, current, expected) => {
    expect(advised(evaluateSchemaChange(typeOf(`int32 id = 1; ${saved}`).descriptor, typeOf(`int32 id = 1; ${current}`).descriptor))).toEqual(expected);
  });

  test.each<[string, string, string, string[]]>([
    ["kept", STATUS('reserved 5 to 9; reserved "OLD";'), STATUS('reserved 5 to 9; reserved "OLD";'), []],
    ["up to max dropped", STATUS("reserved 100 to max;"), STATUS("reserved 100 to 200;"), ["ENUM_RESERVATION_REMOVED at acme.M.status(2): 201 to max"]],
    ["taken by a value", STATUS("reserved 5;"), STATUS("", "S5 = 5;"), ["ENUM_RESERVED_NUMBER_REUSED at acme.M.status(2).S5(5)"]],
    ["a name dropped", STATUS('reserved "OLD";'), STATUS(""), ['note ENUM_RESERVED_NAME_REMOVED at acme.M.status(2): "OLD"']],
  ])("enum: %s", (_name, saved, current, expected) => {
    expect(advised(evaluateSchemaChange(typeOf("int32 id = 1; Status status = 2;", saved).descriptor, typeOf("int32 id = 1; Status status = 2;", current).descriptor))).toEqual(expected);
  });

  test("nine ranges dropped: eight listed, one more range; the advice names them all", () => {
    const r = evaluateSchemaChange(typeOf("int32 id = 1; reserved 2, 4, 6, 8, 10, 12, 14, 16, 18;").descriptor, typeOf("int32 id = 1;").descriptor);
    expect(r.incompatibilities[0]!.message).toBe(
      "acme.M: the saved acme.M reserves field numbers 2, 4, 6, 8, 10, 12, 14, 16 and 1 more range, which the current acme.M neither reserves nor uses: saved data may still carry those fields (a removed field's values, which re-writes keep as unknown fields), and a later schema checked against this one could take one of those numbers back and misread them; keep every reserved range of the saved acme.M (9 are missing from the current one)",
    );
    const json = evaluateSchemaChange(typeOf('int32 id = 1; reserved "fooBar";').descriptor, typeOf("int32 id = 1; string foo_bar = 3;").descriptor, { boundary: "json" });
    expect(json.incompatibilities.map((f) => `${f.rule} at ${f.path}`)).toEqual(["FIELD_RESERVED_NAME_REUSED at acme.M.foo_bar(3)"]);
  });

  test("droppedRanges: one pass over merged ranges, whatever their count or width", () => {
    // 20,000 single reserved numbers, every other one kept: 10,000 ranges dropped.
    const numbers = Array.from({ length: 20_000 }, (_, i) => 2 * i + 10);
    const withReserved = (kept: number[]) =>
      ProtobufType.of(messageOf([acme({ messageType: [{ name: "M", field: [scalar("id", 1)], reservedRange: kept.map((n) => ({ start: n, end: n + 1 })) }] })], "acme.M"));
    const saved = withReserved(numbers);
    const current = withReserved(numbers.filter((_, i) => i % 2 === 0));
    const dropped = droppedRanges(saved.descriptor, current.descriptor);
    expect(dropped.length).toBe(10_000);
    expect(dropped.slice(0, 2)).toEqual([[12, 12], [16, 16]]);
    const r = evaluateSchemaChange(saved.descriptor, current.descriptor);
    // One finding, its list cut short.
    expect(r.incompatibilities.map((f) => f.rule)).toEqual(["FIELD_RESERVATION_REMOVED"]);
    expect(r.incompatibilities[0]!.message.length).toBeLessThan(1000);
    expect(r.incompatibilities[0]!.message).toMatch(/reserves field numbers 12, 16, 20, 24, 28, 32, 36, 40 and 9992 more ranges, .*; keep every reserved range of the saved acme\.M \(10000 are missing from the current one\)$/);
  });
});
