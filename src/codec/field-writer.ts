// The byte side of the writer: an output buffer (the write arena's free tail, or a scratch that
// grows) and the encodings of fields that hold no message (scalars, packed and unpacked lists,
// maps of scalars). Nested lengths are reserved as one byte and backpatched, moved up when a length
// needs more. Knows field plans (tags, wire shapes), never descriptors or values' acceptance.
import { ScalarType } from "@bufbuild/protobuf";
import { CodecError, internalError } from "../errors.js";
import { writeArena } from "./arena.js";
import { mapKeys } from "./map-order.js";
import { PV_64, PV_I32, PV_U32, PV_Z32, PV_Z64, type FieldPlan } from "./plan.js";
import { fixedScalarWidth } from "./sizes.js";
import { SHORT_STRING, varint32Size, WireWriter } from "./wire.js";

/** Thrown by `room` when the root body written so far already exceeds the limit. */
export class SizeOverflow extends Error {}

/**
 * The arena chunk being written was detached mid-write: application code that the write ran (a
 * getter) transferred the buffer of an earlier output, which shares the chunk. The bytes written
 * so far are gone; the write threw the engine's TypeError ("Cannot perform Construct on a
 * detached ArrayBuffer") from wherever it next made a view.
 */
export function outputDetached(name: string): CodecError {
  return new CodecError(
    "OUTPUT_DETACHED",
    `cannot write ${name}: the output buffer was detached while the value was written (code the write ran transferred the .buffer of an earlier protokeel output, which shares it); copy outputs (slice()) before transferring them`,
    { path: name },
  );
}

/** Most bytes one scalar payload takes (strings: at most 3 UTF-8 bytes per UTF-16 unit). */
export function scalarBound(t: ScalarType, v: unknown): number {
  if (t === ScalarType.STRING) return 5 + 3 * (v as string).length;
  if (t === ScalarType.BYTES) return 5 + (v as Uint8Array).length;
  return 10;
}

// The scratch every Writer starts with; one grown past SCRATCH_KEEP for a large value is dropped
// afterwards, not kept for every later call. Outputs up to the arena's piece size are written
// straight into the arena's free tail (no copy); larger ones move to the scratch on the way.
const SCRATCH_MIN = 65536 * 2;
const SCRATCH_KEEP = 1 << 22;

const EMPTY = new Uint8Array(0);

/** A string or bytes value whose worst case is over this many bytes is checked against the limit first (`least`). */
const LARGE_BOUND = 65536;

/** Elements of a list that room is made for at once (see varintRun). */
const RUN_BLOCK = 4096;

/** Copies n bytes; a short loop beats TypedArray.set, which has a fixed native-call cost. */
export function copy(from: Uint8Array, at: number, n: number, to: Uint8Array, dst: number): void {
  if (n < 64) for (let i = 0; i < n; i++) to[dst + i] = from[at + i]!;
  else to.set(from.subarray(at, at + n), dst);
}

export class FieldWriter extends WireWriter {
  private scratch = new Uint8Array(SCRATCH_MIN);
  /** The arena chunk this output started in (undefined: the scratch), and where. */
  private leased: Uint8Array | undefined = undefined;
  private start = 0;
  /** The first byte of the current root body, and how far past it the root may grow. */
  protected rootBody = 0;
  private limit = 0;
  /** Map entries in key order (deterministic writes). */
  protected sorted = false;

  /**
   * Starts an output: in the arena's free tail when `lease`, else at 0 of the scratch. A root may
   * not grow past `limit` bytes from `rootBody` (set per root); `sorted` writes maps in key order.
   */
  protected beginOutput(lease: boolean, limit: number, sorted: boolean, name: string): void {
    this.outputName = name;
    this.limit = limit;
    this.sorted = sorted;
    this.slots = 0;
    if (lease) {
      this.start = writeArena.lease();
      this.leased = this.buf = writeArena.chunk;
    } else {
      this.leased = undefined;
      this.buf = this.scratch;
      this.start = 0;
    }
    this.pos = this.start;
  }

  /** The output as a Uint8Array the caller owns: the arena piece itself, or a copy. */
  finish(): Uint8Array {
    this.checkOutput();
    const n = this.pos - this.start;
    let out: Uint8Array;
    if (this.leased !== undefined && this.buf === this.leased) {
      out = writeArena.settle(this.leased, this.start, n);
    } else {
      if (this.leased !== undefined) writeArena.cancel(this.leased, this.start);
      out = writeArena.alloc(n);
      copy(this.buf, this.start, n, out, 0);
    }
    this.leased = undefined;
    this.end();
    return out;
  }

  /** The type named by errors of this output (set per output by beginOutput). */
  private outputName = "message";

  /** Throws OUTPUT_DETACHED when the arena chunk of this output was detached (a chunk is never empty). */
  private checkOutput(): void {
    if (this.leased !== undefined && this.leased.length === 0) throw outputDetached(this.outputName);
  }

  /** Lets go of the output (after `finish`, a copy out, or a failure). */
  end(): void {
    if (this.leased !== undefined) writeArena.cancel(this.leased, this.start);
    this.leased = undefined;
    this.buf = EMPTY;
    if (this.scratch.length > SCRATCH_KEEP) this.scratch = new Uint8Array(SCRATCH_MIN);
  }

  /** The scratch bytes written, for a copy into a FrameWriter. */
  written(): Uint8Array {
    return this.buf.subarray(this.start, this.pos);
  }

  /**
   * Makes room for `need` more bytes at `pos` (the caller checked that the buffer lacks it): moves
   * off the arena or doubles the scratch. Growth is refused once the root body written so far is
   * over the limit, so an oversized value cannot grow the scratch without bound.
   */
  protected room(need: number): void {
    this.checkOutput();
    if (this.pos - this.rootBody > this.limit) throw new SizeOverflow();
    const pos = this.pos;
    let sc = this.scratch;
    if (sc.length < pos + need) {
      let cap = sc.length * 2;
      while (cap < pos + need) cap *= 2;
      sc = new Uint8Array(cap);
    } else if (this.buf === sc) return;
    // Same offsets in the new buffer, so reserved length bytes keep their positions.
    sc.set(this.buf.subarray(this.start, pos), this.start);
    this.scratch = sc;
    this.buf = sc;
  }

  /**
   * Refuses a value that will take at least `n` more bytes of a root already too close to its
   * limit, before room is made for its worst case (10 bytes per varint element, 3 per UTF-16
   * unit): a list of 10^7 int32 values over the limit grew the output to 100 MB first, more than a
   * workerd isolate may hold.
   */
  protected least(n: number): void {
    if (this.pos - this.rootBody + n > this.limit) throw new SizeOverflow();
  }

  /** `scalarBound(t, v)`, after `least` for a long string or bytes value (a byte per unit at least). */
  protected boundOf(t: ScalarType, v: unknown): number {
    const bound = scalarBound(t, v);
    if (bound > LARGE_BOUND) this.least(t === ScalarType.STRING ? (v as string).length : (v as Uint8Array).length);
    return bound;
  }

  protected ensure(need: number): void {
    if (this.pos + need > this.buf.length) this.room(need);
  }

  /**
   * Writes at `at` the length of the bytes written after the byte reserved there, as a varint,
   * moving those bytes up when the varint needs more than one byte.
   */
  protected closeLen(at: number): number {
    const n = this.pos - at - 1;
    if (n < 0x80) {
      this.buf[at] = n;
      return n;
    }
    const m = varint32Size(n);
    this.ensure(m - 1);
    this.buf.copyWithin(at + m, at + 1, this.pos);
    this.pos += m - 1;
    const buf = this.buf;
    let v = n;
    while (v > 0x7f) {
      buf[at++] = (v & 0x7f) | 0x80;
      v = v >>> 7;
    }
    buf[at] = v;
    return n;
  }

  // Deferred lengths (the generated writer's nested messages): a length byte is reserved per
  // message as it opens and written when it closes if the body is under 128 bytes; longer ones
  // are kept (slot → position, size) and all written by one backward pass when the root ends, so
  // that each byte moves at most once. Backpatching each long length at once moved every enclosing
  // body again: an 80-deep chain moved its bytes ~40 times (closeLen was 7.5% of nested encode).
  private slotAt = new Int32Array(64);
  private slotN = new Int32Array(64);
  /** Slots taken in this output (in opening order, so by position). */
  protected slots = 0;

  /** Reserves a length byte at `pos` (room made by the caller); returns its slot. */
  protected openLen(): number {
    const k = this.slots++;
    if (k === this.slotAt.length) {
      const at = new Int32Array(k * 2);
      at.set(this.slotAt);
      this.slotAt = at;
      const n = new Int32Array(k * 2);
      n.set(this.slotN);
      this.slotN = n;
    }
    this.slotAt[k] = this.pos++;
    return k;
  }

  /**
   * Ends the length of slot `k`: the body is the bytes after it plus `extra`, the bytes that longer
   * lengths inside it will add. Returns the bytes its own length adds beyond the reserved one.
   */
  protected closeLenLater(k: number, extra: number): number {
    const at = this.slotAt[k]!;
    const n = this.pos - at - 1 + extra;
    if (n < 0x80) {
      // Nothing inside can be long then: extra is 0.
      this.buf[at] = n;
      this.slotN[k] = -1;
      return 0;
    }
    this.slotN[k] = n;
    return varint32Size(n) - 1;
  }

  /** Writes the long lengths of slots `from`.. (adding `extra` bytes in all) and frees the slots. */
  protected settleLens(from: number, extra: number): void {
    if (extra > 0) {
      this.ensure(extra);
      const buf = this.buf;
      const slotAt = this.slotAt;
      const slotN = this.slotN;
      let shift = extra;
      let end = this.pos;
      for (let k = this.slots - 1; k >= from && shift > 0; k--) {
        let v = slotN[k]!;
        if (v < 0) continue;
        const a = slotAt[k]!;
        buf.copyWithin(a + 1 + shift, a + 1, end);
        shift -= varint32Size(v) - 1;
        let at = a + shift;
        while (v > 0x7f) {
          buf[at++] = (v & 0x7f) | 0x80;
          v = v >>> 7;
        }
        buf[at] = v;
        end = a;
      }
      this.pos += extra;
    }
    this.slots = from;
  }

  protected tag(p: FieldPlan): void {
    // tag (≤ 5) and the reserved length byte
    this.ensure(6);
    this.putTag(p);
  }

  /** `p`'s tag at `pos` (room made by the caller). */
  protected putTag(p: FieldPlan): void {
    if (p.tagSize === 1) this.buf[this.pos++] = p.tag;
    else this.varint32(p.tag);
  }

  protected scalar(t: ScalarType, v: unknown): void {
    switch (t) {
      case ScalarType.DOUBLE:
        this.double(v as number);
        return;
      case ScalarType.FLOAT:
        this.float(v as number);
        return;
      case ScalarType.INT32:
        this.int32(v as number);
        return;
      case ScalarType.UINT32:
        this.varint32(v as number);
        return;
      case ScalarType.SINT32:
        this.sint32(v as number);
        return;
      case ScalarType.FIXED32:
      case ScalarType.SFIXED32:
        this.fixed32(v as number);
        return;
      case ScalarType.BOOL:
        this.buf[this.pos++] = v ? 1 : 0;
        return;
      case ScalarType.STRING:
        this.string(v as string);
        return;
      case ScalarType.BYTES:
        this.bytes(v as Uint8Array);
        return;
      case ScalarType.FIXED64:
      case ScalarType.SFIXED64:
        this.split64(v);
        this.fixed64();
        return;
      case ScalarType.SINT64:
        this.split64(v);
        this.zigzag64();
        this.varint64();
        return;
      default:
        this.split64(v);
        this.varint64();
    }
  }

  protected scalarField(p: FieldPlan, v: unknown): void {
    // tag (≤ 5) + a varint (≤ 10), or the string/bytes bound
    this.ensure(5 + this.boundOf(p.scalar, v));
    this.putTag(p);
    this.scalar(p.scalar, v);
  }

  /**
   * scalarField for a string field holding `s` of fewer than SHORT_STRING units: its length takes
   * one byte, so neither a size bound nor scalar()'s switch is needed.
   */
  protected shortStringField(p: FieldPlan, s: string): void {
    // tag (≤ 5), the length byte, at most 3 bytes per unit
    this.ensure(6 + 3 * SHORT_STRING);
    this.putTag(p);
    this.string(s);
  }

  /** A list of scalars or enums. */
  protected list(p: FieldPlan, list: readonly unknown[]): void {
    const n = list.length;
    const t = p.scalar;
    if (p.packed) {
      const w = fixedScalarWidth(t);
      if (w === 0) {
        // A checked copy or a fitting typed array: every element passes packedVarint32's check.
        if (!this.varintRun(p, list, false)) throw internalError(`cannot write field ${p.fi.label}`, "a checked list holds an element out of its type's range");
        return;
      }
      this.fixedHead(p, w, n);
      // Below ~8 elements the typed-array setup costs more than the per-element writes.
      if (p.fixedKind !== 0 && n >= 8) this.packedFixed(p.fixedKind, list, n);
      else for (let i = 0; i < n; i++) this.scalar(t, list[i]);
      return;
    }
    // Each element takes two bytes at least (its tag and a byte).
    this.least(2 * n);
    if (t === ScalarType.STRING || t === ScalarType.BYTES) {
      for (let i = 0; i < n; i++) {
        const v = list[i];
        this.ensure(5 + this.boundOf(t, v));
        this.varint32(p.tag);
        this.scalar(t, v);
      }
      return;
    }
    for (let i = 0; i < n; i += RUN_BLOCK) {
      const to = Math.min(n, i + RUN_BLOCK);
      this.ensure(15 * (to - i));
      for (let j = i; j < to; j++) {
        this.varint32(p.tag);
        this.scalar(t, list[j]);
      }
    }
  }

  /** The tag and length of a packed run of n elements of w bytes, room made for all of it. */
  private fixedHead(p: FieldPlan, w: number, n: number): void {
    this.least(w * n);
    this.ensure(10 + w * n);
    this.varint32(p.tag);
    this.varint32(w * n);
  }

  /**
   * A packed fixed-width run (`p.fixedKind`) from an array no check has copied, written as its
   * elements are checked (packedFixedChecked); returns false, with nothing written, at one that
   * create would refuse or convert: the caller's coercion then names or converts it.
   */
  protected fixedRun(p: FieldPlan, list: readonly unknown[]): boolean {
    const n = list.length;
    if (n === 0) return true;
    const start = this.pos;
    this.fixedHead(p, fixedScalarWidth(p.scalar), n);
    if (this.packedFixedChecked(p.fixedKind, list, n, p.scalar === ScalarType.FIXED64)) return true;
    this.pos = start;
    return false;
  }

  /**
   * A packed run of varints. Room is made a block of elements at a time (10 bytes each at most),
   * so that a run over the limit is refused by `room` once the root has passed it, not after room
   * for all of it (a 10^7-element int32 list asked for 100 MB first). The 32-bit kinds
   * (`p.varintKind`) are read once per element, checked and written (packedVarint32): from an
   * array no check has copied (the generated writer's), an element that is not a number of the
   * type's range returns false with nothing written, and the caller's coercion checks or converts
   * it. (A copy checked first, then written, was 9% of an 80-deep chain's generated encode.) The
   * 64-bit kinds are checked only when `check` (such an array): a checked copy skips the test.
   */
  protected varintRun(p: FieldPlan, list: readonly unknown[], check: boolean): boolean {
    const n = list.length;
    // An empty list writes nothing (proto3 omits it).
    if (n === 0) return true;
    // Each varint takes at least one byte: the length is reserved for n bytes and moved up if
    // longer (sizing the run first walked every element twice); 5 bytes are room for the move.
    const start = this.pos;
    const blocks = n > RUN_BLOCK;
    if (blocks) this.least(n);
    this.ensure(15 + 10 * (blocks ? RUN_BLOCK : n));
    this.varint32(p.tag);
    const k = varint32Size(n);
    const at = this.pos;
    this.pos = at + k;
    let ok: boolean;
    if (!blocks) {
      // One block, the common case, kept apart from the loop below: with every run through the
      // loop, the 80-deep chain's generated encode (lists of 0-3 elements) read 1.23-1.28x
      // protobuf-es' toBinary (bench/generated-ratio.mjs), 1.33-1.40x without. The 32-bit kinds
      // (PV_I32..PV_Z32), the usual lists, go straight to their loop.
      const vk = p.varintKind;
      ok = vk >= PV_I32 ? this.packedVarint32(list, 0, n, vk === PV_U32, vk === PV_Z32) : this.varints(p, list, 0, n, check);
    } else {
      ok = true;
      for (let i = 0; ok && i < n; i += RUN_BLOCK) {
        const to = Math.min(n, i + RUN_BLOCK);
        if (i > 0) this.ensure(5 + 10 * (to - i));
        ok = this.varints(p, list, i, to, check);
      }
    }
    if (!ok) {
      this.pos = start;
      return false;
    }
    this.closeRun(at, k);
    return true;
  }

  /** Elements [from, to) of varintRun's list (room made); false at one out of range (see varintRun). */
  private varints(p: FieldPlan, list: readonly unknown[], from: number, to: number, check: boolean): boolean {
    const vk = p.varintKind;
    if (vk >= PV_I32) return this.packedVarint32(list, from, to, vk === PV_U32, vk === PV_Z32);
    if (vk === PV_64 || vk === PV_Z64) return this.packedVarint64(list, from, to, vk === PV_Z64, p.scalar === ScalarType.UINT64, check);
    for (let i = from; i < to; i++) this.scalar(p.scalar, list[i]);
    return true;
  }

  /** `closeLen` for a length reserved as `k` bytes (a packed run of n elements: k = size of n). */
  private closeRun(at: number, k: number): void {
    const n = this.pos - at - k;
    const m = varint32Size(n);
    if (m !== k) {
      // The run was written with room for 10 bytes an element: the move needs no growth.
      this.buf.copyWithin(at + m, at + k, this.pos);
      this.pos += m - k;
    }
    const buf = this.buf;
    let v = n;
    while (v > 0x7f) {
      buf[at++] = (v & 0x7f) | 0x80;
      v = v >>> 7;
    }
    buf[at] = v;
  }

  /** A map whose values are scalars or enums. */
  protected scalarMap(p: FieldPlan, m: ReadonlyMap<unknown, unknown>): void {
    const keys = this.sorted && m.size > 1 ? mapKeys(m, true) : undefined;
    if (keys === undefined) for (const [k, e] of m) this.scalarEntry(p, k, e);
    else for (let i = 0; i < keys.length; i++) this.scalarEntry(p, keys[i], m.get(keys[i]));
  }

  /**
   * The head of a map entry whose value is a message, for key `k` of map field `p`: the field's
   * tag, the entry's reserved length byte, the key and the value's tag. Returns the reserved
   * byte's position, or with `slot` its openLen slot (closeLenLater's).
   */
  protected messageEntryHead(p: FieldPlan, k: unknown, slot: boolean): number {
    this.ensure(9 + p.tagSize + this.boundOf(p.mapKey, k));
    this.varint32(p.tag);
    const at = slot ? this.openLen() : this.pos++;
    this.varint32(p.keyTag);
    this.scalar(p.mapKey, k);
    this.varint32(p.valueTag);
    return at;
  }

  private scalarEntry(p: FieldPlan, k: unknown, e: unknown): void {
    this.ensure(7 + p.tagSize + this.boundOf(p.mapKey, k) + this.boundOf(p.scalar, e));
    this.varint32(p.tag);
    const at = this.pos++;
    this.varint32(p.keyTag);
    this.scalar(p.mapKey, k);
    this.varint32(p.valueTag);
    this.scalar(p.scalar, e);
    this.closeLen(at);
  }
}
