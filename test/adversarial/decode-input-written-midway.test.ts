// Code that a decode runs (an index setter on Array.prototype, reached by the reader's first push
// into a list) may write to the caller's input while it is read. A decoded value keeps a copy of
// its input, taken when the call starts, and a relay writes that copy: the value's fields must be
// read from the same copy, or the value holds one string and relays another.
//
// Defect pinned here (found by a helper's attack pass): the core's path (bare messages of 256
// bytes or more, and, once a serializer's large values are all read, of 4 KiB or more; frames of
// 256 bytes or more in decodeAll and decode) copied the input for the value but read its strings,
// bytes and unknown fields from the caller's array: with "ééé" rewritten to "üüü" midway, the
// value read "üüü" and relayed "ééé" (or ill-formed UTF-16, or unequal unknown fields).
import { afterEach, describe, expect, test } from "vitest";
import type { DynamicMessage, ProtobufSerializer } from "../../src/index.js";
import { typeOf } from "./support.js";

const type = typeOf("message M { repeated string s = 1; bytes pad = 2; repeated bytes b = 3; }", "M");
const write = type.createSerializer();

afterEach(() => {
  delete (Array.prototype as unknown as Record<string, unknown>)["0"];
});

/**
 * A bare message of about `size` bytes: an undeclared field first (its occurrence is the first
 * push of the read, which runs the setter), then two strings "ééé", two bytes fields of 0x11.
 */
function bare(size: number): Uint8Array {
  const body = write.toBinary({ s: ["ééé", "ééé"], pad: new Uint8Array(Math.max(0, size - 40)).fill(7), b: [new Uint8Array(6).fill(0x11), new Uint8Array(3).fill(0x11)] });
  return Uint8Array.from([0x48, 0x01, ...body]); // field 9, varint 1: undeclared
}

/** Frames of one or more bare messages. */
function framed(...bodies: Uint8Array[]): Uint8Array {
  const out: number[] = [];
  for (const b of bodies) {
    let n = b.length;
    while (n > 0x7f) {
      out.push((n & 0x7f) | 0x80);
      n >>>= 7;
    }
    out.push(n, ...b);
  }
  return Uint8Array.from(out);
}

/** Runs `read` with an index-0 setter on Array.prototype that, at its first call, rewrites `input`: é (c3 a9) to ü (c3 bc), 0x11 to 0x22. */
function writtenMidway<T>(input: Uint8Array, read: () => T): { fired: boolean; result: T } {
  let fired = false;
  Object.defineProperty(Array.prototype, "0", {
    configurable: true,
    set(this: unknown[], v: unknown) {
      if (!fired) {
        fired = true;
        for (let i = 0; i < input.length; i++) {
          if (input[i] === 0xa9 && input[i - 1] === 0xc3) input[i] = 0xbc;
          else if (input[i] === 0x11) input[i] = 0x22;
        }
      }
      Object.defineProperty(this, "0", { value: v, writable: true, enumerable: true, configurable: true });
    },
  });
  try {
    const result = read();
    return { fired, result };
  } finally {
    delete (Array.prototype as unknown as Record<string, unknown>)["0"];
  }
}

const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

/** The value read what it relays, and what the input held when the call started. */
function expectConsistent(ser: ProtobufSerializer, value: DynamicMessage, original: Uint8Array): void {
  const relayed = ser.toBinary(value);
  expect(hex(relayed)).toBe(hex(original));
  const again = type.createSerializer().fromBinary(relayed);
  expect(value.get("s")).toEqual(["ééé", "ééé"]);
  expect(value.equals(again)).toBe(true);
  expect((value.get("b") as Uint8Array[]).map(hex)).toEqual(["111111111111", "111111"]);
}

/** A serializer that has read once (its first read builds its read plans, which runs the setter before any input is read). */
function warm(): ProtobufSerializer {
  const ser = type.createSerializer();
  ser.decodeAll(framed(bare(100), bare(300)));
  ser.fromBinary(bare(300));
  return ser;
}

/** A serializer whose next decodes of 4 KiB or more are eager (nearly all of its values read). */
function readingSerializer(): ProtobufSerializer {
  const ser = warm();
  const big = bare(5000);
  for (let i = 0; i < 300; i++) ser.fromBinary(big).has("s");
  return ser;
}

describe("a value read while its input is written keeps what the input held at the call", () => {
  test.each([
    ["small (the TypeScript reader)", 120],
    ["256 bytes and more (the core)", 300],
    ["1,000 bytes", 1000],
    ["4 KiB and more, eager", 5000],
    ["40 KiB, eager", 40_000],
  ])("fromBinary of a bare message, %s", (_, size) => {
    const ser = size >= 4096 ? readingSerializer() : warm();
    let eager = 0;
    // 17 calls: while eager, one decode in 16 of a large size stays lazy (it reads its copy later)
    for (let i = 0; i < 17; i++) {
      const original = bare(size);
      const input = original.slice();
      const { fired, result } = writtenMidway(input, () => ser.fromBinary(input));
      if (fired) eager++;
      expectConsistent(ser, result, original);
    }
    expect(eager).toBeGreaterThanOrEqual(16);
  });

  test.each([
    ["small frames", [120, 130]],
    ["frames of 256 bytes and more", [300, 1000]],
    ["a frame of 5,000 bytes after a small one", [100, 5000]],
  ])("decodeAll of %s", (_, sizes) => {
    const ser = warm();
    const originals = sizes.map(bare);
    const input = framed(...originals.map((b) => b.slice()));
    const { fired, result } = writtenMidway(input, () => ser.decodeAll(input));
    expect(fired).toBe(true);
    expect(result.length).toBe(sizes.length);
    result.forEach((v, i) => expectConsistent(ser, v, originals[i]!));
  });

  test.each([120, 300, 5000])("decode of one frame of %d bytes", (size) => {
    const ser = warm();
    const original = bare(size);
    const input = framed(original.slice());
    const one = writtenMidway(input, () => ser.decode(input));
    expect(one.fired).toBe(true);
    expectConsistent(ser, one.result, original);
  });
});
