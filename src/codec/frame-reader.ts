// A reusable cursor over a buffer of frames (framing v1, DESIGN §8.2) for
// `serializer.deserialize(reader)`: each call reads the frame at the position and moves past it;
// a failed read leaves the position unchanged.
import { CodecError } from "../errors.js";

export class FrameReader {
  private buf: Uint8Array;
  private pos: number;

  constructor(bytes: Uint8Array = new Uint8Array(0)) {
    this.buf = FrameReader.check(bytes);
    this.pos = 0;
  }

  private static check(bytes: Uint8Array): Uint8Array {
    if (!(bytes instanceof Uint8Array)) throw new TypeError("FrameReader expects a Uint8Array");
    return bytes;
  }

  /** Starts over on new input (the reader keeps no copy: do not modify it while reading). */
  reset(bytes: Uint8Array): void {
    this.buf = FrameReader.check(bytes);
    this.pos = 0;
  }

  /** Byte offset of the next frame. */
  get position(): number {
    return this.pos;
  }

  /** Bytes not read yet. */
  get remaining(): number {
    return this.buf.length - this.pos;
  }

  /** True while at least one more byte is left to read. */
  hasMore(): boolean {
    return this.pos < this.buf.length;
  }

  /**
   * @internal The body of the next frame (a view) and the position after it; does not move.
   * `typeName` and `maxMessageBytes` shape the errors.
   */
  peekFrame(typeName: string, maxMessageBytes: number): { body: Uint8Array; bodyAt: number; next: number } {
    const buf = this.buf;
    const start = this.pos;
    // The prefix is a varint of up to 10 bytes, read exactly as the core reads it in decodeAll
    // (non-minimal encodings are legal varints), so that both paths accept the same frames.
    let len = 0;
    let p = start;
    for (let shift = 0; ; shift += 7) {
      if (p >= buf.length) {
        throw new CodecError(
          "FRAME_TRUNCATED",
          `cannot decode ${typeName}: the frame at byte ${start} ends after the input does; the data is truncated, pass complete frames`,
          { offset: start, path: typeName },
        );
      }
      const b = buf[p++]!;
      if (shift === 63 && b > 1) {
        const tooLong = b >= 0x80;
        throw new CodecError(
          tooLong ? "VARINT_TOO_LONG" : "VARINT_OVERFLOW",
          `cannot decode ${typeName}: varint at byte ${start} in ${typeName} ${tooLong ? "is longer than 10 bytes" : "does not fit in 64 bits"}; the input is corrupt or is not a ${typeName}`,
          { offset: start, path: typeName },
        );
      }
      len += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) break;
    }
    if (len > maxMessageBytes) {
      throw new CodecError(
        "FRAME_TOO_LARGE",
        `cannot decode ${typeName}: the frame at byte ${start} announces ${len} bytes, above maxMessageBytes ${maxMessageBytes}; raise maxMessageBytes or reject the input`,
        { offset: start, path: typeName },
      );
    }
    if (p + len > buf.length) {
      throw new CodecError(
        "FRAME_TRUNCATED",
        `cannot decode ${typeName}: the frame at byte ${start} ends after the input does; the data is truncated, pass complete frames`,
        { offset: start, path: typeName },
      );
    }
    return { body: buf.subarray(p, p + len), bodyAt: p, next: p + len };
  }

  /** @internal Moves to `next` after a successful read. */
  advance(next: number): void {
    this.pos = next;
  }
}
