// asciiString (src/codec/read-plan.ts): how the TypeScript reader builds short ASCII strings where
// the runtime has no Buffer latin1Slice (browsers; Node, Bun, Deno 2 and workerd have one, so
// this file is where Node runs it). The runtimes' smoke suite reads strings of every length
// through it in Chromium (runtimes/smoke.mjs).
import { describe, expect, test } from "vitest";
import { asciiString, SHORT_ASCII } from "../src/codec/read-plan.js";

const codes = (n: number, k: number): number[] => Array.from({ length: n }, (_, i) => (i * 7 + k) % 128);

describe("asciiString", () => {
  test.each(Array.from({ length: SHORT_ASCII + 1 }, (_, n) => n))("%i bytes at an offset read back as the same string", (n) => {
    for (const k of [0, 1, 64, 127]) {
      const c = codes(n, k);
      const input = Uint8Array.from([0xff, 0xfe, ...c, 0xfd]);
      expect(asciiString(input, 2, n)).toBe(String.fromCharCode(...c));
    }
  });

  test("every ASCII code, NUL included", () => {
    const all = Uint8Array.from({ length: 128 }, (_, i) => i);
    for (let at = 0; at + SHORT_ASCII <= 128; at += 16) {
      expect(asciiString(all, at, SHORT_ASCII)).toBe(String.fromCharCode(...all.subarray(at, at + SHORT_ASCII)));
    }
  });

  test("covers the lengths the TypeScript reader hands it (up to 64 bytes)", () => {
    expect(SHORT_ASCII).toBe(64);
  });
});
