// Hardening items 11 and 14: frames are refused from their length prefix before anything is
// copied or built. decodeAll/validateAll with maxMessageBytes 1 KiB copied a 200 MB buffer whose
// first prefix announces 2^40 bytes into WebAssembly memory (which never shrank) before refusing
// it; decode() of 4 million empty frames built all of them before saying NOT_ONE_FRAME. The core
// now reads frames from bounded segments of the input and checks each prefix first; decode()
// checks that the first prefix spans the input and otherwise only validates. Memory is measured,
// never time.
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { create } from "@bufbuild/protobuf";
import { GeneratedDecoder } from "../../src/codec/generated-reader.js";
import { BoundDecoder, setSmallDecodeThreshold } from "../../src/codec/reader.js";
import { CodecError, DynamicMessage, FrameReader, ProtobufType, releaseMemory, wasmMemoryBytes } from "../../src/index.js";
import { repeat, typeOf, varint } from "./support.js";

const MiB = 1024 * 1024;
const type = typeOf("message Item { int32 id = 1; bytes data = 2; }", "Item", (b) => b.maxMessageBytes(1024));
const ser = type.createSerializer();
const ROOT = "Item";

function codecError(f: () => unknown): CodecError {
  try {
    f();
  } catch (e) {
    if (e instanceof CodecError) return e;
    throw e;
  }
  throw new Error("expected a CodecError");
}

/** `total` bytes: the `frames` given, then a prefix announcing `announced` bytes, then zeros. */
function buffer(frames: number[], announced: bigint, total: number): Uint8Array {
  const head = [...frames, ...varint(announced)];
  const out = new Uint8Array(total);
  out.set(head);
  return out;
}

const one = [...varint(4), 0x08, 0x07, 0x12, 0x00];

beforeEach(() => {
  // Warm: the memory a decodeAll of a few MiB of frames needs in the core, so that "no growth"
  // is exact (read by the core whatever the project's threshold: the TypeScript reader, which
  // reads batches of small frames, grows no memory).
  releaseMemory();
  const was = setSmallDecodeThreshold(0);
  try {
    ser.decodeAll(repeat([...varint(1000), 0x12, ...varint(997), ...new Uint8Array(997)], 3000));
  } finally {
    setSmallDecodeThreshold(was);
  }
});
afterEach(() => releaseMemory());

describe("a frame over maxMessageBytes is refused from its prefix, nothing of it copied", () => {
  test.each([
    ["decodeAll", (b: Uint8Array) => ser.decodeAll(b)],
    ["validateAll", (b: Uint8Array) => ser.validateAll(b)],
  ])("%s: 200 MB whose first prefix announces 2^40 bytes", (_, run) => {
    const input = buffer([], 2n ** 40n, 200_000_000);
    const before = wasmMemoryBytes();
    const e = codecError(() => run(input));
    expect([e.code, e.offset, e.path]).toEqual(["FRAME_TOO_LARGE", 0, ROOT]);
    expect(e.message).toBe(
      `cannot decode ${ROOT}: the frame at byte 0 announces 1099511627776 bytes, above maxMessageBytes 1024; raise maxMessageBytes or reject the input`,
    );
    expect(wasmMemoryBytes()).toBe(before);
  });

  test.each([
    ["decodeAll", (b: Uint8Array) => ser.decodeAll(b)],
    ["validateAll", (b: Uint8Array) => ser.validateAll(b)],
  ])("%s: the same prefix after 3 MiB of valid frames, at its offset", (_, run) => {
    const valid = repeat(one, Math.floor((3 * MiB) / one.length));
    const input = buffer(Array.from(valid), 2n ** 40n, 200_000_000);
    const before = wasmMemoryBytes();
    const e = codecError(() => run(input));
    expect([e.code, e.offset]).toEqual(["FRAME_TOO_LARGE", valid.length]);
    expect(wasmMemoryBytes()).toBe(before);
  });

  test("decodeAll: 200 MB refused from its first prefix is not copied on the JavaScript side either", () => {
    const input = buffer([], 2n ** 40n, 200_000_000);
    globalThis.gc?.();
    const before = process.memoryUsage().arrayBuffers;
    expect(codecError(() => ser.decodeAll(input)).code).toBe("FRAME_TOO_LARGE");
    // A copy of the input would still be counted here (nothing has collected it yet).
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(20 * MiB);
  });

  test("a FrameReader refuses it without any copy either", () => {
    const e = codecError(() => ser.deserialize(new FrameReader(buffer([], 2n ** 40n, 200_000_000))));
    expect([e.code, e.offset]).toEqual(["FRAME_TOO_LARGE", 0]);
  });

  test("a frame within the limit but past the end of the input is FRAME_TRUNCATED, its body never copied", () => {
    const big = typeOf("message Item { bytes data = 2; }", "Item", (b) => b.maxMessageBytes(1 << 30)).createSerializer();
    const input = buffer(one, 900_000_000n, 50_000_000);
    const before = wasmMemoryBytes();
    for (const run of [() => big.decodeAll(input), () => big.validateAll(input)]) {
      const e = codecError(run);
      expect([e.code, e.offset]).toEqual(["FRAME_TRUNCATED", one.length]);
    }
    expect(wasmMemoryBytes()).toBe(before);
  });
});

describe("decode() of a buffer that is not one frame builds nothing", () => {
  const N = 4_000_000;
  const decoder = new BoundDecoder(type.descriptor, type.settings);

  test("4 million empty frames: NOT_ONE_FRAME, no value built, memory of a segment", () => {
    const input = new Uint8Array(N);
    const built = vi.spyOn(DynamicMessage, "_fromDecodedAt");
    const before = wasmMemoryBytes();
    try {
      const e = codecError(() => decoder.oneFrame(input));
      expect([e.code, e.path, e.message]).toEqual([
        "NOT_ONE_FRAME",
        ROOT,
        `cannot decode ${ROOT}: decode expects exactly one frame, got ${N}; use decodeAll for a batch of frames`,
      ]);
      expect(built).not.toHaveBeenCalled();
      expect(wasmMemoryBytes()).toBe(before);
    } finally {
      built.mockRestore();
    }
  });

  test("the serializer's decode() gives the same error", () => {
    const e = codecError(() => ser.decode(new Uint8Array(N)));
    expect([e.code, e.message]).toEqual([
      "NOT_ONE_FRAME",
      `cannot decode ${ROOT}: decode expects exactly one frame, got ${N}; use decodeAll for a batch of frames`,
    ]);
  });

  test.each([
    ["no frame", [], "NOT_ONE_FRAME", undefined],
    ["two frames", [...one, ...one], "NOT_ONE_FRAME", undefined],
    ["one frame and a cut one", [...one, 0x05, 0x08], "FRAME_TRUNCATED", one.length],
    ["a frame whose body is malformed, then another", [0x02, 0x08, 0x80, ...one], "TRUNCATED", 2],
    ["a cut prefix", [0x80], "FRAME_TRUNCATED", 0],
    ["a frame over the limit", [...varint(1025)], "FRAME_TOO_LARGE", 0],
  ])("%s: the error a decode of every frame gives (%s)", (_, bytes, code, offset) => {
    const input = Uint8Array.from(bytes as number[]);
    const e = codecError(() => decoder.oneFrame(input));
    expect([e.code, e.offset]).toEqual([code, offset]);
    // What decode() did before: build every frame, then count them.
    const before = codecError(() => {
      const n = decoder.frames(input).length;
      if (n !== 1) {
        throw new CodecError("NOT_ONE_FRAME", `cannot decode ${ROOT}: decode expects exactly one frame, got ${n}; use decodeAll for a batch of frames`, { path: ROOT });
      }
    });
    expect([e.code, e.offset, e.path, e.message]).toEqual([before.code, before.offset, before.path, before.message]);
  });

  test.each([
    ["a minimal prefix", [...varint(4), 0x08, 0x07, 0x12, 0x00]],
    ["a non-minimal prefix (a legal varint)", [0x84, 0x80, 0x00, 0x08, 0x07, 0x12, 0x00]],
    ["an empty frame", [0x00]],
  ])("one frame with %s decodes", (_, bytes) => {
    const input = Uint8Array.from(bytes);
    const v = decoder.oneFrame(input);
    expect(v.equals(ser.decodeAll(input)[0]!)).toBe(true);
  });
});

describe("the generated kind refuses the same frames from their prefix, with the same errors", () => {
  const gen = ProtobufType.newGeneratedBuilder(type.descriptor).maxMessageBytes(1024).build().createSerializer();
  const same = (a: CodecError, b: CodecError) => expect([a.code, a.offset, a.path, a.message]).toEqual([b.code, b.offset, b.path, b.message]);

  test.each([
    ["decodeAll", (b: Uint8Array) => gen.decodeAll(b), (b: Uint8Array) => ser.decodeAll(b)],
    ["validateAll", (b: Uint8Array) => gen.validateAll(b), (b: Uint8Array) => ser.validateAll(b)],
    ["a FrameReader", (b: Uint8Array) => gen.deserialize(new FrameReader(b)), (b: Uint8Array) => ser.deserialize(new FrameReader(b))],
  ])("%s: 200 MB whose first prefix announces 2^40 bytes, first and after 3 MiB of frames", (_, run, dynamic) => {
    const valid = repeat(one, Math.floor((3 * MiB) / one.length));
    for (const input of [buffer([], 2n ** 40n, 200_000_000), buffer(Array.from(valid), 2n ** 40n, 200_000_000)]) {
      const before = wasmMemoryBytes();
      const e = codecError(() => run(input));
      expect(e.code).toBe("FRAME_TOO_LARGE");
      same(e, codecError(() => dynamic(input)));
      expect(wasmMemoryBytes()).toBe(before);
      if (_ === "a FrameReader") break; // the reader stops at the first frame, which is valid
    }
  });

  test("a frame within the limit but past the end of the input is FRAME_TRUNCATED, its body never copied", () => {
    const big = ProtobufType.newGeneratedBuilder(type.descriptor).maxMessageBytes(1 << 30).build().createSerializer();
    const input = buffer(one, 900_000_000n, 50_000_000);
    const before = wasmMemoryBytes();
    const e = codecError(() => big.decodeAll(input));
    expect([e.code, e.offset]).toEqual(["FRAME_TRUNCATED", one.length]);
    expect(wasmMemoryBytes()).toBe(before);
  });

  test("decode() of 4 million empty frames: NOT_ONE_FRAME, no value built, memory of a segment", () => {
    const N = 4_000_000;
    const built = vi.spyOn(GeneratedDecoder.prototype, "frames");
    const before = wasmMemoryBytes();
    try {
      const e = codecError(() => gen.decode(new Uint8Array(N)));
      same(e, codecError(() => ser.decode(new Uint8Array(N))));
      expect(e.message).toBe(`cannot decode ${ROOT}: decode expects exactly one frame, got ${N}; use decodeAll for a batch of frames`);
      expect(built).not.toHaveBeenCalled();
      expect(wasmMemoryBytes()).toBe(before);
    } finally {
      built.mockRestore();
    }
  });

  test.each([
    ["no frame", []],
    ["two frames", [...one, ...one]],
    ["one frame and a cut one", [...one, 0x05, 0x08]],
    ["a frame whose body is malformed, then another", [0x02, 0x08, 0x80, ...one]],
    ["a cut prefix", [0x80]],
    ["a frame over the limit", [...varint(1025)]],
    ["a bare message (the hint names fromBinary)", [0x08, 0x07, 0x12, 0x00]],
  ])("decode() of %s: the dynamic kind's error", (_, bytes) => {
    const input = Uint8Array.from(bytes as number[]);
    same(codecError(() => gen.decode(input)), codecError(() => ser.decode(input)));
  });

  test.each([
    ["a minimal prefix", [...varint(4), 0x08, 0x07, 0x12, 0x00]],
    ["a non-minimal prefix (a legal varint)", [0x84, 0x80, 0x00, 0x08, 0x07, 0x12, 0x00]],
    ["an empty frame", [0x00]],
  ])("one frame with %s decodes", (_, bytes) => {
    const input = Uint8Array.from(bytes);
    expect(gen.decode(input)).toEqual(gen.decodeAll(input)[0]);
    expect(gen.decode(input)).toEqual(create(type.descriptor, bytes.length > 1 ? ({ id: 7, data: new Uint8Array(0) } as never) : undefined));
  });
});
