// Framing v1 (docs/design.md §8.2): one core call splits a buffer of varint-length-delimited frames;
// truncation and over-limit lengths are distinct errors with the frame's byte offset.
import fc from "fast-check";
import protobuf from "protobufjs";
import { describe, expect, test } from "vitest";
import { CodecError } from "../src/errors.js";
import { scanFrames } from "../src/wasm/ops.js";
import { memoryGrowCount, ready, views } from "../src/wasm/memory.js";
import { bytesAt, coreNow, put } from "./support/core.js";

const MiB = 1024 * 1024;

function frames(...bodies: number[][]): Uint8Array {
  const w = protobuf.Writer.create();
  for (const b of bodies) w.bytes(Uint8Array.from(b));
  return new Uint8Array(w.finish());
}

function split(buf: Uint8Array, max = 64 * MiB) {
  const r = scanFrames(buf, max, "acme.Order");
  return Array.from({ length: r.count }, (_, i) => Array.from(buf.subarray(r.offsets[i]!, r.offsets[i]! + r.lengths[i]!)));
}

function failureOf(f: () => unknown): { code: string; offset: number | undefined; message: string } {
  try {
    f();
  } catch (e) {
    if (e instanceof CodecError) return { code: e.code, offset: e.offset, message: e.message };
    throw e;
  }
  throw new Error("expected a CodecError");
}

describe("scanFrames", () => {
  test.each([
    ["no frames", [], []],
    ["one empty frame", [[]], [[]]],
    ["three frames", [[1], [2, 3], []], [[1], [2, 3], []]],
    ["a 200-byte frame (2-byte prefix)", [Array(200).fill(7)], [Array(200).fill(7)]],
  ])("%s", (_, bodies, expected) => {
    expect(split(frames(...(bodies as number[][])))).toEqual(expected);
  });

  test("many frames are returned across several core calls", () => {
    const bodies = Array.from({ length: 70000 }, (_, i) => [i & 0x7f]);
    const out = split(frames(...bodies));
    expect(out.length).toBe(70000);
    expect(out[69999]).toEqual([69999 & 0x7f]);
  });

  test.each([
    ["a body cut short", [0x03, 1, 2], "FRAME_TRUNCATED", 0],
    ["the second frame's body cut short", [0x01, 9, 0x05, 1], "FRAME_TRUNCATED", 2],
    ["a length prefix cut short", [0x01, 9, 0x80], "FRAME_TRUNCATED", 2],
    ["a length over the limit", [0x01, 9, 0x0b, ...Array(11).fill(0)], "FRAME_TOO_LARGE", 2],
    ["a length prefix over 10 bytes", [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01], "VARINT_TOO_LONG", 0],
  ])("%s → %s at byte %d", (_, bytes, code, offset) => {
    const f = failureOf(() => scanFrames(Uint8Array.from(bytes), 10, "acme.Order"));
    expect({ code: f.code, offset: f.offset }).toEqual({ code, offset });
  });

  test("error messages name the type, the offset and the fix", () => {
    expect(failureOf(() => scanFrames(Uint8Array.from([0x01, 9, 0x0b]), 10, "acme.Order")).message).toBe(
      "cannot decode acme.Order: the frame at byte 2 announces 11 bytes, above maxMessageBytes 10; raise maxMessageBytes or reject the input",
    );
    expect(failureOf(() => scanFrames(Uint8Array.from([0x03, 1]), 10, "acme.Order")).message).toBe(
      "cannot decode acme.Order: the frame at byte 0 ends after the input does; the data is truncated, pass complete frames",
    );
  });

  test("a frame announcing 64 MiB + 1 bytes is refused without growing memory", () => {
    ready();
    const header = new Uint8Array(protobuf.Writer.create().uint32(64 * MiB + 1).finish());
    const before = memoryGrowCount();
    const size = views.buffer.byteLength;
    const f = failureOf(() => scanFrames(header, 64 * MiB, "acme.Order"));
    expect({ code: f.code, offset: f.offset }).toEqual({ code: "FRAME_TOO_LARGE", offset: 0 });
    expect(memoryGrowCount()).toBe(before);
    expect(views.buffer.byteLength).toBe(size);
  });

  test("property: frames written by protobufjs split into the same bodies", () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 20 }), (bodies) => {
        const buf = frames(...bodies.map((b) => Array.from(b)));
        expect(split(buf)).toEqual(bodies.map((b) => Array.from(b)));
      }),
      { numRuns: 300 },
    );
  });

  test("property: frames written with the core's varint read back with protobufjs", () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 20 }), (bodies) => {
        const parts: number[] = [];
        for (const b of bodies) {
          const at = put([], 16);
          const n = coreNow().writeVarintAt(at, BigInt(b.length));
          parts.push(...bytesAt(at, n), ...b);
        }
        const r = protobuf.Reader.create(Uint8Array.from(parts));
        const back: number[][] = [];
        while (r.pos < r.len) back.push(Array.from(r.bytes()));
        expect(back).toEqual(bodies.map((b) => Array.from(b)));
      }),
      { numRuns: 300 },
    );
  });

  test("truncating a valid buffer at every byte fails cleanly or yields a prefix of its frames", () => {
    const buf = frames([1, 2, 3], Array(130).fill(5), [], [9]);
    const whole = split(buf);
    for (let cut = 0; cut < buf.length; cut++) {
      try {
        const got = split(buf.subarray(0, cut));
        expect(whole.slice(0, got.length)).toEqual(got);
      } catch (e) {
        expect((e as CodecError).code).toBe("FRAME_TRUNCATED");
      }
    }
  });
});
