// A reusable output buffer for frames (docs/design.md §8): serializers append whole frames; a failed
// write appends nothing, so the position is unchanged.

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
    return this.buf.slice(0, this.pos);
  }

  /** A view of the bytes written so far, valid until the next write or reset (no copy). */
  view(): Uint8Array {
    return this.buf.subarray(0, this.pos);
  }

  /** Forgets the written bytes and keeps the buffer for reuse. */
  reset(): void {
    this.pos = 0;
  }

  /** @internal Room for `n` more bytes; returns the buffer to write into at `length`. */
  reserve(n: number): Uint8Array {
    const need = this.pos + n;
    if (need > this.buf.length) {
      let cap = this.buf.length * 2;
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
