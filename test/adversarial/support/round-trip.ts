// Checks shared by the adversarial tests: a type survives its two persisted forms, and damaged
// bytes are produced the same way for both forms.
import { expect } from "vitest";
import { ProtobufType, readSnapshot, writeSnapshot } from "../../../src/index.js";
import { messageOf, wideOneof } from "../../../stress/schemas.mjs";
import { crc32cReference } from "../../support/snapshot-bytes.js";

/** A small type (a oneof, an int64) with every setting away from its default. */
export function smallTunedType(): ProtobufType {
  return ProtobufType.newBuilder(messageOf(wideOneof(4), "s.Wide"))
    .maxMessageBytes(4096)
    .maxDepth(7)
    .deterministic(true)
    .aliasThreshold(512)
    .build();
}

/** `type` comes back equal from its transfer form and from a snapshot of its serializer. */
export function expectRoundTrips(type: ProtobufType, { snapshot = true } = {}): void {
  expect(ProtobufType.fromBytes(type.toBytes()).equals(type)).toBe(true);
  if (!snapshot) return;
  const bytes = writeSnapshot(type.createSerializer().snapshotConfiguration());
  const restored = readSnapshot(bytes);
  expect(restored.restoreSerializer().type.equals(type)).toBe(true);
  // Buffer.equals: vitest's toEqual walks a megabyte array element by element for seconds.
  expect(Buffer.from(writeSnapshot(restored)).equals(bytes)).toBe(true);
}

const hex = (v: number): string => `0x${v.toString(16).padStart(8, "0")}`;

/** Where the check of `bytes` is, what it records and what the bytes before it give, in hex. */
export function checkOf(bytes: Uint8Array): { at: number; recorded: string; computed: string } {
  const at = bytes.length - 4;
  return {
    at,
    recorded: hex(new DataView(bytes.buffer, bytes.byteOffset).getUint32(at)),
    computed: hex(crc32cReference(bytes.subarray(0, at))),
  };
}

/** Every single-bit flip of `bytes`: the byte, the bit and the flipped copy. */
export function* everyFlip(bytes: Uint8Array): Generator<{ i: number; bit: number; flipped: Uint8Array }> {
  for (let i = 0; i < bytes.length; i++) {
    for (let bit = 0; bit < 8; bit++) {
      const flipped = bytes.slice();
      flipped[i]! ^= 1 << bit;
      yield { i, bit, flipped };
    }
  }
}

/** `count` seeded single-bit flips of `bytes` after its first `from` bytes. */
export function* randomFlips(bytes: Uint8Array, count: number, from: number, seed: number): Generator<{ i: number; flipped: Uint8Array }> {
  const next = (): number => (seed = (seed * 1103515245 + 12345) >>> 0);
  for (let k = 0; k < count; k++) {
    const flipped = bytes.slice();
    const i = from + (next() % (bytes.length - from));
    flipped[i]! ^= 1 << next() % 8;
    yield { i, flipped };
  }
}

/** Tails to append to a valid form: one byte, eight, its own check, a second copy. */
export function tails(valid: Uint8Array): Array<[string, number[]]> {
  return [
    ["one zero byte", [0]],
    ["eight 0xff bytes", new Array(8).fill(0xff)],
    ["the check again", [...valid.subarray(valid.length - 4)]],
    ["a second copy", [...valid]],
  ];
}
