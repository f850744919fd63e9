// Packed varint runs: the walker decodes 1-9 byte varints from one 8-byte load and the validate
// walk clears whole runs 16 bytes at a time; both must agree with the byte-by-byte reading on
// every varint length (1..10 bytes), at every position relative to the end of the run.
import { create, toBinary } from "@bufbuild/protobuf";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { layoutOf } from "../src/codec/layout.js";
import { ready, scratchAddress, views } from "../src/wasm/memory.js";
import { validateMessage, walkMessage, type ReadLimits } from "../src/wasm/ops.js";
import { registryFromDir } from "./support/buf.js";
import { readTape } from "./support/tape-reader.js";

const Repeated = registryFromDir("fixtures/core").getMessage("core.test.Repeated")!;
const limits: ReadLimits = { maxMessageBytes: 1 << 20, maxDepth: 10 };

// A magnitude of a uniformly chosen bit length, so every varint length occurs equally often.
const sized = (maxBits: number) =>
  fc.integer({ min: 0, max: maxBits }).chain((bits) =>
    bits === 0 ? fc.constant(0n) : fc.bigInt({ min: 1n << BigInt(bits - 1), max: (1n << BigInt(bits)) - 1n }),
  );
const signed64 = fc.tuple(sized(63), fc.boolean()).map(([m, neg]) => (neg ? -m : m));

describe("packed varints of every length", () => {
  test("property: int64, sint64, uint64-as-int64, int32, sint32, uint32, enum and bool runs decode to what was encoded", () => {
    const arb = fc.record({
      i64: fc.array(signed64, { maxLength: 30 }),
      s64: fc.array(signed64, { maxLength: 30 }),
      i32: fc.array(sized(31).map(Number), { maxLength: 30 }).chain((xs) => fc.constant(xs.map((x, i) => (i % 3 === 0 && x !== 0 ? -x : x)))),
      s32: fc.array(sized(31).map((x) => (Number(x) & 1 ? -Number(x) : Number(x))), { maxLength: 30 }),
      u32: fc.array(sized(32).map(Number), { maxLength: 30 }),
      b: fc.array(fc.boolean(), { maxLength: 10 }),
    });
    const layout = layoutOf(Repeated);
    fc.assert(
      fc.property(arb, (v) => {
        const input = toBinary(Repeated, create(Repeated, v));
        const expected: Record<string, unknown> = {};
        for (const [k, x] of Object.entries(v)) if (x.length) expected[k] = x;
        expect(readTape(walkMessage(layout.typeOffset, input, limits), layout, input).value).toEqual(expected);
        expect(validateMessage(layout.typeOffset, input, limits)).toBe(1);
      }),
      { numRuns: 400 },
    );
  });

  // i64 (field 13) packed: tag 0x6a. Two whole n-byte varints, then n bytes that never end one.
  test.each([
    [1, "TRUNCATED"], [2, "TRUNCATED"], [7, "TRUNCATED"], [8, "TRUNCATED"], [9, "TRUNCATED"], [10, "VARINT_TOO_LONG"],
  ])("a run whose third %i-byte varint does not end fails (%s) at that varint", (n, code) => {
    const one = [...Array(n - 1).fill(0x81), 0x01];
    const run = [...one, ...one, ...Array(n).fill(0x81)];
    const input = Uint8Array.from([0x6a, run.length, ...run]);
    const t = layoutOf(Repeated).typeOffset;
    const err = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return e;
      }
      return undefined;
    };
    const walked = err(() => walkMessage(t, input, limits)) as { code: string; offset: number };
    expect(walked).toMatchObject({ code, offset: 2 + 2 * n });
    expect(err(() => validateMessage(t, input, limits))).toEqual(walked);
  });

  // What a byte-by-byte reader says about a packed varint run: every varint at most 10 bytes,
  // a 10th byte of 0 or 1, and the last one ending at the run's end.
  function runIsValid(b: Uint8Array): boolean {
    let i = 0;
    while (i < b.length) {
      let n = 0;
      for (;;) {
        if (i >= b.length) return false;
        const c = b[i++]!;
        n++;
        if (n === 10 && c > 1) return false;
        if (c < 0x80) break;
      }
    }
    return true;
  }

  test("property: the fast run check never clears a malformed run and clears runs of 1-9 byte varints", () => {
    const e = ready();
    const at = scratchAddress();
    const byte = fc.oneof(fc.integer({ min: 0x80, max: 0xff }), fc.integer({ min: 0, max: 0x7f }), fc.constantFrom(0x80, 0xff, 0x01, 0x00));
    fc.assert(
      fc.property(fc.array(byte, { maxLength: 70 }), fc.nat({ max: 15 }), (bytes, shift) => {
        const b = Uint8Array.from(bytes);
        views.u8.set(b, at + shift);
        const fast = e.varintRunAt(at + shift, b.length);
        if (fast === 1) expect(runIsValid(b)).toBe(true);
        const hasLongRun = /1{9}/.test(Array.from(b, (c) => (c >= 0x80 ? "1" : "0")).join(""));
        if (runIsValid(b) && !hasLongRun) expect(fast).toBe(1);
      }),
      { numRuns: 3000 },
    );
  });
});

