// The tape reader (src/codec/reader.ts) records on each closed singular sub-message which oneof
// members it set, so that a later occurrence of its field (a merge) clears the member set before
// when another comes (DynamicMessage #merge). For a type with two or more oneofs that record is
// an array, which the read drops when it ends: kept, every decoded value of such a type held an
// Int32Array of its own (found by a helper's attack pass: 279 -> 503 bytes of heap per small
// sub-message pair, against 279 before the record moved onto the values). What must hold: values
// of a type with two oneofs keep no more heap than values of the same shape without oneofs, and
// merges still clear the member set before (the merge suites; one case here).
import { describe, expect, test } from "vitest";
import { retainedBy } from "./support/heap.js";
import { typeOf } from "./adversarial/support.js";

const SHAPES = {
  twoOneofs: "message C { oneof p { int32 p1 = 1; } oneof q { int32 q1 = 3; } } message W { C c = 1; } message Outer { repeated W w = 1; }",
  noOneof: "message C { int32 p1 = 1; int32 q1 = 3; } message W { C c = 1; } message Outer { repeated W w = 1; }",
};
const W = [0x0a, 6, 0x0a, 4, 0x08, 1, 0x18, 1]; // W { c { p1: 1, q1: 1 } }
const PER_FRAME = 100; // 800-byte frames: read by the core's tape, not the small reader
const FRAMES = 2000;

/** Frames of Outer with PER_FRAME W each. */
function batch(): Uint8Array {
  const body: number[] = [];
  for (let i = 0; i < PER_FRAME; i++) body.push(...W);
  const frame = [(body.length & 0x7f) | 0x80, body.length >>> 7, ...body];
  const out = new Uint8Array(frame.length * FRAMES);
  for (let i = 0; i < FRAMES; i++) out.set(frame, i * frame.length);
  return out;
}

describe("decoded values keep no oneof record of the read", () => {
  test("values of a type with two oneofs hold what values without oneofs hold", () => {
    const input = batch();
    const perPair = (shape: string): number => {
      const ser = typeOf(shape, "Outer", (b) => b.maxMessageBytes(1 << 20)).createSerializer();
      const { value, bytes } = retainedBy(() => ser.decodeAll(input));
      expect(value.length).toBe(FRAMES);
      return bytes / (FRAMES * PER_FRAME);
    };
    const a = perPair(SHAPES.twoOneofs);
    const b = perPair(SHAPES.noOneof);
    // an Int32Array per value would add ~200 bytes
    expect(a - b).toBeLessThan(32);
  });

  test("a merge in a later occurrence still replaces the member of each oneof", () => {
    const ser = typeOf("message C { oneof p { int32 p1 = 1; int32 p2 = 2; } oneof q { int32 q1 = 3; int32 q2 = 4; } } message W { C c = 1; } message Outer { repeated W w = 1; }", "W").createSerializer();
    // c { p1: 1 q1: 1 } then c { p2: 2 }, padded past the small reader's threshold by W's own merges
    const first = [0x0a, 4, 0x08, 1, 0x18, 1];
    const later = [0x0a, 2, 0x10, 2];
    const input = Uint8Array.from([...first, ...Array.from({ length: 70 }, () => later).flat()]);
    expect(input.length).toBeGreaterThan(256);
    const c = ser.fromBinary(input).get("c") as { get(n: string): unknown; has(n: string): boolean };
    expect([c.has("p1"), c.get("p2"), c.get("q1"), c.has("q2")]).toEqual([false, 2, 1, false]);
  });
});
