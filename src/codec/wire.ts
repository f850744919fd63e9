// Wire primitives for the JS writer: varint/zigzag/fixed/UTF-8 sizes and writes into a byte
// buffer. No bounds checks here: the caller makes room first (the one-pass writer by an upper
// bound per field, the deterministic writer by computing exact sizes). Knows bytes only, never
// descriptors.

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

// A bigint stored into a BigInt64Array is wrapped to 64 bits natively, with no allocation:
// measured 2x faster than Number() conversion with a BigInt fallback on mixed magnitudes.
const big64 = new BigInt64Array(1);
const big32 = new Uint32Array(big64.buffer);
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const LO_WORD = LITTLE_ENDIAN ? 0 : 1;
const HI_WORD = 1 - LO_WORD;

/** Splits a 64-bit integer held as bigint, decimal string or number (per jstype) into LO/HI. */
export function split64(v: unknown): void {
  if (typeof v === "bigint") {
    big64[0] = v;
    LO = big32[LO_WORD]!;
    HI = big32[HI_WORD]!;
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

/** Payload size of a packed run of bigint 64-bit varints. */
export function packedVarint64Size(list: readonly unknown[], zigzag: boolean): number {
  let n = 0;
  for (let i = 0; i < list.length; i++) {
    big64[0] = list[i] as bigint;
    let lo = big32[LO_WORD]!;
    let hi = big32[HI_WORD]!;
    if (zigzag) {
      const sign = hi >> 31;
      hi = (((hi << 1) | (lo >>> 31)) ^ sign) >>> 0;
      lo = ((lo << 1) ^ sign) >>> 0;
    }
    n += hi === 0 ? varint32Size(lo) : ((64 - Math.clz32(hi) + 6) / 7) | 0;
  }
  return n;
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

/** Element kinds of packedFixed. */
export const FIXED_F64 = 1;
export const FIXED_F32 = 2;
export const FIXED_U32 = 3;
export const FIXED_I32 = 4;
export const FIXED_I64 = 5;
/** True when packed fixed-width runs may be copied from typed arrays (little-endian host). */
export const BULK_FIXED = LITTLE_ENDIAN;

function fixedWidth(kind: number): number {
  return kind === FIXED_F64 || kind === FIXED_I64 ? 8 : 4;
}

let scratchBuf = new Uint8Array(8192);

function scratchBytes(n: number): Uint8Array {
  if (scratchBuf.length < n) {
    let cap = scratchBuf.length * 2;
    while (cap < n) cap *= 2;
    scratchBuf = new Uint8Array(cap);
  }
  return scratchBuf;
}
const encoder = new TextEncoder();

// Strings longer than this go through TextEncoder.encodeInto; shorter ones are written by the
// loop below, which avoids the subarray view and the native call per string.
const ENCODE_INTO_MIN = 128;

/**
 * A negative int32/enum as protobuf writes it: sign-extended to 64 bits, always ten bytes. Written
 * without the LO/HI loop: the high word is all ones, so bytes 5-9 are constants.
 */
function negInt32(buf: Uint8Array, pos: number, v: number): number {
  buf[pos] = (v & 0x7f) | 0x80;
  buf[pos + 1] = ((v >>> 7) & 0x7f) | 0x80;
  buf[pos + 2] = ((v >>> 14) & 0x7f) | 0x80;
  buf[pos + 3] = ((v >>> 21) & 0x7f) | 0x80;
  buf[pos + 4] = (v >>> 28) | 0xf0;
  buf[pos + 5] = 0xff;
  buf[pos + 6] = 0xff;
  buf[pos + 7] = 0xff;
  buf[pos + 8] = 0xff;
  buf[pos + 9] = 0x01;
  return pos + 10;
}

/** A byte sink over a buffer that the caller keeps large enough for what it writes. */
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
    else this.pos = negInt32(this.buf, this.pos, v);
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

  /**
   * Writes a packed run of fixed-width elements through a typed array: one native conversion
   * and one copy instead of a DataView call per element (little-endian hosts only).
   */
  packedFixed(kind: number, list: readonly unknown[]): void {
    const n = list.length;
    let bytes: Uint8Array;
    // TypedArray.prototype.set is fast only from PACKED_SMI/DOUBLE arrays (0.4 µs per 1000);
    // from PACKED_ELEMENTS (mixed Smi and heap numbers, bigints) an assignment loop is ~40x
    // faster than set (measured on uint32 and bigint runs).
    switch (kind) {
      case FIXED_F64:
        bytes = scratchBytes(n * 8);
        new Float64Array(bytes.buffer, 0, n).set(list as number[]);
        break;
      case FIXED_F32:
        bytes = scratchBytes(n * 4);
        new Float32Array(bytes.buffer, 0, n).set(list as number[]);
        break;
      case FIXED_U32: {
        bytes = scratchBytes(n * 4);
        const a = new Uint32Array(bytes.buffer, 0, n);
        for (let i = 0; i < n; i++) a[i] = list[i] as number;
        break;
      }
      case FIXED_I32: {
        bytes = scratchBytes(n * 4);
        const a = new Int32Array(bytes.buffer, 0, n);
        for (let i = 0; i < n; i++) a[i] = list[i] as number;
        break;
      }
      default: {
        bytes = scratchBytes(n * 8);
        const a = new BigInt64Array(bytes.buffer, 0, n);
        for (let i = 0; i < n; i++) a[i] = list[i] as bigint;
      }
    }
    const w = fixedWidth(kind) * n;
    this.buf.set(bytes.subarray(0, w), this.pos);
    this.pos += w;
  }

  /** A packed run of bigint 64-bit varints (int64, uint64; sint64 with `zigzag`), in locals only. */
  packedVarint64(list: readonly unknown[], zigzag: boolean): void {
    const buf = this.buf;
    let pos = this.pos;
    for (let i = 0; i < list.length; i++) {
      big64[0] = list[i] as bigint;
      let lo = big32[LO_WORD]!;
      let hi = big32[HI_WORD]!;
      if (zigzag) {
        const sign = hi >> 31;
        hi = (((hi << 1) | (lo >>> 31)) ^ sign) >>> 0;
        lo = ((lo << 1) ^ sign) >>> 0;
      }
      while (hi !== 0 || lo > 0x7f) {
        buf[pos++] = (lo & 0x7f) | 0x80;
        lo = ((lo >>> 7) | (hi << 25)) >>> 0;
        hi = hi >>> 7;
      }
      buf[pos++] = lo;
    }
    this.pos = pos;
  }

  /** A packed run of 32-bit varints: int32/enum (`signed`, sign-extended), uint32, sint32 (`zigzag`). */
  packedVarint32(list: readonly unknown[], signed: boolean, zigzag: boolean): void {
    const buf = this.buf;
    let pos = this.pos;
    for (let i = 0; i < list.length; i++) {
      // `| 0` / `>>> 0` are exact on these (range-checked) values and keep the loop in 32-bit
      // integer ops when the list holds unboxed doubles: number lists share one allocation site,
      // and once a double list passed through it V8 makes every later one PACKED_DOUBLE (measured:
      // the nested fixture's int32 lists 11.5 -> 29.6 µs per encode after a numeric encode).
      let v = signed || zigzag ? (list[i] as number) | 0 : (list[i] as number) >>> 0;
      if (zigzag) v = ((v << 1) ^ (v >> 31)) >>> 0;
      else if (signed && v < 0) {
        pos = negInt32(buf, pos, v);
        continue;
      }
      while (v > 0x7f) {
        buf[pos++] = (v & 0x7f) | 0x80;
        v = v >>> 7;
      }
      buf[pos++] = v;
    }
    this.pos = pos;
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
