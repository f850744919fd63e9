// Wire primitives for the JS writer: varint/zigzag/fixed/UTF-8 sizes and writes into a byte
// buffer whose size is known in advance (sizes are computed first, so no bounds checks and no
// backpatching). Knows bytes only, never descriptors.

/** Low and high 32 bits (unsigned) of the last value passed to `split64*`. */
export let LO = 0;
export let HI = 0;

const TWO32 = 4294967296;

/** Two's complement split of a safe integer into LO/HI. */
export function split64Number(n: number): void {
  if (n >= 0) {
    const lo = n >>> 0;
    LO = lo;
    HI = ((n - lo) / TWO32) >>> 0;
  } else {
    const m = -n;
    let lo = m >>> 0;
    let hi = ((m - lo) / TWO32) >>> 0;
    lo = (~lo + 1) >>> 0;
    hi = (~hi + (lo === 0 ? 1 : 0)) >>> 0;
    LO = lo;
    HI = hi;
  }
}

const MASK32 = 0xffffffffn;

/** Splits a 64-bit integer held as bigint, decimal string or number (per jstype) into LO/HI. */
export function split64(v: unknown): void {
  if (typeof v === "bigint") {
    // Most values fit a double exactly; the BigInt arithmetic below allocates.
    if (v >= -9007199254740991n && v <= 9007199254740991n) {
      split64Number(Number(v));
      return;
    }
    const x = BigInt.asUintN(64, v);
    LO = Number(x & MASK32);
    HI = Number(x >> 32n);
  } else if (typeof v === "number") {
    if (Number.isSafeInteger(v)) split64Number(v);
    else split64(BigInt(Math.trunc(v)));
  } else {
    split64(BigInt(v as string));
  }
}

/** Zigzag-encodes LO/HI in place (sint64). */
export function zigzag64(): void {
  const sign = HI >> 31;
  const hi = ((HI << 1) | (LO >>> 31)) ^ sign;
  const lo = (LO << 1) ^ sign;
  LO = lo >>> 0;
  HI = hi >>> 0;
}

export function varint32Size(v: number): number {
  // v is an unsigned 32-bit value (number); tags of numbers ≥ 2^28 exceed int32.
  if (v < 0x80) return 1;
  if (v < 0x4000) return 2;
  if (v < 0x200000) return 3;
  if (v < 0x10000000) return 4;
  return 5;
}

/** Size of the varint in LO/HI. */
export function varint64Size(): number {
  if (HI === 0) return varint32Size(LO);
  const bits = 64 - Math.clz32(HI);
  return ((bits + 6) / 7) | 0;
}

/** int32 and enum: a negative value is sign-extended to ten bytes. */
export function int32Size(v: number): number {
  return v >= 0 ? varint32Size(v) : 10;
}

export function sint32Size(v: number): number {
  return varint32Size(((v << 1) ^ (v >> 31)) >>> 0);
}

/** UTF-8 length of a string; a lone surrogate counts 3 (the replacement character). */
export function utf8Length(s: string): number {
  const n = s.length;
  let len = n;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) len += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        len += 2;
        i++;
      } else len += 2;
    } else len += 2;
  }
  return len;
}

const scratch = new DataView(new ArrayBuffer(8));
const encoder = new TextEncoder();

// Strings longer than this go through TextEncoder.encodeInto; shorter ones are written by the
// loop below, which avoids the subarray view and the native call per string.
const ENCODE_INTO_MIN = 128;

/** A byte sink over a buffer that is large enough for everything written (sizes come first). */
export class Sink {
  buf: Uint8Array;
  pos: number;

  constructor(buf: Uint8Array, pos: number) {
    this.buf = buf;
    this.pos = pos;
  }

  varint32(v: number): void {
    const buf = this.buf;
    let pos = this.pos;
    while (v > 0x7f) {
      buf[pos++] = (v & 0x7f) | 0x80;
      v = v >>> 7;
    }
    buf[pos++] = v;
    this.pos = pos;
  }

  /** Writes LO/HI as a varint. */
  varint64(): void {
    let lo = LO;
    let hi = HI;
    const buf = this.buf;
    let pos = this.pos;
    while (hi !== 0 || lo > 0x7f) {
      buf[pos++] = (lo & 0x7f) | 0x80;
      lo = ((lo >>> 7) | (hi << 25)) >>> 0;
      hi = hi >>> 7;
    }
    buf[pos++] = lo;
    this.pos = pos;
  }

  int32(v: number): void {
    if (v >= 0) this.varint32(v);
    else {
      LO = v >>> 0;
      HI = 0xffffffff;
      this.varint64();
    }
  }

  sint32(v: number): void {
    this.varint32(((v << 1) ^ (v >> 31)) >>> 0);
  }

  fixed32(v: number): void {
    const buf = this.buf;
    const pos = this.pos;
    buf[pos] = v;
    buf[pos + 1] = v >>> 8;
    buf[pos + 2] = v >>> 16;
    buf[pos + 3] = v >>> 24;
    this.pos = pos + 4;
  }

  /** Writes LO/HI little-endian. */
  fixed64(): void {
    this.fixed32(LO);
    this.fixed32(HI);
  }

  float(v: number): void {
    scratch.setFloat32(0, v, true);
    const buf = this.buf;
    const pos = this.pos;
    buf[pos] = scratch.getUint8(0);
    buf[pos + 1] = scratch.getUint8(1);
    buf[pos + 2] = scratch.getUint8(2);
    buf[pos + 3] = scratch.getUint8(3);
    this.pos = pos + 4;
  }

  double(v: number): void {
    scratch.setFloat64(0, v, true);
    this.fixed32(scratch.getUint32(0, true));
    this.fixed32(scratch.getUint32(4, true));
  }

  bytes(b: Uint8Array): void {
    this.varint32(b.length);
    this.raw(b);
  }

  raw(b: Uint8Array): void {
    const n = b.length;
    const buf = this.buf;
    const pos = this.pos;
    // A short loop beats TypedArray.set, which has a fixed native-call cost.
    if (n < 32) for (let i = 0; i < n; i++) buf[pos + i] = b[i]!;
    else buf.set(b, pos);
    this.pos = pos + n;
  }

  /** A length-prefixed UTF-8 string. */
  string(s: string): void {
    const n = s.length;
    if (n < 43) {
      // At most 3 bytes per UTF-16 unit: the length fits one byte, written after the payload.
      const start = this.pos;
      this.pos = start + 1;
      this.utf8(s);
      this.buf[start] = this.pos - start - 1;
      return;
    }
    const len = utf8Length(s);
    this.varint32(len);
    if (n >= ENCODE_INTO_MIN) {
      encoder.encodeInto(s, this.buf.subarray(this.pos, this.pos + len));
      this.pos += len;
    } else this.utf8(s);
  }

  private utf8(s: string): void {
    const buf = this.buf;
    let pos = this.pos;
    const n = s.length;
    for (let i = 0; i < n; i++) {
      let c = s.charCodeAt(i);
      if (c < 0x80) {
        buf[pos++] = c;
      } else if (c < 0x800) {
        buf[pos++] = 0xc0 | (c >> 6);
        buf[pos++] = 0x80 | (c & 0x3f);
      } else {
        if (c >= 0xd800 && c <= 0xdfff) {
          const d = c <= 0xdbff && i + 1 < n ? s.charCodeAt(i + 1) : 0;
          if (d >= 0xdc00 && d <= 0xdfff) {
            c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
            i++;
            buf[pos++] = 0xf0 | (c >> 18);
            buf[pos++] = 0x80 | ((c >> 12) & 0x3f);
            buf[pos++] = 0x80 | ((c >> 6) & 0x3f);
            buf[pos++] = 0x80 | (c & 0x3f);
            continue;
          }
          c = 0xfffd;
        }
        buf[pos++] = 0xe0 | (c >> 12);
        buf[pos++] = 0x80 | ((c >> 6) & 0x3f);
        buf[pos++] = 0x80 | (c & 0x3f);
      }
    }
    this.pos = pos;
  }
}
