// serializer.decodeStream: frames (framing v1) from a Node Readable, a WHATWG ReadableStream or
// any (async) iterable of chunks. Every split of the input into chunks gives the values decodeAll
// gives; a frame's size is checked from its length prefix before its bytes are read; chunks are
// pulled only as values are consumed; truncation, corruption and source errors are reported
// with stream offsets.
import { Readable } from "node:stream";
import { describe, expect, test } from "vitest";
import { CodecError, DynamicMessage, ProtobufType, type ProtobufSerializer } from "../src/index.js";
import { pbjsType } from "./adversarial/support.js";
import { fullGc } from "./support/heap.js";

const type = ProtobufType.newBuilder(pbjsType("message Item { string sku = 1; int32 qty = 2; bytes blob = 3; repeated Item parts = 4; }", "Item")).maxMessageBytes(1 << 20).build();
const ser = type.createSerializer();
const Item = type.descriptor;

// Frames of 0, a few, 200+ (a 2-byte prefix) and 20,000+ bytes (3-byte prefix).
const VALUES = [
  DynamicMessage.create(Item, {}),
  DynamicMessage.create(Item, { sku: "a", qty: 2 }),
  DynamicMessage.create(Item, { sku: "b".repeat(200), parts: [{ sku: "c" }] }),
  DynamicMessage.create(Item, { qty: -1 }),
];
const BIG = DynamicMessage.create(Item, { blob: new Uint8Array(20_000).fill(7), sku: "big" });
const INPUT = ser.encodeAll(VALUES);
/** Where each frame of INPUT starts. */
const STARTS = VALUES.map((_, i) => VALUES.slice(0, i).reduce((n, v) => n + ser.encode(v).length, 0));
const BIG_INPUT = ser.encodeAll([VALUES[1]!, BIG, VALUES[3]!]);
/** One frame whose sku is invalid UTF-8 (at byte 3). */
const CORRUPT_FRAME = Uint8Array.of(3, 0x0a, 0x01, 0xff);

async function collect(it: AsyncIterable<DynamicMessage>): Promise<DynamicMessage[]> {
  const out: DynamicMessage[] = [];
  for await (const v of it) out.push(v);
  return out;
}

/** Chunks of `bytes` cut at `cuts` (increasing offsets). */
function cut(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let at = 0;
  for (const c of [...cuts, bytes.length]) {
    out.push(bytes.slice(at, c));
    at = c;
  }
  return out;
}

async function* slowly(chunks: Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const c of chunks) {
    await new Promise((r) => setImmediate(r));
    yield c;
  }
}

function expectValues(got: DynamicMessage[], expected: DynamicMessage[]): void {
  expect(got.length).toBe(expected.length);
  got.forEach((v, i) => expect(v.equals(expected[i]), `value ${i}`).toBe(true));
}

async function failure(run: () => Promise<unknown>): Promise<CodecError> {
  try {
    await run();
  } catch (e) {
    if (e instanceof CodecError) return e;
    throw e;
  }
  throw new Error("expected a CodecError");
}

describe("every split of a multi-frame input", () => {
  test(`into two chunks (each of the ${INPUT.length - 1} cuts)`, async () => {
    for (let i = 1; i < INPUT.length; i++) expectValues(await collect(ser.decodeStream(cut(INPUT, [i]))), VALUES);
  });

  test("into three chunks (every pair of cuts of the first 64 bytes)", async () => {
    for (let i = 1; i < 64; i++) {
      for (let j = i + 1; j < 64; j++) expectValues(await collect(ser.decodeStream(cut(INPUT, [i, j]))), VALUES);
    }
  });

  test("into 1-byte chunks", async () => {
    const ones = Array.from({ length: INPUT.length }, (_, i) => i + 1).slice(0, -1);
    expectValues(await collect(ser.decodeStream(cut(INPUT, ones))), VALUES);
    const bigOnes = Array.from({ length: BIG_INPUT.length - 1 }, (_, i) => i + 1);
    expectValues(await collect(ser.decodeStream(cut(BIG_INPUT, bigOnes))), [VALUES[1]!, BIG, VALUES[3]!]);
  });

  test("a frame spanning many chunks, and many frames in one chunk", async () => {
    const cuts = [3, 10, 5000, 5001, 12000, BIG_INPUT.length - 2];
    expectValues(await collect(ser.decodeStream(cut(BIG_INPUT, cuts))), [VALUES[1]!, BIG, VALUES[3]!]);
    expectValues(await collect(ser.decodeStream([INPUT])), VALUES);
    expectValues(await collect(ser.decodeStream(INPUT)), VALUES);
  });

  test("empty chunks and an empty stream", async () => {
    expectValues(await collect(ser.decodeStream([new Uint8Array(0), ...cut(INPUT, [4]), new Uint8Array(0)])), VALUES);
    expect(await collect(ser.decodeStream([]))).toEqual([]);
  });
});

describe("sources", () => {
  const chunks = () => cut(BIG_INPUT, [7, 9000]);
  const expected = [VALUES[1]!, BIG, VALUES[3]!];

  test.each<[string, () => unknown]>([
    ["an async generator", () => slowly(chunks())],
    ["an array of chunks", () => chunks()],
    ["a Node Readable", () => Readable.from(chunks().map((c) => Buffer.from(c)))],
    ["a Node Readable of a file-like stream (Buffers in byte mode)", () => {
      const r = new Readable({ read() {} });
      for (const c of chunks()) r.push(Buffer.from(c));
      r.push(null);
      return r;
    }],
    ["a WHATWG ReadableStream", () => {
      const list = chunks();
      return new ReadableStream<Uint8Array>({ pull(c) { const next = list.shift(); if (next === undefined) c.close(); else c.enqueue(next); } });
    }],
    ["ArrayBuffer chunks", () => chunks().map((c) => c.buffer)],
    // Any view is read as the bytes it covers (a BufferSource, as TextDecoder reads one).
    ["DataView chunks over a larger buffer", () => chunks().map((c) => {
      const b = new Uint8Array(c.length + 5);
      b.set(c, 3);
      return new DataView(b.buffer, 3, c.length);
    })],
    ["Uint16Array chunks (one per byte pair, an odd chunk as bytes)", () => chunks().map((c) => (c.length % 2 === 0 ? new Uint16Array(c.slice().buffer) : c))],
  ])("%s", async (_name, source) => {
    expectValues(await collect(ser.decodeStream(source() as never)), expected);
  });

  test("a Readable with an encoding gives strings: NOT_BYTES", async () => {
    const r = Readable.from([Buffer.from(INPUT)]).setEncoding("latin1");
    const e = await failure(() => collect(ser.decodeStream(r)));
    expect([e.code, e.message]).toEqual(["NOT_BYTES", "cannot decode Item: the stream gave a string (read the stream without an encoding) after byte 0; a stream of frames gives bytes: Uint8Array chunks (or ArrayBuffers and their views)"]);
  });

  // undefined from a source that is not done was taken for the end of the stream: the frames
  // after it were dropped without an error (and the source was never returned or cancelled).
  test.each<[string, (chunks: unknown[]) => unknown]>([
    ["an array", (chunks) => chunks],
    ["an async generator", (chunks) => slowly(chunks as Uint8Array[])],
    ["a ReadableStream", (chunks) => new ReadableStream({ start(c) { for (const x of chunks) c.enqueue(x); c.close(); } })],
  ])("a chunk that is undefined, from %s: the values before it, then NOT_BYTES", async (_name, source) => {
    const [a, b] = [ser.encode(VALUES[1]!), ser.encode(VALUES[3]!)];
    for (const [chunks, before, at] of [
      [[a, undefined, b], 1, a.length],
      [[a.subarray(0, 2), undefined, a.subarray(2), b], 0, 2],
    ] as const) {
      const got: DynamicMessage[] = [];
      const e = await failure(async () => {
        for await (const v of ser.decodeStream(source([...chunks]) as never)) got.push(v);
      });
      expectValues(got, [VALUES[1]!].slice(0, before));
      expect([e.code, e.offset, e.message]).toEqual(["NOT_BYTES", at, `cannot decode Item: the stream gave undefined after byte ${at}; a stream of frames gives bytes: Uint8Array chunks (or ArrayBuffers and their views)`]);
    }
  });

  // A chunk whose buffer was transferred before the stream got it reads as empty, and was skipped:
  // the bytes it held were lost without an error.
  test.each<[string, () => unknown]>([
    ["a Uint8Array", () => new Uint8Array(ser.encode(VALUES[3]!))],
    ["an ArrayBuffer", () => ser.encode(VALUES[3]!).slice().buffer],
    ["a DataView", () => new DataView(ser.encode(VALUES[3]!).slice().buffer)],
  ])("a detached chunk (%s): the values before it, then NOT_BYTES", async (_name, make) => {
    const a = ser.encode(VALUES[1]!);
    const gone = make() as { buffer?: ArrayBuffer };
    const buffer = (gone.buffer ?? gone) as ArrayBuffer;
    structuredClone(buffer, { transfer: [buffer] });
    const got: DynamicMessage[] = [];
    const e = await failure(async () => {
      for await (const v of ser.decodeStream([a, gone, a] as never)) got.push(v);
    });
    expectValues(got, [VALUES[1]!]);
    expect([e.code, e.offset, e.message]).toEqual(["NOT_BYTES", a.length, `cannot decode Item: the stream gave a detached chunk (its buffer was transferred, or a resizable buffer shrank below it) after byte ${a.length}; a stream of frames gives bytes: Uint8Array chunks (or ArrayBuffers and their views)`]);
  });

  // A source whose next() throws is done (for await does not return it either): returning it
  // anyway let a return() that throws too replace the source's own error.
  test("a source whose next() throws is not returned: its own error arrives", async () => {
    let returned = 0;
    let pulls = 0;
    const source: AsyncIterable<Uint8Array> = {
      [Symbol.asyncIterator]: () => ({
        next: async () => {
          if (pulls++ > 0) throw new Error("disk gone");
          return { done: false, value: INPUT.slice(0, 3) };
        },
        return: async () => {
          returned++;
          throw new Error("cannot close");
        },
      }),
    };
    await expect(collect(ser.decodeStream(source))).rejects.toThrow("disk gone");
    expect(returned).toBe(0);
  });

  // decodeStream returns the source when a frame fails to decode; a return() that failed too
  // replaced the CodecError (its code, offset and path) with the source's cleanup error.
  test.each<[string, () => AsyncIterable<Uint8Array> | Iterable<Uint8Array>]>([
    ["an async generator whose finally throws", () => (async function* () {
      try {
        yield CORRUPT_FRAME;
        yield INPUT;
      } finally {
        throw new Error("cannot close");
      }
    })()],
    ["an iterator whose return() rejects", () => ({
      [Symbol.asyncIterator]: () => ({
        next: async () => ({ done: false, value: CORRUPT_FRAME }),
        return: async () => {
          throw new Error("cannot close");
        },
      }),
    })],
    ["a sync iterator whose return() throws", () => ({
      [Symbol.iterator]: () => ({
        next: () => ({ done: false, value: CORRUPT_FRAME }),
        return: () => {
          throw new Error("cannot close");
        },
      }),
    })],
  ])("a corrupt frame from %s: the decode's error arrives, not the source's", async (_name, source) => {
    const e = await failure(() => collect(ser.decodeStream(source())));
    expect([e.code, e.offset]).toEqual(["INVALID_UTF8", 3]);
  });

  test("a ReadableStream whose cancel fails: a consumer that stops early gets that error, a decode error wins over it", async () => {
    const stream = (first: Uint8Array) =>
      new ReadableStream<Uint8Array>({
        pull(c) {
          c.enqueue(first);
        },
        cancel() {
          throw new Error("cannot cancel");
        },
      });
    await expect((async () => {
      for await (const _ of ser.decodeStream(stream(INPUT))) break;
    })()).rejects.toThrow("cannot cancel");
    const e = await failure(() => collect(ser.decodeStream(stream(CORRUPT_FRAME))));
    expect([e.code, e.offset]).toEqual(["INVALID_UTF8", 3]);
  });

  test("a consumer that stops early gets the error of a return() that fails (as for await does)", async () => {
    const source = (async function* () {
      try {
        for (;;) yield INPUT;
      } finally {
        throw new Error("cannot close");
      }
    })();
    await expect((async () => {
      for await (const _ of ser.decodeStream(source)) break;
    })()).rejects.toThrow("cannot close");
  });

  test("something that is not a stream is a TypeError", () => {
    expect(() => ser.decodeStream(5 as never)).not.toThrow(); // the iterator is lazy
    return expect(collect(ser.decodeStream(5 as never))).rejects.toThrow("decodeStream(Item) expects a Node Readable, a ReadableStream or an (async) iterable of Uint8Array chunks");
  });
});

describe("backpressure", () => {
  /** An endless source of one frame per chunk that counts what it was asked for. */
  function counting(): { source: AsyncIterable<Uint8Array>; pulled: () => number; returned: () => boolean } {
    let pulled = 0;
    let returned = false;
    const frame = ser.encode(VALUES[1]!);
    const source: AsyncIterable<Uint8Array> = {
      [Symbol.asyncIterator]: () => ({
        next: async () => {
          pulled++;
          return { done: false, value: frame.slice() };
        },
        return: async () => {
          returned = true;
          return { done: true, value: undefined };
        },
      }),
    };
    return { source, pulled: () => pulled, returned: () => returned };
  }

  test("a slow consumer: each value pulls one chunk, nothing is read ahead", async () => {
    const c = counting();
    let n = 0;
    for await (const v of ser.decodeStream(c.source)) {
      expect(v.get("sku")).toBe("a");
      n++;
      expect(c.pulled()).toBe(n);
      await new Promise((r) => setImmediate(r));
      if (n === 5) break;
    }
    expect(c.pulled()).toBe(5);
    expect(c.returned()).toBe(true);
  });

  test("a Node Readable: the stream holds no more than its highWaterMark ahead of a slow consumer", async () => {
    let produced = 0;
    const frame = Buffer.from(ser.encode(VALUES[1]!));
    const r = new Readable({
      highWaterMark: frame.length * 4,
      read() {
        produced++;
        this.push(frame);
      },
    });
    let consumed = 0;
    for await (const _ of ser.decodeStream(r)) {
      consumed++;
      await new Promise((res) => setImmediate(res));
      // Node reads up to highWaterMark (4 frames) ahead; the decoder holds at most one chunk
      // (one read() of what was buffered: up to 4 more frames).
      expect(produced - consumed).toBeLessThanOrEqual(9);
      if (consumed === 50) break;
    }
    expect(r.destroyed).toBe(true);
  });

  test("a ReadableStream is cancelled when the consumer stops", async () => {
    let cancelled = false;
    const frame = ser.encode(VALUES[1]!);
    const rs = new ReadableStream<Uint8Array>({ pull: (c) => c.enqueue(frame.slice()), cancel: () => void (cancelled = true) }, { highWaterMark: 0 });
    for await (const _ of ser.decodeStream(rs)) break;
    expect(cancelled).toBe(true);
  });

  test("a frame over maxMessageBytes is refused from its prefix, before its bytes are asked for", async () => {
    const small = ProtobufType.newBuilder(Item).maxMessageBytes(100).build().createSerializer();
    let pulled = 0;
    async function* endless(): AsyncGenerator<Uint8Array> {
      pulled++;
      yield Uint8Array.of(0x03, 0x0a, 0x01, 0x61); // one small frame
      pulled++;
      yield Uint8Array.of(0x80, 0x80, 0x80, 0x80); // a length prefix of 1 GiB, in two chunks
      pulled++;
      yield Uint8Array.of(0x04);
      for (;;) {
        pulled++;
        yield new Uint8Array(65536);
      }
    }
    const got: DynamicMessage[] = [];
    const e = await failure(async () => {
      for await (const v of small.decodeStream(endless())) got.push(v);
    });
    expect(got.length).toBe(1);
    expect(pulled).toBe(3);
    expect([e.code, e.offset, e.message]).toEqual([
      "FRAME_TOO_LARGE",
      4,
      "cannot decode Item: the frame at byte 4 announces 1073741824 bytes, above maxMessageBytes 100; raise maxMessageBytes or reject the input",
    ]);
  });

  test("a frame sent a byte at a time holds about its size", async () => {
    // A copy per chunk, joined once the frame was complete, held ~240 bytes of heap per byte of
    // the frame in 1-byte chunks (a 2 MiB frame: 472 MiB).
    const frame = ser.encode(DynamicMessage.create(Item, { blob: new Uint8Array(1 << 17).fill(3) }));
    let live = 0;
    async function* bytewise(): AsyncGenerator<Uint8Array> {
      for (let i = 0; i < frame.length; i++) {
        if (i === frame.length - 1) {
          fullGc();
          live = process.memoryUsage().heapUsed;
        }
        yield frame.subarray(i, i + 1);
      }
    }
    fullGc();
    const before = process.memoryUsage().heapUsed;
    const got = await collect(ser.decodeStream(bytewise()));
    expect(got.length).toBe(1);
    expect(got[0]!.get("blob")).toEqual(new Uint8Array(1 << 17).fill(3));
    expect(live - before).toBeLessThan(4 << 20);
  });

  test("a frame announced large holds only the bytes that arrived while its source stalls", async () => {
    // A 5-byte prefix announcing 60 MiB, 3 bytes of body, then nothing until the test lets go.
    const big = ProtobufType.newBuilder(Item).maxMessageBytes(64 << 20).build().createSerializer();
    let release!: () => void;
    const stalled = new Promise<void>((r) => (release = r));
    let waiting = false;
    async function* source(): AsyncGenerator<Uint8Array> {
      yield Uint8Array.of(0x80, 0x80, 0x80, 0x1e, 0x0a, 0x01, 0x61); // 60 MiB, then "sku: a"'s first bytes
      waiting = true;
      await stalled;
    }
    const before = process.memoryUsage().arrayBuffers;
    const pending = failure(() => collect(big.decodeStream(source())));
    while (!waiting) await new Promise((r) => setImmediate(r));
    const held = process.memoryUsage().arrayBuffers - before;
    release();
    const e = await pending;
    expect(e.code).toBe("FRAME_TRUNCATED");
    expect(held).toBeLessThan(1 << 20);
  });
});

// A chunk the stream holds must keep its bytes until its frames are read. With aliasThreshold,
// a value's bytes field views the chunk; a consumer that transferred it (postMessage with a
// transfer list) detached the chunk under the stream, which then spun forever on the detached
// array (its length 0 below the read position): a hang no timer could end.
describe("a held chunk that is detached or shrinks", () => {
  const aliasing = ProtobufType.newBuilder(type.descriptor).maxMessageBytes(1 << 20).aliasThreshold(16).build().createSerializer();
  const blobs = [1, 2, 3].map((i) => DynamicMessage.create(Item, { blob: new Uint8Array(100).fill(i), qty: i }));
  const frames = aliasing.encodeAll(blobs).slice();
  const size = aliasing.encode(blobs[0]!).length;
  test.each<[string, number, number, number[], number | undefined]>([
    ["the first value's bytes (read alone, the chunk's first frame)", frames.length - 50, 1, [1], size],
    ["the second value's bytes (read with the rest of the chunk's complete frames)", frames.length - 50, 2, [1, 2], 2 * size],
    ["the third value's bytes, when the chunk holds nothing more: nothing is lost, no error", frames.length, 3, [1, 2, 3], undefined],
    ["the second value's bytes, the rest of the chunk already decoded with it", frames.length, 2, [1, 2, 3], undefined],
  ])("%s transferred: NOT_BYTES at the first unread byte, never a hang", async (_name, cutAt, detachAfter, values, offset) => {
    async function* source(): AsyncGenerator<Uint8Array> {
      yield frames.slice(0, cutAt);
      yield frames.slice(cutAt);
    }
    const got: number[] = [];
    const run = async () => {
      for await (const v of aliasing.decodeStream(source())) {
        got.push(v.get("qty") as number);
        const blob = v.get("blob") as Uint8Array;
        if (got.length === detachAfter) structuredClone(blob.buffer, { transfer: [blob.buffer as ArrayBuffer] });
      }
    };
    if (offset === undefined) {
      await run();
      expect(got).toEqual(values);
      return;
    }
    const e = await failure(run);
    expect(got).toEqual(values);
    expect([e.code, e.offset, e.message]).toEqual([
      "NOT_BYTES",
      offset,
      `cannot decode Item: the chunk holding byte ${offset} of the stream was detached or resized before its frames were read (a value's bytes field views its chunk when aliasThreshold is set); copy a value's bytes before transferring them, and do not transfer or resize a chunk once the stream has it`,
    ]);
  });
});

describe("errors", () => {
  test.each([
    ["inside the last frame's body", INPUT.length - 1],
    ["inside a length prefix", STARTS[2]! + 1],
    ["right after a prefix", STARTS[2]! + 2],
  ])("a stream that ends %s: FRAME_TRUNCATED at the frame's offset, after the complete frames", async (_where, end) => {
    const input = INPUT.slice(0, end);
    // The frame the input ends in, and the values before it.
    let start = 0;
    const frames = [...VALUES.map((v) => ser.encode(v))];
    let complete = 0;
    while (start + frames[complete]!.length <= end) start += frames[complete++]!.length;
    for (const chunks of [[input], cut(input, [1]), cut(input, Array.from({ length: input.length - 1 }, (_, i) => i + 1))]) {
      const got: DynamicMessage[] = [];
      const e = await failure(async () => {
        for await (const v of ser.decodeStream(chunks)) got.push(v);
      });
      expectValues(got, VALUES.slice(0, complete));
      expect(e.code).toBe("FRAME_TRUNCATED");
      expect(e.offset).toBe(start);
      expect(e.message).toMatch(new RegExp(`^cannot decode Item: the stream ends inside the frame at byte ${start} \\(\\d+ of (\\d+|its length prefix's) bytes\\); the data is truncated, pass complete frames$`));
    }
  });

  test("a corrupt frame: the error decodeAll gives for the whole input, at the same stream offset, for every split", async () => {
    const corrupt = INPUT.slice();
    corrupt[STARTS[1]! + 4] = 0x0b; // the second frame's qty tag becomes field 1 with wire type 3 (group start)
    let expected: CodecError | undefined;
    try {
      ser.decodeAll(corrupt);
    } catch (e) {
      expected = e as CodecError;
    }
    expect(expected?.code).toBe("INVALID_WIRE_TYPE");
    for (let i = 1; i < 20; i++) {
      const e = await failure(() => collect(ser.decodeStream(cut(corrupt, [i]))));
      expect([e.code, e.offset, e.path, e.message]).toEqual([expected!.code, expected!.offset, expected!.path, expected!.message]);
    }
  });

  // Inputs whose bad part follows complete frames in the same chunk: the stream yields the values
  // of every frame before it (as a frame-by-frame read does), then throws what decodeAll throws for
  // the whole input. Decoding a chunk's frames in one decodeAll lost the valid ones before a
  // corrupt frame, and a bad length prefix later in the chunk was thrown before an earlier
  // frame's own error.
  const f = (v: DynamicMessage) => [...ser.encode(v)];
  const [A, B] = [f(VALUES[1]!), f(VALUES[3]!)];
  const CORRUPT_BODY = [2, 0x0a, 0x05]; // sku with a length past the frame's end
  test.each<[string, number[], number]>([
    ["valid, valid, corrupt body", [...A, ...B, ...CORRUPT_BODY], 2],
    ["corrupt body first", [...CORRUPT_BODY, ...A], 0],
    ["valid, corrupt body, a prefix longer than 10 bytes", [...A, ...CORRUPT_BODY, ...Array(10).fill(0xff), 0x01], 1],
    ["valid, corrupt body, a prefix above maxMessageBytes", [...A, ...CORRUPT_BODY, 0x80, 0x80, 0x80, 0x80, 0x10], 1],
    // (the stream words a bad varint prefix as the frame's length prefix: code, offset and path are decodeAll's)
    ["valid, valid, a prefix longer than 10 bytes", [...A, ...B, ...Array(10).fill(0xff), 0x01], 2],
    ["valid, a prefix that overflows 64 bits", [...A, ...Array(9).fill(0xff), 0x02], 1],
    ["valid, valid, a prefix above maxMessageBytes, then a valid frame", [...A, ...B, 0x80, 0x80, 0x80, 0x80, 0x10, ...A], 2],
    ["valid, a frame with a group tag", [...A, 2, 0x0b, 0x00, ...B], 1],
    // The body 02 10 01 is itself one valid frame (qty: 1): fromBinary of it alone adds a note
    // ("read it with serializer.decode"), which the stream added only where a cut made it read
    // the frame by itself.
    ["valid, a body that is itself one valid frame", [...A, 3, 0x02, 0x10, 0x01], 1],
  ])("%s: the values before it, then decodeAll's error, for every split", async (_name, bytes, before) => {
    const input = Uint8Array.from(bytes);
    let expected: CodecError | undefined;
    try {
      ser.decodeAll(input);
    } catch (e) {
      expected = e as CodecError;
    }
    expect(expected).toBeInstanceOf(CodecError);
    const values = [VALUES[1]!, VALUES[3]!, VALUES[1]!].slice(0, before);
    const splits = [[], ...Array.from({ length: input.length - 1 }, (_, i) => [i + 1]), Array.from({ length: input.length - 1 }, (_, i) => i + 1)];
    for (const cuts of splits) {
      const got: DynamicMessage[] = [];
      const e = await failure(async () => {
        for await (const v of ser.decodeStream(cut(input, cuts))) got.push(v);
      });
      expectValues(got, values);
      expect([e.code, e.offset, e.path], `cut at ${cuts.join(",")}`).toEqual([expected!.code, expected!.offset, expected!.path]);
      if (e.code.startsWith("VARINT_")) expect(e.message).toMatch(new RegExp(`^cannot decode Item: the length prefix of the frame at byte ${e.offset} (is longer than 10 bytes|does not fit in 64 bits); the input is corrupt or is not a stream of Item frames$`));
      else expect(e.message).toBe(expected!.message);
    }
  });

  test("a source that errors midway: the values before, then the source's own error", async () => {
    const boom = new Error("disk gone");
    async function* failing(): AsyncGenerator<Uint8Array> {
      yield INPUT.slice(0, 6); // the first two frames and a byte of the third
      yield INPUT.slice(6, 20);
      throw boom;
    }
    const got: DynamicMessage[] = [];
    await expect(async () => {
      for await (const v of ser.decodeStream(failing())) got.push(v);
    }).rejects.toBe(boom);
    expectValues(got, VALUES.slice(0, 2));
  });

  test("a Node Readable destroyed with an error", async () => {
    const r = new Readable({ read() {} });
    r.push(Buffer.from(INPUT.slice(0, 3)));
    setImmediate(() => r.destroy(new Error("socket reset")));
    await expect(collect(ser.decodeStream(r))).rejects.toThrow("socket reset");
  });
});

test("a serializer that reads every frame: the stream's values carry its descriptor", async () => {
  const [v] = await collect(ser.decodeStream([ser.encode({ sku: "x" })]));
  expect(v!.descriptor).toBe(Item);
  expect((ser as ProtobufSerializer).type.fullName).toBe("Item");
});
