// The read path (docs/design.md §8.3, §13): one WASM call validates the input against the layout table
// and writes a tape; this file walks the tape once, forward, and builds DynamicMessage values
// through the decoder's fast constructor. It never decodes a varint: scalars come decoded,
// strings as byte ranges (ASCII strings as one text of all of them, sliced), packed runs as
// aligned element arrays in linear memory.
// Small bare messages are read without the core instead (small-reader.ts); the read plans and
// the value helpers both paths use are in read-plan.ts.
// Over 500 lines on purpose: the frames, merge bookkeeping and the tape walk share private types
// and are tuned together as one hot loop; split, each part would export internals.
import { ScalarType, type DescMessage } from "@bufbuild/protobuf";
import { int64ViaDataView } from "../int64-access.js";
import { internalError, sourceDetached } from "../errors.js";
import { byteLength, readable, unshared } from "../bytes.js";
import type { Settings } from "../settings.js";
import { DynamicMessage, type LazySource } from "../message/dynamic-message.js";
import { EMPTY_BYTES } from "../message/coerce.js";
import { L_NUMBER, L_STRING } from "../message/field-info.js";
import type { UnknownField } from "../message/unknown-fields.js";
import { newCases, newValues, NONE_SET, type Cases } from "../message/values.js";
import { endTape, holdTape, smallDecode, tapeBusy, views } from "../wasm/memory.js";
import { NATIVE_LATIN1, resumeWalk, tapeText, validateFrames, validateMessage, walkFrames, walkMessage, type TapeResult } from "../wasm/ops.js";
import {
  F_ASCII,
  FLAG_SHIFT,
  OP_BYTES,
  OP_END,
  OP_FIXED32,
  OP_FIXED64,
  OP_MASK,
  OP_PACKED,
  OP_START,
  OP_UNKNOWN,
  OP_VARINT,
  SLOT_SHIFT,
} from "../wasm/tape.js";
import { CodecError } from "../errors.js";
import { SmallDecoder } from "./small-reader.js";
import { readFramePrefix } from "./frame-reader.js";
import { layoutOf, type MessageLayout } from "./layout.js";
import {
  accepted, cutStore, listTooLong, long, MAX_LIST_ELEMENTS, tooManyFrames, pieceOf, planFor, unknownOf, putEntry, S_EXPLICIT, S_IMPLICIT, S_LIST, SourceCopy, utf8String,
  type ReadPlan, type SlotPlan, type SourceRef,
} from "./read-plan.js";


/**
 * The value of a numeric tape entry at word `e` (OP_VARINT, OP_FIXED32 or OP_FIXED64) of a field
 * of scalar type `scalar` (INT32 stands in for enums), 64-bit values held per `mode`. The dynamic
 * and the generated reader share it.
 */
export function tapeNumber(op: number, e: number, scalar: ScalarType, mode: number): unknown {
  const { u32, i32, f32, f64 } = views;
  switch (op) {
    case OP_VARINT:
      switch (scalar) {
        case ScalarType.BOOL:
          return u32[e + 2] !== 0;
        case ScalarType.UINT32:
          return u32[e + 2]!;
        case ScalarType.INT64:
        case ScalarType.SINT64:
          return long(tapeInt64(e, true), mode);
        case ScalarType.UINT64:
          return long(tapeInt64(e, false), mode);
        default:
          return i32[e + 2]!;
      }
    case OP_FIXED32:
      return scalar === ScalarType.FLOAT ? f32[e + 2]! : scalar === ScalarType.SFIXED32 ? i32[e + 2]! : u32[e + 2]!;
    default:
      if (scalar === ScalarType.DOUBLE) return f64[(e >>> 1) + 1]!;
      return long(tapeInt64(e, scalar === ScalarType.SFIXED64), mode);
  }
}

/** The 64-bit payload of the tape entry at word `e` (words e+2, e+3), as the engine reads it fastest. */
function tapeInt64(e: number, signed: boolean): bigint {
  if (int64ViaDataView) {
    const at = (e + 2) << 2;
    return signed ? views.dv.getBigInt64(at, true) : views.dv.getBigUint64(at, true);
  }
  return signed ? views.i64[(e >>> 1) + 1]! : views.u64[(e >>> 1) + 1]!;
}


/**
 * True for the varint types whose value is the tape's low word (assembly/tape.ts: int32, uint32,
 * enums, which the read plan holds as int32; a decoded sint32 is 0 exactly when its low word is).
 */
function low32(scalar: ScalarType): boolean {
  return scalar === ScalarType.INT32 || scalar === ScalarType.UINT32 || scalar === ScalarType.SINT32;
}

/** One open message while the tape is walked. */
class Frame {
  plan: ReadPlan;
  values: unknown[];
  unknown: UnknownField[] | undefined;
  /** Slot in the parent that opened this message. */
  slot: number;
  /** Nesting height of the message so far (1 = no nested message; a map entry is a level). */
  h: number;
  /** The only oneof's set member + 1 (0: none), for types with one oneof (no array to allocate). */
  case0: number;
  /** Per oneof, 1 + the slot of its set member (0: none); made when the first member is set (2+ oneofs). */
  cases: Cases | undefined;
  /** True when `values` continues an earlier occurrence's (reopen), which may hold fields. */
  reopened: boolean;
  constructor() {
    this.plan = EMPTY_PLAN;
    this.values = [];
    this.unknown = undefined;
    this.slot = 0;
    this.h = 1;
    this.case0 = 0;
    this.cases = undefined;
    this.reopened = false;
  }

  open(plan: ReadPlan, slot: number): void {
    this.plan = plan;
    this.values = newValues(plan.slots.length);
    this.unknown = undefined;
    this.slot = slot;
    this.h = 1;
    this.case0 = 0;
    this.cases = undefined;
    this.reopened = false;
  }

  /**
   * Records `slot` as the set member of oneof `o`, clearing the member set before: one step
   * whatever the number of members (a oneof may have thousands).
   */
  setCase(o: number, slot: number): void {
    if (this.plan.oneofs === 1) {
      const was = this.case0 - 1;
      if (was >= 0 && was !== slot) this.values[was] = undefined;
      this.case0 = slot + 1;
      return;
    }
    let c = this.cases;
    if (c === undefined) c = this.cases = newCases(this.plan.oneofs);
    const was = (c[o] ?? 0) - 1;
    if (was >= 0 && was !== slot) this.values[was] = undefined;
    c[o] = slot + 1;
  }
}

const NO_VALUES: unknown[] = [];
const EMPTY_PLAN: ReadPlan = { layout: undefined as unknown as MessageLayout, desc: undefined, slots: [], keyScalar: 0, oneofs: 0, minHeight: 1, table: undefined };


/**
 * A singular message field read again continues the earlier value: protobuf defines a repeated
 * occurrence as merging, i.e. as parsing both occurrences' fields in order, so a later explicit
 * zero of an implicit-presence field also overrides (merging decoded values could not tell it
 * from absence). `prev` was built by this very read and nothing else holds it, so its arrays,
 * lists and maps are continued in place: copying them made n occurrences cost O(n²) (20,000
 * occurrences of a 4-byte sub-message took 16-40 s). Which oneof members it had set is on the
 * value itself (DynamicMessage._mergeOf), as on each of its own singular sub-messages, which a
 * later occurrence reopens in turn.
 */
function reopen(f: Frame, prev: DynamicMessage): void {
  const v = prev._values as unknown[];
  // An empty earlier occurrence shares the frozen NONE_SET: this one gets an array of its own.
  f.values = v === NONE_SET ? newValues(f.plan.slots.length) : v;
  f.reopened = true;
  const u = prev._unknown;
  f.unknown = u.length === 0 ? undefined : (u as UnknownField[]);
  const cases = DynamicMessage._mergeOf(prev);
  if (typeof cases === "number") f.case0 = cases;
  else if (cases !== undefined) f.cases = cases as Cases;
}

/**
 * Builds values from a tape. `input` is the JS-side input the offsets refer to; each root keeps
 * a copy of its bytes for the relay path.
 */
class TapeDecoder {
  input: Uint8Array;
  private readonly alias: number;
  /** The call's source copy (roots keep ranges of it) and, from cutStore, what pieces are cut from. */
  source: SourceRef | undefined = undefined;
  private cut: Uint8Array | undefined = undefined;
  private cutAt = 0;
  /** Open messages by depth, reused across messages and calls (a read never runs user code). */
  private readonly frames: Frame[] = [new Frame()];
  /** The tape's ASCII strings back to back (tapeText) and the start of the next one. */
  text = "";
  private textPos = 0;
  /**
   * Values given a Cases array (types with two or more oneofs) by this call: it is dropped from
   * them when the call ends, as the frames' per-slot arrays it replaced were (kept, it made a
   * decoded value of such a type hold an Int32Array: +80% heap for a pair of small messages).
   */
  private merged: DynamicMessage[] = [];

  constructor(input: Uint8Array, settings: Settings) {
    this.input = input;
    this.alias = settings.aliasThreshold;
  }

  private str(off: number, len: number, flags: number): string {
    if ((flags & F_ASCII) !== 0) {
      const at = this.textPos;
      this.textPos = at + len;
      return this.text.substring(at, at + len);
    }
    return len === 0 ? "" : utf8String(this.input, off, len);
  }

  /**
   * Starts a call on `input` and the first window of its tape (one text for all its ASCII
   * strings); `source` is the input's copy (made here when not given: every root keeps a range
   * of it, and bytes and unknown fields are cut from it).
   */
  begin(input: Uint8Array, source: SourceRef | undefined, tape: TapeResult): void {
    this.input = input;
    const sc = source ?? new SourceCopy(input);
    this.source = sc;
    this.cut = cutStore(sc);
    this.cutAt = sc.base;
    this.text = tapeText(tape);
    this.textPos = 0;
    // Last: end() lets go of it, and the caller calls end() once begin has returned.
    holdTape();
  }

  /** Moves to the tape's next window once every entry of this one was read (and its text). */
  resume(tape: TapeResult): void {
    resumeWalk(tape);
    this.text = tapeText(tape);
    this.textPos = 0;
  }

  /** Lets go of the call's input and text. */
  end(): void {
    endTape();
    const merged = this.merged;
    if (merged.length > 0) {
      for (let i = 0; i < merged.length; i++) DynamicMessage._setMerge(merged[i]!, undefined);
      this.merged = [];
    }
    this.input = EMPTY_BYTES;
    this.source = undefined;
    this.cut = undefined;
    this.text = "";
  }


  /** Reads the message whose START is entry `k` of `tape`; returns [value, index after END]. */
  /** Entry index after the END of the last message read. */
  next = 0;

  read(tape: TapeResult, k: number, root: ReadPlan): DynamicMessage {
    let u32 = views.u32;
    let start = tape.start;
    let count = tape.count;
    const pool = this.frames;
    let depth = 0;
    let cur = pool[0]!;
    cur.open(root, 0);
    let values = cur.values;
    let slots = root.slots;
    let e = start + 4 * k;
    const rootOff = u32[e + 2]!;
    const rootLen = u32[e + 3]!;
    k++;
    for (;;) {
      if (k === count) {
        // The window is read: the core writes the next one into the same memory (a bounded
        // tape, see src/wasm/ops.ts), so views and text are taken again.
        this.resume(tape);
        u32 = views.u32;
        start = tape.start;
        count = tape.count;
        k = 0;
      }
      e = start + 4 * k;
      const w0 = u32[e]!;
      const op = w0 & OP_MASK;
      const slot = w0 >>> SLOT_SHIFT;
      k++;
      if (op === OP_END) {
        const plan = cur.plan;
        if (depth === 0) {
          const sc = this.source!;
          this.next = k;
          const unknown = cur.unknown;
          // The pool outlives the call: it must not keep the value's contents alive.
          cur.values = NO_VALUES;
          cur.unknown = undefined;
          // An empty message (a zero-length frame) is the default instance, as an empty
          // sub-message is below: decodeAll of 16 MiB of 00 built 16 M values of ~200 bytes.
          if (rootLen === 0) return accepted(DynamicMessage._defaultOf(plan.desc!), 1);
          return accepted(DynamicMessage._fromDecodedAt(plan.desc!, values, unknown, sc.store, sc.base + rootOff, rootLen), cur.h);
        }
        const done = cur;
        cur = pool[--depth]!;
        values = cur.values;
        slots = cur.plan.slots;
        // A map entry is a nesting level like a message (the walker counts it, and so does the
        // writer): heights count it too, and an entry's message value even when the wire has
        // none (minHeight: the default instance put there is written).
        const dh = done.h < plan.minHeight ? plan.minHeight : done.h;
        if (dh + 1 > cur.h) cur.h = dh + 1;
        if (plan.desc === undefined) {
          putEntry(cur.values, done.slot, plan, done.values);
        } else {
          // A sub-message with nothing on the tape (its START just before this END, in this
          // window) is the type's default instance: 64 MiB of `0a 00` for a 2-field type built
          // 32 M values and arrays (~200 bytes each), past Node's 4 GiB heap.
          const empty = !done.reopened && e > start && ((u32[e - 4]! & OP_MASK) === OP_START);
          const m = empty
            ? accepted(DynamicMessage._defaultOf(plan.desc), 1)
            : accepted(DynamicMessage._fromDecoded(plan.desc, done.values, done.unknown, undefined), done.h);
          // The pool outlives the call: it must not keep the value's contents alive.
          done.unknown = undefined;
          const sp = slots[done.slot]!;
          if (sp.store === S_LIST) {
            const list = values[done.slot] as unknown[] | undefined;
            if (list === undefined) values[done.slot] = [m];
            else if (list.length === MAX_LIST_ELEMENTS) throw listTooLong(root.desc?.typeName ?? "message");
            else list.push(m);
          } else {
            if (sp.oneof >= 0) cur.setCase(sp.oneof, done.slot);
            // What a later occurrence of this field continues (reopen). Kept in the parent's
            // frame by slot instead (a new array per frame that held one: every KeyValue, for its
            // AnyValue's case), the span batch's decode took 1.08-1.12x as long (A/B, one process).
            if (!empty) {
              if (done.cases !== undefined) {
                DynamicMessage._setMerge(m, done.cases);
                this.merged.push(m);
              } else if (done.case0 !== 0) DynamicMessage._setMerge(m, done.case0);
            }
            values[done.slot] = m;
          }
        }
        done.values = NO_VALUES;
        continue;
      }
      if (op === OP_START) {
        const sp = slots[slot]!;
        const childPlan = sp.child!;
        // Only a singular message continues an earlier occurrence: a list's slot holds an array
        // (asking it instanceof was ~1% of the span batch's decode, in instructions).
        const prev = sp.store === S_LIST ? undefined : values[slot];
        if (++depth === pool.length) pool.push(new Frame());
        cur = pool[depth]!;
        cur.open(childPlan, slot);
        if (prev !== undefined && prev instanceof DynamicMessage) {
          reopen(cur, prev);
          if (prev._height > cur.h) cur.h = prev._height;
        }
        values = cur.values;
        slots = childPlan.slots;
        continue;
      }
      if (op === OP_UNKNOWN) {
        // Before any slot lookup: a type that declares no fields has no slot 0.
        const off = u32[e + 2]!;
        const len = u32[e + 3]!;
        (cur.unknown ??= []).push(unknownOf(u32[e + 1]!, this.input, off, len, this.cut, this.cutAt));
        continue;
      }
      const sp = slots[slot]!;
      const store = sp.store;
      if (store === S_IMPLICIT && (op === OP_BYTES ? u32[e + 3] === 0 : (u32[e + 2]! | (op === OP_VARINT && low32(sp.scalar) ? 0 : u32[e + 3]!)) === 0)) {
        // The zero of an implicit-presence field is absence (a later zero overrides an earlier
        // value); all-zero words are exactly the zeros (-0.0 has its sign bit set), and for the
        // 32-bit varint types the low word alone (a varint with only higher bits set reads as 0).
        values[slot] = undefined;
        continue;
      }
      let v: unknown;
      switch (op) {
        case OP_VARINT:
        case OP_FIXED32:
        case OP_FIXED64:
          v = tapeNumber(op, e, sp.scalar, sp.long);
          break;
        case OP_BYTES: {
          const flags = (w0 >>> FLAG_SHIFT) & 0xf;
          if (sp.scalar === ScalarType.STRING) v = this.str(u32[e + 2]!, u32[e + 3]!, flags);
          else {
            // Keep the text in step should the core ever flag a bytes field ASCII.
            if ((flags & F_ASCII) !== 0) this.textPos += u32[e + 3]!;
            v = pieceOf(this.input, u32[e + 2]!, u32[e + 3]!, this.alias, this.cut, this.cutAt);
          }
          break;
        }
        case OP_PACKED:
          this.packed(cur, slot, sp, u32[e + 1]!, u32[e + 2]!, root.desc?.typeName ?? "message");
          continue;
        default:
          throw internalError(`cannot decode ${root.desc?.typeName ?? "message"}`, `the tape holds an unknown op ${op}`);
      }
      if (store === S_LIST) {
        const list = values[slot] as unknown[] | undefined;
        if (list === undefined) values[slot] = [v];
        else if (list.length === MAX_LIST_ELEMENTS) throw listTooLong(root.desc?.typeName ?? "message");
        else list.push(v);
      } else {
        if (store === S_EXPLICIT && sp.oneof >= 0) cur.setCase(sp.oneof, slot);
        values[slot] = v;
      }
    }
  }

  private packed(f: Frame, slot: number, sp: SlotPlan, count: number, addr: number, typeName: string): void {
    if (count === 0) return;
    const prev = f.values[slot] as unknown[] | undefined;
    if (count + (prev?.length ?? 0) > MAX_LIST_ELEMENTS) throw listTooLong(typeName);
    // A preallocated array filled by index is 3-5x faster than push for 1000 elements
    // (measured); a later run of the same field is appended.
    const list = packedValues(sp.scalar, sp.long, count, addr);
    f.values[slot] = prev === undefined ? list : prev;
    if (prev !== undefined) for (let i = 0; i < count; i++) prev.push(list[i]);
  }

}

// Bare messages of at least this many bytes are decoded lazily: validated in full (every error
// is thrown by the decode call), copied, and read into field values on first access. A relay
// (decode, then write with a serializer of the same descriptor) then never builds the values.
// Measured (bench, one process, ratio to protobufjs reflection): span batch (18.5 KB) relay
// 3.2x -> 26.8x, numeric (16.9 KB) relay 4.3x -> 18.4x, while a decode whose value is then read
// pays the validate walk twice: span decode 1.33x -> 1.28x, numeric 2.72x -> 2.68x. On the 2 KB
// depth-80 chain the second walk is ~20% of the decode (nested decode 0.87x -> 0.71x), so
// smaller messages stay eager; 4 KiB is also where a root's source copy moves to the mid-size arena.
// Walking (instead of validating) at fromBinary and building the value from that tape when it is
// read before the next core call was tried: numeric decode 4% faster, numeric relay 37% slower,
// span decode 2% faster, relay 5% slower (same process, one build against the other): the walk
// costs about three validate passes, the second walk is not where a read's time goes.
const LAZY_MIN_BYTES = 4096;
const lazy = { min: LAZY_MIN_BYTES };

/**
 * @internal For tests that run the read path both ways: the smallest bare-message size decoded
 * lazily (0 = every message, Infinity = none). Returns the previous value.
 */
export function setLazyDecodeThreshold(bytes: number): number {
  const prev = lazy.min;
  lazy.min = bytes;
  return prev;
}

// Bare messages under LAZY_MIN_BYTES are decoded eagerly while a serializer's values are read,
// and lazily while they are relayed unread (RelayWatch): a proxy that decodes and re-encodes
// without reading pays a validate walk and a copy instead of building every value. Measured (one
// process, ratio to protobufjs reflection's decode + encode): bench.Small relay 2.01x eager,
// 4.62x lazy; bench.Classic 1.69x, 3.64x. Decoding them lazily always cost a decode whose value
// is read a validate walk more (small decode 0.71-0.83x -> 0.46-0.54x at earlier versions).
//
// What tells the traffic apart: while eager, the serializer counts its relays (toBinary or
// encode of a value it decoded, unchanged: the writer copies its bytes); a window of WINDOW
// decodes of which at least RELAYS_MIN were relayed turns decodes lazy. While lazy, the values
// read (materialized) are counted; a window of WINDOW lazy decodes with more than READS_MAX read
// turns them eager again, and the next eager windows that could turn lazy are skipped, twice as
// many each time this happens (up to MAX_SKIP), so that a relay that reads a field of every value
// pays the lazy path's walk on at most one window in MAX_SKIP. Probing instead (a lazy decode
// now and then, eager or lazy by how many were read) cost a workload that only reads 10-14% of
// its decode time: once lazy values were read, V8 inlined their materialization into every field
// access (bench.Small and bench.Classic decode, A/B in one process); counting relays makes no
// lazy value where nothing is relayed. The values, the errors (all thrown by the decode call on
// both paths) and the relay bytes are the same either way (the codec tests run on both: the
// lazy-decode project); only where the time goes changes. Counts are per serializer.
const WINDOW = 256;
const RELAYS_MIN = WINDOW - WINDOW / 8;
const READS_MAX = WINDOW / 8;
const MAX_SKIP = 256;
// Bare messages of LAZY_MIN_BYTES or more are decoded lazily, and eagerly while nearly every one is
// read: a value that will be read anyway pays the validate walk for nothing (A/B, one process,
// value read after each decode: the span batch 72.9 -> 67.5 us, 1.08x; numeric 1.03x; the 2 KB
// depth-80 chain, under the threshold, 1.01x). Lazy is cheaper on average once more than about
// 1 in 14 values goes unread (a relay, a value dropped): the walk is ~7% of the span batch's
// decode and build. So a window of WINDOW lazy decodes with at least LARGE_READ_MIN read turns
// them eager; while eager, one decode in PROBE_EVERY stays lazy (a probe: what else is unread
// cannot be seen), and a window whose probes were not all but at most one read turns them lazy
// again, with the same doubling skip as above. A probe costs its walk: ~0.5% of such decodes.
const LARGE_READ_MIN = WINDOW - WINDOW / 16;
const PROBE_EVERY = 16;
const PROBE_READS_MIN = WINDOW / PROBE_EVERY - 1;
const adaptive = { on: true };

/**
 * @internal For tests that must know which path a bare message takes: false makes the lazy
 * threshold alone decide (every decode under it eager, every other lazy). Returns the previous value.
 */
export function setAdaptiveLazy(on: boolean): boolean {
  const prev = adaptive.on;
  adaptive.on = on;
  return prev;
}

/**
 * The state machine both sides of a RelayWatch share: a switch looked at once per WINDOW
 * decodes. Turned back off, it stays off for the next `skip` windows, twice as many (plus one, up
 * to MAX_SKIP) each time this happens and half as many after each window it holds, so that
 * traffic that alternates pays the wrong path on at most one window in MAX_SKIP.
 */
class WindowSwitch {
  on = false;
  /** Decodes in this window. */
  private seen = 0;
  /** Windows to pass before it may turn on again. */
  private skip = 0;
  /** What `skip` was set to the last time it turned off (doubled each time). */
  private backoff = 0;

  /** Counts a decode: its place in the window, 1 to WINDOW (the last, which starts a new window). */
  count(): number {
    const n = ++this.seen;
    if (n === WINDOW) this.seen = 0;
    return n;
  }

  /** At a window's end. While on: `holds`, whether it stays on. While off: `starts`, whether it turns on. */
  close(holds: boolean, starts: boolean): void {
    if (this.on) {
      if (holds) this.backoff >>= 1;
      else {
        this.on = false;
        this.skip = this.backoff = Math.min(MAX_SKIP, 2 * this.backoff + 1);
      }
    } else if (this.skip > 0) this.skip--;
    else this.on = starts;
  }
}

/** Which path a serializer's bare messages take: under the lazy threshold (see WINDOW), and at or over it (LARGE_READ_MIN). */
export class RelayWatch {
  /** On: bare messages under the lazy threshold are decoded lazily. */
  private readonly small = new WindowSwitch();
  /** Relays of values under the lazy threshold in this window (counted while eager). */
  private relays = 0;
  /** Values under the lazy threshold materialized in this window (counted while lazy). */
  private reads = 0;
  /** On: bare messages of at least the lazy threshold are decoded eagerly, but for probes. */
  private readonly large = new WindowSwitch();
  /** Lazy values of at least the threshold materialized in this window (while eager: probes). */
  private largeReads = 0;

  /** A value of `len` bytes this serializer decoded was written unchanged (the writer copied it). */
  relayed(len: number): void {
    if (len < lazy.min) this.relays++;
  }

  /** A lazy value of `len` bytes was materialized. */
  read(len: number): void {
    if (len < lazy.min) this.reads++;
    else this.largeReads++;
  }

  /** True when the next bare message under the lazy threshold is to be decoded lazily. */
  next(): boolean {
    const w = this.small;
    if (w.count() < WINDOW) return w.on;
    w.close(this.reads <= READS_MAX, this.relays >= RELAYS_MIN);
    this.relays = 0;
    this.reads = 0;
    return w.on;
  }

  /** True when the next bare message of at least the lazy threshold is to be decoded lazily. */
  nextLarge(): boolean {
    const w = this.large;
    const n = w.count();
    if (n < WINDOW) return !w.on || n % PROBE_EVERY === 0;
    const reads = this.largeReads;
    this.largeReads = 0;
    w.close(reads >= PROBE_READS_MIN, reads >= LARGE_READ_MIN);
    // The window's last decode: lazy, as every probe is.
    return true;
  }
}

// Bare messages (and single frames) under this many bytes are read in TypeScript
// (small-reader.ts), without the core; larger ones, and any input the TypeScript reader gives up
// on, go through the core. Measured (one process, core time / TypeScript time): bench.Small with
// more tags 91 B 1.39, 174 B 1.28, 534 B 0.98; bench.Classic with longer packed runs 97 B 1.57,
// 165 B 1.30, 440 B 0.90, 1165 B 0.64 (the core decodes packed runs in bulk).
// The core is still started first (smallDecode() calls core(): a no-op once it runs): a decode that worked without it
// for small inputs only would hide a missing initWasm (workerd's default entry) until the first
// large message in production.
const SMALL_BELOW_BYTES = 256;
const small = { below: SMALL_BELOW_BYTES };

/**
 * @internal For tests that run the read path both ways: bare messages and single frames under
 * this many bytes are read by the TypeScript reader (Infinity = every one it can, 0 = none).
 * Returns the previous value.
 */
export function setSmallDecodeThreshold(bytes: number): number {
  const prev = small.below;
  small.below = bytes;
  return prev;
}

/** True when a bare message of `size` bytes is first tried by the TypeScript reader (small-reader.ts). */
export function readsSmall(size: number, settings: Settings): boolean {
  return size < small.below && size <= settings.maxMessageBytes;
}

/**
 * A decoder bound to one root and settings, for a serializer: the layout and read plan are
 * resolved once instead of through two WeakMap lookups per call.
 */
export class BoundDecoder implements LazySource {
  private readonly layout: MessageLayout;
  private readonly plan: ReadPlan;
  private readonly settings: Settings;
  // One TapeDecoder per serializer, reset per call: a fresh one per small message was a
  // measurable share of the fixed per-call cost. It lets go of the input after each call.
  private readonly dec: TapeDecoder;
  private readonly small: SmallDecoder;
  private readonly watch: RelayWatch;

  /** `watch`: the serializer's, which its writer tells of relays (a decoder of its own: none). */
  constructor(root: DescMessage, settings: Settings, watch = new RelayWatch()) {
    this.watch = watch;
    this.layout = layoutOf(root);
    this.plan = planFor(this.layout);
    this.settings = settings;
    this.dec = new TapeDecoder(EMPTY_BYTES, settings);
    this.small = new SmallDecoder(settings.maxDepth, settings.aliasThreshold);
  }

  /**
   * A bare message. `given` is the caller's array as checkInput passed it: it may be in shared
   * memory, or a subclass whose getters run code. The small path reads it once, by copying it
   * through the engine's internal slots; every other path reads what `readable` makes of it.
   */
  message(given: Uint8Array): DynamicMessage {
    const len = byteLength(given);
    // With aliasing on, bytes fields must be views into the caller's input while everything else
    // is a copy (decode-aliasing tests): a lazy value, which reads its own copy later, cannot
    // give both, so aliasing serializers decode eagerly.
    if (this.settings.aliasThreshold === 0) {
      // Over MAX_LIST_ELEMENTS bytes a list may be too long to read (LIST_TOO_LONG): such a
      // message is read now, so that the error is fromBinary's, not a lazy value's first `get`.
      if (len >= lazy.min ? len <= MAX_LIST_ELEMENTS && (!adaptive.on || this.watch.nextLarge()) : len > 0 && adaptive.on && this.watch.next()) return this.lazyMessage(given, len);
      // Without aliasing nothing the value keeps points into the input, so both readers read the
      // source copy the value keeps instead of the input: the input is read once, by the copy,
      // and neither its class (readable's checks: ~16 ns a call, ~4% of a small decode) nor
      // whether it is shared memory (a native call to ask) matters. Reading the input itself,
      // code that a read runs (an index setter on Array.prototype) could change it midway, and
      // the value held other strings than the bytes its relay copies
      // (test/adversarial/decode-input-written-midway.test.ts).
      // Over the limit, the core refuses it before anything is copied.
      if (len <= this.settings.maxMessageBytes) return this.readCopy(new SourceCopy(given, len), len);
    }
    return this.read(readable(given), undefined);
  }

  /**
   * `message` decoding lazily (a method of its own: the hot eager path stays small).
   */
  private lazyMessage(given: Uint8Array, len: number): DynamicMessage {
    const input = readable(given);
    const height = validateMessage(this.layout.typeOffset, input, this.settings);
    const sc = new SourceCopy(input);
    return accepted(DynamicMessage._lazyAt(this.plan.desc!, sc.store, sc.base, len, this), height);
  }

  /**
   * Lazy values of bodies that another thread validated with this root and settings
   * (protokeel/pool): `bodies` holds (offset, length) pairs into `store`, which nothing else may
   * reference or write. Not marked accepted (no height is known here): a writer materializes
   * them and checks them like any other value, so a body that was not valid after all fails on
   * first access and is never relayed as is.
   */
  lazyBodies(store: Uint8Array, bodies: ArrayLike<number>): DynamicMessage[] {
    const desc = this.plan.desc!;
    const out = new Array<DynamicMessage>(bodies.length >>> 1);
    for (let i = 0; i < out.length; i++) {
      const off = bodies[2 * i]!;
      const len = bodies[2 * i + 1]!;
      // Read now where a list may be too long (see `message`): the error is the call's.
      out[i] = len > MAX_LIST_ELEMENTS ? this.materialize(store, off, len) : DynamicMessage._lazyAt(desc, store, off, len, this);
    }
    return out;
  }

  /** The eager value of validated bytes `store[off .. off + len)` (LazySource). */
  materialize(store: Uint8Array, off: number, len: number): DynamicMessage {
    this.watch.read(len);
    // A detached store reads as empty (its subarray throws the engine's TypeError).
    if (store.length < off + len) throw sourceDetached(this.plan.desc!.typeName);
    const source = { store, base: off };
    if (this.small.busy || tapeBusy()) {
      // Code a read runs (an index setter on Array.prototype) reads a lazy value: this decoder's
      // reader or the core's tape is in use. A reader of its own takes it, whatever its size
      // (the small threshold is a speed bound): a lazy value, which a relaying serializer makes
      // of small messages too, then reads where an eager one had its values already, instead of
      // throwing REENTRANT_DECODE from `get` (test/adversarial/lazy-relay-reentrant.test.ts).
      // What that reader gives up on (nesting past its bound) still needs the core.
      const value = new SmallDecoder(this.settings.maxDepth, this.settings.aliasThreshold).decode(store, off, len, this.plan, source);
      if (value !== undefined) return value;
    }
    return this.readCopy(source, len);
  }

  /**
   * The value of the `len` bytes at `source.base` in `source.store`: memory of the decoder's own
   * that the value keeps (never the caller's, whose bytes fields aliasing makes views of).
   */
  private readCopy(source: SourceRef, len: number): DynamicMessage {
    if (readsSmall(len, this.settings)) return this.smallCopy(source, len);
    return this.core(source.store.subarray(source.base, source.base + len), source);
  }

  /** readCopy for a size `readsSmall` took: the TypeScript reader, then the core if it gives up. */
  private smallCopy(source: SourceRef, len: number): DynamicMessage {
    const { store, base } = source;
    smallDecode();
    const value = this.small.decode(store, base, len, this.plan, source);
    if (value !== undefined) return value;
    return this.core(store.subarray(base, base + len), source);
  }

  /** The value of `input` (not shared memory); `source` as readCopy's, or undefined for a copy of its own. */
  private read(input: Uint8Array, source: SourceRef | undefined): DynamicMessage {
    if (readsSmall(input.length, this.settings)) {
      smallDecode();
      source ??= new SourceCopy(input);
      const value = this.small.decode(input, 0, input.length, this.plan, source);
      if (value !== undefined) return value;
    }
    return this.core(input, source);
  }

  /** The value of `input` read by the core's walk and its tape. */
  private core(input: Uint8Array, source: SourceRef | undefined): DynamicMessage {
    const tape = walkMessage(this.layout.typeOffset, input, this.settings);
    const dec = this.dec;
    dec.begin(input, source, tape);
    try {
      return dec.read(tape, 0, this.plan);
    } finally {
      dec.end();
    }
  }

  frames(given: Uint8Array): DynamicMessage[] {
    let input = given;
    let source: SourceCopy | undefined;
    // Frames of small messages are read by the TypeScript reader as bare small messages are
    // (without aliasing: it reads the batch's source copy). Its prefixes are read first: a batch
    // with a frame over the threshold goes to the core, and one with a prefix over the limit or a
    // cut frame goes there before anything is copied or built. One the reader gives up on midway (a merge, deep
    // nesting, anything malformed) goes to the core's walk, which reads or refuses it, and the
    // values built are dropped: at most one read more of such a batch. decodeAll of 1,000
    // bench.Small frames (91 B): 5,996,226 -> 5,344,874 instructions (valgrind, steady state),
    // 1.02-1.03x faster (A/B, one process).
    // Only where the batch's text (one per 64 KiB of frames) is a native latin1Slice: without it
    // (browsers, Deno) the reader builds each short string in JavaScript, and Chromium's decodeAll
    // of the frames batch read 0.88x protobufjs that way (npm run bench:runtimes; 1.10x through
    // the core at the previous version, on another machine).
    // Both readers read the copy the values keep, not the caller's array: code a read runs (an
    // index setter on Array.prototype) may write to that array midway, and values read from it
    // then held other strings and pieces than the bytes their relay copies (their source copy held
    // the old ones; test/adversarial/decode-input-written-midway.test.ts). A batch whose prefixes
    // the core refuses goes to it uncopied, and no value of it is returned.
    const largest = this.settings.aliasThreshold === 0 ? SmallDecoder.largestFrame(input, this.settings.maxMessageBytes) : -1;
    if (largest >= 0) {
      source = new SourceCopy(input);
      input = source.store.subarray(source.base, source.base + input.length);
      if (NATIVE_LATIN1 && largest < small.below) {
        smallDecode();
        const values = this.small.frames(source.store, source.base, source.base + input.length, this.plan);
        if (values !== undefined) return values;
      }
    }
    const tape = walkFrames(this.layout.typeOffset, input, this.settings);
    const dec = this.dec;
    // One string for the strings of all frames of a window (tape order is frame order), one
    // source copy.
    dec.begin(input, source, tape);
    try {
      const out: DynamicMessage[] = [];
      let k = 0;
      for (;;) {
        if (k === tape.count) {
          if (tape.done) break;
          dec.resume(tape);
          k = 0;
        }
        if (out.length === MAX_LIST_ELEMENTS) throw tooManyFrames(this.plan.desc!.typeName);
        out.push(dec.read(tape, k, this.plan));
        k = dec.next;
      }
      return out;
    } finally {
      dec.end();
    }
  }

  /**
   * The value of an input that must hold exactly one frame (`serializer.decode`). When the first
   * length prefix does not announce a frame that ends exactly where the input does, the input is
   * only validated, without building any value, and refused with the error a decode would give
   * or NOT_ONE_FRAME (4 million empty frames cost a validate pass, not 4 million values).
   */
  oneFrame(input: Uint8Array): DynamicMessage {
    // `input` may be in shared memory (checkView), as message's: only the small path reads it
    // as it is, through one copy of the body (the prefix decides the path, not the value).
    const prefix = readFramePrefix(input, 0);
    if (typeof prefix !== "number" && prefix.bodyAt + prefix.size === input.length) {
      if (readsSmall(prefix.size, this.settings)) {
        smallDecode();
        const body = input.subarray(prefix.bodyAt);
        let value: DynamicMessage | undefined;
        if (this.settings.aliasThreshold === 0) {
          const source = new SourceCopy(body);
          value = this.small.decode(source.store, source.base, body.length, this.plan, source);
        } else {
          const own = unshared(body);
          value = this.small.decode(own, 0, own.length, this.plan, new SourceCopy(own));
        }
        if (value !== undefined) return value;
      }
      return this.frames(unshared(input))[0]!;
    }
    const count = validateFrames(this.layout.typeOffset, unshared(input), this.settings);
    const name = this.plan.desc!.typeName;
    throw new CodecError(
      "NOT_ONE_FRAME",
      `cannot decode ${name}: decode expects exactly one frame, got ${count}; use decodeAll for a batch of frames`,
      { path: name },
    );
  }
}

/**
 * The elements of a packed run the core left at `addr` (`count` of them, of `scalar`; 64-bit ones
 * held per `mode`), for the dynamic and the generated reader; each scalar type allocates at its own
 * site (see coerceList).
 */
export function packedValues(scalar: number, mode: number, count: number, addr: number): unknown[] {
  const at = addr >>> 2;
  const at8 = addr >>> 3;
  switch (scalar) {
    case ScalarType.DOUBLE: {
      const a = views.f64;
      const list = new Array<number>(count);
      for (let i = 0; i < count; i++) list[i] = a[at8 + i]!;
      return list;
    }
    case ScalarType.FLOAT: {
      const a = views.f32;
      const list = new Array<number>(count);
      for (let i = 0; i < count; i++) list[i] = a[at + i]!;
      return list;
    }
    case ScalarType.BOOL: {
      const a = views.u8;
      const list = new Array<boolean>(count);
      for (let i = 0; i < count; i++) list[i] = a[addr + i] === 1;
      return list;
    }
    case ScalarType.UINT32:
    case ScalarType.FIXED32: {
      const a = views.u32;
      const list = new Array<number>(count);
      for (let i = 0; i < count; i++) list[i] = a[at + i]!;
      return list;
    }
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64: {
      if (int64ViaDataView) return packedViaDataView(true, mode, count, addr);
      // One loop per view, `long` written out: a loop over either view calling `long` was 5%
      // slower on the numeric bench message (valgrind instructions, 317k -> 302k per decode).
      const a = views.i64;
      const m = mode;
      const list = new Array<unknown>(count);
      for (let i = 0; i < count; i++) {
        const b = a[at8 + i]!;
        list[i] = m === L_NUMBER ? Number(b) : m === L_STRING ? String(b) : b;
      }
      return list;
    }
    case ScalarType.UINT64:
    case ScalarType.FIXED64: {
      if (int64ViaDataView) return packedViaDataView(false, mode, count, addr);
      const a = views.u64;
      const m = mode;
      const list = new Array<unknown>(count);
      for (let i = 0; i < count; i++) {
        const b = a[at8 + i]!;
        list[i] = m === L_NUMBER ? Number(b) : m === L_STRING ? String(b) : b;
      }
      return list;
    }
    default: {
      const a = views.i32;
      const list = new Array<number>(count);
      for (let i = 0; i < count; i++) list[i] = a[at + i]!;
      return list;
    }
  }
}

/** packedValues' 64-bit integer runs where the engine reads them faster through DataView (int64-access.ts). */
function packedViaDataView(signed: boolean, mode: number, count: number, addr: number): unknown[] {
  const dv = views.dv;
  const list = new Array<unknown>(count);
  for (let i = 0; i < count; i++) {
    const b = signed ? dv.getBigInt64(addr + 8 * i, true) : dv.getBigUint64(addr + 8 * i, true);
    list[i] = mode === L_NUMBER ? Number(b) : mode === L_STRING ? String(b) : b;
  }
  return list;
}
