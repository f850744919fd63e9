// Wire primitives for the JS writer: varint/zigzag/fixed/UTF-8 sizes, and `WireWriter`, which
// writes them into its byte buffer. All state (buffer, position, the halves of a 64-bit value,
// conversion scratch) lives on the WireWriter instance, so that writes never share anything.
// No bounds checks here: the caller makes room first (by an upper bound per field). Knows bytes
// only, never descriptors.

import { copyBytes } from "../bytes.js";
import { int64ViaDataView } from "../int64-access.js";
import { floatOverflows, INT64_MAX, INT64_MIN, UINT64_MAX } from "../message/coerce.js";

const TWO32 = 4294967296;
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const LO_WORD = LITTLE_ENDIAN ? 0 : 1;
const HI_WORD = 1 - LO_WORD;

/** Element kinds of packedFixed. */
export const FIXED_F64 = 1;
export const FIXED_F32 = 2;
export const FIXED_U32 = 3;
export const FIXED_I32 = 4;
export const FIXED_I64 = 5;
/** True when packed fixed-width runs may be copied from typed arrays (little-endian host). */
export const BULK_FIXED = LITTLE_ENDIAN;

export function varint32Size(v: number): number {
  // v is an unsigned 32-bit value (number); tags of numbers ≥ 2^28 exceed int32.
  if (v < 0x80) return 1;
  if (v < 0x4000) return 2;
  if (v < 0x200000) return 3;
  if (v < 0x10000000) return 4;
  return 5;
}

/** Size of the varint of the 64-bit value with halves lo/hi. */
export function varint64Size(lo: number, hi: number): number {
  if (hi === 0) return varint32Size(lo);
  return ((64 - Math.clz32(hi) + 6) / 7) | 0;
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

function fixedWidth(kind: number): number {
  return kind === FIXED_F64 || kind === FIXED_I64 ? 8 : 4;
}

const encoder = new TextEncoder();

// Strings longer than this go through TextEncoder.encodeInto; shorter ones are written by the
// loop below, which avoids the subarray view and the native call per string.
export const ENCODE_INTO_MIN = 128;

/** Strings shorter than this (UTF-16 units, at most 3 UTF-8 bytes each) take one length byte. */
export const SHORT_STRING = 43;

/**
 * A negative int32/enum as protobuf writes it: sign-extended to 64 bits, always ten bytes. Written
 * without the 64-bit loop: the high word is all ones, so bytes 5-9 are constants.
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

/** Writes wire primitives at `pos` of `buf`, which the caller keeps large enough. */
export class WireWriter {
  buf: Uint8Array = new Uint8Array(0);
  pos = 0;
  /** Low and high 32 bits (unsigned) of the last value passed to `split64`. */
  lo = 0;
  hi = 0;
  /**
   * Set when `string` met a lone surrogate in a string under 128 units (written as U+FFFD, as
   * TextEncoder does); never cleared here. A writer whose strings are unchecked reads it.
   */
  lone = false;
  // A bigint stored into a BigInt64Array is wrapped to 64 bits natively, with no allocation:
  // measured 2x faster than Number() conversion with a BigInt fallback on mixed magnitudes.
  private readonly big64 = new BigInt64Array(2);
  private readonly big32 = new Uint32Array(this.big64.buffer);
  private readonly f32 = new Float32Array(this.big64.buffer);
  private readonly f64 = new Float64Array(this.big64.buffer);
  // The same 8 bytes, for engines that store a bigint faster through DataView (int64-access.ts).
  private readonly big64dv = new DataView(this.big64.buffer);
  private packScratch = new Uint8Array(8192);

  /** Splits a 64-bit integer held as bigint, decimal string or number (per jstype) into lo/hi. */
  split64(v: unknown): void {
    if (typeof v === "bigint") {
      if (int64ViaDataView) this.big64dv.setBigInt64(0, v, LITTLE_ENDIAN);
      else this.big64[0] = v;
      this.lo = this.big32[LO_WORD]!;
      this.hi = this.big32[HI_WORD]!;
    } else if (typeof v === "number" && Number.isSafeInteger(v)) {
      this.split64Number(v);
    } else {
      // Numbers outside the safe range never reach here (create refuses them); decimal strings do.
      this.split64(BigInt(typeof v === "number" ? Math.trunc(v) : (v as string)));
    }
  }

  /** Two's complement split of a safe integer into lo/hi. */
  private split64Number(n: number): void {
    if (n >= 0) {
      const lo = n >>> 0;
      this.lo = lo;
      this.hi = ((n - lo) / TWO32) >>> 0;
    } else {
      const m = -n;
      let lo = m >>> 0;
      let hi = ((m - lo) / TWO32) >>> 0;
      lo = (~lo + 1) >>> 0;
      hi = (~hi + (lo === 0 ? 1 : 0)) >>> 0;
      this.lo = lo;
      this.hi = hi;
    }
  }

  /** Zigzag-encodes lo/hi in place (sint64). */
  zigzag64(): void {
    const sign = this.hi >> 31;
    const hi = ((this.hi << 1) | (this.lo >>> 31)) ^ sign;
    const lo = (this.lo << 1) ^ sign;
    this.lo = lo >>> 0;
    this.hi = hi >>> 0;
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

  /** Writes lo/hi as a varint. */
  varint64(): void {
    let lo = this.lo;
    let hi = this.hi;
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

  /** Writes lo/hi little-endian. */
  fixed64(): void {
    this.fixed32(this.lo);
    this.fixed32(this.hi);
  }

  float(v: number): void {
    this.f32[0] = v;
    this.fixed32(this.big32[0]!);
  }

  double(v: number): void {
    this.f64[0] = v;
    this.fixed32(this.big32[LITTLE_ENDIAN ? 0 : 1]!);
    this.fixed32(this.big32[LITTLE_ENDIAN ? 1 : 0]!);
  }

  private scratchBytes(n: number): Uint8Array {
    if (this.packScratch.length < n) {
      let cap = this.packScratch.length * 2;
      while (cap < n) cap *= 2;
      this.packScratch = new Uint8Array(cap);
    }
    return this.packScratch;
  }

  /**
   * Writes a packed run of the first `n` fixed-width elements (the length its header gave: the
   * caller's one read of it) through a typed array: one native conversion and one copy instead of
   * a write per element (little-endian hosts only).
   */
  packedFixed(kind: number, list: readonly unknown[], n: number): void {
    let bytes: Uint8Array;
    // TypedArray.prototype.set is fast only from a typed array (a copy) or, in V8, from a
    // PACKED_DOUBLE array (0.4 us per 1000). From PACKED_ELEMENTS (an array that ever held a
    // non-number, or built by generic code) it took 34 us per 1000 doubles in Node, and from any
    // array 6.5 us (doubles) and 13.8-17 us (uint32) in Bun, against 0.7-2 us for an assignment
    // loop in both. Doubles and floats copy a typed array with set and loop over an array; the
    // other kinds loop over any input.
    const typed = ArrayBuffer.isView(list);
    switch (kind) {
      case FIXED_F64: {
        bytes = this.scratchBytes(n * 8);
        const a = new Float64Array(bytes.buffer, 0, n);
        if (typed) a.set(list as unknown as Float64Array);
        else for (let i = 0; i < n; i++) a[i] = list[i] as number;
        break;
      }
      case FIXED_F32: {
        bytes = this.scratchBytes(n * 4);
        const a = new Float32Array(bytes.buffer, 0, n);
        if (typed) a.set(list as unknown as Float32Array);
        else for (let i = 0; i < n; i++) a[i] = list[i] as number;
        break;
      }
      case FIXED_U32: {
        bytes = this.scratchBytes(n * 4);
        const a = new Uint32Array(bytes.buffer, 0, n);
        for (let i = 0; i < n; i++) a[i] = list[i] as number;
        break;
      }
      case FIXED_I32: {
        bytes = this.scratchBytes(n * 4);
        const a = new Int32Array(bytes.buffer, 0, n);
        for (let i = 0; i < n; i++) a[i] = list[i] as number;
        break;
      }
      default: {
        bytes = this.scratchBytes(n * 8);
        if (typed) {
          // A BigInt64Array or BigUint64Array from an init object (listForWrite passes a fitting
          // typed array as it is; create copies it to an array): the same 64 bits either way.
          const t = list as unknown as BigInt64Array;
          bytes.set(new Uint8Array(t.buffer, t.byteOffset, n * 8));
        } else if (int64ViaDataView) {
          const dv = new DataView(bytes.buffer, 0, n * 8);
          for (let i = 0; i < n; i++) dv.setBigInt64(8 * i, list[i] as bigint, true);
        } else {
          const a = new BigInt64Array(bytes.buffer, 0, n);
          for (let i = 0; i < n; i++) a[i] = list[i] as bigint;
        }
      }
    }
    this.copyFixed(kind, n);
  }

  /**
   * packedFixed for an array no check has copied (the generated writer's): each element is read
   * once and must be what create stores as it is (a number of the type's range, a float that
   * float32 holds, a bigint of the 64-bit range, `unsigned` for fixed64); returns false, with
   * nothing written, at the first that is not. (A checked typed copy first allocated a typed
   * array per list, and read every element twice.) Its own loops: with a `check` flag in
   * packedFixed's, a built value's numeric-batch encode lost 3-21%. `n` is the caller's one read
   * of the length, which its header gave: a `length` that runs code (a Proxy's trap, a subclass's
   * getter) and changes the list between two reads made the header and the body disagree.
   */
  packedFixedChecked(kind: number, list: readonly unknown[], n: number, unsigned: boolean): boolean {
    const bytes = this.scratchBytes(n * fixedWidth(kind));
    if (kind === FIXED_F64) {
      const a = new Float64Array(bytes.buffer, 0, n);
      for (let i = 0; i < n; i++) {
        const x = list[i];
        if (typeof x !== "number") return false;
        a[i] = x;
      }
    } else if (kind === FIXED_F32) {
      const a = new Float32Array(bytes.buffer, 0, n);
      for (let i = 0; i < n; i++) {
        const x = list[i];
        if (typeof x !== "number" || floatOverflows(x)) return false;
        a[i] = x;
      }
    } else if (kind === FIXED_U32) {
      const a = new Uint32Array(bytes.buffer, 0, n);
      for (let i = 0; i < n; i++) {
        const x = list[i];
        if (typeof x !== "number" || x >>> 0 !== x) return false;
        a[i] = x;
      }
    } else if (kind === FIXED_I32) {
      const a = new Int32Array(bytes.buffer, 0, n);
      for (let i = 0; i < n; i++) {
        const x = list[i];
        if (typeof x !== "number" || (x | 0) !== x) return false;
        a[i] = x;
      }
    } else {
      const min = unsigned ? 0n : INT64_MIN;
      const max = unsigned ? UINT64_MAX : INT64_MAX;
      if (int64ViaDataView) {
        const dv = new DataView(bytes.buffer, 0, n * 8);
        for (let i = 0; i < n; i++) {
          const x = list[i];
          if (typeof x !== "bigint" || x < min || x > max) return false;
          dv.setBigInt64(8 * i, x, true);
        }
      } else {
        const a = new BigInt64Array(bytes.buffer, 0, n);
        for (let i = 0; i < n; i++) {
          const x = list[i];
          if (typeof x !== "bigint" || x < min || x > max) return false;
          // A fixed64 past 2^63 is stored as its two's complement: the same 64 bits.
          a[i] = x;
        }
      }
    }
    this.copyFixed(kind, n);
    return true;
  }

  /** The first n elements of `kind` in the pack scratch, to the output. */
  private copyFixed(kind: number, n: number): void {
    const w = fixedWidth(kind) * n;
    this.buf.set(this.packScratch.subarray(0, w), this.pos);
    this.pos += w;
  }

  /**
   * A packed run of bigint 64-bit varints (int64, uint64 when `unsigned`; sint64 with `zigzag`), in
   * locals only. With `check` (a list no check has copied: the generated writer's) each element is
   * read once and written only when it is a bigint of the type's range; it returns false, with
   * `pos` unmoved, at the first that is not (as packedVarint32). The range is tested by comparison:
   * BigInt.asIntN allocates a bigint per element, and a checked BigInt64Array copy allocated
   * another on each read (a 1,000-element sint64 list from plain data: ~40% of its write). A
   * checked list skips the test: it cost a built value's numeric-batch encode 11-17%.
   */
  packedVarint64(list: readonly unknown[], from: number, to: number, zigzag: boolean, unsigned: boolean, check: boolean): boolean {
    if (ArrayBuffer.isView(list)) {
      this.packedVarint64Typed(list as unknown as BigInt64Array, from, to, zigzag);
      return true;
    }
    const buf = this.buf;
    const big64 = this.big64;
    const big32 = this.big32;
    const min = unsigned ? 0n : INT64_MIN;
    const max = unsigned ? UINT64_MAX : INT64_MAX;
    const dv = this.big64dv;
    const viaDataView = int64ViaDataView;
    let pos = this.pos;
    for (let i = from; i < to; i++) {
      const x = list[i];
      if (check && (typeof x !== "bigint" || x < min || x > max)) return false;
      // A uint64 past 2^63 is stored as its two's complement: the same 64 bits (either way: both
      // wrap a bigint to 64 bits natively).
      if (viaDataView) dv.setBigInt64(0, x as bigint, LITTLE_ENDIAN);
      else big64[0] = x as bigint;
      let lo = big32[LO_WORD]!;
      let hi = big32[HI_WORD]!;
      if (zigzag) {
        const sign = hi >> 31;
        hi = (((hi << 1) | (lo >>> 31)) ^ sign) >>> 0;
        lo = ((lo << 1) ^ sign) >>> 0;
      }
      if (viaDataView) {
        // JavaScriptCore: the high word's bytes first, then a loop on the low word alone (1,000
        // sint64 values of mixed magnitude from plain data: 12.8 -> 10.2 µs in Bun). V8 ran the
        // numeric batch's encode 5% slower that way (A/B in one process): it keeps one loop.
        while (hi !== 0) {
          buf[pos++] = (lo & 0x7f) | 0x80;
          lo = ((lo >>> 7) | (hi << 25)) >>> 0;
          hi = hi >>> 7;
        }
        while (lo > 0x7f) {
          buf[pos++] = (lo & 0x7f) | 0x80;
          lo >>>= 7;
        }
      } else {
        while (hi !== 0 || lo > 0x7f) {
          buf[pos++] = (lo & 0x7f) | 0x80;
          lo = ((lo >>> 7) | (hi << 25)) >>> 0;
          hi = hi >>> 7;
        }
      }
      buf[pos++] = lo;
    }
    this.pos = pos;
    return true;
  }

  /**
   * packedVarint64 for a BigInt64Array or BigUint64Array (what typedFits lets through for the
   * field's kind, so every element is in range): each element's two 32-bit halves are read as
   * numbers, without making a bigint per element (a BigInt64Array element read costs ~5 ns in
   * Node and ~20 ns in Bun, two Uint32Array reads ~1).
   */
  private packedVarint64Typed(list: BigInt64Array, from: number, to: number, zigzag: boolean): void {
    const buf = this.buf;
    const w = new Uint32Array(list.buffer, list.byteOffset + 8 * from, 2 * (to - from));
    let pos = this.pos;
    for (let i = 0; i < w.length; i += 2) {
      let lo = w[i + LO_WORD]!;
      let hi = w[i + HI_WORD]!;
      if (zigzag) {
        const sign = hi >> 31;
        hi = (((hi << 1) | (lo >>> 31)) ^ sign) >>> 0;
        lo = ((lo << 1) ^ sign) >>> 0;
      }
      for (; hi !== 0 || lo > 0x7f; hi >>>= 7) {
        buf[pos++] = (lo & 0x7f) | 0x80;
        lo = ((lo >>> 7) | (hi << 25)) >>> 0;
      }
      buf[pos++] = lo;
    }
    this.pos = pos;
  }

  /**
   * Elements [from, to) of a packed run of 32-bit varints (room made): int32/enum (sign-extended),
   * uint32 (`unsigned`), sint32 (`zigzag`). Each element is read once and written only when it is
   * a number of the type's range; returns false, with `pos` unmoved, at the first that is not (a
   * checked copy never has one; a list read unchecked, by the generated writer, may).
   */
  packedVarint32(list: readonly unknown[], from: number, to: number, unsigned: boolean, zigzag: boolean): boolean {
    const buf = this.buf;
    let pos = this.pos;
    for (let i = from; i < to; i++) {
      const x = list[i];
      if (typeof x !== "number") return false;
      // `| 0` / `>>> 0` keep the loop in 32-bit integer ops when the list holds unboxed doubles
      // (V8 makes a list PACKED_DOUBLE once a double passed through its allocation site;
      // measured: int32 lists 11.5 -> 29.6 µs without them).
      let v = unsigned ? x >>> 0 : x | 0;
      if (v !== x) return false;
      if (zigzag) v = ((v << 1) ^ (v >> 31)) >>> 0;
      else if (!unsigned && v < 0) {
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
    return true;
  }

  bytes(b: Uint8Array): void {
    this.varint32(b.length);
    this.raw(b);
  }

  raw(b: Uint8Array): void {
    this.rawRange(b, 0, b.length);
  }

  /** `src[off .. off + n)`, without a view of it (a stored unknown occurrence). */
  rawRange(src: Uint8Array, off: number, n: number): void {
    copyBytes(this.buf, this.pos, src, off, n);
    this.pos += n;
  }

  /** A length-prefixed UTF-8 string. */
  string(s: string): void {
    const n = s.length;
    if (n < ENCODE_INTO_MIN) {
      // At most 3 bytes per UTF-16 unit: the length fits one byte under SHORT_STRING units, two
      // under 128. One byte is reserved and written after the payload, which moves up a byte when
      // its length takes two: a sizing pass (utf8Length) first was 4% of the span batch's encode.
      // Room: callers make room for the bound of 5 + 3 bytes per unit (scalarBound).
      const start = this.pos;
      this.pos = start + 1;
      this.utf8(s);
      const len = this.pos - start - 1;
      if (len < 0x80) {
        this.buf[start] = len;
        return;
      }
      const buf = this.buf;
      buf.copyWithin(start + 2, start + 1, this.pos);
      buf[start] = (len & 0x7f) | 0x80;
      buf[start + 1] = len >>> 7;
      this.pos++;
      return;
    }
    // Encoded after room for the longest length (3 bytes per unit), then moved down to its
    // actual length's size: a sizing pass (utf8Length) first cost ~1 ns per unit, a move is native.
    const max = 3 * n;
    const r = varint32Size(max);
    const start = this.pos;
    const len = encoder.encodeInto(s, this.buf.subarray(start + r, start + r + max)).written;
    const m = varint32Size(len);
    if (m < r) this.buf.copyWithin(start + m, start + r, start + r + len);
    this.varint32(len);
    this.pos += len;
  }

  private utf8(s: string): void {
    const buf = this.buf;
    let pos = this.pos;
    const n = s.length;
    let i = 0;
    // Four ASCII units per step while they last: one test for four, and four stores at fixed
    // offsets instead of four position increments (the span batch's 690 strings: 26 -> 20 µs).
    for (; i + 4 <= n; i += 4) {
      const a = s.charCodeAt(i);
      const b = s.charCodeAt(i + 1);
      const c = s.charCodeAt(i + 2);
      const d = s.charCodeAt(i + 3);
      if ((a | b | c | d) >= 0x80) break;
      buf[pos] = a;
      buf[pos + 1] = b;
      buf[pos + 2] = c;
      buf[pos + 3] = d;
      pos += 4;
    }
    for (; i < n; i++) {
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
          this.lone = true;
        }
        buf[pos++] = 0xe0 | (c >> 12);
        buf[pos++] = 0x80 | ((c >> 6) & 0x3f);
        buf[pos++] = 0x80 | (c & 0x3f);
      }
    }
    this.pos = pos;
  }
}
