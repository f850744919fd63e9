// Short ASCII strings that a read of the TypeScript reader meets before it has made its text (one
// latin1 string of the read's bytes, substrings of it after) are built by tinyAscii, one
// String.fromCharCode call (src/codec/small-reader.ts, TINY_ASCII). Which path a string takes
// depends on its length and on the strings before it in the read: every order of short and long,
// ASCII and not, in bare messages and in frames across a text window, must read as @bufbuild/protobuf
// reads it, and relay the same bytes.
import { create, createFileRegistry, fromBinary, toBinary, type DescMessage } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { describe, expect, test } from "vitest";
import { tinyAscii, TINY_ASCII } from "../src/codec/small-reader.js";
import { DynamicMessage, ProtobufType } from "../src/index.js";
import { compileProtoText } from "./support/buf.js";

const set = compileProtoText({
  "tiny.proto": `syntax = "proto3";
package tiny;
message M { string a = 1; string b = 2; repeated string c = 3; M child = 4; bytes d = 5; }`,
});
const M = createFileRegistry(fromBinary(FileDescriptorSetSchema, set)).getMessage("tiny.M") as DescMessage;

describe("tinyAscii", () => {
  test.each(Array.from({ length: TINY_ASCII }, (_, i) => i + 1))("%i bytes at every offset of a buffer, every ASCII code", (n) => {
    const all = Uint8Array.from({ length: 128 + TINY_ASCII }, (_, i) => i % 128);
    for (let at = 0; at + n <= all.length; at++) {
      expect(tinyAscii(all, at, n)).toBe(String.fromCharCode(...all.subarray(at, at + n)));
    }
  });

  test("builds strings up to 8 bytes (the reader's bound)", () => {
    expect(TINY_ASCII).toBe(8);
  });
});

const ascii = (n: number, k: number): string => Array.from({ length: n }, (_, i) => String.fromCharCode(32 + ((i * 7 + k) % 95))).join("");
// Lengths around the bound, and strings with a non-ASCII character (never built by tinyAscii).
const STRINGS = [0, 1, 2, 7, 8, 9, 12, 13, 16, 40].map((n, k) => ascii(n, k)).concat(["\u00e9", "ab\u20ac", "\u{1F600}", "\u0000"]);

/** The string fields of a decoded M, nested ones included, from either library's value. */
function plain(v: DynamicMessage | Record<string, unknown> | undefined): unknown {
  if (v === undefined) return undefined;
  const get = (k: string): unknown => (v instanceof DynamicMessage ? v.get(k) : v[k]);
  return { a: get("a"), b: get("b"), c: [...(get("c") as string[])], child: plain(get("child") as never) };
}

describe("messages read as protobuf-es reads them, whichever string comes first", () => {
  const cases: Record<string, unknown>[] = [];
  for (const a of STRINGS) for (const b of STRINGS) cases.push({ a, b, c: [b, a, "x"] });
  // A tiny string only in a nested message, after a long one in the parent, and before one.
  cases.push({ a: ascii(30, 1), child: { a: "id", b: ascii(20, 2) } }, { child: { c: ["k", "v"] }, b: ascii(50, 3) });
  cases.push({ d: new Uint8Array([1, 2, 3]), c: Array.from({ length: 30 }, (_, i) => ascii(i % 6, i)) });

  test.each([
    ["dynamic", () => ProtobufType.of(M).createSerializer()],
    ["generated", () => ProtobufType.ofGenerated(M).createSerializer()],
  ] as const)("%s kind: bare messages, values and relay bytes", (kind, make) => {
    const ser = make();
    let read = 0;
    for (const init of cases) {
      const bytes = toBinary(M, create(M, init as never));
      expect(bytes.length).toBeLessThan(256); // the TypeScript reader's inputs
      const value = ser.fromBinary(bytes);
      if (kind === "dynamic") {
        expect(plain(value as DynamicMessage)).toEqual(plain(fromBinary(M, bytes) as unknown as Record<string, unknown>));
        expect((ser as { toBinary(v: unknown): Uint8Array }).toBinary(value)).toEqual(bytes);
      } else expect(value).toEqual(fromBinary(M, bytes));
      read++;
    }
    expect(read).toBe(cases.length);
  });

  test("frames: a batch whose tiny strings come before, after and across a 64 KiB text window", () => {
    const ser = ProtobufType.of(M).createSerializer();
    const inits: Record<string, unknown>[] = [];
    // ~70 KiB of frames: the reader starts a new text at the frame that crosses 64 KiB.
    for (let i = 0; i < 2400; i++) inits.push(i % 3 === 0 ? { a: ascii(i % 9, i), b: ascii(50, i) } : { c: [ascii(i % 12, i), "\u00e9" + ascii(i % 5, i)] });
    const frames = inits.map((init) => toBinary(M, create(M, init as never)));
    const batch = new Uint8Array(frames.reduce((n, f) => n + 1 + f.length, 0));
    let p = 0;
    for (const f of frames) {
      batch[p++] = f.length; // every frame under 128 bytes: a one-byte prefix
      batch.set(f, p);
      p += f.length;
    }
    expect(batch.length).toBeGreaterThan(65536);
    const values = ser.decodeAll(batch);
    expect(values.length).toBe(frames.length);
    values.forEach((v, i) => {
      const want = fromBinary(M, frames[i]!);
      expect([v.get("a"), v.get("b"), v.get("c")]).toEqual([want["a" as never], want["b" as never], want["c" as never]]);
    });
    expect(ser.encodeAll(values)).toEqual(batch);
  });
});
