// The read path of small bare messages, in TypeScript (docs/design.md §13 allows a pure-TS path
// where it measures faster). For a ~90 B message the core's fixed costs came to about as much as
// protobufjs's whole decode (one process, Node 20, loaded 2-core machine, ns per call: the walk
// call with its copy-in and status read 225-285, the tape's text string 100-170, the tape read
// with its frames 500-600, against protobufjs's 480-700 for the whole decode), and no share of it
// disappears by tuning one stage; reading the bytes directly skips the call, the copy-in, the tape
// and its text.
//
// It accepts no more than the WASM walker: it checks the same rules (tags, wire types against the
// layout table's own words, varint lengths, lengths, UTF-8, jstype = JS_NUMBER ranges, nesting)
// and builds the same values as the tape reader (reader.ts) through the helpers they share
// (read-plan.ts). Whatever it does not handle itself (every malformed input, every limit, a
// singular sub-message occurring twice, which merges, nesting past MAX_LEVELS) makes it give up
// (`undefined`), and the caller reads the input with the WASM path, which returns the value or
// throws the exact CodecError. Errors are then the core's by construction; what this file must
// never do is accept what the core refuses, or build a different value
// (test/decode-small-path.test.ts, and the decode suites run on both paths: vitest.config.ts).
// Over 500 lines on purpose: the field loop, packed runs and the UTF-8 check are one hot path
// sharing the reader's scratch state (varint halves, text); split, each part would expose it.
import { DynamicMessage } from "../message/dynamic-message.js";
import { L_NUMBER, L_STRING } from "../message/field-info.js";
import type { UnknownField } from "../message/unknown-fields.js";
import { newCases, newValues, NONE_SET, type Cases } from "../message/values.js";
import { latin1Text, NATIVE_LATIN1 } from "../wasm/ops.js";
import { reentrantDecode } from "../wasm/memory.js";
import {
  A_KIND_MASK, A_MESSAGE, A_PACKABLE, A_SLOT_SHIFT, A_STRING, A_WIRE_SHIFT, B_JS_NUMBER, DENSE_ENTRY_WORDS,
  KIND_BOOL, KIND_DOUBLE, KIND_ENUM, KIND_FIXED32, KIND_FIXED64, KIND_FLOAT, KIND_INT32, KIND_INT64, KIND_SFIXED32, KIND_SFIXED64,
  KIND_SINT32, KIND_SINT64, KIND_UINT32, KIND_UINT64, SPARSE_ENTRY_WORDS, T_DENSE_MAX_WORD, T_HEADER_WORDS,
  T_SPARSE_COUNT_WORD, tableWords,
} from "../wasm/table.js";
import {
  accepted, asciiString, cutStore, MAX_LIST_ELEMENTS, pieceOf, putEntry, unknownOf, SHORT_ASCII, S_IMPLICIT, S_LIST, utf8String, type ReadPlan, type SourceRef,
} from "./read-plan.js";

/** One declared field as the TypeScript reader looks it up by number. */
interface FieldEntry {
  readonly slot: number;
  /** Kind as in the layout table (FieldDescriptorProto.Type numbering). */
  readonly kind: number;
  /** The wire type the field is written with; a packable field also takes 2. */
  readonly wire: number;
  readonly packable: boolean;
  readonly utf8: boolean;
  readonly message: boolean;
  /** jstype = JS_NUMBER: values beyond ±(2^53 − 1) are refused. */
  readonly jsNumber: boolean;
  readonly store: number;
  readonly long: number;
  readonly oneof: number;
  readonly child: ReadPlan | undefined;
}

/** A plan's fields by number: directly up to the table's dense bound, else searched. */
export interface FieldTable {
  readonly dense: readonly (FieldEntry | undefined)[];
  readonly sparse: ReadonlyMap<number, FieldEntry> | undefined;
}

/**
 * The field table of `plan`, read from the layout table's own words (what the walker reads), so
 * that both paths accept the same wire types, strings and ranges for each number.
 */
function tableOf(plan: ReadPlan): FieldTable {
  const words = tableWords();
  const t = plan.layout.typeOffset;
  const denseMax = words[t + T_DENSE_MAX_WORD]!;
  const sparseCount = words[t + T_SPARSE_COUNT_WORD]!;
  const entry = (a: number, b: number): FieldEntry => {
    const slot = a >>> A_SLOT_SHIFT;
    const sp = plan.slots[slot]!;
    const message = (a & A_MESSAGE) !== 0;
    return {
      slot,
      kind: a & A_KIND_MASK,
      wire: (a >>> A_WIRE_SHIFT) & 7,
      packable: (a & A_PACKABLE) !== 0,
      utf8: (a & A_STRING) !== 0,
      message,
      jsNumber: !message && b === B_JS_NUMBER,
      store: sp.store,
      long: sp.long,
      oneof: sp.oneof,
      child: sp.child,
    };
  };
  const dense: (FieldEntry | undefined)[] = [];
  for (let n = 0; n <= denseMax; n++) {
    const at = t + T_HEADER_WORDS + DENSE_ENTRY_WORDS * n;
    dense.push(words[at] !== 0 ? entry(words[at]!, words[at + 1]!) : undefined);
  }
  let sparse: Map<number, FieldEntry> | undefined;
  for (let i = 0; i < sparseCount; i++) {
    const at = t + T_HEADER_WORDS + DENSE_ENTRY_WORDS * (denseMax + 1) + SPARSE_ENTRY_WORDS * i;
    (sparse ??= new Map()).set(words[at]!, entry(words[at + 1]!, words[at + 2]!));
  }
  const table = { dense, sparse };
  plan.table = table;
  return table;
}

/**
 * What the reader builds from what it read: one per kind of value (DynamicMessage here, protobuf-es
 * objects in generated-reader.ts). A message's values arrive by slot, as the tape reader's.
 */
export interface SmallBuilder {
  /** A nested message of `plan` (its values by slot, its unknown fields, its height). */
  message(plan: ReadPlan, values: unknown[], unknown: unknown[] | undefined, height: number): unknown;
  /** Adds a closed map entry (`plan`, its values `vs`) to the map at `slot` of `parent`. */
  entry(parent: unknown[], slot: number, plan: ReadPlan, vs: unknown[]): void;
  /**
   * An undeclared field: `buf[at .. end)`, its payload (after the tag) from `payloadAt`; `cut`
   * and `cutAt` as pieceOf takes them (the input's source copy, when the value keeps one).
   */
  unknownField(buf: Uint8Array, at: number, payloadAt: number, end: number, num: number, wt: number, cut: Uint8Array | undefined, cutAt: number): unknown;
}

const DYNAMIC: SmallBuilder = {
  message: (plan, values, unknown, height) =>
    values === NONE_SET && unknown === undefined
      ? accepted(DynamicMessage._defaultOf(plan.desc!), 1) // nothing on the wire: as the core's path (reader.ts)
      : accepted(DynamicMessage._fromDecoded(plan.desc!, values, unknown as UnknownField[] | undefined, undefined), height),
  entry: putEntry,
  unknownField: (buf, at, _payloadAt, end, num, _wt, cut, cutAt) => unknownOf(num, buf, at, end - at, cut, cutAt),
};

/** Thrown (and caught in `decode`) to hand the input to the WASM path. */
const GIVE_UP: unique symbol = Symbol("protokeel small reader gives up");

// Nesting the recursive reader goes down to at most; deeper inputs go to the core, whose stack
// is in linear memory (maxDepth reaches 10,000, which JS recursion must not).
const MAX_LEVELS = 64;

const TWO32 = 4294967296;

// A batch's ASCII strings are substrings of one text per this many bytes of its frames, as the
// core's are of one text per 64 KiB text area (src/wasm/ops.ts): V8 makes a substring of 13
// characters or more a slice that keeps its whole text alive, and with one text of the whole
// batch one kept 40-character id of a 450 KB batch of 10,000 frames held all 450 KB (64 KiB
// through the core; test/adversarial/decode-batch-paths.test.ts).
const TEXT_WINDOW = 64 * 1024;

// Fixed-width floats are read through this scratch in little-endian order, whatever the host's.
const scratch = new DataView(new ArrayBuffer(8));

// ASCII strings of up to this many bytes read before the read has its text (string()) are built
// by one String.fromCharCode call with a byte per argument: 9-14 ns in Node 20 against ~47 for
// a latin1Slice call (the text) and ~8 for each substring of it after; a message whose strings
// are all this short never makes the text (a message of one 4-character string: 130 -> 76-83 ns).
export const TINY_ASCII = 8;

/** @internal The ASCII bytes b[p .. p + n) (1 <= n <= TINY_ASCII) as a string. */
export function tinyAscii(b: Uint8Array, p: number, n: number): string {
  const fc = String.fromCharCode;
  switch (n) {
    case 1:
      return fc(b[p]!);
    case 2:
      return fc(b[p]!, b[p + 1]!);
    case 3:
      return fc(b[p]!, b[p + 1]!, b[p + 2]!);
    case 4:
      return fc(b[p]!, b[p + 1]!, b[p + 2]!, b[p + 3]!);
    case 5:
      return fc(b[p]!, b[p + 1]!, b[p + 2]!, b[p + 3]!, b[p + 4]!);
    case 6:
      return fc(b[p]!, b[p + 1]!, b[p + 2]!, b[p + 3]!, b[p + 4]!, b[p + 5]!);
    case 7:
      return fc(b[p]!, b[p + 1]!, b[p + 2]!, b[p + 3]!, b[p + 4]!, b[p + 5]!, b[p + 6]!);
    default:
      return fc(b[p]!, b[p + 1]!, b[p + 2]!, b[p + 3]!, b[p + 4]!, b[p + 5]!, b[p + 6]!, b[p + 7]!);
  }
}

/** A value of 64-bit field from its halves (`signed`: int64/sint64/sfixed64), held per `mode`. */
function long64(lo: number, hi: number, signed: boolean, mode: number): unknown {
  // Exact in a double below 2^53 (the halves combine with one rounding otherwise, as Number(big)).
  const n = signed ? (hi | 0) * TWO32 + lo : hi * TWO32 + lo;
  if (mode === L_NUMBER) return n;
  if (Number.isSafeInteger(n)) return mode === L_STRING ? String(n) : BigInt(n);
  const big = (BigInt(hi) << 32n) | BigInt(lo);
  const v = signed ? BigInt.asIntN(64, big) : big;
  return mode === L_STRING ? String(v) : v;
}

/** What the core's jsSafe accepts: within ±(2^53 − 1), or up to 2^53 − 1 unsigned. */
function jsSafe(lo: number, hi: number, signed: boolean): boolean {
  if (!signed || hi < 0x80000000) return hi <= 0x1fffff;
  return hi > 0xffe00000 || (hi === 0xffe00000 && lo !== 0);
}

/** True for the kinds whose 64-bit values are signed. */
function signed64(kind: number): boolean {
  return kind === KIND_INT64 || kind === KIND_SINT64 || kind === KIND_SFIXED64;
}

/**
 * Reads bare messages of one root with the settings of a serializer. One per BoundDecoder; a
 * read runs no user code, so the instance's scratch state is never shared by two reads.
 */
export class SmallDecoder {
  private buf: Uint8Array;
  /** The halves of the last varint read (unsigned 32-bit each). */
  private lo = 0;
  private hi = 0;
  /** Height and unknown fields of the last message body read. */
  private h = 1;
  private unknown: unknown[] | undefined = undefined;
  /**
   * The read's bytes, `buf[textAt .. textEnd)`, as one char per byte, made for its first ASCII
   * string (a batch's: of the frames in TEXT_WINDOW bytes at a time, framesIn).
   */
  private text: string | undefined = undefined;
  private textAt = 0;
  private textEnd = 0;
  /** The input's source copy while `decode` reads, where bytes and unknown fields are cut from (pieceOf). */
  private cut: Uint8Array | undefined = undefined;
  private cutAt = 0;

  constructor(
    private readonly maxDepth: number,
    private readonly alias: number,
    private readonly build: SmallBuilder = DYNAMIC,
  ) {
    this.buf = EMPTY;
  }

  /** True while a read of this decoder is in progress (code it ran is running). */
  get busy(): boolean {
    return this.buf !== EMPTY;
  }

  /**
   * The DynamicMessage of `buf[start .. start + len)` (a bare message of `root`), or undefined
   * when the WASM path must read it. `source` is where the input's copy lives (a lazy value's
   * store, or a SourceCopy the caller made, which the WASM path then uses too): the value keeps
   * it, and bytes and unknown fields are cut from it. `buf` may be that copy itself (`start` =
   * `source.base`), never with aliasing on: aliased bytes are views of `buf`.
   */
  decode(buf: Uint8Array, start: number, len: number, root: ReadPlan, source: SourceRef): DynamicMessage | undefined {
    // pieceOf cuts at cutAt + a position in buf. Set by top, after its check for a read in
    // progress: set here, a decode that code run by a read made (and that top refused) moved the
    // read's cuts to its own copy, and the read cut its bytes fields from another input's memory.
    const values = this.top(buf, start, start + len, root, false, cutStore(source), source.base - start);
    if (values === undefined) return undefined;
    const unknown = this.unknown as UnknownField[] | undefined;
    this.unknown = undefined;
    // An empty message is the default instance, as the core's path gives (reader.ts).
    if (len === 0) return accepted(DynamicMessage._defaultOf(root.desc!), 1);
    return accepted(DynamicMessage._fromDecodedAt(root.desc!, values, unknown, source.store, source.base, len), this.h);
  }

  /**
   * The size of the largest frame when `input` is whole frames, each of at most `max` bytes with
   * a prefix of at most 4 bytes (their prefixes only are read); else -1. Asked before a batch is
   * copied, so that a batch the core refuses from a prefix (one that announces 2^40 bytes, or a
   * frame cut short) is never copied: a copy of a large batch would cost what its refusal does not.
   */
  static largestFrame(input: Uint8Array, max: number): number {
    const end = input.length;
    let largest = 0;
    let p = 0;
    while (p < end) {
      let size = 0;
      let b: number;
      let shift = 0;
      do {
        // A prefix of up to 4 bytes (sizes under 2^28): longer ones go to the core as they are.
        if (p >= end || shift > 21) return -1;
        b = input[p++]!;
        size |= (b & 0x7f) << shift;
        shift += 7;
      } while (b >= 0x80);
      if (size > max || size > end - p) return -1;
      if (size > largest) largest = size;
      p += size;
    }
    return largest;
  }

  /**
   * The DynamicMessages of the frames in `store[start .. end)` (whole length-prefixed bare
   * messages of `root`, as largestFrame found them), or undefined when the WASM path must read
   * them: a frame this reader gives up on gives up the whole batch (the core's errors name frames
   * by their place in it). `store` is the batch's source copy: each value keeps its frame's range
   * of it, and bytes and unknown fields are cut from it. One text per 64 KiB of frames
   * serves the batch's ASCII strings, as the tape's one text per window does (TEXT_WINDOW).
   */
  frames(store: Uint8Array, start: number, end: number, root: ReadPlan): DynamicMessage[] | undefined {
    return this.top(store, start, end, root, true, cutStore({ store, base: start }), 0) as DynamicMessage[] | undefined;
  }

  /** The values of the frames in [p, end) of `buf` (the source copy), for `frames`. */
  private framesIn(root: ReadPlan, p: number, end: number): DynamicMessage[] {
    const store = this.buf;
    const desc = root.desc!;
    const out: DynamicMessage[] = [];
    while (p < end) {
      // Past the most frames one array takes: the core's path refuses it (TOO_MANY_FRAMES).
      if (out.length === MAX_LIST_ELEMENTS) throw GIVE_UP;
      let size = store[p]!;
      let q = p + 1;
      if (size >= 0x80) {
        q = this.varint(p, end);
        size = this.lo;
      }
      p = q + size;
      if (p > this.textEnd) {
        // The next window of text starts at this frame (and holds all of it).
        this.text = undefined;
        this.textAt = q;
        this.textEnd = Math.min(end, Math.max(p, q + TEXT_WINDOW));
      }
      if (size === 0) {
        out.push(accepted(DynamicMessage._defaultOf(desc), 1));
        continue;
      }
      const values = this.body(root, q, p, 0);
      const unknown = this.unknown as UnknownField[] | undefined;
      this.unknown = undefined;
      out.push(accepted(DynamicMessage._fromDecodedAt(desc, values, unknown, store, q, size), this.h));
    }
    return out;
  }

  /** The value of `input` as the builder makes it, or undefined when the WASM path must read it. */
  read(input: Uint8Array, root: ReadPlan): unknown {
    const values = this.top(input, 0, input.length, root);
    if (values === undefined) return undefined;
    const unknown = this.unknown;
    this.unknown = undefined;
    return this.build.message(root, values, unknown, this.h);
  }

  /**
   * The root's values (`frames`: the values of the frames in [start, end), framesIn), or undefined
   * on giving up; leaves the root's height and unknown fields in h and unknown. `cut` and `cutAt`
   * are where bytes and unknown fields are cut from (pieceOf's; `read` keeps none).
   */
  private top(
    buf: Uint8Array, start: number, end: number, root: ReadPlan, frames = false, cut: Uint8Array | undefined = undefined, cutAt = 0,
  ): unknown[] | undefined {
    // A read of this decoder in progress (code it ran, a setter on Array.prototype, decoded with
    // the same serializer): its state is this object's, none of it changed before this check.
    if (this.buf !== EMPTY) throw reentrantDecode();
    this.buf = buf;
    this.cut = cut;
    this.cutAt = cutAt;
    this.textAt = start;
    this.textEnd = frames ? Math.min(end, start + TEXT_WINDOW) : end;
    try {
      return frames ? this.framesIn(root, start, end) : this.body(root, start, end, 0);
    } catch (e) {
      this.unknown = undefined;
      // A stack overflow (RangeError in V8 and JavaScriptCore) gives up too: called with little
      // stack left, the recursion of up to MAX_LEVELS bodies ran out where the core, whose stack
      // is in linear memory, reads the same input (a 63-level chain threw the engine's
      // RangeError from fromBinary; test/adversarial/decode-small-reader-stack.test.ts). The
      // reader throws no RangeError of its own.
      if (e === GIVE_UP || e instanceof RangeError) return undefined;
      throw e;
    } finally {
      this.buf = EMPTY;
      this.text = undefined;
      this.cut = undefined;
    }
  }

  /** Reads a varint at p (bounded by end) into lo/hi; returns the position after it. */
  private varint(p: number, end: number): number {
    const buf = this.buf;
    let lo = 0;
    let b: number;
    for (let shift = 0; shift < 28; shift += 7) {
      if (p >= end) throw GIVE_UP;
      b = buf[p++]!;
      lo |= (b & 0x7f) << shift;
      if (b < 0x80) {
        this.lo = lo >>> 0;
        this.hi = 0;
        return p;
      }
    }
    if (p >= end) throw GIVE_UP;
    b = buf[p++]!;
    lo |= (b & 0x7f) << 28;
    let hi = (b & 0x7f) >>> 4;
    if (b >= 0x80) {
      for (let shift = 3; ; shift += 7) {
        if (p >= end) throw GIVE_UP;
        b = buf[p++]!;
        if (shift === 31) {
          // The tenth byte carries bit 63 only: anything else is too long or overflows.
          if (b > 1) throw GIVE_UP;
          hi |= b << 31;
          break;
        }
        hi |= (b & 0x7f) << shift;
        if (b < 0x80) break;
      }
    }
    this.lo = lo >>> 0;
    this.hi = hi >>> 0;
    return p;
  }

  /** Skips the undeclared field whose tag starts at `at` (wire type wt, payload at p); returns its end. */
  private skip(p: number, end: number, wt: number): number {
    switch (wt) {
      case 0:
        return this.varint(p, end);
      case 1:
        if (end - p < 8) throw GIVE_UP;
        return p + 8;
      case 2: {
        const q = this.varint(p, end);
        if (this.hi !== 0 || this.lo > end - q) throw GIVE_UP;
        return q + this.lo;
      }
      case 5:
        if (end - p < 4) throw GIVE_UP;
        return p + 4;
      default:
        throw GIVE_UP;
    }
  }

  /**
   * Reads the body [p, end) of a message (or map entry) of `plan` at nesting level `level` (the
   * root is 0) into a values array; its height and unknown fields are left in h and unknown.
   */
  private body(plan: ReadPlan, p: number, end: number, level: number): unknown[] {
    const table = plan.table ?? tableOf(plan);
    const dense = table.dense;
    const buf = this.buf;
    const values: unknown[] = newValues(plan.slots.length);
    let unknown: unknown[] | undefined;
    let h = 1;
    // Oneof members set (1 + slot, 0 = none): one number for a type with one oneof, else an array.
    let case0 = 0;
    let cases: Cases | undefined;
    while (p < end) {
      const at = p;
      let t = buf[p]!;
      if (t < 0x80) {
        if (t < 8) throw GIVE_UP;
        p++;
      } else {
        p = this.varint(p, end);
        if (this.hi !== 0 || this.lo < 8) throw GIVE_UP;
        t = this.lo;
      }
      const num = t >>> 3;
      const wt = t & 7;
      const f = num < dense.length ? dense[num] : table.sparse?.get(num);
      if (f === undefined) {
        const payloadAt = p;
        p = this.skip(p, end, wt);
        (unknown ??= []).push(this.build.unknownField(buf, at, payloadAt, p, num, wt, this.cut, this.cutAt));
        continue;
      }
      if (wt !== f.wire) {
        if (wt !== 2 || !f.packable) throw GIVE_UP;
        p = this.packed(f, values, p, end);
        continue;
      }
      const slot = f.slot;
      let v: unknown;
      if (wt === 0) {
        let lo: number;
        let hi: number;
        if (p < end && buf[p]! < 0x80) {
          lo = buf[p++]!;
          hi = 0;
        } else {
          p = this.varint(p, end);
          lo = this.lo;
          hi = this.hi;
        }
        const kind = f.kind;
        if (kind === KIND_SINT32) {
          lo = (lo >>> 1) ^ -(lo & 1);
          hi = 0;
        } else if (kind === KIND_SINT64) {
          const m = -(lo & 1);
          lo = (((lo >>> 1) | (hi << 31)) ^ m) >>> 0;
          hi = ((hi >>> 1) ^ m) >>> 0;
        }
        // int32, uint32 and enums keep the low 32 bits (a varint with only higher bits set reads as
        // 0, as protobuf-es reads it): their zero, like every implicit zero, is absence.
        if ((kind === KIND_INT32 || kind === KIND_UINT32 || kind === KIND_ENUM ? lo : lo | hi) === 0 && f.store === S_IMPLICIT) {
          values[slot] = undefined;
          continue;
        }
        switch (kind) {
          case KIND_BOOL:
            v = (lo | hi) !== 0;
            break;
          case KIND_UINT32:
            v = lo >>> 0;
            break;
          case KIND_INT64:
          case KIND_SINT64:
            if (f.jsNumber && !jsSafe(lo, hi, true)) throw GIVE_UP;
            v = long64(lo, hi, true, f.long);
            break;
          case KIND_UINT64:
            if (f.jsNumber && !jsSafe(lo, hi, false)) throw GIVE_UP;
            v = long64(lo, hi, false, f.long);
            break;
          default:
            v = lo | 0;
        }
      } else if (wt === 2) {
        let len: number;
        let q: number;
        if (p < end && buf[p]! < 0x80) {
          len = buf[p]!;
          q = p + 1;
        } else {
          q = this.varint(p, end);
          if (this.hi !== 0) throw GIVE_UP;
          len = this.lo;
        }
        if (len > end - q) throw GIVE_UP;
        p = q + len;
        if (f.message) {
          if (level + 1 >= this.maxDepth || level + 1 >= MAX_LEVELS) throw GIVE_UP;
          const child = f.child!;
          if (child.desc === undefined) {
            const entry = this.body(child, q, p, level + 1);
            // An entry's message value counts even when the wire has none (minHeight, read-plan.ts).
            const eh = this.h < child.minHeight ? child.minHeight : this.h;
            if (eh + 1 > h) h = eh + 1;
            this.build.entry(values, slot, child, entry);
            continue;
          }
          // A second occurrence of a singular message merges into the first: the core's path does that.
          if (f.store !== S_LIST && values[slot] !== undefined) throw GIVE_UP;
          let vs: unknown[];
          if (q === p) {
            // No field on the wire: the shared NONE_SET, as the core's path gives (reader.ts).
            vs = NONE_SET;
            this.h = 1;
            this.unknown = undefined;
          } else vs = this.body(child, q, p, level + 1);
          if (this.h + 1 > h) h = this.h + 1;
          v = this.build.message(child, vs, this.unknown, this.h);
        } else if (len === 0 && f.store === S_IMPLICIT) {
          values[slot] = undefined;
          continue;
        } else if (f.utf8) {
          v = this.string(q, len);
        } else {
          v = pieceOf(buf, q, len, this.alias, this.cut, this.cutAt);
        }
      } else if (wt === 1) {
        if (end - p < 8) throw GIVE_UP;
        const lo = (buf[p]! | (buf[p + 1]! << 8) | (buf[p + 2]! << 16) | (buf[p + 3]! << 24)) >>> 0;
        const hi = (buf[p + 4]! | (buf[p + 5]! << 8) | (buf[p + 6]! << 16) | (buf[p + 7]! << 24)) >>> 0;
        p += 8;
        const kind = f.kind;
        if (f.jsNumber && !jsSafe(lo, hi, kind === KIND_SFIXED64)) throw GIVE_UP;
        if ((lo | hi) === 0 && f.store === S_IMPLICIT) {
          values[slot] = undefined;
          continue;
        }
        if (kind === KIND_DOUBLE) {
          scratch.setUint32(0, lo, true);
          scratch.setUint32(4, hi, true);
          v = scratch.getFloat64(0, true);
        } else v = long64(lo, hi, kind === KIND_SFIXED64, f.long);
      } else {
        // wt 5: the table gives no other wire type to a declared field.
        if (end - p < 4) throw GIVE_UP;
        const bits = buf[p]! | (buf[p + 1]! << 8) | (buf[p + 2]! << 16) | (buf[p + 3]! << 24);
        p += 4;
        if (bits === 0 && f.store === S_IMPLICIT) {
          values[slot] = undefined;
          continue;
        }
        const kind = f.kind;
        if (kind === KIND_FLOAT) {
          scratch.setInt32(0, bits, true);
          v = scratch.getFloat32(0, true);
        } else v = kind === KIND_SFIXED32 ? bits : bits >>> 0;
      }
      if (f.store === S_LIST) {
        const list = values[slot] as unknown[] | undefined;
        if (list === undefined) values[slot] = [v];
        else if (list.length === MAX_LIST_ELEMENTS) throw GIVE_UP;
        else list.push(v);
        continue;
      }
      const o = f.oneof;
      if (o >= 0) {
        // Last member wins: the one set before is cleared, in one step whatever the member count.
        if (plan.oneofs === 1) {
          const was = case0 - 1;
          if (was >= 0 && was !== slot) values[was] = undefined;
          case0 = slot + 1;
        } else {
          cases ??= newCases(plan.oneofs);
          const was = (cases[o] ?? 0) - 1;
          if (was >= 0 && was !== slot) values[was] = undefined;
          cases[o] = slot + 1;
        }
      }
      values[slot] = v;
    }
    this.h = h;
    this.unknown = unknown;
    return values;
  }

  /** A string field's value at [off, off + len), checked as the core checks UTF-8 (RFC 3629). */
  private string(off: number, len: number): string {
    if (len === 0) return "";
    const buf = this.buf;
    const end = off + len;
    let i = off;
    // Four bytes per test: 16 -> 12.6 ns per string of 5-30 bytes (a loop over the check alone).
    const end4 = end - 3;
    while (i < end4 && ((buf[i]! | buf[i + 1]! | buf[i + 2]! | buf[i + 3]!) & 0x80) === 0) i += 4;
    while (i < end && buf[i]! < 0x80) i++;
    if (i === end) {
      // ASCII: one string of the whole input for the read, then a substring per field (as the
      // tape's text area; one latin1Slice + substrings beat a string built per field). Before
      // the read has that text, a string of up to TINY_ASCII bytes is built here (see there),
      // and where the text would be a TextDecoder call (browsers), one of up to SHORT_ASCII
      // (asciiString: 71 against ~280 ns for 29 bytes in Chromium).
      const at = this.textAt;
      const text = this.text;
      if (text !== undefined) return text.substring(off - at, end - at);
      if (len <= TINY_ASCII) return tinyAscii(buf, off, len);
      if (!NATIVE_LATIN1 && len <= SHORT_ASCII) return asciiString(buf, off, len);
      // The text is of the read's bytes only: buf may be a 64 KiB arena chunk holding its copy.
      return (this.text = latin1Text(buf, at, this.textEnd)).substring(off - at, end - at);
    }
    while (i < end) {
      const b = buf[i]!;
      if (b < 0x80) {
        i++;
        continue;
      }
      const left = end - i;
      if (b < 0xc2) throw GIVE_UP;
      if (b < 0xe0) {
        if (left < 2 || (buf[i + 1]! & 0xc0) !== 0x80) throw GIVE_UP;
        i += 2;
      } else if (b < 0xf0) {
        if (left < 3) throw GIVE_UP;
        const b1 = buf[i + 1]!;
        // E0 needs A0.. (no overlong form), ED needs ..9F (no surrogates).
        if (b1 < (b === 0xe0 ? 0xa0 : 0x80) || b1 > (b === 0xed ? 0x9f : 0xbf) || (buf[i + 2]! & 0xc0) !== 0x80) throw GIVE_UP;
        i += 3;
      } else if (b < 0xf5) {
        if (left < 4) throw GIVE_UP;
        const b1 = buf[i + 1]!;
        // F0 needs 90.. (no overlong form), F4 needs ..8F (nothing above U+10FFFF).
        if (b1 < (b === 0xf0 ? 0x90 : 0x80) || b1 > (b === 0xf4 ? 0x8f : 0xbf)) throw GIVE_UP;
        if ((buf[i + 2]! & 0xc0) !== 0x80 || (buf[i + 3]! & 0xc0) !== 0x80) throw GIVE_UP;
        i += 4;
      } else throw GIVE_UP;
    }
    return utf8String(buf, off, len);
  }

  /**
   * A packed run of the repeated numeric field `f` (length prefix at p) appended to its list, as
   * the core's walkPacked checks it and the tape reader's fill converts it; returns its end.
   */
  private packed(f: FieldEntry, values: unknown[], p: number, end: number): number {
    const buf = this.buf;
    const q = this.varint(p, end);
    if (this.hi !== 0 || this.lo > end - q) throw GIVE_UP;
    const len = this.lo;
    // A run that may hold more elements than a list takes (a byte each at least): the core's path
    // reads it, and says so (MAX_LIST_ELEMENTS).
    if (len > MAX_LIST_ELEMENTS) throw GIVE_UP;
    const pend = q + len;
    const kind = f.kind;
    const mode = f.long;
    const out: unknown[] = [];
    let s = q;
    switch (kind) {
      case KIND_FIXED32:
      case KIND_SFIXED32:
      case KIND_FLOAT:
        if ((len & 3) !== 0) throw GIVE_UP;
        for (; s < pend; s += 4) {
          const bits = buf[s]! | (buf[s + 1]! << 8) | (buf[s + 2]! << 16) | (buf[s + 3]! << 24);
          if (kind === KIND_FLOAT) {
            scratch.setInt32(0, bits, true);
            out.push(scratch.getFloat32(0, true));
          } else out.push(kind === KIND_SFIXED32 ? bits : bits >>> 0);
        }
        break;
      case KIND_FIXED64:
      case KIND_SFIXED64:
      case KIND_DOUBLE:
        if ((len & 7) !== 0) throw GIVE_UP;
        for (; s < pend; s += 8) {
          const lo = (buf[s]! | (buf[s + 1]! << 8) | (buf[s + 2]! << 16) | (buf[s + 3]! << 24)) >>> 0;
          const hi = (buf[s + 4]! | (buf[s + 5]! << 8) | (buf[s + 6]! << 16) | (buf[s + 7]! << 24)) >>> 0;
          if (kind === KIND_DOUBLE) {
            scratch.setUint32(0, lo, true);
            scratch.setUint32(4, hi, true);
            out.push(scratch.getFloat64(0, true));
          } else {
            if (f.jsNumber && !jsSafe(lo, hi, kind === KIND_SFIXED64)) throw GIVE_UP;
            out.push(long64(lo, hi, kind === KIND_SFIXED64, mode));
          }
        }
        break;
      case KIND_INT32:
      case KIND_ENUM:
        // The common packed kinds get a loop of their own (no per-element switch), and elements
        // of up to four bytes (values below 2^28) are read here without varint()'s loop; longer
        // ones (negative values take ten) and any near the run's end go to varint(). bench.Inner
        // with the classic fixture's 8 values: 0.239 -> 0.212-0.226 µs a decode (A/B, 3 runs).
        while (s < pend) {
          const b = buf[s]!;
          if (b < 0x80) {
            out.push(b);
            s++;
            continue;
          }
          if (pend - s >= 4) {
            const b1 = buf[s + 1]!;
            if (b1 < 0x80) {
              out.push((b & 0x7f) | (b1 << 7));
              s += 2;
              continue;
            }
            const b2 = buf[s + 2]!;
            if (b2 < 0x80) {
              out.push((b & 0x7f) | ((b1 & 0x7f) << 7) | (b2 << 14));
              s += 3;
              continue;
            }
            const b3 = buf[s + 3]!;
            if (b3 < 0x80) {
              out.push((b & 0x7f) | ((b1 & 0x7f) << 7) | ((b2 & 0x7f) << 14) | (b3 << 21));
              s += 4;
              continue;
            }
          }
          s = this.varint(s, pend);
          out.push(this.lo | 0);
        }
        break;
      default:
        while (s < pend) {
          let lo: number;
          let hi: number;
          if (buf[s]! < 0x80) {
            lo = buf[s++]!;
            hi = 0;
          } else {
            s = this.varint(s, pend);
            lo = this.lo;
            hi = this.hi;
          }
          switch (kind) {
            case KIND_BOOL:
              out.push((lo | hi) !== 0);
              break;
            case KIND_UINT32:
              out.push(lo >>> 0);
              break;
            case KIND_SINT32:
              out.push((lo >>> 1) ^ -(lo & 1));
              break;
            case KIND_INT64:
            case KIND_UINT64:
            case KIND_SINT64: {
              if (kind === KIND_SINT64) {
                const m = -(lo & 1);
                lo = (((lo >>> 1) | (hi << 31)) ^ m) >>> 0;
                hi = ((hi >>> 1) ^ m) >>> 0;
              }
              const sgn = signed64(kind);
              if (f.jsNumber && !jsSafe(lo, hi, sgn)) throw GIVE_UP;
              out.push(long64(lo, hi, sgn, mode));
              break;
            }
            default:
              out.push(lo | 0);
          }
        }
    }
    if (out.length === 0) return pend;
    const prev = values[f.slot] as unknown[] | undefined;
    if (prev === undefined) values[f.slot] = out;
    else if (prev.length + out.length > MAX_LIST_ELEMENTS) throw GIVE_UP;
    else for (let i = 0; i < out.length; i++) prev.push(out[i]);
    return pend;
  }
}

const EMPTY = new Uint8Array(0);
