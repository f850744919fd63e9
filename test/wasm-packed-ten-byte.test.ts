// Ten-byte varints in packed runs: every negative int32, enum and int64 is written as ten bytes
// (its 64-bit sign extension), and the walker reads them without its byte loop. The tenth byte
// must carry bit 63 only: 0 or 1 is a value, 2..127 is VARINT_OVERFLOW, 128.. never ends the
// varint. Each case is checked against a byte-by-byte reading, alone in its run, before and after
// another varint, and at the run's end, for every tenth byte 0..255; and the same elements
// unpacked (one record each: the scalar varint read, readVarint's ten-byte path).
import { describe, expect, test } from "vitest";
import { layoutOf } from "../src/codec/layout.js";
import { validateMessage, walkMessage, type ReadLimits } from "../src/wasm/ops.js";
import { registryFromDir } from "./support/buf.js";
import { readTape } from "./support/tape-reader.js";

const Repeated = registryFromDir("fixtures/core").getMessage("core.test.Repeated")!;
const limits: ReadLimits = { maxMessageBytes: 1 << 20, maxDepth: 10 };
const layout = layoutOf(Repeated);

const zig = (v: bigint, bits: number) => BigInt.asIntN(bits, (v >> 1n) ^ -(v & 1n));
// field name, field number, the element's value from the varint's 64 bits
const FIELDS: [string, number, (v: bigint) => unknown][] = [
  ["i32", 1, (v) => Number(BigInt.asIntN(32, v))],
  ["s64", 2, (v) => zig(v, 64)],
  ["e", 7, (v) => Number(BigInt.asIntN(32, v))],
  ["s32", 9, (v) => Number(zig(BigInt.asUintN(32, v), 32))],
  ["u32", 12, (v) => Number(BigInt.asUintN(32, v))],
  ["i64", 13, (v) => BigInt.asIntN(64, v)],
];

/** The first nine bytes of a ten-byte varint (each with its continuation bit). */
const HEADS: number[][] = [Array(9).fill(0xff), Array(9).fill(0x80), [0xfe, 0xff, 0xff, 0xff, 0x8f, 0x80, 0x80, 0x80, 0x80]];
{
  let x = 0x2545f491;
  for (let i = 0; i < 5; i++) {
    HEADS.push(Array.from({ length: 9 }, () => ((x = (x * 1103515245 + 12345) >>> 0) >>> 24) | 0x80));
  }
}

function varintValue(bytes: number[]): bigint {
  let v = 0n;
  bytes.forEach((b, i) => (v |= BigInt(b & 0x7f) << BigInt(7 * i)));
  return v;
}

/** What the walk and the validate-only read each make of `input`: a value (1) or an error. */
function outcome(input: Uint8Array): unknown {
  const attempt = (read: () => unknown): unknown => {
    try {
      return read();
    } catch (e) {
      const err = e as { code: string; offset: number };
      return { code: err.code, offset: err.offset };
    }
  };
  return {
    walked: attempt(() => readTape(walkMessage(layout.typeOffset, input, limits), layout, input).value),
    validated: attempt(() => validateMessage(layout.typeOffset, input, limits)),
  };
}

describe("ten-byte varints in packed runs", () => {
  for (const [name, no, elem] of FIELDS) {
    test(`${name}: every tenth byte, alone, after and before a one-byte varint`, () => {
      let cases = 0;
      for (const head of HEADS) {
        for (let last = 0; last < 256; last++) {
          const ten = [...head, last];
          // `before`/`after`: a one-byte varint (5) ahead of or behind the ten-byte one.
          for (const [before, after] of [[[], []], [[5], []], [[], [5]], [[5], [5, 5]]] as number[][][]) {
            const run = [...before, ...ten, ...after];
            const packed = [(no << 3) | 2, run.length, ...run];
            // The same elements unpacked (one varint record each), which a packed field also reads.
            const unpacked = [...before.flatMap((b) => [no << 3, b]), no << 3, ...ten, ...after.flatMap((b) => [no << 3, b])];
            for (const [input, at] of [[Uint8Array.from(packed), 2 + before.length], [Uint8Array.from(unpacked), 1 + 2 * before.length]] as const) {
            let expected: unknown;
            if (last >= 0x80) {
              // The varint goes on into `after` (or the run's end): it never ends within ten bytes.
              expected = { walked: { code: "VARINT_TOO_LONG", offset: at }, validated: { code: "VARINT_TOO_LONG", offset: at } };
            } else if (last > 1) {
              expected = { walked: { code: "VARINT_OVERFLOW", offset: at }, validated: { code: "VARINT_OVERFLOW", offset: at } };
            } else {
              const values = [...before.map((b) => elem(BigInt(b))), elem(varintValue(ten)), ...after.map((b) => elem(BigInt(b)))];
              expected = { walked: { [name]: values }, validated: 1 };
            }
            expect(outcome(input), `head ${head} tenth ${last} before ${before} after ${after} input ${input}`).toEqual(expected);
            cases++;
            }
          }
        }
      }
      expect(cases).toBe(HEADS.length * 256 * 4 * 2);
    });
  }
});
