// The TypeScript reader of small messages (src/codec/small-reader.ts) reads nested messages by
// recursion (body -> body, up to MAX_LEVELS = 64), the core's walk and tape reader iteratively.
// Called with little stack left (a deep application call chain), a message of 63 levels
// (126 bytes) made the reader overflow, and top() rethrew the engine's RangeError ("Maximum call
// stack size exceeded") from fromBinary, decode and decodeAll at stack depths where the core
// path reads the same bytes (200-350 frames of a one-argument recursion short of it; found by a
// helper's attack pass). A RangeError in the reader now gives up to the core, like any input
// the reader does not take. Where a stack runs out moves with how V8 compiles the frames around
// it, so the overflow is stood in for by a RangeError thrown at a chosen point of the read: an
// index setter on Array.prototype, which the reader's first push into a list runs.
import { afterEach, describe, expect, test } from "vitest";
import { setSmallDecodeThreshold } from "../../src/codec/reader.js";
import { typeOf } from "./support.js";

const ser = typeOf("message L { L kid = 2; int32 x = 1; repeated int32 r = 3; }", "L").createSerializer();
// 20 levels, each with a repeated field (its list is a push of each level).
let body = [0x08, 0x01, 0x1a, 0x02, 0x07, 0x09];
for (let i = 0; i < 19; i++) body = [0x12, body.length, ...body, 0x18, i];
const INPUT = Uint8Array.from(body);
const FRAME = Uint8Array.from([INPUT.length, ...INPUT]);

afterEach(() => {
  delete (Array.prototype as unknown as Record<string, unknown>)["0"];
  setSmallDecodeThreshold(256);
});

/** Runs `read` with an index-0 setter on Array.prototype that throws `error` at its `n`-th call. */
function withThrowAt(n: number, error: () => Error, read: () => unknown): { fired: boolean; result: unknown } {
  let count = 0;
  let fired = false;
  Object.defineProperty(Array.prototype, "0", {
    configurable: true,
    set(this: unknown[], v: unknown) {
      if (++count === n) {
        fired = true;
        throw error();
      }
      Object.defineProperty(this, "0", { value: v, writable: true, enumerable: true, configurable: true });
    },
  });
  let result: unknown;
  try {
    result = read();
  } catch (e) {
    result = e;
  } finally {
    delete (Array.prototype as unknown as Record<string, unknown>)["0"];
  }
  return { fired, result };
}

const READS: [string, () => unknown][] = [
  ["fromBinary", () => ser.fromBinary(INPUT)],
  ["decode", () => ser.decode(FRAME)],
  ["decodeAll", () => ser.decodeAll(FRAME)[0]],
];

describe("a RangeError in the small reader (a stack overflow) hands the input to the core", () => {
  setSmallDecodeThreshold(0);
  const want = ser.fromBinary(INPUT);
  setSmallDecodeThreshold(256);

  test.each(READS)("%s: the value the core reads", (_name, read) => {
    for (const n of [1, 2, 7, 15]) {
      const { fired, result } = withThrowAt(n, () => new RangeError("Maximum call stack size exceeded"), read);
      expect(fired).toBe(true);
      expect(result).not.toBeInstanceOf(Error);
      expect((result as typeof want).equals(want)).toBe(true);
    }
  });

  test.each(READS)("%s: any other error from application code is the caller's, as before", (_name, read) => {
    const { fired, result } = withThrowAt(3, () => new TypeError("application code failed"), read);
    expect(fired).toBe(true);
    expect(result).toBeInstanceOf(TypeError);
    expect((result as Error).message).toBe("application code failed");
    // and the next read is a fresh serializer's
    expect((read() as typeof want).equals(want)).toBe(true);
  });
});
