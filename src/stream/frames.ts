// Streams of frames (framing v1) for serializer.decodeStream / encodeStream. Runtime-neutral: a
// Node Readable is read as the async iterable it is, a WHATWG ReadableStream through its reader,
// so no Node module is imported and the default entry stays loadable everywhere.
import { isBytes, isDetached, readable } from "../bytes.js";
import { announcedSize, CUT, OVERFLOW, readFramePrefix, TOO_LONG, type FramePrefix } from "../codec/frame-reader.js";
import { CodecError, shifted } from "../errors.js";
import type { DynamicInit, DynamicMessage } from "../message/dynamic-message.js";
import type { ProtobufSerializer } from "../serializer.js";

/** The reader side of a WHATWG ReadableStream, as much of it as decodeStream uses. */
export interface ReadableStreamLike<T> {
  getReader(): {
    read(): Promise<{ done: boolean; value?: T }>;
    cancel(reason?: unknown): Promise<void>;
    releaseLock(): void;
  };
}

/**
 * What decodeStream reads: chunks of bytes from a Node Readable, a ReadableStream or an (async)
 * iterable; a single Uint8Array is one chunk.
 */
export type StreamSource = AsyncIterable<Uint8Array> | Iterable<Uint8Array> | ReadableStreamLike<Uint8Array> | Uint8Array;

/** The next chunk as the source gave it (anything: chunkOf checks it), or done. */
type Pull = () => Promise<{ readonly done: true } | { readonly done: false; readonly value: unknown }>;

const DONE = { done: true } as const;

const EMPTY: Uint8Array = new Uint8Array(0);

function chunkOf(c: unknown, name: string, at: number): Uint8Array {
  let what: string;
  if (isBytes(c) || c instanceof ArrayBuffer || ArrayBuffer.isView(c)) {
    try {
      const bytes = isBytes(c) ? c : c instanceof ArrayBuffer ? new Uint8Array(c) : new Uint8Array(c.buffer, c.byteOffset, c.byteLength);
      if (!isDetached(bytes)) return readable(bytes);
    } catch {
      // A view of a detached buffer cannot be made.
    }
    // A detached chunk reads as empty: skipping it would drop the bytes it held without an error.
    what = "a detached chunk (its buffer was transferred, or a resizable buffer shrank below it)";
  } else {
    what = typeof c === "string" ? "a string (read the stream without an encoding)" : c === null ? "null" : typeof c;
  }
  throw new CodecError("NOT_BYTES", `cannot decode ${name}: the stream gave ${what} after byte ${at}; a stream of frames gives bytes: Uint8Array chunks (or ArrayBuffers and their views)`, {
    path: name,
    offset: at,
  });
}

/** Pull one chunk at a time from any source, and a way to let go of it early. */
function open(source: unknown, name: string): { pull: Pull; close: () => Promise<void> } {
  if (source instanceof Uint8Array) {
    let given = false;
    return {
      pull: async () => (given ? DONE : ((given = true), { done: false, value: source })),
      close: async () => {},
    };
  }
  const s = source as Partial<ReadableStreamLike<unknown> & AsyncIterable<unknown> & Iterable<unknown>> | null;
  if (s !== null && typeof s === "object" && typeof s.getReader === "function") {
    const reader = s.getReader();
    let done = false;
    return {
      pull: async () => {
        const r = await reader.read();
        if (r.done) {
          done = true;
          reader.releaseLock();
          return DONE;
        }
        return { done: false, value: r.value };
      },
      close: async () => {
        if (!done) {
          done = true;
          // A cancel that fails reaches a consumer that stopped early, as for await over the
          // stream gives it (decodeFrames drops it when a decode error is on its way).
          try {
            await reader.cancel();
          } finally {
            reader.releaseLock();
          }
        }
      },
    };
  }
  const it =
    s !== null && typeof s === "object" && typeof s[Symbol.asyncIterator] === "function"
      ? s[Symbol.asyncIterator]!()
      : s !== null && typeof s === "object" && typeof s[Symbol.iterator] === "function"
        ? s[Symbol.iterator]!()
        : undefined;
  if (it === undefined) {
    throw new TypeError(`decodeStream(${name}) expects a Node Readable, a ReadableStream or an (async) iterable of Uint8Array chunks`);
  }
  let done = false;
  return {
    pull: async () => {
      let r: IteratorResult<unknown>;
      try {
        r = await it.next();
      } catch (e) {
        // An iterator whose next() throws is done (for await does not return it either): a
        // return() that throws too would replace the source's own error.
        done = true;
        throw e;
      }
      if (r.done) {
        done = true;
        return DONE;
      }
      return { done: false, value: r.value };
    },
    close: async () => {
      if (!done) {
        done = true;
        await it.return?.();
      }
    },
  };
}

/** The first buffer a frame that spans chunks is copied into (it doubles as the frame's bytes arrive). */
const FRAME_BUFFER_MIN = 4096;

/**
 * The values of the frames of `source`. At most one chunk and one frame are held: complete frames
 * of a chunk are decoded in one call, a frame that spans chunks is copied as it arrives into a
 * buffer that grows to its announced size (checked against maxMessageBytes first), and the next
 * chunk is pulled only when the consumer asks for a value the held bytes do not complete.
 */
export async function* decodeFrames(ser: ProtobufSerializer, source: StreamSource): AsyncGenerator<DynamicMessage, void, undefined> {
  const name = ser.type.fullName;
  const max = ser.type.settings.maxMessageBytes;
  const src = open(source, name);
  let buf = EMPTY; // the chunk being read
  let pos = 0; // next unread byte of buf
  let base = 0; // stream offset of buf[0]
  let held = 0; // buf.length when it was pulled
  let finished = false;

  const truncated = (start: number, got: number, need: number | undefined): CodecError =>
    new CodecError(
      "FRAME_TRUNCATED",
      `cannot decode ${name}: the stream ends inside the frame at byte ${start} (${got} of ${need === undefined ? "its length prefix's" : `${need}`} bytes); the data is truncated, pass complete frames`,
      { path: name, offset: start },
    );
  const tooLarge = (start: number, len: number | bigint): CodecError =>
    new CodecError(
      "FRAME_TOO_LARGE",
      `cannot decode ${name}: the frame at byte ${start} announces ${len} bytes, above maxMessageBytes ${max}; raise maxMessageBytes or reject the input`,
      { path: name, offset: start },
    );
  const badPrefix = (start: number, tooLong: boolean): CodecError =>
    new CodecError(
      tooLong ? "VARINT_TOO_LONG" : "VARINT_OVERFLOW",
      `cannot decode ${name}: the length prefix of the frame at byte ${start} ${tooLong ? "is longer than 10 bytes" : "does not fit in 64 bits"}; the input is corrupt or is not a stream of ${name} frames`,
      { path: name, offset: start },
    );
  const changed = (at: number): CodecError =>
    new CodecError(
      "NOT_BYTES",
      `cannot decode ${name}: the chunk holding byte ${at} of the stream was detached or resized before its frames were read (a value's bytes field views its chunk when aliasThreshold is set); copy a value's bytes before transferring them, and do not transfer or resize a chunk once the stream has it`,
      { path: name, offset: at },
    );
  /** The next non-empty chunk, or false at the end of the stream. */
  const next = async (): Promise<boolean> => {
    for (;;) {
      const r = await src.pull();
      if (r.done) {
        finished = true;
        return false;
      }
      const chunk = chunkOf(r.value, name, base + held);
      base += held;
      buf = chunk;
      held = chunk.length;
      pos = 0;
      if (chunk.length > 0) return true;
    }
  };

  // True once this generator throws: a source whose return() then fails too must not replace the
  // decode's error (for await keeps the loop's error over its iterator's return() failure).
  let failed = false;
  try {
    for (;;) {
      // The consumer ran since the last read: a chunk it detached (by transferring a value's bytes
      // field, which views the chunk with aliasThreshold) or resized has lost the bytes after
      // `pos` (a chunk read to its end has lost nothing); reading on would spin on a detached
      // array, whose length is 0 below `pos`.
      if (buf.length !== held) {
        if (pos < held) throw changed(base + pos);
        base += held;
        buf = EMPTY;
        held = 0;
        pos = 0;
      }
      // Complete frames of the held chunk, decoded in one call. A bad length prefix after them is
      // thrown once they are yielded: decodeAll of the whole input reads frames in order, so an
      // earlier frame's error (or value) comes first.
      let end = pos;
      let pending: CodecError | undefined;
      for (;;) {
        const prefix = readFramePrefix(buf, end);
        if (prefix === CUT) break;
        if (prefix === TOO_LONG || prefix === OVERFLOW) {
          pending = badPrefix(base + end, prefix === TOO_LONG);
          break;
        }
        if (prefix.size > max) {
          pending = tooLarge(base + end, announcedSize(buf, end));
          break;
        }
        if (prefix.bodyAt + prefix.size > buf.length) break;
        end = prefix.bodyAt + prefix.size;
      }
      if (end > pos) {
        let values: DynamicMessage[];
        try {
          values = ser._fromFrames(buf.subarray(pos, end));
        } catch (e) {
          // decodeAll gives all values or none: the frames before the corrupt one are still
          // values of the stream, as they are when the corrupt frame arrives in a later chunk.
          for (const v of valuesBefore(ser, buf, pos, end)) yield v;
          throw shifted(e, base + pos);
        }
        pos = end;
        for (const v of values) yield v;
        if (pending !== undefined) throw pending;
        continue;
      }
      if (pending !== undefined) throw pending;
      // A frame that the held bytes do not complete (or none at all).
      if (pos === buf.length && !(await next())) return;
      const start = base + pos;
      const prefix: number[] = [];
      let len = 0;
      for (let shift = 0; ; shift += 7) {
        if (pos === buf.length && !(await next())) throw truncated(start, prefix.length, undefined);
        const b = buf[pos++]!;
        prefix.push(b);
        if (shift === 63 && b > 1) throw badPrefix(start, b >= 0x80);
        len += (b & 0x7f) * 2 ** shift;
        if (b < 0x80) break;
      }
      if (len > max) throw tooLarge(start, announcedSize(prefix, 0));
      const bodyAt = start + prefix.length;
      let body: Uint8Array;
      if (buf.length - pos >= len) {
        body = buf.subarray(pos, pos + len);
        pos += len;
      } else {
        // The frame's bytes are copied as they arrive into one buffer that doubles (up to the
        // announced size) when they fill it. A buffer of the announced size up front let a 5-byte
        // prefix hold maxMessageBytes (64 MiB by default) for a source that then stalls; a copy
        // per chunk joined at the end cost ~240 bytes of heap per byte of a frame sent in 1-byte
        // chunks (a 2 MiB frame: 472 MiB). This holds under 2x what arrived (3x while it grows).
        body = new Uint8Array(Math.min(len, Math.max(FRAME_BUFFER_MIN, 2 * (buf.length - pos))));
        let filled = 0;
        while (filled < len) {
          if (pos === buf.length && !(await next())) throw truncated(start, prefix.length + filled, prefix.length + len);
          const n = Math.min(len - filled, buf.length - pos);
          if (filled + n > body.length) {
            const grown = new Uint8Array(Math.min(len, Math.max(2 * body.length, filled + n)));
            grown.set(body.subarray(0, filled));
            body = grown;
          }
          body.set(buf.subarray(pos, pos + n), filled);
          filled += n;
          pos += n;
        }
      }
      let value: DynamicMessage;
      try {
        value = ser._fromBody(body);
      } catch (e) {
        throw shifted(e, bodyAt);
      }
      yield value;
    }
  } catch (e) {
    failed = true;
    throw e;
  } finally {
    if (!finished) {
      if (failed) await src.close().catch(() => {});
      else await src.close();
    }
  }
}

/**
 * The values of the complete frames `buf[from .. to)` up to the first that does not decode (whose
 * error the caller has from decodeAll).
 */
function valuesBefore(ser: ProtobufSerializer, buf: Uint8Array, from: number, to: number): DynamicMessage[] {
  const out: DynamicMessage[] = [];
  for (let p = from; p < to; ) {
    // Complete frames: every prefix here was read by the caller's scan.
    const { bodyAt, size } = readFramePrefix(buf, p) as FramePrefix;
    try {
      out.push(ser._fromBody(buf.subarray(bodyAt, bodyAt + size)));
    } catch {
      break;
    }
    p = bodyAt + size;
  }
  return out;
}

/** Frames of the values written to it, one chunk per value; a failed value errors the stream. */
export function encodeFrames(ser: ProtobufSerializer): TransformStream<DynamicMessage | DynamicInit, Uint8Array> {
  return new TransformStream<DynamicMessage | DynamicInit, Uint8Array>({
    transform(value, controller) {
      const frame = ser.encode(value);
      // Small frames are views into a shared slab: a chunk that outlives this call gets its own
      // buffer, so that no consumer can detach or transfer the slab under other values.
      controller.enqueue(frame.byteLength === frame.buffer.byteLength ? frame : frame.slice());
    },
  });
}
