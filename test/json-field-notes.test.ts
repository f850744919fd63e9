// The field notes' JSON boundary (shared/seeds/004, "Protobuf compatibility changes at a JSON
// boundary"), replayed through protokeel with the notes' three schemas (test/fixtures/relays/):
// bare = Old { id = 1 }, noted = New { id = 1; note = 2 }, renamed = Renamed { event_id = 1 }.
// Where the notes' Python runtime drops data silently, protokeel makes the loss an explicit
// option; the evaluator at the JSON boundary predicts each outcome.
import { describe, expect, test } from "vitest";
import { DynamicMessage, ProtobufType, evaluateSchemaChange, type ProtobufSerializer } from "../src/index.js";
import { messageFromDir } from "./support/buf.js";

const serializer = (version: string): ProtobufSerializer => ProtobufType.of(messageFromDir(`fixtures/relays/${version}`, "probe.Record")).createSerializer();
const Old = serializer("bare");
const New = serializer("noted");
const Renamed = serializer("renamed");
const producer = DynamicMessage.create(New.type.descriptor, { id: 7, note: "retain me" });

describe("binary relay keeps note; old-schema JSON relay drops it", () => {
  const oldRelay = Old.fromBinary(New.toBinary(producer));

  test("the old binary relay keeps the new field as an unknown field", () => {
    expect(New.fromBinary(Old.toBinary(oldRelay)).get("note")).toBe("retain me");
  });

  test("writing the old relay's value as JSON refuses to drop it silently", () => {
    expect(() => Old.toJson(oldRelay)).toThrow(expect.objectContaining({ code: "JSON_UNKNOWN_FIELDS", path: "probe.Record" }));
    expect(() => JSON.stringify(oldRelay)).toThrow(expect.objectContaining({ code: "JSON_UNKNOWN_FIELDS" }));
  });

  test("with discardUnknownFields the JSON relay drops note, as the notes' known-field JSON does", () => {
    const relayJson = Old.toJsonString(oldRelay, { discardUnknownFields: true });
    expect(relayJson).toBe('{"id":7}');
    const throughJson = Old.fromJsonString(relayJson);
    expect(New.fromBinary(Old.toBinary(throughJson)).get("note")).toBe("");
  });

  test("the evaluator: adding note is compatible for binary readers and noted at the JSON boundary", () => {
    expect(evaluateSchemaChange(Old.type.descriptor, New.type.descriptor)).toEqual({ compatible: true, incompatibilities: [], notes: [] });
    const json = evaluateSchemaChange(Old.type.descriptor, New.type.descriptor, { boundary: "json" });
    expect(json.compatible).toBe(true);
    expect(json.notes.map((f) => `${f.rule} at ${f.path}`)).toEqual(["JSON_FIELD_ADDED at probe.Record.note(2)"]);
  });
});

describe("strict old JSON parser rejects new field; permissive parsing discards it", () => {
  const newJson = New.toJsonString(producer);

  test("the strict old parser rejects the new property", () => {
    expect(newJson).toBe('{"id":7,"note":"retain me"}');
    expect(() => Old.fromJsonString(newJson)).toThrow(
      'cannot read probe.Record from JSON: probe.Record has property "note", which names no field of probe.Record; read with the schema that declares it, or pass ignoreUnknownFields: true to serializer.fromJsonString(json, { … }) to skip unknown properties (data loss: they are not kept or forwarded)',
    );
  });

  test("ignoreUnknownFields parses and keeps the identifier, and the note is gone for good", () => {
    const ignored = Old.fromJsonString(newJson, { ignoreUnknownFields: true });
    expect(ignored.get("id")).toBe(7);
    expect(ignored.unknownFields.size).toBe(0);
    expect(New.fromBinary(Old.toBinary(ignored)).get("note")).toBe("");
  });

  test("the evaluator: JSON that the new schema writes is not readable by the old one", () => {
    const json = evaluateSchemaChange(New.type.descriptor, Old.type.descriptor, { boundary: "json" });
    expect(json.incompatibilities.map((f) => `${f.rule} at ${f.path}`)).toEqual(["JSON_FIELD_REMOVED_NOT_RESERVED at probe.Record.note(2)"]);
  });
});

describe("same-number rename reads binary but rejects the previous JSON name", () => {
  const old = DynamicMessage.create(Old.type.descriptor, { id: 7 });

  test("binary reads by number", () => {
    expect(Renamed.fromBinary(Old.toBinary(old)).get("event_id")).toBe(7);
  });

  test("the previous JSON property is unknown to the renamed schema", () => {
    expect(() => Renamed.fromJsonString(Old.toJsonString(old))).toThrow(expect.objectContaining({ code: "JSON_UNKNOWN_FIELD", path: "probe.Record" }));
  });

  test("the evaluator: a note for binary, an incompatibility at the JSON boundary, both with binary+json", () => {
    const [saved, current] = [Old.type.descriptor, Renamed.type.descriptor];
    const rule = (r: { incompatibilities: readonly { rule: string }[]; notes: readonly { rule: string }[] }) => [r.incompatibilities.map((f) => f.rule), r.notes.map((f) => f.rule)];
    expect(rule(evaluateSchemaChange(saved, current))).toEqual([[], ["FIELD_RENAMED"]]);
    expect(rule(evaluateSchemaChange(saved, current, { boundary: "json" }))).toEqual([["JSON_FIELD_NAME_CHANGED"], []]);
    const both = evaluateSchemaChange(saved, current, { boundary: "binary+json" });
    expect(both.compatible).toBe(false);
    expect(rule(both)).toEqual([["JSON_FIELD_NAME_CHANGED"], ["FIELD_RENAMED"]]);
  });
});
