// snapshot.restoreSerializer(): the saved schema and settings, rebuilt from the snapshot alone.
import { describe, expect, test } from "vitest";
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema, type FileDescriptorSet } from "@bufbuild/protobuf/wkt";
import { ProtobufType, RestoreError, readSnapshot, writeSnapshot } from "../src/index.js";
import type { ProtobufDynamicSerializerSnapshot } from "../src/index.js";
import { compileProtoDir, messageFromDir } from "./support/buf.js";
import { assemble, defaultFields } from "./support/snapshot-bytes.js";

const ORDER = messageFromDir("fixtures/snapshot/v1", "acme.Order");
const TYPE = ProtobufType.newBuilder(ORDER).maxMessageBytes(1 << 20).maxDepth(12).deterministic(true).aliasThreshold(64).build();
const SET = TYPE.normalizedDescriptorSet();

const snapshotOf = (type: ProtobufType) => type.createSerializer().snapshotConfiguration();

function read(bytes: Uint8Array): ProtobufDynamicSerializerSnapshot {
  return readSnapshot(bytes) as ProtobufDynamicSerializerSnapshot;
}

/** The normalized set of v1 with one edit, in a snapshot whose fingerprint matches. */
function tampered(edit: (set: FileDescriptorSet) => void): Uint8Array {
  const set = fromBinary(FileDescriptorSetSchema, SET);
  edit(set);
  return assemble(defaultFields("acme.Order", toBinary(FileDescriptorSetSchema, set)));
}

function orderOf(set: FileDescriptorSet) {
  for (const f of set.file) for (const m of f.messageType) if (m.name === "Order") return { file: f, message: m };
  throw new Error("no acme.Order");
}

function restoreError(bytes: Uint8Array): RestoreError {
  const snap = read(bytes);
  try {
    snap.restoreSerializer();
  } catch (e) {
    if (e instanceof RestoreError) return e;
    throw e;
  }
  throw new Error("restore succeeded");
}

describe("snapshot restore", () => {
  test("a snapshot of a type restores an equal type with new descriptor instances and the saved settings", () => {
    const bytes = writeSnapshot(snapshotOf(TYPE));
    const restored = read(bytes).restoreSerializer().type;
    expect(restored.equals(TYPE)).toBe(true);
    expect(restored.descriptor).not.toBe(ORDER);
    expect(restored.descriptor.typeName).toBe("acme.Order");
    expect(restored.descriptor.fields.map((f) => f.name)).toEqual(["id", "items", "note"]);
    expect(restored.settings).toEqual({ maxMessageBytes: 1 << 20, maxDepth: 12, deterministic: true, aliasThreshold: 64 });
  });

  test("restoring and re-snapshotting gives identical bytes", () => {
    const bytes = writeSnapshot(snapshotOf(TYPE));
    const again = writeSnapshot(read(bytes).restoreSerializer().snapshotConfiguration());
    expect(again).toEqual(bytes);
    expect(writeSnapshot(read(bytes))).toEqual(bytes);
  });

  test("the snapshot records the type's identity", () => {
    const snap = snapshotOf(TYPE);
    expect(snap.fullName).toBe(TYPE.fullName);
    expect(snap.fingerprint).toBe(TYPE.fingerprint());
    expect(snap.settings).toEqual(TYPE.settings);
    expect(snap.normalizedDescriptorSet()).toEqual(SET);
  });

  test("each restore gives a new serializer over the same restored type", () => {
    const snap = read(writeSnapshot(snapshotOf(TYPE)));
    const a = snap.restoreSerializer();
    const b = snap.restoreSerializer();
    expect(a).not.toBe(b);
    expect(a.type).toBe(b.type);
    expect(a.equals(b)).toBe(true);
    expect(a.equals(TYPE.createSerializer())).toBe(true);
  });

  test.each<[string, (set: FileDescriptorSet) => void, string, string]>([
    [
      "a proto2 file",
      (set) => {
        orderOf(set).file.syntax = "proto2";
      },
      "SYNTAX_NOT_PROTO3",
      "acme.Order",
    ],
    [
      "a field number above 536870911",
      (set) => {
        orderOf(set).message.field[0]!.number = 536_870_912;
      },
      "FIELD_NUMBER_TOO_LARGE",
      "acme.Order.id",
    ],
    [
      "a field in the range protobuf reserves",
      (set) => {
        orderOf(set).message.field[2]!.number = 19_000;
      },
      "FIELD_NUMBER_RESERVED",
      "acme.Order.note",
    ],
    [
      "a field type that does not resolve",
      (set) => {
        orderOf(set).message.field[1]!.typeName = ".acme.Nope";
      },
      "REBUILD_FAILED",
      "acme.Order",
    ],
    [
      "a set out of normalized order",
      (set) => {
        orderOf(set).message.field.reverse();
      },
      "RESTORE_NOT_NORMALIZED",
      "acme.Order",
    ],
  ])("%s → RestoreError %s", (_name, edit, code, names) => {
    const e = restoreError(tampered(edit));
    expect(e.name).toBe("RestoreError");
    expect(e.code).toBe(code);
    expect(e.message).toMatch(/^cannot restore the serializer of acme\.Order from its snapshot: /);
    expect(e.message).toContain(names);
  });

  test("a set that is not normalized (as buf writes it) does not restore", () => {
    const bytes = assemble(defaultFields("acme.Order", compileProtoDir("fixtures/snapshot/v1")));
    expect(restoreError(bytes).message).toBe(
      "cannot restore the serializer of acme.Order from its snapshot: the saved descriptor set is not in normalization version 1 form, so the restored schema would not be the saved one; restore from bytes written by writeSnapshot",
    );
  });

  test("a payload-rule failure names the rule and keeps the cause", () => {
    const e = restoreError(
      tampered((set) => {
        orderOf(set).message.field[0]!.number = 536_870_912;
      }),
    );
    expect(e.cause).toMatchObject({ name: "InvalidDescriptorError", code: "FIELD_NUMBER_TOO_LARGE" });
    expect(e.message).toContain("536870912");
  });
});
