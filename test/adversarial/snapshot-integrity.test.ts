// Every damaged snapshot is rejected (hardening, descriptors item 4): the last 4 bytes are a
// CRC-32C of every byte before them. Before the check, 72 of 2,464 single-bit flips of a small
// snapshot read back as snapshots with other settings (maxMessageBytes, maxDepth, …).
import { describe, expect, test } from "vitest";
import { ProtobufType, SnapshotFormatError, readSnapshot, writeSnapshot } from "../../src/index.js";
import { crc32c } from "../../src/snapshot/crc32c.js";
import { manyTypes, messageOf } from "../../stress/schemas.mjs";
import { crc32cReference, snapshotError as formatError } from "../support/snapshot-bytes.js";
import { checkOf, everyFlip, randomFlips, smallTunedType, tails } from "./support/round-trip.js";

const type = smallTunedType();
const VALID = writeSnapshot(type.createSerializer().snapshotConfiguration());
const L = VALID.length;

/** The error any damage after the envelope version gives: the check over the first n - 4 bytes fails. */
function corrupt(bytes: Uint8Array) {
  const { at, recorded, computed } = checkOf(bytes);
  return {
    code: "SNAPSHOT_CORRUPT",
    offset: at,
    message: `invalid snapshot at byte ${at}: the bytes are corrupt: the CRC-32C of bytes 0..${at - 1} is ${computed}, but the snapshot records ${recorded}; the snapshot was damaged, cut short or modified; restore it from an intact copy`,
  };
}

const outcome = (e: SnapshotFormatError) => ({ code: e.code, offset: e.offset, message: e.message });

describe("snapshot integrity", () => {
  test("the check is CRC-32C: the package's table-driven CRC equals the bit-by-bit definition", () => {
    const bytes = Uint8Array.from({ length: 300 }, (_, i) => (i * 37 + 11) & 0xff);
    for (let start = 0; start < 9; start++) {
      for (let end = start; end <= bytes.length; end += 7) {
        const part = bytes.subarray(start, end);
        expect(crc32c(part), `${start}..${end}`).toBe(crc32cReference(part));
      }
    }
    expect(crc32c(new TextEncoder().encode("123456789"))).toBe(0xe3069283);
  });

  test(`every single-bit flip of a ${L}-byte snapshot is rejected`, () => {
    for (const { i, bit, flipped } of everyFlip(VALID)) {
      const e = formatError(flipped);
      const where = `byte ${i} bit ${bit}`;
      if (i < 4) expect([e.code, e.offset], where).toEqual(["SNAPSHOT_BAD_MAGIC", 0]);
      else if (i === 4) expect([e.code, e.offset], where).toEqual(["SNAPSHOT_UNSUPPORTED_ENVELOPE_VERSION", 4]);
      else expect(outcome(e), where).toEqual(corrupt(flipped));
    }
  });

  test("every truncation is rejected", () => {
    for (let n = 0; n < L; n++) {
      const bytes = VALID.subarray(0, n);
      const e = formatError(bytes);
      if (n < 4) {
        expect(outcome(e)).toEqual({
          code: "SNAPSHOT_TRUNCATED",
          offset: 0,
          message: `invalid snapshot at byte 0: the magic needs 4 bytes but ${n} remain${n === 1 ? "s" : ""}; pass the complete snapshot bytes`,
        });
      } else if (n === 4) {
        expect([e.code, e.offset]).toEqual(["SNAPSHOT_TRUNCATED", 4]);
      } else if (n < 9) {
        expect(outcome(e)).toEqual({
          code: "SNAPSHOT_TRUNCATED",
          offset: 5,
          message: `invalid snapshot at byte 5: the integrity check needs 4 bytes but ${n - 5} remain${n - 5 === 1 ? "s" : ""}; pass the complete snapshot bytes`,
        });
      } else {
        expect(outcome(e), `first ${n} bytes`).toEqual(corrupt(bytes));
      }
    }
  });

  test.each(tails(VALID))("appended %s is rejected", (_name, tail) => {
    const bytes = Uint8Array.from([...VALID, ...tail]);
    expect(outcome(formatError(bytes))).toEqual(corrupt(bytes));
  });

  test("after all that, the intact bytes still read and restore an equal serializer", () => {
    const snapshot = readSnapshot(VALID);
    expect(snapshot.restoreSerializer().type.equals(type)).toBe(true);
    expect(writeSnapshot(snapshot)).toEqual(VALID);
  });

  test("300 random bit flips of a 10,000-type snapshot are all rejected", () => {
    const big = writeSnapshot(ProtobufType.of(messageOf(manyTypes(10_000), "s.Root")).createSerializer().snapshotConfiguration());
    for (const { i, flipped } of randomFlips(big, 300, 5, 7)) {
      expect(formatError(flipped).code, `byte ${i}`).toBe("SNAPSHOT_CORRUPT");
    }
  });
});
