// A reusable cursor over a buffer of frames (framing v1, docs/design.md §8.2) for
// `serializer.deserialize(reader)`: each call reads the frame at the position and moves past it;
// a failed read leaves the position unchanged.
import { CodecError } from "../errors.js";
import { DETACHED_INPUT, exactCount, isBytes, isDetached, readable } from "../bytes.js";

export class FrameReader {
  private buf: Uint8Array;
  private pos: number;
  /** The input's length when it was given: a read checks it still has it (see peekFrame). */
  private len: number;

  constructor(bytes: Uint8Array = new Uint8Array(0)) {
    this.buf = FrameReader.check(bytes);
    this.pos = 0;
    this.len = this.buf.length;
  }

  private static check(bytes: Uint8Array): Uint8Array {
    if (!isBytes(bytes)) throw new TypeError("FrameReader expects a Uint8Array");
    // A detached array reads as empty: `while (reader.hasMore())` read nothing, without an error,
    // where decodeAll of the same array throws NOT_BYTES.
    if (isDetached(bytes)) {
      throw new CodecError(
        "NOT_BYTES",
        `cannot read frames: the FrameReader's input is detached ${DETACHED_INPUT}`,
      );
    }
    return readable(bytes);
  }

  /** Starts over on new input (the reader keeps no copy: do not modify it while reading). */
  reset(bytes: Uint8Array): void {
    this.buf = FrameReader.check(bytes);
    this.pos = 0;
    this.len = this.buf.length;
  }

  /** Byte offset of the next frame. */
  get position(): number {
    return this.pos;
  }

  /** Bytes not read yet. */
  get remaining(): number {
    return this.len - this.pos;
  }

  /** True while at least one more byte is left to read (of the input as it was given). */
  hasMore(): boolean {
    return this.pos < this.len;
  }

  /**
   * @internal The body of the next frame (a view) and the position after it; does not move.
   * `typeName` and `maxMessageBytes` shape the errors.
   */
  peekFrame(typeName: string, maxMessageBytes: number): { body: Uint8Array; bodyAt: number; next: number } {
    const buf = this.buf;
    const start = this.pos;
    // Its buffer transferred or shrunk since it was given: the loop `while (reader.hasMore())`
    // ended at once with no error (the rest of the input silently dropped), or a read said the
    // data was truncated.
    if (buf.length !== this.len) {
      throw new CodecError(
        "NOT_BYTES",
        `cannot decode ${typeName}: the FrameReader's input was detached or resized before byte ${start} (it had ${this.len} bytes, it has ${buf.length}); keep the input unchanged until the reader is done`,
        { offset: start, path: typeName },
      );
    }
    if (start === buf.length) {
      throw new CodecError(
        "FRAME_TRUNCATED",
        `cannot decode ${typeName}: no frame is left at byte ${start}, where the input ends; read while reader.hasMore()`,
        { offset: start, path: typeName },
      );
    }
    const prefix = readFramePrefix(buf, start);
    if (prefix === TOO_LONG || prefix === OVERFLOW) {
      const tooLong = prefix === TOO_LONG;
      throw new CodecError(
        tooLong ? "VARINT_TOO_LONG" : "VARINT_OVERFLOW",
        `cannot decode ${typeName}: varint at byte ${start} in ${typeName} ${tooLong ? "is longer than 10 bytes" : "does not fit in 64 bits"}; the input is corrupt or is not an encoded ${typeName}`,
        { offset: start, path: typeName },
      );
    }
    if (prefix !== CUT) {
      const { bodyAt, size: len } = prefix;
      if (len > maxMessageBytes) {
        throw new CodecError(
          "FRAME_TOO_LARGE",
          `cannot decode ${typeName}: the frame at byte ${start} announces ${announcedSize(buf, start)} bytes, above maxMessageBytes ${maxMessageBytes}; raise maxMessageBytes or reject the input`,
          { offset: start, path: typeName },
        );
      }
      if (bodyAt + len <= buf.length) return { body: buf.subarray(bodyAt, bodyAt + len), bodyAt, next: bodyAt + len };
    }
    throw new CodecError(
      "FRAME_TRUNCATED",
      `cannot decode ${typeName}: the frame at byte ${start} ends after the input does; the data is truncated, pass complete frames`,
      { offset: start, path: typeName },
    );
  }

  /** @internal Moves to `next` after a successful read. */
  advance(next: number): void {
    this.pos = next;
  }
}

/** readFramePrefix: the input ends inside the prefix. */
export const CUT = -1;
/** readFramePrefix: the prefix runs past 10 bytes. */
export const TOO_LONG = -2;
/** readFramePrefix: a 10-byte prefix whose value does not fit in 64 bits. */
export const OVERFLOW = -3;

/** A frame's length prefix: where the body starts and the size announced (exact up to 2^53). */
export interface FramePrefix {
  readonly bodyAt: number;
  readonly size: number;
}

/**
 * The size a length prefix at `at` announces, for an error message: exact (a double holds sizes
 * above 2^53 rounded, and a prefix of 2^64 - 1 printed as 18446744073709552000).
 */
export function announcedSize(bytes: ArrayLike<number>, at: number): number | bigint {
  let v = 0n;
  for (let i = 0; i < 10 && at + i < bytes.length; i++) {
    const b = bytes[at + i]!;
    v |= BigInt(b & 0x7f) << BigInt(7 * i);
    if (b < 0x80) break;
  }
  return exactCount(v);
}

/**
 * @internal Reads the length prefix of the frame at `at` exactly as the core reads it in
 * decodeAll (a varint of up to 10 bytes; non-minimal encodings are legal varints), so that every
 * path accepts the same frames. Returns the prefix, or CUT, TOO_LONG or OVERFLOW. It is the
 * core's varint rule, so unknown.ts reads unknown fields' tags and lengths with it too.
 */
export function readFramePrefix(buf: Uint8Array, at: number, end = buf.length): FramePrefix | typeof CUT | typeof TOO_LONG | typeof OVERFLOW {
  let size = 0;
  let p = at;
  for (let shift = 0; ; shift += 7) {
    if (p >= end) return CUT;
    const b = buf[p++]!;
    if (shift === 63 && b > 1) return b >= 0x80 ? TOO_LONG : OVERFLOW;
    size += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) break;
  }
  return { bodyAt: p, size };
}
