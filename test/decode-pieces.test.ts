// Bytes fields and unknown fields of decoded values (aliasThreshold 0) are cut from the decoder's
// own copy of the input where that keeps no more memory alive than a separate copy would, and
// copied otherwise (src/codec/read-plan.ts, pieceOf). Whatever the path (TypeScript reader under
// 256 B, the core walk, lazy values from 4 KiB, decodeAll), the size of the input (a source copy
// in the 64 KiB tier, the 256 KiB tier, or a buffer of its own) and of the piece:
// - the value is the one encoded;
// - no piece is a view of the caller's input, and changing the input afterwards changes neither
//   the values nor what a relay writes;
// - a kept piece holds at most 64 KiB alive (pieces of up to 4 KiB) or 256 KiB (larger ones),
//   so keeping a 16-byte id does not keep a 400 KB message alive;
// - two decodes of the same bytes share nothing: changing a piece of one changes nothing of the
//   other (values, relay output).
import { describe, expect, test } from "vitest";
import { DynamicMessage, ProtobufType } from "../src/index.js";
import { registryFromDir } from "./support/buf.js";
import { concat, varint } from "./support/wire-scramble.js";

const registry = registryFromDir("fixtures/all-types");
const All = registry.getMessage("alltypes.AllTypes")!;
const type = ProtobufType.of(All);
const ser = type.createSerializer();

const UNKNOWN_NUMBER = 9999;

/** Field UNKNOWN_NUMBER (undeclared in AllTypes) holding `payload`, length-delimited. */
function unknownField(payload: Uint8Array): Uint8Array {
  return Uint8Array.from([...varint((UNKNOWN_NUMBER << 3) | 2), ...varint(payload.length), ...payload]);
}

/** A piece of `n` bytes that no other piece of the same input equals. */
const piece = (n: number, seed: number): Uint8Array => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff);

// Where a bytes value can be, and how to read it back.
const PLACES: [string, (b: Uint8Array) => Record<string, unknown>, (v: DynamicMessage) => Uint8Array][] = [
  ["singular", (b) => ({ f_bytes: b }), (v) => v.get("f_bytes") as Uint8Array],
  ["repeated", (b) => ({ r_bytes: [Uint8Array.of(7), b] }), (v) => (v.get("r_bytes") as Uint8Array[])[1]!],
  ["map value", (b) => ({ mv_bytes: { k: b } }), (v) => (v.get("mv_bytes") as Map<string, Uint8Array>).get("k")!],
  ["nested", (b) => ({ recursive: { recursive: { f_bytes: b } } }), (v) => ((v.get("recursive") as DynamicMessage).get("recursive") as DynamicMessage).get("f_bytes") as Uint8Array],
];

// Input sizes around the read paths and the source copy's tiers: TypeScript reader (< 256 B),
// core walk (< 4 KiB), lazy with a copy in the 256 KiB tier (< 32 KiB), a copy of its own under
// 256 KiB, and one over it.
const SIZES: [string, number][] = [
  ["under 256 B", 120],
  ["under 4 KiB", 2_000],
  ["under 32 KiB", 20_000],
  ["under 256 KiB", 100_000],
  ["over 256 KiB", 400_000],
];
const PIECES = [1, 16, 4096, 4097, 6000];

/** The encoding of `place` holding `b`, padded with a string to about `size` bytes, and an unknown field. */
function input(place: (b: Uint8Array) => Record<string, unknown>, b: Uint8Array, size: number, u: Uint8Array): Uint8Array {
  const pad = Math.max(0, size - b.length - u.length - 40);
  const bare = ser.toBinary(DynamicMessage.create(All, { ...place(b), f_string: "p".repeat(pad) }));
  return concat([bare, unknownField(u)]);
}

/** What a kept piece of `len` bytes may hold alive at most. */
const bound = (len: number): number => (len <= 4096 ? 65_536 : 262_144);

/** Equal bytes (a byte-wise toEqual of 400 KB takes seconds). */
function same(a: Uint8Array, b: Uint8Array): void {
  const equal = a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length));
  if (!equal) expect(Buffer.from(a).toString("hex")).toBe(Buffer.from(b).toString("hex"));
}

function checkPiece(got: Uint8Array, want: Uint8Array, input: Uint8Array): void {
  same(got, want);
  expect(Object.getPrototypeOf(got)).toBe(Uint8Array.prototype);
  expect(got.buffer).not.toBe(input.buffer);
  expect(got.buffer.byteLength).toBeLessThanOrEqual(bound(got.length));
}

const cases = SIZES.flatMap(([sizeName, size]) =>
  PLACES.flatMap(([placeName, place, read]) =>
    PIECES.filter((n) => n < size).map((n) => ({ name: `${placeName}, ${n} B piece, input ${sizeName}`, place, read, n, size })),
  ),
);

describe("pieces of decoded values", () => {
  test.each(cases)("$name: right bytes, no view of the input, bounded retention", ({ place, read, n, size }) => {
    const b = piece(n, 1);
    const u = piece(n, 2);
    const bytes = input(place, b, size, u);
    const original = bytes.slice();
    const v = ser.fromBinary(bytes);
    checkPiece(read(v), b, bytes);
    const unknown = v.unknownFields.get(UNKNOWN_NUMBER)!;
    expect(unknown).toHaveLength(1);
    checkPiece(unknown[0]!, unknownField(u), bytes);
    // The input changed afterwards: neither the values nor a relay see it.
    bytes.fill(0xee);
    same(read(v), b);
    same(ser.toBinary(v), original);
  });

  test.each(cases)("$name: two decodes of the same bytes share nothing", ({ place, read, n, size }) => {
    const b = piece(n, 3);
    const bytes = input(place, b, size, piece(5, 4));
    const one = ser.fromBinary(bytes);
    const two = ser.fromBinary(bytes);
    read(one).fill(0x55);
    one.unknownFields.get(UNKNOWN_NUMBER)![0]!.fill(0x66);
    same(read(two), b);
    same(ser.toBinary(two), bytes);
    expect(ser.fromBinary(ser.toBinary(two)).equals(ser.fromBinary(bytes))).toBe(true);
  });

  test.each(SIZES)("decodeAll of frames of %s: every frame's pieces right, bounded, apart from the input", (_name, size) => {
    for (const n of PIECES.filter((k) => k < size)) {
      const values = [0, 1, 2].map((i) => DynamicMessage.create(All, { f_bytes: piece(n, 10 + i), f_string: "q".repeat(Math.max(0, Math.floor(size / 3) - n)) }));
      const batch = ser.encodeAll(values);
      const own = batch.slice();
      const got = ser.decodeAll(own);
      own.fill(0);
      got.forEach((v, i) => checkPiece(v.get("f_bytes") as Uint8Array, piece(n, 10 + i), own));
      // A piece of one frame changed in place: the other frames and their relays are untouched.
      (got[0]!.get("f_bytes") as Uint8Array).fill(0x77);
      same(ser.encodeAll(got.slice(1)), ser.encodeAll(values.slice(1)));
    }
  });

  test("a single frame (decode) cuts its pieces like a bare message", () => {
    const b = piece(16, 9);
    const frame = ser.encode(DynamicMessage.create(All, { f_bytes: b }));
    const v = ser.decode(frame);
    checkPiece(v.get("f_bytes") as Uint8Array, b, frame);
    frame.fill(0);
    same(v.get("f_bytes") as Uint8Array, b);
  });
});
