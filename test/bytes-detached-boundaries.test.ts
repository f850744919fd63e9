// The boundaries that take bytes outside the codec's read methods (a transfer form, a descriptor
// set, a snapshot, unknown fields, a store key) with a Uint8Array that cannot be read: detached
// (postMessage(b, [b.buffer]) or a pool call with transfer: true, then the same array passed on)
// or a Proxy of one. Each reached the engine's DataView or copy code, whose TypeError ("Cannot
// perform DataView constructor on a detached ArrayBuffer") escaped the typed errors; a detached
// store key read as the empty key and overwrote that key's value in the memory backend.
import { join } from "node:path";
import { expect, test } from "vitest";
import { DynamicMessage, InvalidDescriptorError, InvalidObjectError, ProtobufType, readSnapshot, writeSnapshot } from "../src/index.js";
import { LmdbStore, MemoryStore, StateStoreError } from "../src/store/index.js";
import { pbjsType } from "./adversarial/support.js";
import { reading, scratch, specsOf, V1 } from "./support/store.js";
import { thrown } from "./support/thrown.js";

const type = ProtobufType.of(pbjsType("message M { int32 n = 1; }", "M"));

function detached(bytes: Uint8Array): Uint8Array {
  const b = bytes.slice();
  structuredClone(b.buffer, { transfer: [b.buffer] });
  return b;
}
const DETACHED = "a detached Uint8Array (its buffer was transferred)";
const PROXY = "an object that passes instanceof Uint8Array but is not one (a Proxy?)";
const KINDS: [string, (b: Uint8Array) => Uint8Array, string][] = [
  ["detached", detached, DETACHED],
  ["a Proxy", (b) => new Proxy(b.slice(), {}), PROXY],
];

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

test("setUnknownFields with a detached occurrence: a TypeError that names the field", () => {
  const b = DynamicMessage.create(type.descriptor, { n: 1 }).toBuilder();
  const e = thrown(() => b.setUnknownFields(new Map([[9, [detached(Uint8Array.of(0x48, 1))]]])));
  expect(e).toBeInstanceOf(TypeError);
  expect((e as Error).message).toMatch(/expect an array of Uint8Array for field 9, got a detached Uint8Array \(its buffer was transferred\)$/);
});

test.each(["memory", "lmdb"])("the %s backend refuses a detached key (STATE_KEY_INVALID) and keeps the empty key's value", async (backend) => {
  const specs = specsOf(V1);
  const store = backend === "memory" ? MemoryStore.create(specs) : await LmdbStore.open(join(scratch("bytes-detached-keys"), "db"), specs, { noSync: true });
  const state = store.state("current");
  await state.put(new Uint8Array(0), reading(V1, 1));
  for (const use of [() => state.put(detached(Uint8Array.of(1, 2, 3)), reading(V1, 2)), () => state.get(detached(Uint8Array.of(1)))]) {
    let e: unknown;
    try {
      await use();
    } catch (x) {
      e = x;
    }
    expect(e).toBeInstanceOf(StateStoreError);
    expect(e).toMatchObject({
      code: "STATE_KEY_INVALID",
      message: `state "current": a key must be a string or a Uint8Array, got ${DETACHED}; pass a key that is not transferred, or a copy made before the transfer`,
    });
  }
  expect(state.get(new Uint8Array(0))?.get("id")).toBe(1n);
  if (store instanceof LmdbStore) await store.close();
});
