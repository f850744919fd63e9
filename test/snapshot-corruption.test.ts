// Every damaged snapshot must end in SnapshotFormatError (or RestoreError on restore), or read as
// a valid snapshot; never in another exception, a hang or an oversized allocation.
import { describe, expect, test } from "vitest";
import fc from "fast-check";
import { ProtobufType, readSnapshot, writeSnapshot } from "../src/index.js";
import type { ProtobufDynamicSerializerSnapshot } from "../src/snapshot/dynamic.js";
import { messageFromDir } from "./support/buf.js";
import { assemble, defaultFields } from "./support/snapshot-bytes.js";

// The normalized set of the v1 schema, as a ProtobufType records it.
const SET = ProtobufType.of(messageFromDir("fixtures/snapshot/v1", "acme.Order")).normalizedDescriptorSet();
const VALID = assemble(defaultFields("acme.Order", SET));

type Outcome = "SnapshotFormatError" | "RestoreError" | "restored";

function outcome(bytes: Uint8Array): Outcome {
  try {
    const snap = readSnapshot(bytes) as ProtobufDynamicSerializerSnapshot;
    // A readable snapshot writes back exactly the bytes it was read from.
    expect(writeSnapshot(snap)).toEqual(bytes);
    const type = snap.restoreSerializer().type;
    expect(type.settings).toEqual(snap.settings);
    return "restored";
  } catch (e) {
    if (e instanceof Error && (e.name === "SnapshotFormatError" || e.name === "RestoreError")) {
      return e.name as Outcome;
    }
    throw e;
  }
}

describe("snapshot corruption", () => {
  test("the valid snapshot restores", () => {
    expect(outcome(VALID)).toBe("restored");
  });

  test("every truncation is a SnapshotFormatError", () => {
    for (let n = 0; n < VALID.length; n++) {
      expect(outcome(VALID.subarray(0, n)), `first ${n} bytes`).toBe("SnapshotFormatError");
    }
  });

  test("every single-byte flip is a SnapshotFormatError", () => {
    // Before the integrity check, flips in the settings bytes (56..68) read as snapshots that
    // restored with other limits.
    for (let i = 0; i < VALID.length; i++) {
      for (const mask of [0x01, 0x80, 0xff]) {
        const bytes = VALID.slice();
        bytes[i]! ^= mask;
        expect(outcome(bytes), `${i}^${mask}`).toBe("SnapshotFormatError");
      }
    }
  });

  test("a tampered descriptor set with a recomputed fingerprint and check never escapes as another error", () => {
    const seen = new Set<Outcome>();
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(SET.length - 1), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 4 }),
        (flips) => {
          const set = SET.slice();
          for (const [i, mask] of flips) set[i]! ^= mask;
          seen.add(outcome(assemble(defaultFields("acme.Order", set))));
        },
      ),
      { numRuns: 500, seed: 6 },
    );
    // The property reaches all three outcomes, so it tests the decoder and the restore path.
    expect([...seen].sort()).toEqual(["RestoreError", "SnapshotFormatError", "restored"]);
  });

  test("random bytes behind a valid envelope prefix never escape as another error", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.nat(VALID.length), (tail, keep) => {
        outcome(Uint8Array.from([...VALID.subarray(0, keep), ...tail]));
      }),
      { numRuns: 1000, seed: 6 },
    );
  });
});
