// current.resolveSchemaCompatibility(saved): the evaluator's rules plus the settings rules.
import { describe, expect, test } from "vitest";
import { ProtobufType, readSnapshot, writeSnapshot, type SerializerSnapshot } from "../src/index.js";
import { compileProtoDir, compileProtoText, messageFromDir } from "./support/buf.js";
import { assemble, defaultFields } from "./support/snapshot-bytes.js";

const snapshotOf = (type: ProtobufType) => type.createSerializer().snapshotConfiguration();

const V1 = messageFromDir("fixtures/snapshot/v1", "acme.Order");
const V2 = messageFromDir("fixtures/snapshot/v2", "acme.Order");
const BAD = messageFromDir("fixtures/snapshot/incompatible", "acme.Order");

/** The saved side always goes through bytes, as it does in a program that restarts. */
function saved(type: ProtobufType): SerializerSnapshot {
  return readSnapshot(writeSnapshot(snapshotOf(type)));
}

describe("snapshot compatibility resolution", () => {
  test.each<[string, ProtobufType, ProtobufType]>([
    ["the same schema", ProtobufType.of(V1), ProtobufType.of(V1)],
    ["v1 → v2 (field added, int32 widened to int64, field renamed, optional field added)", ProtobufType.of(V1), ProtobufType.of(V2)],
    ["a higher maxDepth", ProtobufType.newBuilder(V1).maxDepth(10).build(), ProtobufType.newBuilder(V1).maxDepth(11).build()],
    [
      "a higher maxMessageBytes",
      ProtobufType.newBuilder(V1).maxMessageBytes(1000).build(),
      ProtobufType.newBuilder(V1).maxMessageBytes(1001).build(),
    ],
    ["deterministic changed", ProtobufType.of(V1), ProtobufType.newBuilder(V1).deterministic(true).build()],
    ["aliasThreshold changed", ProtobufType.of(V1), ProtobufType.newBuilder(V1).aliasThreshold(1024).build()],
  ])("%s is compatibleAsIs", (_name, savedType, currentType) => {
    expect(snapshotOf(currentType).resolveSchemaCompatibility(saved(savedType))).toEqual({ kind: "compatibleAsIs" });
  });

  test.each<[string, ProtobufType, ProtobufType, string, string]>([
    ["int64 narrowed to int32", ProtobufType.of(V1), ProtobufType.of(BAD), "FIELD_TYPE_CHANGED", "acme.Order.id(1)"],
    [
      "a lower maxDepth",
      ProtobufType.newBuilder(V1).maxDepth(12).build(),
      ProtobufType.newBuilder(V1).maxDepth(11).build(),
      "MAX_DEPTH_LOWERED",
      "acme.Order",
    ],
    [
      "a lower maxMessageBytes",
      ProtobufType.of(V1),
      ProtobufType.newBuilder(V1).maxMessageBytes(1 << 20).build(),
      "MAX_MESSAGE_BYTES_LOWERED",
      "acme.Order",
    ],
    [
      "another root message",
      ProtobufType.of(V1),
      ProtobufType.of(messageFromDir("fixtures/snapshot/v1", "acme.Item")),
      "MESSAGE_NAME_CHANGED",
      "acme.Item",
    ],
    ["v2 → v1 (depth first: qty narrowed before currency removed)", ProtobufType.of(V2), ProtobufType.of(V1), "FIELD_TYPE_CHANGED", "acme.Order.items(2).qty(2)"],
  ])("%s is incompatible by %s", (_name, savedType, currentType, rule, path) => {
    const r = snapshotOf(currentType).resolveSchemaCompatibility(saved(savedType));
    if (r.kind !== "incompatible") throw new Error("expected incompatible");
    expect(r.incompatibilities[0]).toMatchObject({ rule, path });
    expect(r.reason).toMatch(/^incompatible: /);
    expect(r.reason).toContain(`${rule} at ${path}`);
    expect(r.reason).toContain(r.incompatibilities[0]!.message);
  });

  test("the reason is the evaluator's report", () => {
    const r = snapshotOf(ProtobufType.of(BAD)).resolveSchemaCompatibility(saved(ProtobufType.of(V1)));
    expect(r).toEqual({
      kind: "incompatible",
      reason: expect.stringMatching(/^incompatible: 1 incompatibility, 0 notes\nincompatibilities \(1\):\n  1\. FIELD_TYPE_CHANGED at acme\.Order\.id\(1\)\n     /),
      incompatibilities: [expect.objectContaining({ rule: "FIELD_TYPE_CHANGED", path: "acme.Order.id(1)" })],
    });
  });

  test("the reason lists the first 20 findings of each kind; incompatibilities holds them all", () => {
    const text = (t: string) =>
      `syntax = "proto3"; package acme; message Order { ${Array.from({ length: 30 }, (_, i) => `${t} f${i} = ${i + 1};`).join(" ")} }`;
    const typeOf = (t: string) => ProtobufType.of({ fileDescriptorSet: compileProtoText({ "acme/order.proto": text(t) }), messageName: "acme.Order" });
    const r = snapshotOf(typeOf("uint32")).resolveSchemaCompatibility(saved(typeOf("int32")));
    if (r.kind !== "incompatible") throw new Error("expected incompatible");
    expect(r.incompatibilities.length).toBe(30);
    const lines = r.reason.split("\n");
    expect(lines.slice(0, 2)).toEqual(["incompatible: 30 incompatibilities, 0 notes", "incompatibilities (30):"]);
    expect(lines.filter((l) => /^ {2}\d+\. /.test(l)).length).toBe(20);
    expect(lines.at(-1)).toBe("  … and 10 more (evaluateSchemaChange lists them all)");
  });

  test("a saved snapshot of another kind is always incompatible", () => {
    const generated = {
      className: "protokeel.ProtobufGeneratedSerializerSnapshot",
      version: 1,
      resolveSchemaCompatibility: () => ({ kind: "compatibleAsIs" as const }),
      restoreSerializer: () => {
        throw new Error("not called");
      },
      writePayload: () => {},
    };
    const r = snapshotOf(ProtobufType.of(V1)).resolveSchemaCompatibility(generated);
    expect(r).toEqual({
      kind: "incompatible",
      reason:
        "incompatible: the saved snapshot is protokeel.ProtobufGeneratedSerializerSnapshot, the current one is protokeel.ProtobufDynamicSerializerSnapshot; the kinds differ (dynamic and generated values are not interchangeable, even for the same schema) and protokeel does not convert data between snapshot kinds, so start with fresh data or replay the input with the current type",
      incompatibilities: [
        {
          rule: "SNAPSHOT_KIND_CHANGED",
          path: "acme.Order",
          message:
            "the saved snapshot is protokeel.ProtobufGeneratedSerializerSnapshot, the current one is protokeel.ProtobufDynamicSerializerSnapshot; the kinds differ (dynamic and generated values are not interchangeable, even for the same schema) and protokeel does not convert data between snapshot kinds, so start with fresh data or replay the input with the current type",
        },
      ],
    });
  });

  test("a saved snapshot that cannot be restored is incompatible and says why", () => {
    // buf's own FileDescriptorSet reads as a snapshot but is not in normalized form.
    const unnormalized = readSnapshot(assemble(defaultFields("acme.Order", compileProtoDir("fixtures/snapshot/v1"))));
    const r = snapshotOf(ProtobufType.of(V1)).resolveSchemaCompatibility(unnormalized);
    if (r.kind !== "incompatible") throw new Error("expected incompatible");
    expect(r.incompatibilities.map((f) => f.rule)).toEqual(["SAVED_SCHEMA_NOT_RESTORABLE"]);
    expect(r.reason).toContain("cannot restore the serializer of acme.Order from its snapshot");
  });

  test("a snapshot read back from bytes resolves like the one it was written from", () => {
    expect(saved(ProtobufType.of(V2)).resolveSchemaCompatibility(saved(ProtobufType.of(V1)))).toEqual({
      kind: "compatibleAsIs",
    });
    const r = saved(ProtobufType.of(BAD)).resolveSchemaCompatibility(saved(ProtobufType.of(V1)));
    expect(r).toEqual(snapshotOf(ProtobufType.of(BAD)).resolveSchemaCompatibility(saved(ProtobufType.of(V1))));
    expect(r.kind).toBe("incompatible");
  });
});

describe("snapshots from another copy of the package", () => {
  // Another copy's class fails `instanceof`; resolution goes through the payload bytes instead.
  const foreign = (snap: SerializerSnapshot<unknown>): SerializerSnapshot => ({
    className: snap.className,
    version: snap.version,
    resolveSchemaCompatibility: (s) => snap.resolveSchemaCompatibility(s),
    restoreSerializer: () => snap.restoreSerializer() as never,
    writePayload: (out) => snap.writePayload(out),
  });

  test("a foreign dynamic snapshot resolves by its content", () => {
    const current = snapshotOf(ProtobufType.of(V2));
    expect(current.resolveSchemaCompatibility(foreign(saved(ProtobufType.of(V1))))).toEqual({ kind: "compatibleAsIs" });
    const r = snapshotOf(ProtobufType.of(BAD)).resolveSchemaCompatibility(foreign(saved(ProtobufType.of(V1))));
    expect(r.kind === "incompatible" && r.incompatibilities.map((f) => f.rule)).toEqual(["FIELD_TYPE_CHANGED"]);
  });

  test("a foreign generated snapshot resolves by its content against a generated one, and stays of the other kind for a dynamic one", () => {
    const gen = (d: typeof V1) => ProtobufType.ofGenerated(d).createSerializer().snapshotConfiguration();
    expect(gen(V2).resolveSchemaCompatibility(foreign(gen(V1)))).toEqual({ kind: "compatibleAsIs" });
    const r = gen(BAD).resolveSchemaCompatibility(foreign(gen(V1)));
    expect(r.kind === "incompatible" && r.incompatibilities.map((f) => f.rule)).toEqual(["FIELD_TYPE_CHANGED"]);
    const cross = snapshotOf(ProtobufType.of(V1)).resolveSchemaCompatibility(foreign(gen(V1)));
    expect(cross.kind === "incompatible" && cross.incompatibilities.map((f) => f.rule)).toEqual(["SNAPSHOT_KIND_CHANGED"]);
  });

  test("a foreign object that writes a damaged payload is a SnapshotFormatError", () => {
    const real = saved(ProtobufType.of(V1));
    const damaged: SerializerSnapshot = {
      ...foreign(real),
      writePayload: (out) => {
        real.writePayload(out);
        out.u8(0);
      },
    };
    expect(() => snapshotOf(ProtobufType.of(V1)).resolveSchemaCompatibility(damaged)).toThrow(
      expect.objectContaining({ name: "SnapshotFormatError", code: "SNAPSHOT_TRAILING_BYTES" }),
    );
  });
});
