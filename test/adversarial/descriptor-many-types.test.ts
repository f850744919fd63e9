// A root that reaches 10,000 top-level types (hardening, descriptors item 1). File grouping once
// re-sorted its ready list per step: 14 s to restore such a snapshot. Correctness at this size,
// never time: the machine is shared.
import { describe, expect, test } from "vitest";
import protobuf from "protobufjs";
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { ProtobufType, evaluateSchemaChange } from "../../src/index.js";
import { bytesOf, manyTypes, messageOf, tree, treeJson } from "../../stress/schemas.mjs";
import { expectRoundTrips } from "./support/round-trip.js";

const N = 10_000;
const saved = messageOf(manyTypes(N), "s.Root");
const type = ProtobufType.of(saved);

function filesOf(t: ProtobufType) {
  return fromBinary(FileDescriptorSetSchema, t.normalizedDescriptorSet()).file;
}

/** `names` sorted in code-unit order, the order of normalized files and dependencies. */
const sorted = (names: string[]): string[] => [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

describe("10,000 top-level types", () => {
  test("normalize into one file per type, in dependency order with ties by name", () => {
    const files = filesOf(type);
    const typeFiles = Array.from({ length: N }, (_, i) => `s.M${i}.proto`);
    expect(files.map((f) => f.name)).toEqual([...sorted(typeFiles), "s.Root.proto"]);
    expect(files.slice(0, 3).map((f) => f.name)).toEqual(["s.M0.proto", "s.M1.proto", "s.M10.proto"]);
    const root = files[N]!;
    expect(root.dependency).toEqual(sorted(typeFiles));
    expect(root.messageType[0]!.field.length).toBe(N);
    expect(files.slice(0, N).every((f) => f.dependency.length === 0 && f.messageType.length === 1)).toBe(true);
  });

  test("the transfer form and a snapshot restore an equal type", () => {
    expectRoundTrips(type);
  });

  test("the normalized set, listed root file first, builds the same type", () => {
    const set = fromBinary(FileDescriptorSetSchema, type.normalizedDescriptorSet());
    set.file.reverse();
    const again = ProtobufType.of({ fileDescriptorSet: toBinary(FileDescriptorSetSchema, set), messageName: "s.Root" });
    expect(again.equals(type)).toBe(true);
  });

  test("evaluate: every pair compared, int32 widened to int64 is compatible", () => {
    expect(evaluateSchemaChange(saved, messageOf(manyTypes(N, "current"), "s.Root"))).toEqual({
      compatible: true,
      incompatibilities: [],
      notes: [],
    });
  });

  test("a rule broken by the last type fails exactly, again on a second call, and other types still build", () => {
    const set = manyTypes(N);
    set.file[0]!.messageType[N]!.field[0]!.number = 0; // s.M9999.v
    const broken = messageOf(set, "s.Root");
    const expected = expect.objectContaining({
      name: "InvalidDescriptorError",
      code: "FIELD_NUMBER_TOO_SMALL",
      message: "invalid descriptor s.Root: field s.M9999.v has number 0 below 1; use a number in 1..536870911",
    });
    expect(() => ProtobufType.of(broken)).toThrow(expected);
    expect(() => ProtobufType.of(broken)).toThrow(expected);
    expect(() => evaluateSchemaChange(saved, broken)).toThrow(expected);
    expect(ProtobufType.of(saved).equals(type)).toBe(true);
  });

  test("a protobufjs tree of 10,000 types lowers to the same type as the FileDescriptorSet", () => {
    const fromPbjs = ProtobufType.of(protobuf.Root.fromJSON(treeJson(N)).lookupType("s.T0"));
    const fromSet = ProtobufType.of({ fileDescriptorSet: bytesOf(tree(N)), messageName: "s.T0" });
    expect(fromPbjs.equals(fromSet)).toBe(true);
    expect(fromPbjs.fingerprint()).toBe(fromSet.fingerprint());
    expect(filesOf(fromPbjs).length).toBe(N);
  });
});
