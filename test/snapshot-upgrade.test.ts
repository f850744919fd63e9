// The upgrade story end to end (issue 6): data and snapshot written with schema v1, the program
// moves to v2, the saved data is read with the restored serializer and rewritten with v2.
import { describe, expect, test } from "vitest";
import { CodecError, DynamicMessage, ProtobufType, readSnapshot, writeSnapshot } from "../src/index.js";
import { messageFromDir } from "./support/buf.js";

const V1 = messageFromDir("fixtures/snapshot/v1", "acme.Order");
const V2 = messageFromDir("fixtures/snapshot/v2", "acme.Order");
const BAD = messageFromDir("fixtures/snapshot/incompatible", "acme.Order");

// Schema v1 writes the data and its snapshot.
const v1 = ProtobufType.newBuilder(V1).maxDepth(16).build().createSerializer();
const ORDERS = [
  DynamicMessage.create(V1, { id: 7n, items: [{ sku: "a", qty: 2 }, { sku: "b", qty: -3 }], note: "gift" }),
  DynamicMessage.create(V1, { id: 8n }),
];
const DATA = v1.encodeAll(ORDERS);
const SNAPSHOT = writeSnapshot(v1.snapshotConfiguration());

describe("upgrading from schema v1 to v2 with a snapshot", () => {
  test("v2 resolves the saved v1 snapshot as compatibleAsIs", () => {
    const v2 = ProtobufType.newBuilder(V2).maxDepth(16).build().createSerializer();
    expect(v2.snapshotConfiguration().resolveSchemaCompatibility(readSnapshot(SNAPSHOT))).toEqual({
      kind: "compatibleAsIs",
    });
  });

  test("the restored serializer reads the old data; values carry the saved descriptor", () => {
    const restored = readSnapshot(SNAPSHOT).restoreSerializer();
    const old = restored.decodeAll(DATA);
    expect(old.map((m) => m.toObject())).toEqual(ORDERS.map((m) => m.toObject()));
    for (const m of old) {
      expect(m.descriptor).toBe(restored.type.descriptor);
      expect(m.descriptor).not.toBe(V1);
    }
    expect(old[0]!.descriptor.fields.map((f) => f.name)).toEqual(["id", "items", "note"]);
    expect(restored.type.settings.maxDepth).toBe(16);
  });

  test("v2 writes the restored values and reads them back with its own descriptor", () => {
    const v2 = ProtobufType.newBuilder(V2).maxDepth(16).build().createSerializer();
    const old = readSnapshot(SNAPSHOT).restoreSerializer().decodeAll(DATA);
    // Accepted through the evaluator: the values' descriptor is the saved v1 schema.
    const rewritten = v2.encodeAll(old);
    const upgraded = v2.decodeAll(rewritten);
    expect(upgraded[0]!.descriptor).toBe(V2);
    expect(upgraded.map((m) => m.toObject())).toEqual([
      {
        id: 7n,
        items: [
          { sku: "a", qty: 2n },
          { sku: "b", qty: -3n },
        ],
        comment: "gift",
        currency: "",
      },
      { id: 8n, items: [], comment: "", currency: "" },
    ]);
    // Added fields are absent: currency has implicit presence, price explicit presence.
    expect(upgraded[0]!.has("currency")).toBe(false);
    const item = upgraded[0]!.get("items") as readonly DynamicMessage[];
    expect(item[0]!.has("price")).toBe(false);
    // The new snapshot replaces the old one beside the rewritten data.
    const next = readSnapshot(writeSnapshot(v2.snapshotConfiguration()));
    expect(next.restoreSerializer().decodeAll(rewritten).map((m) => m.toObject())).toEqual(
      upgraded.map((m) => m.toObject()),
    );
  });

  test("an unsupported change resolves to incompatible with the evaluator's rule in the reason", () => {
    const bad = ProtobufType.newBuilder(BAD).maxDepth(16).build().createSerializer();
    const r = bad.snapshotConfiguration().resolveSchemaCompatibility(readSnapshot(SNAPSHOT));
    expect(r.kind).toBe("incompatible");
    if (r.kind !== "incompatible") return;
    expect(r.reason).toContain("FIELD_TYPE_CHANGED at acme.Order.id(1)");
    expect(r.incompatibilities.map((f) => f.rule)).toEqual(["FIELD_TYPE_CHANGED"]);
    // The writer agrees: it refuses the restored values for the same reason.
    const old = readSnapshot(SNAPSHOT).restoreSerializer().decodeAll(DATA);
    expect(() => bad.encode(old[0]!)).toThrow(CodecError);
  });

  test("a lower maxDepth is incompatible, a higher one is not", () => {
    const saved = readSnapshot(SNAPSHOT);
    const lower = ProtobufType.newBuilder(V2).maxDepth(15).build().createSerializer();
    const higher = ProtobufType.newBuilder(V2).maxDepth(17).build().createSerializer();
    const r = lower.snapshotConfiguration().resolveSchemaCompatibility(saved);
    expect(r.kind).toBe("incompatible");
    if (r.kind === "incompatible") {
      expect(r.incompatibilities.map((f) => f.rule)).toEqual(["MAX_DEPTH_LOWERED"]);
      expect(r.reason).toContain("MAX_DEPTH_LOWERED at acme.Order");
    }
    expect(higher.snapshotConfiguration().resolveSchemaCompatibility(saved)).toEqual({ kind: "compatibleAsIs" });
  });
});
