// Hardening item 12: the core's working memory is bounded. The decode tape takes 16 bytes per
// entry, and some shapes give an entry (or two) per two input bytes: one 60 MB input of map
// entries left 1.1 GB of WebAssembly memory behind (18x), for good. The walk now writes its tape
// into a window of at most 1 MiB that the reader consumes and the core refills, frames are copied
// in 1 MiB segments, and releaseMemory() (or 16 quiet calls) gives grown memory back. Memory is
// read through the public wasmMemoryBytes(); each case starts on a fresh core (releaseMemory), so
// what it reads is the case's peak: the input copy plus about 2 MiB (README, "Memory").
import { create, toBinary } from "@bufbuild/protobuf";
import fc from "fast-check";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { CodecError, DynamicMessage, ProtobufType, releaseMemory, wasmMemoryBytes } from "../../src/index.js";
import { setLazyDecodeThreshold, setSmallDecodeThreshold } from "../../src/codec/reader.js";
import { setWindowSizes, type WindowSizes } from "../../src/wasm/ops.js";
import { messageArb } from "../support/arbitrary-message.js";
import { registryFromDir } from "../support/buf.js";
import { ld, repeat, tag, typeOf, varint } from "./support.js";

const MiB = 1024 * 1024;
/** What a bare message may cost beyond its own copy (window, text area, stack, table). */
const SLACK = 3 * MiB;

const shapes = typeOf(
  `message Empty {}
   message Shapes {
     Empty e = 1;
     map<int32, int32> m = 2;
     int32 i = 3;
     repeated int64 small = 4 [jstype = JS_NUMBER];
     repeated uint64 big = 5 [jstype = JS_STRING];
     repeated string s = 6;
   }`,
  "Shapes",
  (b) => b.maxMessageBytes(1 << 30),
);
const ser = shapes.createSerializer();
// aliasThreshold > 0 decodes bare messages eagerly (one walk), else large ones lazily (validate,
// then a walk when a field is first read): both paths are measured.
const eager = ProtobufType.newBuilder(shapes.descriptor).maxMessageBytes(1 << 30).aliasThreshold(1 << 30).build().createSerializer();
const empty = typeOf("message Empty {}", "Empty", (b) => b.maxMessageBytes(1 << 30)).createSerializer();

const packed = (num: number, elements: Uint8Array): Uint8Array => {
  const head = [...tag(num, 2), ...varint(elements.length)];
  const out = new Uint8Array(head.length + elements.length);
  out.set(head);
  out.set(elements, head.length);
  return out;
};

/**
 * Each worst shape: its size in MiB (smaller where the values built in JS are many), its bytes for
 * about `n` input bytes, and a check of the decoded value.
 */
const SHAPES: [string, number, (n: number) => Uint8Array, (v: DynamicMessage, n: number) => void][] = [
  ["empty sub-messages (0a 00)", 8, (n) => repeat([0x0a, 0], n / 2), (v) => expect(v.get("e")).toBeInstanceOf(DynamicMessage)],
  ["1-byte map entries (12 00)", 4, (n) => repeat([0x12, 0], n / 2), (v) => expect(v.get("m")).toEqual(new Map([[0, 0]]))],
  ["short scalars (18 01)", 8, (n) => repeat([0x18, 1], n / 2), (v) => expect(v.get("i")).toBe(1)],
  ["unknown varint fields (38 00)", 4, (n) => repeat([0x38, 0], n / 2), (v, n) => expect(v.unknownFields.get(7)?.length).toBe(n / 2)],
  ["packed 1-byte int64 (x8 decoded)", 4, (n) => packed(4, new Uint8Array(n).fill(1)), (v, n) => expect((v.get("small") as number[]).length).toBe(n)],
  ["packed 10-byte varints", 8, (n) => packed(5, repeat(varint(2n ** 63n + 1n), Math.floor(n / 10))), (v, n) => expect((v.get("big") as string[])[Math.floor(n / 10) - 1]).toBe(String(2n ** 63n + 1n))],
  ["long strings (1 MiB ASCII)", 8, (n) => repeat(ld(6, new Uint8Array(MiB).fill(0x61)), n / MiB), (v, n) => expect((v.get("s") as string[]).length).toBe(n / MiB)],
];

afterEach(() => releaseMemory());

describe("peak WebAssembly memory per shape is the input plus a constant", () => {
  test.each(SHAPES)("%s, %i MiB, lazy and eager", (_, mib, make, check) => {
    const n = mib * MiB;
    const bytes = make(n);
    for (const s of [ser, eager]) {
      releaseMemory();
      const v = s.fromBinary(bytes);
      check(v, n);
      expect(wasmMemoryBytes()).toBeLessThanOrEqual(bytes.length + SLACK);
    }
  });

  test("decodeAll of 500,000 empty frames holds a segment, not the tape of them all", () => {
    releaseMemory();
    const values = empty.decodeAll(new Uint8Array(500_000));
    expect(values).toHaveLength(500_000);
    expect(wasmMemoryBytes()).toBeLessThanOrEqual(4 * MiB);
  });

  test("decodeAll of 16 MiB of 1 KiB frames holds a segment, not the input", () => {
    const frame = [...varint(1027), ...ld(6, new Uint8Array(1024).fill(0x62))];
    const buf = repeat(frame, Math.floor((16 * MiB) / frame.length));
    releaseMemory();
    const values = ser.decodeAll(buf);
    expect(values.length).toBe(buf.length / frame.length);
    expect((values.at(-1)!.get("s") as string[])[0]).toHaveLength(1024);
    expect(wasmMemoryBytes()).toBeLessThanOrEqual(4 * MiB);
    ser.validateAll(buf);
    expect(wasmMemoryBytes()).toBeLessThanOrEqual(4 * MiB);
  });

  test("one 8 MiB frame is copied whole once: memory is the frame plus a constant", () => {
    const body = repeat([0x0a, 0], 4 * MiB);
    const prefix = varint(body.length);
    const framed = new Uint8Array(prefix.length + body.length);
    framed.set(prefix);
    framed.set(body, prefix.length);
    releaseMemory();
    expect(ser.decodeAll(framed)).toHaveLength(1);
    expect(wasmMemoryBytes()).toBeLessThanOrEqual(framed.length + SLACK);
  });
});

describe("releaseMemory gives memory back", () => {
  // The release rule counts core calls: small messages must reach the core here, not the
  // TypeScript reader of small messages (src/codec/small-reader.ts), which never calls it.
  let small = 0;
  beforeAll(() => void (small = setSmallDecodeThreshold(0)));
  afterAll(() => void setSmallDecodeThreshold(small));
  const rich = registryFromDir("fixtures/all-types").getMessage("alltypes.AllTypes")!;
  const richSer = ProtobufType.of(rich).createSerializer();
  const value = DynamicMessage.create(rich, { f_string: "héllo", r_int64: [1n, -2n], m_string: { a: "b" }, children: [{ f_int32: 3 }] });
  const bytes = richSer.toBinary(value);

  test("after a large decode, memory returns to a fresh core's; decode and validate still work", () => {
    releaseMemory();
    richSer.fromBinary(bytes);
    const fresh = wasmMemoryBytes();
    const lazyBefore = ser.fromBinary(repeat([0x12, 0], 8 * MiB));
    expect(wasmMemoryBytes()).toBeGreaterThan(16 * MiB);
    releaseMemory();
    expect(wasmMemoryBytes()).toBe(fresh);
    expect(richSer.fromBinary(bytes).equals(value)).toBe(true);
    expect(richSer.decodeAll(richSer.encodeAll([value, value])).map((v) => v.equals(value))).toEqual([true, true]);
    richSer.validate(bytes);
    expect(() => richSer.validate(bytes.subarray(0, bytes.length - 1))).toThrow(CodecError);
    expect(wasmMemoryBytes()).toBe(fresh);
    // A value decoded before (lazily: read only now, which needs the memory again) holds its
    // own bytes, not the core's.
    expect(lazyBefore.get("m")).toEqual(new Map([[0, 0]]));
  });

  test("without a call: 16 calls in a row that need under a quarter of the memory, and the next starts small", () => {
    releaseMemory();
    richSer.fromBinary(bytes);
    const fresh = wasmMemoryBytes();
    eager.fromBinary(repeat([0x12, 0], 8 * MiB));
    const grown = wasmMemoryBytes();
    expect(grown).toBeGreaterThan(8 * MiB);
    for (let i = 0; i < 16; i++) {
      expect(richSer.fromBinary(bytes).equals(value)).toBe(true);
      expect(wasmMemoryBytes()).toBe(grown);
    }
    expect(richSer.fromBinary(bytes).equals(value)).toBe(true);
    expect(wasmMemoryBytes()).toBe(fresh);
  });

  test("a large call in between starts the count again", () => {
    releaseMemory();
    richSer.fromBinary(bytes);
    const big = repeat([0x12, 0], 8 * MiB);
    eager.fromBinary(big);
    const grown = wasmMemoryBytes();
    for (let i = 0; i < 10; i++) richSer.fromBinary(bytes);
    eager.fromBinary(big);
    for (let i = 0; i < 16; i++) richSer.fromBinary(bytes);
    expect(wasmMemoryBytes()).toBe(grown);
  });

  test("before the core starts, and twice in a row, it does nothing harmful", () => {
    releaseMemory();
    const fresh = wasmMemoryBytes();
    releaseMemory();
    expect(wasmMemoryBytes()).toBe(fresh);
    expect(richSer.fromBinary(bytes).equals(value)).toBe(true);
  });
});

// The walk paused and resumed at every window boundary: tiny tape windows, text areas and
// segments put a pause between every two entries somewhere in these runs, inside packed runs and
// long strings too. Values, errors and validation must not change.
describe("a walk paused at every window boundary reads the same values and errors", () => {
  const All = registryFromDir("fixtures/all-types").getMessage("alltypes.AllTypes")!;
  const allSer = ProtobufType.of(All).createSerializer();
  const JSON_TYPES = ["google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue"];
  const sample = DynamicMessage.create(All, {
    f_string: "x".repeat(40),
    f_bytes: new Uint8Array([1, 2, 3]),
    f_message: { name: "leaf", value: 9 },
    r_int64: [1n, -1n, 2n ** 62n, 0n, 5n],
    r_double: [1.5, -0, 3],
    r_bool: [true, false, true],
    r_sint32: [-5, 5, -(2 ** 31)],
    r_string: ["a", "héllo", "", "ascii-but-longer-than-sixteen"],
    r_message: [{ name: "one" }, {}, { name: "three", value: -1 }],
    m_string: { k: "v", "ключ": "значение" },
    mv_message: { a: { name: "in a map" } },
    c_string: "choice",
    nested: { a: 1, inner: { a: 2, leaves: [{ name: "deep" }] } },
    children: [{ f_int32: 1, r_uint64: [2n ** 64n - 1n] }, { f_string: "child" }],
    f_max_number: "last",
  });
  const bytes = allSer.toBinary(sample);
  const framed = allSer.encodeAll([sample, sample, sample]);
  const DEFAULT: WindowSizes = { tape: MiB, text: MiB, segment: MiB };
  const use = (sizes: Partial<WindowSizes>): void => void setWindowSizes({ ...DEFAULT, ...sizes });
  afterEach(() => use(DEFAULT));

  function outcome(f: () => unknown): string {
    try {
      f();
      return "ok";
    } catch (e) {
      if (!(e instanceof CodecError)) throw e;
      return `${e.code} ${e.offset} ${e.path} ${e.message}`;
    }
  }

  test("every tape window from 64 bytes up to the whole tape, eager and lazy, bare and framed", () => {
    const windows = Array.from({ length: 120 }, (_, i) => 64 + 16 * i);
    for (const lazyMin of [Infinity, 0]) {
      const was = setLazyDecodeThreshold(lazyMin);
      try {
        for (const tape of windows) {
          use({ tape, text: 24, segment: 16 });
          expect(allSer.fromBinary(bytes).equals(sample)).toBe(true);
          expect(allSer.decodeAll(framed).map((v) => v.equals(sample))).toEqual([true, true, true]);
        }
      } finally {
        setLazyDecodeThreshold(was);
      }
    }
  });

  test("every text area size from 0 to past the longest string, and every segment size up to a frame", () => {
    for (let text = 0; text <= 48; text++) {
      use({ tape: 256, text, segment: 16 + text * 8 });
      expect(allSer.fromBinary(bytes).equals(sample)).toBe(true);
      expect(allSer.decodeAll(framed).map((v) => v.equals(sample))).toEqual([true, true, true]);
      allSer.validateAll(framed);
    }
  });

  test("a packed run split over many windows keeps every element in order", () => {
    const big = DynamicMessage.create(All, {
      r_int64: Array.from({ length: 3000 }, (_, i) => BigInt.asIntN(64, BigInt(i * (i % 2 ? -1 : 1)) << BigInt(i % 64))),
      r_fixed32: Array.from({ length: 3000 }, (_, i) => i * 7919),
      r_bool: Array.from({ length: 3000 }, (_, i) => i % 3 === 0),
      r_double: Array.from({ length: 3000 }, (_, i) => i / 7),
    });
    const b = allSer.toBinary(big);
    for (const tape of [64, 80, 96, 128, 1024]) {
      use({ tape });
      expect(allSer.fromBinary(b).equals(big)).toBe(true);
    }
  });

  test("truncated and corrupted inputs fail with the same error whatever the windows", () => {
    const cases: Uint8Array[] = [];
    for (let cut = 0; cut < bytes.length; cut += 3) cases.push(bytes.subarray(0, cut));
    for (let at = 0; at < bytes.length; at += 5) {
      const c = bytes.slice();
      c[at] = 0xff;
      cases.push(c);
    }
    const expected = cases.map((c) => [outcome(() => allSer.fromBinary(c)), outcome(() => allSer.decodeAll(new Uint8Array([...varint(c.length), ...c, ...framed])))]);
    for (const sizes of [{ tape: 64, text: 0, segment: 16 }, { tape: 112, text: 7, segment: 40 }]) {
      use(sizes);
      cases.forEach((c, i) => {
        expect(outcome(() => allSer.fromBinary(c))).toBe(expected[i]![0]);
        expect(outcome(() => allSer.decodeAll(new Uint8Array([...varint(c.length), ...c, ...framed])))).toBe(expected[i]![1]);
      });
      // A walk that failed after windows were read leaves nothing behind.
      expect(allSer.fromBinary(bytes).equals(sample)).toBe(true);
    }
  });

  test("property: generated messages read the same with 64-byte windows", () => {
    fc.assert(
      fc.property(messageArb(All, 2, { skipTypes: JSON_TYPES }), (s) => {
        const b = toBinary(All, create(All, s.es as never));
        use(DEFAULT);
        const wide = allSer.fromBinary(b);
        use({ tape: 64, text: 5, segment: 16 });
        expect(allSer.fromBinary(b).equals(wide)).toBe(true);
        const two = allSer.decodeAll(allSer.encodeAll([wide, wide]));
        expect(two.map((v) => v.equals(wide))).toEqual([true, true]);
      }),
      { numRuns: 150 },
    );
  });
});
