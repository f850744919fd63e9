// A reusable output buffer for frames (docs/design.md §8): serializers append whole frames; a failed
// write appends nothing, so the position is unchanged.

import { CodecError } from "../errors.js";

const MIN_CAPACITY = 256;

export class FrameWriter {
  private buf: Uint8Array;
  private pos: number;

  /** `initialCapacity` in bytes; the buffer grows by doubling. Defaults to 4096. */
  constructor(initialCapacity = 4096) {
    if (!Number.isInteger(initialCapacity) || initialCapacity < 0) {
      throw new RangeError(`FrameWriter initialCapacity must be a non-negative integer, got ${String(initialCapacity)}`);
    }
    this.buf = new Uint8Array(Math.max(MIN_CAPACITY, initialCapacity));
    this.pos = 0;
  }

  /** Bytes written so far. */
  get length(): number {
    return this.pos;
  }

  /** A copy of the bytes written so far. */
  toUint8Array(): Uint8Array {
    return this.live().slice(0, this.pos);
  }

  /** A view of the bytes written so far, valid until the next write or reset (no copy). */
  view(): Uint8Array {
    return this.live().subarray(0, this.pos);
  }

  /** The buffer, or OUTPUT_DETACHED when it was detached (a buffer is never empty otherwise). */
  private live(): Uint8Array {
    if (this.buf.length === 0) throw detached(this.pos);
    return this.buf;
  }

  /** Forgets the written bytes and keeps the buffer for reuse (a fresh one if it was detached). */
  reset(): void {
    this.pos = 0;
    if (this.buf.length === 0) this.buf = new Uint8Array(MIN_CAPACITY);
  }

  /** @internal Room for `n` more bytes; returns the buffer to write into at `length`. */
  reserve(n: number): Uint8Array {
    const need = this.pos + n;
    if (need > this.buf.length) {
      // Growing a detached buffer (`view()`'s buffer transferred, as postMessage(v, [v.buffer])
      // does) from length 0 doubled 0 forever: every later serialize hung.
      let cap = this.live().length * 2;
      while (cap < need) cap *= 2;
      const next = new Uint8Array(cap);
      next.set(this.buf.subarray(0, this.pos));
      this.buf = next;
    }
    return this.buf;
  }

  /** @internal Moves the position after a complete write of `n` bytes. */
  commit(n: number): void {
    this.pos += n;
  }
}

function detached(written: number): CodecError {
  return new CodecError(
    "OUTPUT_DETACHED",
    `cannot use the FrameWriter: its buffer was detached (the .buffer of view() was transferred) and the ${written} bytes written are gone; call reset() to start over, and transfer toUint8Array() copies instead`,
  );
}
