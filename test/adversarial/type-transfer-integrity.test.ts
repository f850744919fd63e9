// Every damaged type transfer form is rejected (hardening, descriptors item 4): the last 4 bytes
// are a CRC-32C of every byte before them. Before the check, 72 of 2,080 single-bit flips of a
// small transfer form built a type with other settings.
import { describe, expect, test } from "vitest";
import { InvalidObjectError, ProtobufType } from "../../src/index.js";
import { manyTypes, messageOf } from "../../stress/schemas.mjs";
import { checkOf, everyFlip, randomFlips, smallTunedType, tails } from "./support/round-trip.js";

const type = smallTunedType();
const VALID = type.toBytes();
const L = VALID.length;
const FIX = "pass the exact output of ProtobufType.toBytes()";

function objectError(bytes: Uint8Array): { code: string; message: string } {
  try {
    ProtobufType.fromBytes(bytes);
  } catch (e) {
    if (e instanceof InvalidObjectError) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error("fromBytes accepted the bytes");
}

/** The error any damage after the transfer version gives: the check over the first n - 4 bytes fails. */
function corrupt(bytes: Uint8Array) {
  const { at, recorded, computed } = checkOf(bytes);
  return {
    code: "TRANSFER_CORRUPT",
    message: `invalid type bytes: the bytes are corrupt: the CRC-32C of bytes 0..${at - 1} is ${computed}, but the transfer form records ${recorded}, so they were damaged, cut short or modified on the way; ${FIX}`,
  };
}

const truncated = (offset: number, what: string, n: number, left: number) => ({
  code: "TRANSFER_TRUNCATED",
  message: `invalid type bytes: truncated at offset ${offset} reading ${what} (${n} bytes needed, ${left} left); ${FIX}`,
});

describe("type transfer form integrity", () => {
  test(`every single-bit flip of a ${L}-byte transfer form is rejected`, () => {
    for (const { i, bit, flipped } of everyFlip(VALID)) {
      const e = objectError(flipped);
      const where = `byte ${i} bit ${bit}`;
      if (i < 4) expect(e.code, where).toBe("TRANSFER_BAD_MAGIC");
      else if (i === 4) expect(e.code, where).toBe("TRANSFER_UNSUPPORTED_VERSION");
      else expect(e, where).toEqual(corrupt(flipped));
    }
  });

  test("every truncation is rejected", () => {
    for (let n = 0; n < L; n++) {
      const bytes = VALID.subarray(0, n);
      const e = objectError(bytes);
      if (n < 4) expect(e).toEqual(truncated(0, "the magic", 4, n));
      else if (n === 4) expect(e).toEqual(truncated(4, "the transfer version", 1, 0));
      else if (n < 9) expect(e).toEqual(truncated(5, "the integrity check", 4, n - 5));
      else expect(e, `first ${n} bytes`).toEqual(corrupt(bytes));
    }
  });

  test.each(tails(VALID))("appended %s is rejected", (_name, tail) => {
    const bytes = Uint8Array.from([...VALID, ...tail]);
    expect(objectError(bytes)).toEqual(corrupt(bytes));
  });

  test("after all that, the intact bytes still build an equal type, every time", () => {
    const a = ProtobufType.fromBytes(VALID);
    const b = ProtobufType.fromBytes(VALID);
    expect(a.equals(type) && b.equals(type)).toBe(true);
    expect(a.settings).toEqual({ maxMessageBytes: 4096, maxDepth: 7, deterministic: true, aliasThreshold: 512 });
    expect(a.toBytes()).toEqual(VALID);
  });

  test("300 random bit flips of a 10,000-type transfer form are all rejected", () => {
    const big = ProtobufType.of(messageOf(manyTypes(10_000), "s.Root")).toBytes();
    for (const { i, flipped } of randomFlips(big, 300, 5, 11)) {
      expect(objectError(flipped).code, `byte ${i}`).toBe("TRANSFER_CORRUPT");
    }
  });
});
