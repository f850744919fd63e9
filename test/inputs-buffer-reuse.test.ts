// Inputs held as Node Buffers that the caller overwrites after the call returns (a pooled read
// buffer, a reused scratch): what protokeel keeps must be its own copy. A Buffer's slice() is a
// view of the same memory, not a copy, so every "copy" taken with slice() kept the caller's
// memory: a snapshot read from a Buffer restored whatever schema the buffer held later. And
// what is read after the call returns must have been copied at the call: a registry record read
// after an await, a pool's queued chunk cloned when a worker takes it.
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema, UninterpretedOptionSchema } from "@bufbuild/protobuf/wkt";
import { afterAll, describe, expect, test } from "vitest";
import { DynamicMessage, ProtobufType, readSnapshot, writeSnapshot, type ProtobufDynamicSerializerSnapshot } from "../src/index.js";
import { MemoryRegistryClient, RegistryDeserializer, RegistrySerializer } from "../src/registry/index.js";
import { compileProtoText } from "./support/buf.js";
import { poolOf } from "./support/pool.js";

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

describe("descriptor objects of a set passed as a Buffer the caller then overwrites", () => {
  // An option the compiler left uninterpreted: its string_value is a bytes field of the set.
  const set = fromBinary(FileDescriptorSetSchema, SET_A);
  const opt = create(UninterpretedOptionSchema, { name: [{ namePart: "my_opt", isExtension: true }], stringValue: new TextEncoder().encode("original") });
  set.file[0]!.options = { $typeName: "google.protobuf.FileOptions", uninterpretedOption: [opt] } as never;
  const bytes = toBinary(FileDescriptorSetSchema, set);
  const optionText = (t: ProtobufType) => new TextDecoder().decode(t.descriptor.file.proto.options!.uninterpretedOption[0]!.stringValue);

  test("keep the bytes they were parsed from, for this call and for later calls the cache serves", () => {
    const buf = pooled(bytes);
    const t = ProtobufType.of({ fileDescriptorSet: buf, messageName: "r.M" });
    expect(optionText(t)).toBe("original");
    buf.fill(0x41);
    expect(optionText(t)).toBe("original");
    expect(optionText(ProtobufType.of({ fileDescriptorSet: bytes.slice(), messageName: "r.M" }))).toBe("original");
  });
});

describe("RegistryDeserializer.deserialize of a Buffer the caller overwrites once the call returns", () => {
  test("reads the record it was given, with a known schema id and with one to look up", async () => {
    for (const warm of [true, false]) {
      const client = new MemoryRegistryClient();
      const ser = new RegistrySerializer(typeA, { client });
      const des = new RegistryDeserializer(typeA, { client });
      const a = await ser.serialize("orders", DynamicMessage.create(typeA.descriptor, { aa: 1, bb: "record-A" }));
      const b = await ser.serialize("orders", DynamicMessage.create(typeA.descriptor, { aa: 2, bb: "record-B" }));
      expect(a.length).toBe(b.length);
      if (warm) await des.deserialize("orders", a);
      const buf = pooled(a);
      const pending = des.deserialize("orders", buf);
      buf.set(b);
      const v = await pending;
      expect([v.get("aa"), v.get("bb")]).toEqual([1, "record-A"]);
    }
  });
});

describe("pool.encode of init objects whose bytes the caller overwrites once the call returns", () => {
  const P = compileProtoText({ "p.proto": 'syntax = "proto3"; package p; message M { bytes data = 1; string name = 2; }' });
  const type = ProtobufType.of({ fileDescriptorSet: P, messageName: "p.M" });
  const ser = type.createSerializer();
  const pool = poolOf({ type, size: 1 });
  afterAll(() => pool.close());

  test("a chunk queued behind a busy worker writes the values as they were at the call", async () => {
    // The one worker busy with a batch, so that the encode's chunk waits in the queue.
    const busy = pool.decode(ser.encodeAll(Array.from({ length: 20000 }, (_, i) => ({ name: `n${i}`, data: new Uint8Array(50) }))));
    const mem = Buffer.alloc(96);
    mem.fill(7, 32, 64);
    const init = { data: mem.subarray(32, 64), name: "kept" };
    const pending = pool.encode([init], { form: "bare" });
    mem.fill(0);
    init.name = "changed";
    const [out] = await pending;
    await busy;
    const v = ser.fromBinary(out!);
    expect([...(v.get("data") as Uint8Array)]).toEqual(new Array(32).fill(7));
    expect(v.get("name")).toBe("kept");
  });
});
