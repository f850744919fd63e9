// The write arena's lease: a writer claims a chunk's free tail, and what it settles is its output.
// Whatever runs between the lease and the settle (a nested write from a getter, a decode's copy)
// takes a new chunk, never the leased tail, and no piece handed out may share a byte with another.
import { describe, expect, test } from "vitest";
import { Arena } from "../src/codec/arena.js";
import { DynamicMessage, ProtobufType } from "../src/index.js";
import { pbjsType } from "./adversarial/support.js";

/** [offset, end) of `piece` in its buffer. */
const range = (piece: Uint8Array): [ArrayBufferLike, number, number] => [piece.buffer, piece.byteOffset, piece.byteOffset + piece.length];

function expectDisjoint(pieces: readonly Uint8Array[]): void {
  for (let i = 0; i < pieces.length; i++) {
    for (let j = i + 1; j < pieces.length; j++) {
      const [ba, sa, ea] = range(pieces[i]!);
      const [bb, sb, eb] = range(pieces[j]!);
      if (ba === bb) expect(ea <= sb || eb <= sa, `pieces ${i} and ${j} overlap`).toBe(true);
    }
  }
}

/** Leases, lets `between` run, writes `used` bytes of `fill` into the leased tail and settles. */
function leaseAndSettle(arena: Arena, used: number, fill: number, between: () => void): Uint8Array {
  const start = arena.lease();
  const chunk = arena.chunk;
  between();
  chunk.fill(fill, start, start + used);
  return arena.settle(chunk, start, used);
}

describe("Arena.settle", () => {
  // [what runs between lease and settle, the pieces it allocates]
  const cases: [string, (a: Arena, out: Uint8Array[]) => void][] = [
    ["nothing", () => {}],
    ["one small alloc", (a, out) => out.push(a.alloc(24).fill(0xa1))],
    ["allocs that fill a whole chunk and more", (a, out) => {
      for (let i = 0; i < 40; i++) out.push(a.alloc(100).fill(0xa2));
    }],
    ["a nested lease and settle", (a, out) => out.push(leaseAndSettle(a, 300, 0xa3, () => {}))],
  ];
  test.each(cases)("a lease with %s in between: the output is the settled bytes, disjoint from every other piece", (_, between) => {
    const arena = new Arena(1024, 256);
    const pieces: Uint8Array[] = [arena.alloc(40).fill(0x11)];
    const out = leaseAndSettle(arena, 200, 0x22, () => between(arena, pieces));
    expect(out.length).toBe(200);
    expect(out.every((b) => b === 0x22)).toBe(true);
    expect(Object.getPrototypeOf(out)).toBe(Uint8Array.prototype);
    pieces.push(out);
    // Later pieces come after it (or from another chunk), and the earlier ones kept their bytes.
    for (let i = 0; i < 30; i++) pieces.push(arena.alloc(50).fill(0x33));
    expectDisjoint(pieces);
    expect(pieces[0]!.every((b) => b === 0x11)).toBe(true);
    expect(out.every((b) => b === 0x22)).toBe(true);
  });

  test.each([0, 1, 7, 8, 9, 255, 256])("an output of %i bytes gives back the rest of the tail, 8-aligned", (used) => {
    const arena = new Arena(1024, 256);
    const out = leaseAndSettle(arena, used, 0x44, () => {});
    const next = arena.alloc(8);
    expect(next.buffer).toBe(out.buffer);
    expect(next.byteOffset).toBe((used + 7) & ~7);
  });

  test("a settle after the chunk was replaced keeps the tail out of later pieces", () => {
    const arena = new Arena(1024, 256);
    const start = arena.lease();
    const chunk = arena.chunk;
    const other = arena.alloc(64);
    expect(other.buffer).not.toBe(chunk.buffer);
    const out = arena.settle(chunk, start, 10);
    expect(out.buffer).toBe(chunk.buffer);
    expect(out.byteOffset).toBe(start);
    // The replaced chunk's tail is not handed out again.
    for (let i = 0; i < 20; i++) expect(arena.alloc(64).buffer).not.toBe(chunk.buffer);
  });
});

describe("outputs of writes nested in a write (a getter of the value writes)", () => {
  const type = ProtobufType.of(pbjsType("message M { string s = 1; int32 n = 2; }", "M"));
  const ser = type.createSerializer();
  // Sizes whose outputs come from the small chunks, fill one, and come from the middle ones.
  test.each([1, 100, 3_000, 20_000])("strings of %i units: every output is its own bytes", (size) => {
    const outs: Uint8Array[] = [];
    const init = {
      get s(): string {
        for (let i = 0; i < 3; i++) outs.push(ser.toBinary({ s: "i".repeat(size), n: i + 1 }));
        return "o".repeat(size);
      },
      n: 9,
    };
    const outer = ser.toBinary(init);
    outs.push(outer);
    expectDisjoint(outs);
    expect(ser.fromBinary(outer).toObject()).toEqual({ s: "o".repeat(size), n: 9 });
    outs.slice(0, 3).forEach((o, i) => expect(ser.fromBinary(o).toObject()).toEqual({ s: "i".repeat(size), n: i + 1 }));
    // The same value written by the dynamic writer: the same bytes.
    expect(ser.toBinary(DynamicMessage.create(type.descriptor, { s: "o".repeat(size), n: 9 }))).toEqual(outer);
  });
});
