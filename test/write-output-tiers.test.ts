// Where a write's output lives. A writer leases the free tail of the write arena's tier that its
// last output fitted (small pieces up to 4 KiB in 64 KiB chunks, mid pieces up to 32 KiB in
// 256 KiB chunks; larger outputs are written in the scratch and get a buffer of their own). Before,
// every write leased the small tier: once a chunk's tail was shorter than an 18 KB output, every
// later 18 KB write overflowed it, copied its bytes to the scratch and copied them again.
// What must hold whatever the order of sizes: no output is ever overwritten or overlaps another,
// and an output of 4 KiB or less never keeps a mid chunk alive.
import { create } from "@bufbuild/protobuf";
import { describe, expect, test, vi } from "vitest";
import { DynamicMessage, ProtobufType } from "../src/index.js";
import { FieldWriter } from "../src/codec/field-writer.js";
import { registryFromDir } from "./support/buf.js";
import { AllTypesSchema } from "./fixtures/generated-es/gen/all_types_pb.js";

const All = registryFromDir("fixtures/all-types").getMessage("alltypes.AllTypes")!;
const SMALL_CHUNK = 64 * 1024;
const dyn = ProtobufType.of(All).createSerializer();
const gen = ProtobufType.ofGenerated(AllTypesSchema).createSerializer();

/** Bytes of n, each byte its index's low bits (so that two outputs never look alike by chance). */
function payload(n: number, seed: number): Uint8Array {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31 + seed) & 0xff;
  return b;
}

/** Byte equality without vitest's element-by-element diffing (outputs here reach 140 KB). */
function same(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(a, b) === 0;
}

type Write = (n: number, seed: number) => Uint8Array;
const KINDS: [string, Write][] = [
  ["a DynamicMessage", (n, seed) => dyn.toBinary(DynamicMessage.create(All, { f_bytes: payload(n, seed) }))],
  ["a plain init object", (n, seed) => dyn.toBinary({ f_bytes: payload(n, seed) } as never)],
  ["a protobuf-es message", (n, seed) => gen.toBinary(create(AllTypesSchema, { fBytes: payload(n, seed) }))],
  ["a frame of a protobuf-es message", (n, seed) => gen.encode(create(AllTypesSchema, { fBytes: payload(n, seed) }))],
];

// Payload sizes around each tier's piece size, repeated runs of one size, and large outputs in between.
const SIZES = [
  10, 3000, 4090, 4093, 4100, 18_000, 18_000, 18_000, 18_000, 18_000, 18_000, 18_000, 18_000, 18_000, 18_000, 18_000, 18_000, 18_000,
  10, 18_000, 10, 32_760, 32_770, 40_000, 140_000, 10, 18_000, 131_000, 18_000, 5, 4000, 60_000, 70_000, 3,
];

describe.each(KINDS)("outputs of %s", (_name, write) => {
  test("stay intact and apart however their sizes alternate", () => {
    const outs: Uint8Array[] = [];
    const copies: Uint8Array[] = [];
    for (let k = 0; k < 3; k++) {
      SIZES.forEach((n, i) => {
        const out = write(n, i + 7 * k);
        outs.push(out);
        copies.push(out.slice());
        if (out.length <= 4096) expect(out.buffer.byteLength).toBe(SMALL_CHUNK);
      });
    }
    expect(outs.filter((out, i) => !same(out, copies[i]!)).length).toBe(0);
    const byBuffer = new Map<ArrayBufferLike, [number, number][]>();
    for (const out of outs) {
      const ranges = byBuffer.get(out.buffer) ?? [];
      for (const [a, b] of ranges) expect(out.byteOffset >= b || out.byteOffset + out.length <= a).toBe(true);
      ranges.push([out.byteOffset, out.byteOffset + out.length]);
      byBuffer.set(out.buffer, ranges);
    }
  });

  test("a run of 18 KB outputs is written where it stays: the output never grows after the first", () => {
    const proto = FieldWriter.prototype as unknown as { room(need: number): void };
    const original = proto.room;
    let grown = 0;
    const spy = vi.spyOn(proto, "room").mockImplementation(function (this: unknown, need: number) {
      grown++;
      original.call(this, need);
    });
    try {
      write(18_000, 1);
      grown = 0;
      for (let i = 0; i < 40; i++) write(18_000, i);
    } finally {
      spy.mockRestore();
    }
    expect(grown).toBe(0);
  });
});

describe("a write inside a write (a getter of the value encodes another)", () => {
  test.each([10, 4000, 18_000, 40_000])("of %i bytes: both outputs intact", (n) => {
    const inner: Uint8Array[] = [];
    const outs: Uint8Array[] = [];
    for (let i = 0; i < 30; i++) {
      const msg = create(AllTypesSchema, { fBytes: payload(18_000, i) });
      Object.defineProperty(msg, "fInt32", {
        enumerable: true,
        get: () => {
          inner.push(gen.toBinary(create(AllTypesSchema, { fBytes: payload(n, i + 100) })));
          return 5;
        },
      });
      outs.push(gen.toBinary(msg));
    }
    outs.forEach((out, i) => {
      const back = gen.fromBinary(out);
      expect(back.fInt32).toBe(5);
      expect(same(back.fBytes, payload(18_000, i))).toBe(true);
    });
    expect(inner.filter((out, i) => !same(gen.fromBinary(out).fBytes, payload(n, i + 100))).length).toBe(0);
  });
});
