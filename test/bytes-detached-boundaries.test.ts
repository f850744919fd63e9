// The boundaries that take bytes outside the codec's read methods (a transfer form, a descriptor
// set, a snapshot, unknown fields, a store key) with a Uint8Array that cannot be read: detached
// (postMessage(b, [b.buffer]) or a pool call with transfer: true, then the same array passed on)
// or a Proxy of one. Each reached the engine's DataView or copy code, whose TypeError ("Cannot
// perform DataView constructor on a detached ArrayBuffer") escaped the typed errors; a detached
// store key read as the empty key and overwrote that key's value in the memory backend.
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { CodecError, DynamicMessage, FrameReader, InvalidDescriptorError, InvalidObjectError, ProtobufType, readSnapshot, writeSnapshot } from "../src/index.js";
import { readRegistryHeader, writeRegistryHeader } from "../src/registry/index.js";
import { LmdbStore, MemoryStore, StateStoreError } from "../src/store/index.js";
import { pbjsType } from "./adversarial/support.js";
import { reading, scratch, specsOf, V1 } from "./support/store.js";
import { poolOf } from "./support/pool.js";
import { rejection, thrown } from "./support/thrown.js";

const type = ProtobufType.of(pbjsType("message M { int32 n = 1; }", "M"));
const ser = type.createSerializer();

function detached(bytes: Uint8Array): Uint8Array {
  const b = bytes.slice();
  structuredClone(b.buffer, { transfer: [b.buffer] });
  return b;
}
const DETACHED = "a detached Uint8Array (its buffer was transferred, or a resizable buffer shrank below it)";
const PROXY = "an object that passes instanceof Uint8Array but is not one (a Proxy?)";
/** A view past the end of a resizable buffer that shrank: length 0, its buffer not detached. */
function shrunk(bytes: Uint8Array): Uint8Array {
  const rab = new (ArrayBuffer as unknown as new (n: number, o: { maxByteLength: number }) => ArrayBuffer & { resize(n: number): void })(bytes.length + 8, { maxByteLength: bytes.length + 8 });
  const v = new Uint8Array(rab, 8, bytes.length);
  v.set(bytes);
  rab.resize(4);
  return v;
}
const KINDS: [string, (b: Uint8Array) => Uint8Array, string][] = [
  ["detached", detached, DETACHED],
  ["a view of a shrunk resizable buffer", shrunk, DETACHED],
  ["a Proxy", (b) => new Proxy(b.slice(), {}), PROXY],
];
const UNREADABLE = KINDS.filter(([kind]) => kind !== "a Proxy");

test.each(KINDS)("ProtobufType.fromBytes of %s: TRANSFER_NOT_BYTES", (_kind, make, got) => {
  const e = thrown(() => ProtobufType.fromBytes(make(type.toBytes())));
  expect(e).toBeInstanceOf(InvalidObjectError);
  expect(e).toMatchObject({
    code: "TRANSFER_NOT_BYTES",
    message: `invalid type bytes: expected a Uint8Array, got ${got}; pass the exact output of ProtobufType.toBytes()`,
  });
});

test.each(KINDS)("ProtobufType.of({ fileDescriptorSet }) of %s: UNSUPPORTED_INPUT", (_kind, make, got) => {
  const e = thrown(() => ProtobufType.of({ fileDescriptorSet: make(type.normalizedDescriptorSet()), messageName: "M" }));
  expect(e).toBeInstanceOf(InvalidDescriptorError);
  expect(e).toMatchObject({ code: "UNSUPPORTED_INPUT" });
  expect((e as Error).message).toContain(`fileDescriptorSet must be a Uint8Array holding an encoded google.protobuf.FileDescriptorSet, got ${got}`);
});

test.each(KINDS)("readSnapshot of %s: a TypeError that says what it got", (_kind, make, got) => {
  const e = thrown(() => readSnapshot(make(writeSnapshot(type.createSerializer().snapshotConfiguration()))));
  expect(e).toEqual(new TypeError(`readSnapshot expects the Uint8Array writeSnapshot returned, got ${got}`));
});

test.each(UNREADABLE)("setUnknownFields with an occurrence %s: a TypeError that names the field", (_kind, make) => {
  const b = DynamicMessage.create(type.descriptor, { n: 1 }).toBuilder();
  const e = thrown(() => b.setUnknownFields(new Map([[9, [make(Uint8Array.of(0x48, 1))]]])));
  expect(e).toBeInstanceOf(TypeError);
  expect((e as Error).message.endsWith(`expect an array of Uint8Array for field 9, got ${DETACHED}`)).toBe(true);
});

// A shrunk view read as empty, where a detached one was refused (isDetached asked the buffer).
test.each<[string, (b: Uint8Array) => unknown]>([
  ["fromBinary", (b) => ser.fromBinary(b)],
  ["decodeAll", (b) => ser.decodeAll(b)],
  ["validateAll", (b) => ser.validateAll(b)],
  ["the generated kind's fromBinary", (b) => ProtobufType.ofGenerated(type.descriptor).createSerializer().fromBinary(b)],
  ["new FrameReader", (b) => new FrameReader(b)],
])("%s of a view of a shrunk resizable buffer: NOT_BYTES", (_read, read) => {
  const e = thrown(() => read(shrunk(ser.encodeAll([{ n: 1 }]))));
  expect(e).toBeInstanceOf(CodecError);
  expect((e as CodecError).code).toBe("NOT_BYTES");
});

test("a stream chunk that is a view of a shrunk resizable buffer: NOT_BYTES", async () => {
  const e = await rejection(async () => {
    for await (const _ of ser.decodeStream([shrunk(ser.encodeAll([{ n: 1 }]))])) void _;
  });
  expect(e).toMatchObject({ code: "NOT_BYTES" });
});

test.each(KINDS)("readRegistryHeader of %s: NOT_BYTES", (_kind, make, got) => {
  const e = thrown(() => readRegistryHeader(make(writeRegistryHeader(7))));
  expect(e).toBeInstanceOf(CodecError);
  expect(e).toMatchObject({ code: "NOT_BYTES", message: `schema registry header: expected a Uint8Array, got ${got}; pass the record's value bytes` });
});

describe("the pool", () => {
  const pool = poolOf({ type, size: 1 });
  afterAll(() => pool.close());
  test.each(KINDS)("decode and validate of %s: NOT_BYTES, as on one thread", async (_kind, make) => {
    for (const call of [() => pool.decode(make(ser.encodeAll([{ n: 1 }]))), () => pool.validate([make(ser.toBinary({ n: 1 }))])]) {
      const e = await rejection(call);
      expect(e).toBeInstanceOf(CodecError);
      expect((e as CodecError).code).toBe("NOT_BYTES");
    }
  });
});

test.each(["memory", "lmdb"].flatMap((backend) => UNREADABLE.map(([kind, make]) => [backend, kind, make] as const)))("the %s backend refuses a key that is %s (STATE_KEY_INVALID) and keeps the empty key's value", async (backend, kind, unreadable) => {
  const specs = specsOf(V1);
  const store = backend === "memory" ? MemoryStore.create(specs) : await LmdbStore.open(join(scratch(`bytes-unreadable-keys-${UNREADABLE.findIndex(([k]) => k === kind)}`), "db"), specs, { noSync: true });
  const state = store.state("current");
  await state.put(new Uint8Array(0), reading(V1, 1));
  for (const use of [async () => state.put(unreadable(Uint8Array.of(1, 2, 3)), reading(V1, 2)), async () => state.get(unreadable(Uint8Array.of(1)))]) {
    const e = await rejection(use);
    expect(e).toBeInstanceOf(StateStoreError);
    expect(e).toMatchObject({
      code: "STATE_KEY_INVALID",
      message: `state "current": a key must be a string or a Uint8Array, got ${DETACHED}; pass a key that is not transferred, or a copy made before the transfer`,
    });
  }
  expect(state.get(new Uint8Array(0))?.get("id")).toBe(1n);
  if (store instanceof LmdbStore) await store.close();
});
