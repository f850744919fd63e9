// serializer.encodeStream: a TransformStream from values (or plain init objects) to frames, one
// chunk per value, each chunk its own buffer; a value encode refuses errors the stream after the
// frames before it. Piped into decodeStream, values come back unchanged.
import { Readable } from "node:stream";
import { describe, expect, test } from "vitest";
import { CodecError, DynamicMessage, ProtobufType } from "../src/index.js";
import { pbjsType } from "./adversarial/support.js";

const type = ProtobufType.of(pbjsType("message Item { string sku = 1; int32 qty = 2; }", "Item"));
const ser = type.createSerializer();
const Item = type.descriptor;
const VALUES = [DynamicMessage.create(Item, { sku: "a", qty: 1 }), DynamicMessage.create(Item, {}), DynamicMessage.create(Item, { sku: "x".repeat(300) })];

/** A ReadableStream of the given chunks (ReadableStream.from is not in every runtime's types). */
function streamOf<T>(items: readonly T[]): ReadableStream<T> {
  return new ReadableStream<T>({
    start(c) {
      for (const x of items) c.enqueue(x);
      c.close();
    },
  });
}

async function chunksOf(stream: ReadableStream<Uint8Array>): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for await (const c of stream as unknown as AsyncIterable<Uint8Array>) out.push(c);
  return out;
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

describe("encodeStream", () => {
  test("one frame per value, the bytes encodeAll writes", async () => {
    const chunks = await chunksOf(streamOf(VALUES).pipeThrough(ser.encodeStream()));
    expect(chunks.length).toBe(3);
    expect(concat(chunks)).toEqual(ser.encodeAll(VALUES));
  });

  test("plain init objects are written as encode writes them", async () => {
    const chunks = await chunksOf(streamOf([{ sku: "a", qty: 1 }, {}]).pipeThrough(ser.encodeStream()));
    expect(concat(chunks)).toEqual(ser.encodeAll(VALUES.slice(0, 2)));
  });

  test("each chunk owns its buffer (no view into a shared slab)", async () => {
    for (const c of await chunksOf(streamOf(VALUES).pipeThrough(ser.encodeStream()))) {
      expect(c.byteOffset).toBe(0);
      expect(c.byteLength).toBe(c.buffer.byteLength);
    }
  });

  test("a value encode refuses errors the stream after the frames before it", async () => {
    const out: Uint8Array[] = [];
    let error: unknown;
    try {
      for await (const c of streamOf<unknown>([VALUES[0], "not a message", VALUES[1]]).pipeThrough(ser.encodeStream() as TransformStream<unknown, Uint8Array>) as unknown as AsyncIterable<Uint8Array>) {
        out.push(c);
      }
    } catch (e) {
      error = e;
    }
    expect(out).toEqual([ser.encode(VALUES[0]!)]);
    expect(error).toBeInstanceOf(CodecError);
    expect((error as CodecError).code).toBe("NOT_A_DYNAMIC_MESSAGE");
  });

  test("piped into decodeStream, values come back", async () => {
    const back: DynamicMessage[] = [];
    for await (const v of ser.decodeStream(streamOf(VALUES).pipeThrough(ser.encodeStream()))) back.push(v);
    expect(back.map((v, i) => v.equals(VALUES[i]))).toEqual([true, true, true]);
  });

  test("a Node Readable reads from it (Readable.fromWeb)", async () => {
    const readable = Readable.fromWeb(streamOf(VALUES).pipeThrough(ser.encodeStream()) as never);
    const back: DynamicMessage[] = [];
    for await (const v of ser.decodeStream(readable)) back.push(v);
    expect(back.length).toBe(3);
  });
});
