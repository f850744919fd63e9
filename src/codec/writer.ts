// The write path: checks a DynamicMessage tree against the serializer's paired declarations
// (acceptance, unknown fields, depth, size) and writes it in the same walk, nested lengths
// reserved as one byte and backpatched (moved up when a length needs more). The walk keeps its
// open messages on an explicit stack, never on the JS stack, so any depth that `maxDepth` allows
// is written. The bytes become visible only once the whole value passed (a fresh output, or a
// FrameWriter commit), so a failed write leaves no trace.
//
// All state of a write lives on one `Writer` (buffer, position, open messages); a write that
// starts while another runs (an acceptor, or application code reached from a value) takes another
// Writer from the pool. Outputs come from the write arena (src/codec/arena.ts), never from memory
// that a decode hands out.
//
// One pass instead of check-and-size then write: fresh values (the common case) gained nothing
// from size memos, and two walks touched every object twice (span batch: check+size 73 µs, write
// 64 µs). Deterministic mode is the same pass with map entries in key order and values re-encoded.
import { ScalarType, type DescMessage } from "@bufbuild/protobuf";
import { CodecError } from "../errors.js";
import type { Settings } from "../settings.js";
import { describeValue } from "../message/coerce.js";
import { DynamicMessage } from "../message/dynamic-message.js";
import { K_ENUM, K_LIST, K_MAP, K_MESSAGE } from "../message/field-info.js";
import { Acceptance, type Acceptor, type Failer, type PayloadRuleCheck } from "./acceptance.js";
import { writeArena } from "./arena.js";
import type { FrameWriter } from "./frame-writer.js";
import { childPlan, planOf, PV_64, PV_I32, PV_U32, PV_Z32, PV_Z64, type FieldPlan, type WritePlan } from "./plan.js";
import { fieldSize, scalarSize } from "./sizes.js";
import { varint32Size, WireWriter } from "./wire.js";

export type { AcceptFinding, Acceptor, PayloadRuleCheck } from "./acceptance.js";
export { ACCEPT_CACHE_SIZE } from "./acceptance.js";

export interface WriterOptions {
  readonly settings: Settings;
  /** Rule (c); without one, only instance rules (a) and (b) accept a value. */
  readonly acceptor?: Acceptor;
  /** Payload rules for evaluated and foreign unpaired descriptors. */
  readonly payloadRules?: PayloadRuleCheck;
}

/** Thrown by `room` when the root body written so far already exceeds maxMessageBytes. */
class SizeOverflow extends Error {}

/** Frames write their bytes; a sizing frame only checks and counts (see `Frame.sizing`). */
const WRITE = 0;
const SIZE = 1;

/** One open message of a write. */
class Frame {
  msg!: DynamicMessage;
  values!: readonly unknown[];
  plan!: WritePlan;
  /** The reader's declaration for this value (undefined: it is read as an unknown field). */
  paired: DescMessage | undefined;
  pairedPlan: WritePlan | undefined;
  /** The field that holds this value in its parent (undefined for the root), and the element's key. */
  via: FieldPlan | undefined;
  key: unknown;
  depth = 0;
  /** Next field (index into plan.fields) and next element of that field. */
  i = 0;
  j = 0;
  /** Keys of the message-valued map being written (in key order when deterministic). */
  keys: unknown[] | undefined;
  mode = WRITE;
  /** Write: the reserved length byte (-1: none), the enclosing map entry's one, the first body byte. */
  lenAt = -1;
  entryAt = -1;
  body = 0;
  /** Size: body bytes counted so far. */
  size = 0;
  /** A decoded value checked without writing; its source bytes are copied when it closes. */
  copySource = false;
  prefixed = false;
  /** Nesting height so far (1 = no nested message; a map entry counts as a level). */
  h = 1;
  /** More than instance identity was needed in this subtree (see Acceptance.admit). */
  impure = false;
}

function renderKey(k: unknown): string {
  if (k === undefined) return "";
  if (typeof k === "string") return `[${JSON.stringify(k)}]`;
  return `[${String(k)}]`;
}

/** The levels a value under field `p` is below its parent: a map entry is one of its own. */
function levels(p: FieldPlan): number {
  return p.kind === K_MAP ? 2 : 1;
}

/**
 * The declaration a message value under field `p` of `plan` is paired with, given the paired
 * declaration's plan, or undefined when the reader keeps it opaque: a number declared as a
 * non-message (e.g. bytes) is read as such; singular ↔ repeated keeps the element type, map ↔
 * non-map does not.
 */
function pairedChild(p: FieldPlan, plan: WritePlan, pairedPlan: WritePlan): DescMessage | undefined {
  const pp = pairedPlan === plan ? p : pairedPlan.byNumber.get(p.number);
  return pp !== undefined && pp.elemKind === K_MESSAGE && (pp.kind === K_MAP) === (p.kind === K_MAP) ? pp.message : undefined;
}

/** Payload bytes per element of a packed fixed-width run, 0 for varints. */
function packedWidth(t: ScalarType): number {
  switch (t) {
    case ScalarType.DOUBLE:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      return 8;
    case ScalarType.FLOAT:
    case ScalarType.FIXED32:
    case ScalarType.SFIXED32:
      return 4;
    case ScalarType.BOOL:
      return 1;
    default:
      return 0;
  }
}

/** Most bytes one scalar payload takes (strings: at most 3 UTF-8 bytes per UTF-16 unit). */
function scalarBound(t: ScalarType, v: unknown): number {
  if (t === ScalarType.STRING) return 5 + 3 * (v as string).length;
  if (t === ScalarType.BYTES) return 5 + (v as Uint8Array).length;
  return 10;
}

function keyOrder(a: unknown, b: unknown): number {
  if (typeof a === "string") return utf8Order(a, b as string);
  // number, bigint and boolean (false < true) compare with <.
  return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
}

/**
 * String keys sort by their UTF-8 bytes, as protobuf's C++ and Go deterministic modes do. That is
 * code point order, which differs from JavaScript's UTF-16 order only where a surrogate (a code
 * point above U+FFFF) meets U+E000..U+FFFF: lifting surrogates above 0xFFFF fixes exactly that.
 */
function utf8Order(a: string, b: string): number {
  const n = a.length < b.length ? a.length : b.length;
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && x < 0xe000) x += 0x10000;
    if (y >= 0xd800 && y < 0xe000) y += 0x10000;
    return x - y;
  }
  return a.length - b.length;
}

/** The keys of a map in the order they are written. */
function mapKeys(m: ReadonlyMap<unknown, unknown>, sorted: boolean): unknown[] {
  const keys = [...m.keys()];
  return sorted && keys.length > 1 ? keys.sort(keyOrder) : keys;
}

// The scratch every Writer starts with; one grown past SCRATCH_KEEP for a large value is dropped
// afterwards, not kept for every later call. Outputs up to the arena's piece size are written
// straight into the arena's free tail (no copy); larger ones move to the scratch on the way.
const SCRATCH_MIN = 65536 * 2;
const SCRATCH_KEEP = 1 << 22;

/** The serializer-level facts a write needs. */
interface WriteConfig {
  readonly root: DescMessage;
  readonly rootPlan: WritePlan;
  readonly maxDepth: number;
  readonly maxBytes: number;
  readonly det: boolean;
  readonly acceptance: Acceptance;
}

/** One write in progress: the byte buffer and the open messages. */
class Writer extends WireWriter implements Failer {
  private scratch = new Uint8Array(SCRATCH_MIN);
  private readonly frames: Frame[] = [];
  private sp = 0;
  /** The arena chunk this output started in (undefined: the scratch), and where. */
  private leased: Uint8Array | undefined = undefined;
  private start = 0;
  /** First byte of the current root body; the root may not grow past rootBody + maxBytes. */
  private rootBody = 0;
  private c!: WriteConfig;
  /** Sizing instead of writing (the exact size of a value refused as too large). */
  private sizing = false;
  /** Map entries in key order, values re-encoded (deterministic writes). */
  private sorted = false;
  /** The body size of the last root. */
  rootSize = 0;

  /** Starts an output: in the arena's free tail when `lease`, else at 0 of the scratch. */
  begin(c: WriteConfig, lease: boolean): void {
    this.c = c;
    this.sizing = false;
    this.sorted = c.det;
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

  /** Lets go of the output (after `finish`, a copy out, or a failure). */
  end(): void {
    if (this.leased !== undefined) writeArena.cancel(this.leased, this.start);
    this.leased = undefined;
    this.buf = EMPTY;
    this.sp = 0;
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
  private room(need: number): void {
    if (this.pos - this.rootBody > this.c.maxBytes) throw new SizeOverflow();
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

  private ensure(need: number): void {
    if (this.pos + need > this.buf.length) this.room(need);
  }

  /**
   * Writes at `at` the length of the bytes written after the byte reserved there, as a varint,
   * moving those bytes up when the varint needs more than one byte.
   */
  private closeLen(at: number): number {
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

  /** `extra`: a field below the top frame that the error is about (a map field's entry level). */
  fail(code: string, what: string, extra?: FieldPlan): never {
    let path = this.c.root.typeName;
    for (let i = 0; i < this.sp; i++) {
      const f = this.frames[i]!;
      if (f.via !== undefined) path += `.${f.via.fi.name}(${f.via.number})${renderKey(f.key)}`;
    }
    if (extra !== undefined) path += `.${extra.fi.name}(${extra.number})`;
    throw new CodecError(code, `cannot write ${this.c.root.typeName}: ${what.replace("{path}", path)}`, { path });
  }

  private depthError(depth: number, extra?: FieldPlan): never {
    this.fail(
      "DEPTH_LIMIT_EXCEEDED",
      `nesting depth ${depth} at {path} exceeds maxDepth ${this.c.maxDepth} (a map entry counts as a level); raise maxDepth or flatten the value`,
      extra,
    );
  }

  /**
   * Checks and writes one root value at `pos`, with its length prefix when `framed`; returns its
   * body size. `sizing`: checks and counts without writing.
   */
  root(value: DynamicMessage, framed: boolean, sizing: boolean): number {
    this.sizing = sizing;
    if (sizing) this.sorted = false;
    this.rootBody = this.pos + (framed ? 1 : 0);
    this.rootSize = 0;
    const c = this.c;
    if (this.enter(value, c.root, c.root, 1, undefined, undefined, -1, framed)) this.run();
    if (this.rootSize > c.maxBytes) throw new SizeOverflow();
    return this.rootSize;
  }

  private run(): void {
    while (this.sp > 0) {
      const f = this.frames[this.sp - 1]!;
      if (!this.step(f)) this.close(f);
    }
  }

  /**
   * Starts a value found under field `via` (after its tag, or its map entry's header): writes it
   * at once when it is a decoded value accepted before (its source bytes), else opens a frame for
   * it. Returns true when a frame was opened.
   */
  private enter(
    m: DynamicMessage,
    paired: DescMessage | undefined,
    declared: DescMessage | undefined,
    depth: number,
    via: FieldPlan | undefined,
    key: unknown,
    entryAt: number,
    prefixed: boolean,
  ): boolean {
    const c = this.c;
    const parent = this.sp > 0 ? this.frames[this.sp - 1]! : undefined;
    const mode = parent !== undefined ? parent.mode : this.sizing ? SIZE : WRITE;
    const trusted = paired !== undefined && m._okFor === paired && m._height > 0 && depth - 1 + m._height <= c.maxDepth;
    if (trusted && !c.det) {
      const src = m._src;
      if (src !== undefined) {
        this.source(src, mode, prefixed, parent, via, key, entryAt);
        if (parent !== undefined) this.raise(parent, m._height, via!, false);
        return false;
      }
    }
    const f = (this.frames[this.sp] ??= new Frame());
    this.sp++;
    f.msg = m;
    f.via = via;
    f.key = key;
    f.depth = depth;
    f.paired = paired;
    f.entryAt = entryAt;
    f.prefixed = prefixed;
    f.i = 0;
    f.j = 0;
    f.keys = undefined;
    f.h = 1;
    f.size = 0;
    f.copySource = false;
    f.mode = mode;
    f.lenAt = -1;
    if (trusted) {
      f.impure = false;
    } else {
      if (depth > c.maxDepth) this.depthError(depth);
      f.impure = c.acceptance.admit(this, m, paired, declared);
      // A decoded value that needs checking is checked, then its source bytes are copied: a relay
      // keeps the bytes it read (unknown fields, field order) unless deterministic output is asked.
      if (mode === WRITE && !c.det && m._src !== undefined) {
        f.mode = SIZE;
        f.copySource = true;
      }
    }
    const desc = m.descriptor;
    const plan = via !== undefined ? childPlan(via, desc) : desc === c.root ? c.rootPlan : planOf(desc);
    f.plan = plan;
    f.pairedPlan = paired === undefined ? undefined : paired === desc ? plan : planOf(paired);
    f.values = m._values;
    if (f.mode === WRITE) {
      if (prefixed) {
        this.ensure(1);
        f.lenAt = this.pos++;
      }
      f.body = this.pos;
    }
    return true;
  }

  /** Writes (or counts) a decoded value's source bytes as the value of `via`. */
  private source(src: Uint8Array, mode: number, prefixed: boolean, parent: Frame | undefined, via: FieldPlan | undefined, key: unknown, entryAt: number): void {
    const n = src.length;
    if (mode === SIZE) {
      if (parent !== undefined) parent.size += this.contribution(via!, key, n);
      else this.rootSize = n;
      return;
    }
    // Exactly n more body bytes: over the limit now means over it at the end.
    if ((parent === undefined ? n : this.pos + n - this.rootBody) > this.c.maxBytes) throw new SizeOverflow();
    this.ensure(n + 5);
    if (prefixed) this.varint32(n);
    this.raw(src);
    if (entryAt >= 0) this.closeLen(entryAt);
    if (parent === undefined) this.rootSize = n;
  }

  /** Bytes a child value of body size n adds to its parent, tag and lengths included. */
  private contribution(via: FieldPlan, key: unknown, n: number): number {
    if (via.kind !== K_MAP) return via.tagSize + varint32Size(n) + n;
    const entry = 2 + scalarSize(this, via.mapKey, key) + varint32Size(n) + n;
    return via.tagSize + varint32Size(entry) + entry;
  }

  /** Raises `parent`'s height for a child of height h under `via`, and its impurity. */
  private raise(parent: Frame, h: number, via: FieldPlan, impure: boolean): void {
    const up = h + levels(via);
    if (up > parent.h) parent.h = up;
    if (impure) parent.impure = true;
  }

  /** Ends the top frame: unknown fields, length, memos; hands its size and height to its parent. */
  private close(f: Frame): void {
    const m = f.msg;
    let n: number;
    if (f.mode === WRITE) {
      const u = m._unknown;
      for (let i = 0; i < u.length; i++) {
        const d = u[i]!.data;
        this.ensure(d.length);
        this.raw(d);
      }
      n = this.pos - f.body;
      if (f.lenAt >= 0) this.closeLen(f.lenAt);
      if (f.entryAt >= 0) this.closeLen(f.entryAt);
    } else {
      n = f.size;
      const u = m._unknown;
      for (let i = 0; i < u.length; i++) n += u[i]!.data.length;
    }
    m._height = f.h;
    if (!f.impure && f.paired !== undefined) m._okFor = f.paired;
    this.sp--;
    const parent = this.sp > 0 ? this.frames[this.sp - 1]! : undefined;
    if (f.copySource) {
      // Checked: now the bytes (parent is writing, or this is the root).
      this.source(m._src!, WRITE, f.prefixed, parent, f.via, f.key, f.entryAt);
    } else if (parent !== undefined && parent.mode === SIZE) {
      parent.size += this.contribution(f.via!, f.key, n);
    } else if (parent === undefined) {
      this.rootSize = n;
    }
    if (parent !== undefined) this.raise(parent, f.h, f.via!, f.impure);
    f.msg = undefined!;
    f.values = undefined!;
    f.keys = undefined;
    f.key = undefined;
  }

  /**
   * Writes (or counts) the fields of the top frame from where it stopped; returns true when it
   * opened a child frame (the top frame resumes after it), false when all fields are done.
   */
  private step(f: Frame): boolean {
    const write = f.mode === WRITE;
    const fields = f.plan.fields;
    const values = f.values;
    const maxDepth = this.c.maxDepth;
    for (let i = f.i; i < fields.length; i++) {
      const p = fields[i]!;
      const v = values[p.index];
      if (v === undefined) continue;
      if (p.kind <= K_ENUM) {
        if (write) this.scalarField(p, v);
        else f.size += fieldSize(this, p, v);
        continue;
      }
      // A map entry is a nesting level (the reader counts it): even a scalar map needs one more.
      if (p.kind === K_MAP && f.depth + 1 > maxDepth) this.depthError(f.depth + 1, p);
      if (p.elemKind !== K_MESSAGE) {
        if (!write) f.size += fieldSize(this, p, v);
        else if (p.kind === K_LIST) this.list(p, v as readonly unknown[]);
        else this.scalarMap(p, v as ReadonlyMap<unknown, unknown>);
        if (p.kind === K_MAP && f.h < 2) f.h = 2;
        continue;
      }
      const paired = f.pairedPlan === undefined ? undefined : pairedChild(p, f.plan, f.pairedPlan);
      if (p.kind === K_MESSAGE) {
        if (f.j === 0) {
          f.j = 1;
          if (write) this.tag(p);
          if (this.enter(v as DynamicMessage, paired, p.message, f.depth + 1, p, undefined, -1, true)) {
            f.i = i;
            return true;
          }
        }
        f.j = 0;
      } else if (p.kind === K_LIST) {
        const list = v as readonly DynamicMessage[];
        for (let j = f.j; j < list.length; ) {
          const m = list[j]!;
          f.j = ++j;
          if (write) this.tag(p);
          if (this.enter(m, paired, p.message, f.depth + 1, p, j - 1, -1, true)) {
            f.i = i;
            return true;
          }
        }
        f.j = 0;
      } else {
        const map = v as ReadonlyMap<unknown, DynamicMessage>;
        const keys = (f.keys ??= mapKeys(map, this.sorted));
        for (let j = f.j; j < keys.length; ) {
          const k = keys[j]!;
          f.j = ++j;
          let entryAt = -1;
          if (write) {
            this.ensure(9 + p.tagSize + scalarBound(p.mapKey, k));
            this.varint32(p.tag);
            entryAt = this.pos++;
            this.varint32(p.keyTag);
            this.scalar(p.mapKey, k);
            this.varint32(p.valueTag);
          }
          if (this.enter(map.get(k)!, paired, p.message, f.depth + 2, p, k, entryAt, true)) {
            f.i = i;
            return true;
          }
        }
        f.keys = undefined;
        f.j = 0;
      }
    }
    f.i = fields.length;
    return false;
  }

  private tag(p: FieldPlan): void {
    // tag (≤ 5) and the reserved length byte
    this.ensure(6);
    if (p.tagSize === 1) this.buf[this.pos++] = p.tag;
    else this.varint32(p.tag);
  }

  private scalar(t: ScalarType, v: unknown): void {
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

  private scalarField(p: FieldPlan, v: unknown): void {
    // tag (≤ 5) + a varint (≤ 10), or the string/bytes bound
    this.ensure(5 + scalarBound(p.scalar, v));
    if (p.tagSize === 1) this.buf[this.pos++] = p.tag;
    else this.varint32(p.tag);
    this.scalar(p.scalar, v);
  }

  /** A list of scalars or enums. */
  private list(p: FieldPlan, list: readonly unknown[]): void {
    const n = list.length;
    const t = p.scalar;
    if (p.packed) {
      const w = packedWidth(t);
      this.ensure(10 + (w === 0 ? 10 * n : w * n));
      this.varint32(p.tag);
      if (w !== 0) {
        this.varint32(w * n);
        // Below ~8 elements the typed-array setup costs more than the per-element writes.
        if (p.fixedKind !== 0 && n >= 8) this.packedFixed(p.fixedKind, list);
        else for (let i = 0; i < n; i++) this.scalar(t, list[i]);
        return;
      }
      // Each varint takes at least one byte: reserve the length for n bytes and move up if longer
      // (sizing the run first walked every element twice).
      const k = varint32Size(n);
      const at = this.pos;
      this.pos = at + k;
      const vk = p.varintKind;
      if (vk === PV_64) this.packedVarint64(list, false);
      else if (vk === PV_Z64) this.packedVarint64(list, true);
      else if (vk === PV_I32) this.packedVarint32(list, true, false);
      else if (vk === PV_U32) this.packedVarint32(list, false, false);
      else if (vk === PV_Z32) this.packedVarint32(list, false, true);
      else for (let i = 0; i < n; i++) this.scalar(t, list[i]);
      this.closeRun(at, k);
      return;
    }
    if (t === ScalarType.STRING || t === ScalarType.BYTES) {
      for (let i = 0; i < n; i++) {
        const v = list[i];
        this.ensure(5 + scalarBound(t, v));
        this.varint32(p.tag);
        this.scalar(t, v);
      }
      return;
    }
    this.ensure(15 * n);
    for (let i = 0; i < n; i++) {
      this.varint32(p.tag);
      this.scalar(t, list[i]);
    }
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
  private scalarMap(p: FieldPlan, m: ReadonlyMap<unknown, unknown>): void {
    const keys = this.sorted && m.size > 1 ? mapKeys(m, true) : undefined;
    if (keys === undefined) for (const [k, e] of m) this.scalarEntry(p, k, e);
    else for (let i = 0; i < keys.length; i++) this.scalarEntry(p, keys[i], m.get(keys[i]));
  }

  private scalarEntry(p: FieldPlan, k: unknown, e: unknown): void {
    this.ensure(7 + p.tagSize + scalarBound(p.mapKey, k) + scalarBound(p.scalar, e));
    this.varint32(p.tag);
    const at = this.pos++;
    this.varint32(p.keyTag);
    this.scalar(p.mapKey, k);
    this.varint32(p.valueTag);
    this.scalar(p.scalar, e);
    this.closeLen(at);
  }
}

const EMPTY = new Uint8Array(0);

function copy(from: Uint8Array, at: number, n: number, to: Uint8Array, dst: number): void {
  // A short loop beats TypedArray.set, which has a fixed native-call cost.
  if (n < 64) for (let i = 0; i < n; i++) to[dst + i] = from[at + i]!;
  else to.set(from.subarray(at, at + n), dst);
}

// Free Writers. A write takes one for its duration; a write that starts inside another (an
// acceptor's, or one reached from application code) finds the first taken and makes its own.
const pool: Writer[] = [];
const POOL_KEEP = 4;

function acquire(): Writer {
  return pool.pop() ?? new Writer();
}

function release(w: Writer): void {
  w.end();
  if (pool.length < POOL_KEEP) pool.push(w);
}

/** The write side of one serializer: its root, settings and accepted-pair cache. */
export class MessageWriter {
  readonly root: DescMessage;
  readonly settings: Settings;
  private readonly acceptance: Acceptance;
  private readonly config: WriteConfig;

  constructor(root: DescMessage, options: WriterOptions) {
    this.root = root;
    this.settings = options.settings;
    this.acceptance = new Acceptance(options.acceptor, options.payloadRules);
    this.config = {
      root,
      rootPlan: planOf(root),
      maxDepth: options.settings.maxDepth,
      maxBytes: options.settings.maxMessageBytes,
      det: options.settings.deterministic,
      acceptance: this.acceptance,
    };
  }

  /** @internal Number of evaluator calls (cache misses) so far. */
  get evaluations(): number {
    return this.acceptance.evaluations;
  }

  /** @internal The cached pairs, most recent first, as [value descriptor, paired declaration]. */
  acceptedPairs(): [DescMessage, DescMessage][] {
    return this.acceptance.acceptedPairs();
  }

  private notAMessage(value: unknown): never {
    throw new CodecError(
      "NOT_A_DYNAMIC_MESSAGE",
      `cannot write ${this.root.typeName}: expected a DynamicMessage, got ${describeValue(value)}; build values with DynamicMessage.create(descriptor, init)`,
      { path: this.root.typeName },
    );
  }

  private tooLarge(size: number): never {
    throw new CodecError(
      "MESSAGE_TOO_LARGE",
      `cannot write ${this.root.typeName}: encoded size ${size} bytes exceeds maxMessageBytes ${this.settings.maxMessageBytes}; raise maxMessageBytes or write a smaller value`,
      { path: this.root.typeName },
    );
  }

  /** The source bytes of a decoded root this serializer may copy unchecked, else undefined. */
  private relayable(value: DynamicMessage): Uint8Array | undefined {
    if (this.config.det || value._okFor !== this.root || value._height <= 0 || value._height > this.config.maxDepth) return undefined;
    const src = value._src;
    if (src !== undefined && src.length > this.config.maxBytes) this.tooLarge(src.length);
    return src;
  }

  /**
   * Writes one root with `w` (after `begin`). A failure that another order or a size could explain
   * is checked again by a sizing pass in insertion order: what it throws is the error (the first
   * bad value in insertion order, or the exact size of a value over the limit).
   */
  private writeRoot(w: Writer, value: unknown, framed: boolean): void {
    if (!(value instanceof DynamicMessage)) this.notAMessage(value);
    try {
      w.root(value, framed, false);
    } catch (e) {
      if (!(e instanceof SizeOverflow) && !(this.config.det && e instanceof CodecError)) throw e;
      const s = acquire();
      try {
        s.begin(this.config, false);
        s.root(value, false, true);
      } catch (again) {
        if (again instanceof SizeOverflow) this.tooLarge(s.rootSize);
        throw again;
      } finally {
        release(s);
      }
      if (e instanceof SizeOverflow) {
        throw new CodecError(
          "INTERNAL_SIZE_MISMATCH",
          `cannot write ${this.root.typeName}: the value overflowed maxMessageBytes while writing but not while sizing; this is a protokeel bug, please report it`,
        );
      }
      throw e;
    }
  }

  /** The bare message (no frame). */
  toBinary(value: unknown): Uint8Array {
    if (value instanceof DynamicMessage) {
      const src = this.relayable(value);
      if (src !== undefined) {
        const out = writeArena.alloc(src.length);
        copy(src, 0, src.length, out, 0);
        return out;
      }
    }
    const w = acquire();
    try {
      w.begin(this.config, true);
      this.writeRoot(w, value, false);
      return w.finish();
    } finally {
      release(w);
    }
  }

  /** One frame: varint length, then the message (framing v1). */
  encodeFrame(value: unknown): Uint8Array {
    if (value instanceof DynamicMessage) {
      const src = this.relayable(value);
      if (src !== undefined) {
        const n = src.length;
        const k = varint32Size(n);
        const out = writeArena.alloc(k + n);
        let v = n;
        let at = 0;
        while (v > 0x7f) {
          out[at++] = (v & 0x7f) | 0x80;
          v = v >>> 7;
        }
        out[at] = v;
        copy(src, 0, n, out, k);
        return out;
      }
    }
    const w = acquire();
    try {
      w.begin(this.config, true);
      this.writeRoot(w, value, true);
      return w.finish();
    } finally {
      release(w);
    }
  }

  /** Frames for every value, concatenated; nothing is returned when any value fails. */
  encodeAll(values: Iterable<unknown>): Uint8Array {
    const list = Array.isArray(values) ? values : [...values];
    const w = acquire();
    try {
      // A long batch outgrows the arena's tail anyway: start in the scratch rather than move there.
      w.begin(this.config, list.length <= 16);
      for (let i = 0; i < list.length; i++) this.writeRoot(w, list[i], true);
      return w.finish();
    } finally {
      release(w);
    }
  }

  /** Appends one frame to `out`, which is unchanged on failure. */
  writeFrame(value: unknown, out: FrameWriter): void {
    const w = acquire();
    try {
      w.begin(this.config, false);
      this.writeRoot(w, value, true);
      const bytes = w.written();
      const buf = out.reserve(bytes.length);
      copy(bytes, 0, bytes.length, buf, out.length);
      out.commit(bytes.length);
    } finally {
      release(w);
    }
  }
}
