// Generated snapshots (docs/design.md §10.2 item 3, §11) and the cross-kind rules: the generated type name
// is recorded; restore resolves it through the registry given to readSnapshot; a snapshot of the
// other kind is incompatible in both directions, even for the same schema.
import { create, createFileRegistry, createRegistry, fromBinary, toBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { describe, expect, test } from "vitest";
import {
  ProtobufDynamicSerializerSnapshot,
  ProtobufGeneratedSerializer,
  ProtobufGeneratedSerializerSnapshot,
  ProtobufType,
  readSnapshot,
  RestoreError,
  SnapshotFormatError,
  writeSnapshot,
} from "../src/index.js";
import { compileProtoText } from "./support/buf.js";
import { snapshotError, withCheck } from "./support/snapshot-bytes.js";
import { ItemSchema, OrderSchema } from "./fixtures/generated-es/gen/es_fixtures_pb.js";

const genType = ProtobufType.newGeneratedBuilder(OrderSchema).maxDepth(50).build();
const genSer = genType.createSerializer();
const dynSer = ProtobufType.newBuilder(OrderSchema).maxDepth(50).build().createSerializer();
const genBytes = writeSnapshot(genSer.snapshotConfiguration());
const dynBytes = writeSnapshot(dynSer.snapshotConfiguration());
const value = create(OrderSchema, { id: 9n, items: [{ sku: "a", qty: 2 }], note: "n" });

/** esfix.Order under the same full name with other content (another version of the application). */
function orderVersion(fields: string) {
  const set = compileProtoText({ "esfix/order.proto": `syntax = "proto3"; package esfix; message Item { string sku = 1; int32 qty = 2; } message Order { ${fields} }` });
  return createFileRegistry(fromBinary(FileDescriptorSetSchema, set)).getMessage("esfix.Order")!;
}

function restoreError(fn: () => unknown): RestoreError {
  try {
    fn();
  } catch (e) {
    if (e instanceof RestoreError) return e;
    throw e;
  }
  throw new Error("expected a RestoreError");
}

const KIND_REASON = (saved: string, current: string) =>
  `the saved snapshot is ${saved}, the current one is ${current}; the kinds differ (dynamic and generated values are not interchangeable, even for the same schema) and protokeel does not convert data between snapshot kinds, so start with fresh data or replay the input with the current type`;
const GEN = "protokeel.ProtobufGeneratedSerializerSnapshot";
const DYN = "protokeel.ProtobufDynamicSerializerSnapshot";

describe("the generated snapshot", () => {
  test("records the class, the generated type name after the settings, and reads back without a registry", () => {
    const snap = readSnapshot(genBytes);
    expect(snap).toBeInstanceOf(ProtobufGeneratedSerializerSnapshot);
    const g = snap as unknown as ProtobufGeneratedSerializerSnapshot;
    expect([g.kind, g.className, g.version, g.generatedTypeName, g.fullName]).toEqual(["generated", GEN, 1, "esfix.Order", "esfix.Order"]);
    expect(g.settings).toEqual(genType.settings);
    expect(g.fingerprint).toBe(genType.fingerprint());
    // envelope: magic, version, class name; then u32 version, u8 framing, u8 normalization, 13 bytes of settings
    const at = 4 + 1 + 2 + GEN.length + 4 + 2 + 13;
    expect(new DataView(genBytes.buffer, genBytes.byteOffset).getUint16(at)).toBe("esfix.Order".length);
    expect(new TextDecoder().decode(genBytes.subarray(at + 2, at + 2 + 11))).toBe("esfix.Order");
    // the dynamic payload is the generated one without that name
    expect(genBytes.length - dynBytes.length).toBe(GEN.length - DYN.length + 2 + "esfix.Order".length);
  });

  test.each([
    ["a protobuf-es Registry", createRegistry(OrderSchema, ItemSchema)],
    ["a Map of type name to schema", new Map([["esfix.Order", OrderSchema]])],
    ["a plain object keyed by type name", { "esfix.Order": OrderSchema }],
    // As ProtoJSON's registry option takes one; a list was taken for an empty registry.
    ["a list of generated schemas", [ItemSchema, OrderSchema]],
  ])("restores through %s: a generated serializer of the registered schema, with the saved settings", (_name, registry) => {
    const snap = readSnapshot(genBytes, { registry });
    const restored = snap.restoreSerializer();
    expect(restored).toBeInstanceOf(ProtobufGeneratedSerializer);
    expect((restored as ProtobufGeneratedSerializer).type.equals(genType)).toBe(true);
    expect(restored.fromBinary(toBinary(OrderSchema, value))).toEqual(value);
    expect(writeSnapshot(snap)).toEqual(genBytes);
  });

  test.each([
    ["without a registry", undefined, "no registry was passed to supply"],
    ["with a registry that lacks the type", createRegistry(ItemSchema), "the registry passed to readSnapshot does not have"],
  ])("restore %s is a RestoreError naming the type and what to pass", (_name, registry, why) => {
    const snap = readSnapshot(genBytes, registry === undefined ? undefined : { registry });
    const e = restoreError(() => snap.restoreSerializer());
    expect(e.code).toBe("RESTORE_GENERATED_TYPE_MISSING");
    expect(e.message).toBe(
      `cannot restore the serializer of esfix.Order from its snapshot: the snapshot is of the generated kind and needs the generated type esfix.Order, which ${why}; pass readSnapshot(bytes, { registry }) with a protobuf-es Registry (createRegistry(OrderSchema)) or a Map of type name to generated schema that has esfix.Order`,
    );
  });

  // Taken for an empty registry, so that restore said the type was missing from it.
  test.each([
    ["a string", "esfix.Order", "readSnapshot: option registry must be a protobuf-es Registry, a Map or object of type name to generated schema, or a list of generated schemas, got string"],
    ["a number", 0, "readSnapshot: option registry must be a protobuf-es Registry, a Map or object of type name to generated schema, or a list of generated schemas, got number"],
    ["a list holding a type name", [OrderSchema, "esfix.Item"], "readSnapshot: option registry lists something that is not a generated message schema; pass the GenMessage schemas (OrderSchema, …)"],
    ["a Set of schemas", new Set([OrderSchema]), "readSnapshot: option registry must be a protobuf-es Registry, a Map or object of type name to generated schema, or a list of generated schemas, got Set"],
  ])("a registry that is %s is a TypeError at readSnapshot", (_name, registry, message) => {
    expect(() => readSnapshot(genBytes, { registry } as never)).toThrow(new TypeError(message));
    expect(() => readSnapshot(genBytes, { registry } as never)).toThrow(TypeError);
  });

  test("a null registry is no registry (as an earlier version read it)", () => {
    expect(restoreError(() => readSnapshot(genBytes, { registry: null } as never).restoreSerializer()).code).toBe("RESTORE_GENERATED_TYPE_MISSING");
  });

  test("a registered schema changed compatibly restores; an incompatible change is a RestoreError", () => {
    const added = orderVersion("int64 id = 1; repeated Item items = 2; map<string, Item> by_sku = 3; oneof payment { string card = 4; Item voucher = 5; } optional string note = 6; string extra = 7;");
    const restored = readSnapshot(genBytes, { registry: { "esfix.Order": added } }).restoreSerializer();
    expect(restored.type.descriptor).toBe(added);
    expect((restored.fromBinary(toBinary(OrderSchema, value)) as Record<string, unknown>).note).toBe("n");
    const changed = orderVersion("string id = 1;");
    const e = restoreError(() => readSnapshot(genBytes, { registry: { "esfix.Order": changed } }).restoreSerializer());
    expect(e.code).toBe("RESTORE_GENERATED_TYPE_INCOMPATIBLE");
    expect(e.message).toMatch(/^cannot restore the serializer of esfix\.Order from its snapshot: the registered generated type esfix\.Order cannot read data of the saved schema: .* \(FIELD_TYPE_CHANGED at esfix\.Order\.id\(1\)\); register the generated code of a compatible schema$/);
  });

  // Restoring with changed code is a step of the chain of checks: the restored serializer is of
  // the registered schema, and its snapshot is what the next check compares with. Restored when
  // the code dropped a reservation of the saved schema, its snapshot forgot it, and a later schema
  // reusing the number passed against that snapshot (a helper's attack pass).
  test("a registered schema without the saved schema's reservation does not restore; the compatibility check reports it too", () => {
    const reserving = orderVersion('int64 id = 1; repeated Item items = 2; reserved 3; reserved "legacy";');
    const without = orderVersion("int64 id = 1; repeated Item items = 2;");
    const bytes = writeSnapshot(ProtobufType.newGeneratedBuilder(reserving).build().createSerializer().snapshotConfiguration());
    const e = restoreError(() => readSnapshot(bytes, { registry: { "esfix.Order": without } }).restoreSerializer());
    expect(e.code).toBe("RESTORE_GENERATED_TYPE_INCOMPATIBLE");
    expect(e.message).toMatch(/ \(FIELD_RESERVATION_REMOVED at esfix\.Order\); register the generated code of a compatible schema$/);
    const current = ProtobufType.newGeneratedBuilder(without).build().createSerializer().snapshotConfiguration();
    const r = current.resolveSchemaCompatibility(readSnapshot(bytes));
    expect([r.kind, r.kind === "incompatible" ? r.incompatibilities.map((f) => `${f.rule} at ${f.path}`) : []]).toEqual(["incompatible", ["FIELD_RESERVATION_REMOVED at esfix.Order"]]);
  });

  test("a generated type name that is not the root full name is a SnapshotFormatError at its offset", () => {
    const at = 4 + 1 + 2 + GEN.length + 4 + 2 + 13;
    const body = genBytes.slice(0, genBytes.length - 4);
    body[at + 2 + 10] = "x".charCodeAt(0); // esfix.Order → esfix.Ordex
    const e = snapshotError(withCheck(body));
    expect(e.code).toBe("SNAPSHOT_GENERATED_NAME_MISMATCH");
    expect(e.message).toBe(
      `invalid snapshot of esfix.Order at byte ${at}: the generated type name esfix.Ordex is not the root full name esfix.Order; the snapshot was corrupted or modified; restore it from an intact copy`,
    );
  });

  test("every truncation is a SnapshotFormatError", () => {
    for (let n = 0; n < genBytes.length; n++) expect(() => readSnapshot(genBytes.subarray(0, n))).toThrow(SnapshotFormatError);
  });

  test("a flipped bit is a SnapshotFormatError", () => {
    const bad = genBytes.slice();
    bad[bad.length - 40]! ^= 1;
    expect(() => readSnapshot(bad, { registry: createRegistry(OrderSchema) })).toThrow(SnapshotFormatError);
  });

  test("generated against generated: by the evaluator and settings rules, no registry needed", () => {
    const saved = readSnapshot(genBytes);
    expect(genSer.snapshotConfiguration().resolveSchemaCompatibility(saved)).toEqual({ kind: "compatibleAsIs" });
    const lower = ProtobufType.newGeneratedBuilder(OrderSchema).maxDepth(10).build().createSerializer().snapshotConfiguration();
    const r = lower.resolveSchemaCompatibility(saved);
    expect(r.kind).toBe("incompatible");
    expect(r.kind === "incompatible" && r.incompatibilities.map((f) => f.rule)).toEqual(["MAX_DEPTH_LOWERED"]);
  });
});

describe("cross-kind rules: incompatible in all four directions, even for the same schema", () => {
  const registry = createRegistry(OrderSchema);
  const expectKindChanged = (r: unknown, saved: string, current: string) =>
    expect(r).toEqual({ kind: "incompatible", reason: `incompatible: ${KIND_REASON(saved, current)}`, incompatibilities: [{ rule: "SNAPSHOT_KIND_CHANGED", path: "esfix.Order", message: KIND_REASON(saved, current) }] });

  test("1. saved generated (type present in the registry), current dynamic: incompatible at resolution", () => {
    const saved = readSnapshot(genBytes, { registry });
    expect(() => saved.restoreSerializer()).not.toThrow();
    expectKindChanged(dynSer.snapshotConfiguration().resolveSchemaCompatibility(saved), GEN, DYN);
  });

  test("2. saved generated, type no longer in the application: restore fails with the registry error; resolution against dynamic is still incompatible", () => {
    const saved = readSnapshot(genBytes);
    expect(restoreError(() => saved.restoreSerializer()).code).toBe("RESTORE_GENERATED_TYPE_MISSING");
    expectKindChanged(dynSer.snapshotConfiguration().resolveSchemaCompatibility(saved), GEN, DYN);
  });

  test("3. saved dynamic, current generated: incompatible", () => {
    const saved = readSnapshot(dynBytes);
    expect(saved).toBeInstanceOf(ProtobufDynamicSerializerSnapshot);
    expectKindChanged(genSer.snapshotConfiguration().resolveSchemaCompatibility(saved), DYN, GEN);
  });

  test("4. saved dynamic read with a registry, current generated restored from a snapshot: incompatible", () => {
    const saved = readSnapshot(dynBytes, { registry });
    const current = readSnapshot(genBytes, { registry });
    expectKindChanged(current.resolveSchemaCompatibility(saved), DYN, GEN);
    // and the data itself: a dynamic serializer's bytes read as generated values only by choice
    expect(fromBinary(OrderSchema, dynSer.toBinary(dynSer.fromBinary(toBinary(OrderSchema, value))))).toEqual(value);
  });
});
