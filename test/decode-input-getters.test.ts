// An input whose `length` (or `subarray`, or `constructor`) runs application code: a Uint8Array
// subclass with a getter, or an own accessor on a plain Uint8Array. Readers read an input's
// length and take subarrays of it after the core holds state for the read; code that ran there
// and decoded other bytes (or released the core's memory) made decodeAll return that other
// input's values or none, and made reads fail with internal errors on valid input. Every read
// method now reads such an input through the engine's own getters: the values of the bytes
// passed, whatever the getter does.
import { describe, expect, test } from "vitest";
import { FrameReader, ProtobufType, releaseMemory } from "../src/index.js";
import { registryFromDir } from "./support/buf.js";
import { AllTypesSchema } from "./fixtures/generated-es/gen/all_types_pb.js";

const All = registryFromDir("fixtures/all-types").getMessage("alltypes.AllTypes")!;
const ser = ProtobufType.of(All).createSerializer();
const gen = ProtobufType.ofGenerated(AllTypesSchema).createSerializer();

const values = Array.from({ length: 30 }, (_, i) => ({ f_int32: i, f_string: `item-${i}`, r_int32: [i, -i, 300], children: [{ f_string: "c".repeat(i * 40) }] }));
const batch = ser.encodeAll(values as never);
const one = ser.toBinary(values[7] as never);
// Under the small-read threshold (256 B): fromBinary copies it without reading its properties.
const oneSmall = ser.toBinary(values[1] as never);
const otherSmall = ser.toBinary({ f_string: "X".repeat(100), f_int32: -1 } as never);
const otherBatch = ser.encodeAll(Array.from({ length: 30 }, () => ({ f_string: "OTHER", f_int32: 99 })) as never);
const otherOne = ser.toBinary({ f_string: "O".repeat(9000), r_int32: [9, 9, 9] } as never);

/** What the hostile code does when it runs: another read of the same or the other kind, or a release. */
const interference: [string, () => void][] = [
  ["decodeAll of other bytes", () => void ser.decodeAll(otherBatch)],
  ["fromBinary of other bytes, read", () => void ser.fromBinary(otherOne).toObject()],
  ["validate of other bytes", () => ser.validate(otherOne)],
  ["generated decodeAll of other bytes", () => void gen.decodeAll(otherBatch)],
  ["releaseMemory", () => releaseMemory()],
  ["a refused read", () => void (() => { try { ser.fromBinary(new Uint8Array([0x0a, 0x05])); } catch { /* refused */ } })()],
];

/** Inputs over `bytes` whose named property runs `run` on every read (and returns the true answer). */
function hostile(bytes: Uint8Array, run: () => void): [string, Uint8Array][] {
  class Sub extends Uint8Array {
    override get length(): number {
      run();
      return super.length;
    }
  }
  class SubArray extends Uint8Array {
    override subarray(start?: number, end?: number): Uint8Array<ArrayBuffer> {
      run();
      return super.subarray(start, end);
    }
  }
  class Species extends Uint8Array {
    static get [Symbol.species](): Uint8ArrayConstructor {
      run();
      return Uint8Array;
    }
  }
  const own = new Uint8Array(bytes);
  Object.defineProperty(own, "length", { get: () => (run(), bytes.length) });
  const ownSub = new Uint8Array(bytes);
  Object.defineProperty(ownSub, "subarray", { value: (s?: number, e?: number) => (run(), Uint8Array.prototype.subarray.call(ownSub, s, e)) });
  const buf = Buffer.from(bytes);
  Object.defineProperty(buf, "length", { get: () => (run(), bytes.length) });
  return [
    ["a subclass's length getter", new Sub(bytes)],
    ["a subclass's subarray", new SubArray(bytes)],
    ["a subclass's species", new Species(bytes)],
    ["an own length accessor", own],
    ["an own subarray", ownSub],
    ["a Buffer's own length accessor", buf],
  ];
}

const show = (vs: readonly { toObject(): unknown }[]) => JSON.stringify(vs.map((v) => v.toObject()), (_k, x: unknown) => (typeof x === "bigint" ? `${x}n` : x));
const showGen = (vs: readonly object[]) => JSON.stringify(vs, (_k, x: unknown) => (typeof x === "bigint" ? `${x}n` : x instanceof Uint8Array ? [...x] : x));

const reads: [string, Uint8Array, (input: Uint8Array) => string][] = [
  ["decodeAll", batch, (b) => show(ser.decodeAll(b))],
  ["fromBinary", one, (b) => show([ser.fromBinary(b)])],
  ["fromBinary of a small message", oneSmall, (b) => show([ser.fromBinary(b)])],
  ["fromBinary of a small message, then its relay", oneSmall, (b) => JSON.stringify([...ser.toBinary(ser.fromBinary(b))])],
  ["decode (one frame)", batch.subarray(0, frameEnd(batch)), (b) => show([ser.decode(b)])],
  ["validate", one, (b) => (ser.validate(b), "valid")],
  ["validateAll", batch, (b) => (ser.validateAll(b), "valid")],
  ["deserialize (FrameReader)", batch, (b) => {
    const r = new FrameReader(b);
    const out = [];
    while (r.hasMore()) out.push(ser.deserialize(r));
    return show(out);
  }],
  ["generated fromBinary", one, (b) => showGen([gen.fromBinary(b)])],
  ["generated decodeAll", batch, (b) => showGen(gen.decodeAll(b))],
  ["generated validate", one, (b) => (gen.validate(b), "valid")],
];

/** The end of the first frame of `b` (a one-byte or two-byte length prefix). */
function frameEnd(b: Uint8Array): number {
  let n = b[0]! & 0x7f;
  let at = 1;
  if (b[0]! & 0x80) {
    n |= b[1]! << 7;
    at = 2;
  }
  return at + n;
}

describe("reads of an input whose properties run code give the values of the bytes passed", () => {
  const cases = reads.flatMap(([read, bytes, run]) => interference.flatMap(([what, act]) => hostile(bytes, act).map(([how, input]) => [read, how, what, bytes, input, run] as const)));
  test.each(cases)("%s: %s runs %s", (_read, _how, _what, bytes, input, run) => {
    const want = run(bytes);
    expect(run(input)).toBe(want);
    // and the reader is sound after it
    expect(run(bytes)).toBe(want);
  });
});

test("decodeStream: chunks whose length runs a decodeAll of other bytes", async () => {
  const want = show(ser.decodeAll(batch));
  const chunks = [batch.subarray(0, 100), batch.subarray(100, 1000), batch.subarray(1000)].map((c) => hostile(c, () => void ser.decodeAll(otherBatch))[0]![1]);
  async function* source() {
    yield* chunks;
  }
  const got = [];
  for await (const v of ser.decodeStream(source())) got.push(v);
  expect(show(got)).toBe(want);
});

test.each([
  ["fromBinary of a small message", oneSmall],
  ["fromBinary", one],
])("%s: a length getter that lies (1, or 2x) is not what is read", (_read, bytes) => {
  const want = show([ser.fromBinary(bytes)]);
  for (const lie of [1, 2 * bytes.length]) {
    class Liar extends Uint8Array {
      override get length(): number {
        return lie;
      }
    }
    // Decoded, then other bytes: a copy sized by the lie would have taken less room in the read
    // arena than it filled, and the next copy would have overwritten the first value's source
    // (what its relay writes).
    const first = ser.fromBinary(new Liar(bytes));
    ser.fromBinary(new Liar(otherSmall));
    expect(show([first])).toBe(want);
    expect([...ser.toBinary(first)]).toEqual([...bytes]);
  }
});

test("the small message is under the small-read threshold, the other over it", () => {
  expect(oneSmall.length).toBeLessThan(256);
  expect(one.length).toBeGreaterThan(256);
});

test("an input of a plain class (Uint8Array, Buffer) is read in place, not copied to a view first", async () => {
  const { readable } = await import("../src/bytes.js");
  const u = new Uint8Array(one);
  const b = Buffer.from(one);
  expect(readable(u)).toBe(u);
  expect(readable(b)).toBe(b);
  const sub = new (class extends Uint8Array {})(one);
  const view = readable(sub);
  expect(view).not.toBe(sub);
  expect(Object.getPrototypeOf(view)).toBe(Uint8Array.prototype);
  expect(view.buffer).toBe(sub.buffer);
  expect([view.byteOffset, view.length]).toEqual([sub.byteOffset, sub.length]);
});
