// Inputs held as Node Buffers that the caller overwrites after the call returns (a pooled read
// buffer, a reused scratch): what protokeel keeps must be its own copy. A Buffer's slice() is a
// view of the same memory, not a copy, so every "copy" taken with slice() kept the caller's
// memory: a snapshot read from a Buffer restored whatever schema the buffer held later.
import { describe, expect, test } from "vitest";
import { ProtobufType, readSnapshot, writeSnapshot, type ProtobufDynamicSerializerSnapshot } from "../src/index.js";
import { compileProtoText } from "./support/buf.js";

const SET_A = compileProtoText({ "r.proto": 'syntax = "proto3"; package r; message M { int32 aa = 1; string bb = 2; }' });
const SET_B = compileProtoText({ "r.proto": 'syntax = "proto3"; package r; message M { int64 aa = 1; bytes bb = 2; }' });
const typeA = ProtobufType.of({ fileDescriptorSet: SET_A, messageName: "r.M" });
const typeB = ProtobufType.of({ fileDescriptorSet: SET_B, messageName: "r.M" });
const shape = (t: ProtobufType) => t.descriptor.fields.map((f) => `${f.name}:${f.fieldKind}:${f.scalar}`).join(",");

/** `bytes` in a Node Buffer carved out of a larger one, as a pooled read gives it. */
function pooled(bytes: Uint8Array): Buffer {
  const pool = Buffer.alloc(bytes.length + 64);
  pool.set(bytes, 32);
  return pool.subarray(32, 32 + bytes.length);
}

describe("a snapshot read from a Buffer the caller then overwrites", () => {
  const snapA = writeSnapshot(typeA.createSerializer().snapshotConfiguration());
  const snapB = writeSnapshot(typeB.createSerializer().snapshotConfiguration());

  test.each([
    ["with another snapshot of the same length", true],
    ["with zeros", false],
  ])("%s: it restores the schema it was read with", (_, other) => {
    expect(snapA.length).toBe(snapB.length);
    const buf = pooled(snapA);
    const snap = readSnapshot(buf) as ProtobufDynamicSerializerSnapshot;
    const set = snap.normalizedDescriptorSet();
    if (other) buf.set(snapB);
    else buf.fill(0);
    expect(snap.normalizedDescriptorSet()).toEqual(set);
    expect(shape((snap.restoreSerializer() as unknown as { type: ProtobufType }).type)).toBe(shape(typeA));
    expect(writeSnapshot(snap)).toEqual(snapA);
  });
});

describe("a descriptor set passed as a Buffer the caller then overwrites", () => {
  test("a later call with the original bytes gets the original schema", () => {
    expect(SET_A.length).toBe(SET_B.length);
    const buf = pooled(SET_A);
    expect(shape(ProtobufType.of({ fileDescriptorSet: buf, messageName: "r.M" }))).toBe(shape(typeA));
    buf.set(SET_B);
    expect(shape(ProtobufType.of({ fileDescriptorSet: buf, messageName: "r.M" }))).toBe(shape(typeB));
    expect(shape(ProtobufType.of({ fileDescriptorSet: SET_A.slice(), messageName: "r.M" }))).toBe(shape(typeA));
    expect(shape(ProtobufType.of({ fileDescriptorSet: SET_B.slice(), messageName: "r.M" }))).toBe(shape(typeB));
  });
});
