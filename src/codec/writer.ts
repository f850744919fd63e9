// The write path (DESIGN §8.1): check a DynamicMessage tree against the serializer's paired
// declarations (acceptance, unknown fields, depth) and write it in the same walk (`put`) into a
// growable buffer, nested lengths backpatched. The bytes become visible only once the whole value
// passed (a fresh output, or a FrameWriter commit), so a failed write leaves no trace.
//
// One pass instead of check-and-size then write: fresh values (the common case) gained nothing from
// the size memos, and the two walks touched every object twice (span: check+size 73 µs, write
// 64 µs). Deterministic mode keeps the two passes (`prepare`/`writeBody`): it writes map entries
// sorted but checks them in insertion order, and an error names the first bad entry in that order.
import { ScalarType, type DescMessage } from "@bufbuild/protobuf";
import { CodecError, isProtokeelError } from "../errors.js";
import type { Settings } from "../settings.js";
import { describeValue } from "../message/coerce.js";
import { DynamicMessage } from "../message/dynamic-message.js";
import { K_ENUM, K_LIST, K_MAP, K_MESSAGE } from "../message/field-info.js";
import type { UnknownField } from "../message/unknown-fields.js";
import { childPlan, planOf, PV_64, PV_I32, PV_U32, PV_Z32, PV_Z64, type FieldPlan, type WritePlan } from "./plan.js";
import { entrySize, fieldSize, packedSize, scalarSize, sizeOf } from "./sizes.js";
import { checkUnknownOccurrence, MAX_FIELD_NUMBER } from "./unknown.js";
import type { FrameWriter } from "./frame-writer.js";
import { Sink, split64, varint32Size, zigzag64 } from "./wire.js";

/** What the directional evaluator reports for a rejected pair (DESIGN §9). */
export interface AcceptFinding {
  readonly rule: string;
  readonly path: string;
  readonly message: string;
}

/**
 * Decides rule (c) of DESIGN §8.1: may a value whose descriptor is `valueDesc` (saved) be written
 * where the reader parses `pairedDecl` (current)? The serializer plugs the evaluator in here.
 */
export type Acceptor = (
  valueDesc: DescMessage,
  pairedDecl: DescMessage,
) => { readonly ok: true } | { readonly ok: false; readonly finding: AcceptFinding };

/** Throws (InvalidDescriptorError) when a descriptor's closure breaks a payload rule (DESIGN §4.2). */
export type PayloadRuleCheck = (desc: DescMessage) => void;

export interface WriterOptions {
  readonly settings: Settings;
  /** Rule (c); without one, only instance rules (a) and (b) accept a value. */
  readonly acceptor?: Acceptor;
  /** Payload rules for evaluated and foreign unpaired descriptors. */
  readonly payloadRules?: PayloadRuleCheck;
}

/** Accepted (value descriptor, paired declaration) pairs kept per writer (DESIGN §8.1). */
export const ACCEPT_CACHE_SIZE = 16;

const noAcceptor: Acceptor = (valueDesc, pairedDecl) => ({
  ok: false,
  finding: {
    rule: valueDesc.typeName === pairedDecl.typeName ? "NOT_EVALUATED" : "MESSAGE_NAME_CHANGED",
    path: pairedDecl.typeName,
    message:
      valueDesc.typeName === pairedDecl.typeName
        ? `${valueDesc.typeName} is another descriptor instance and no schema evaluator is configured`
        : `full name changed from ${valueDesc.typeName} to ${pairedDecl.typeName}`,
  },
});

// Path of the value being checked, kept as a stack so that nothing is built unless an error
// needs it.
const pathFields: FieldPlan[] = [];
const pathKeys: unknown[] = [];
// Module state lives in a const object: top-level `let` bindings pay a hole check per access.
const ck = { sp: 0, impure: false };
// ck.impure is set when a subtree needed more than instance identity (evaluator, rule (b),
// foreign unpaired descriptors); such a subtree is not memoized as accepted.

function push(p: FieldPlan, key: unknown): void {
  pathFields[ck.sp] = p;
  pathKeys[ck.sp] = key;
  ck.sp++;
}

function renderKey(k: unknown): string {
  if (k === undefined) return "";
  if (typeof k === "string") return `[${JSON.stringify(k)}]`;
  return `[${String(k)}]`;
}

function currentPath(root: DescMessage): string {
  let s = root.typeName;
  for (let i = 0; i < ck.sp; i++) {
    const p = pathFields[i]!;
    s += `.${p.fi.name}(${p.number})${renderKey(pathKeys[i])}`;
  }
  return s;
}

const SINK = new Sink(new Uint8Array(0), 0);

// Small outputs are cut from a shared slab: `new Uint8Array(n)` over 64 bytes costs an off-heap
// allocation each (DESIGN §13), a view on an existing ArrayBuffer does not.
const SLAB_SIZE = 65536;
const SLAB_MAX_PIECE = 4096;
const SL = { buf: new ArrayBuffer(SLAB_SIZE), view: new Uint8Array(0), pos: 0 };
SL.view = new Uint8Array(SL.buf);

function newSlab(): void {
  SL.buf = new ArrayBuffer(SLAB_SIZE);
  SL.view = new Uint8Array(SL.buf);
  SL.pos = 0;
}

/** A zeroed-or-overwritten Uint8Array of exactly n bytes that the caller owns. */
export function allocOutput(n: number): Uint8Array {
  if (n > SLAB_MAX_PIECE) return new Uint8Array(n);
  if (SL.pos + n > SLAB_SIZE) newSlab();
  const out = new Uint8Array(SL.buf, SL.pos, n);
  // Keep views 8-byte aligned so callers may build aligned typed views on them.
  SL.pos += (n + 7) & ~7;
  return out;
}

// --- where the one-pass writer puts bytes ---
// SINK.buf is either the unused tail of the slab (from SL.pos: a small result then needs no copy)
// or the module scratch. Positions are absolute in both: moving from the slab to the scratch copies
// the written range to the same offsets, so reserved length prefixes keep their positions.
const SCRATCH_MIN = 65536 * 2;
// A scratch grown past this for one large value is dropped afterwards, not kept for every later call.
const SCRATCH_KEEP = 1 << 22;
const W = {
  scratch: new Uint8Array(SCRATCH_MIN),
  /** First byte of this call's output. */
  start: 0,
  /** First byte of the current root body; `pos - body` never exceeds the final body size. */
  body: 0,
  max: 0,
  busy: false,
};

/** Thrown by `room` when the written part of a root body already exceeds maxMessageBytes. */
const OVERFLOW = { overflow: true };

/**
 * Makes room for `need` more bytes at SINK.pos (the caller checked that the buffer lacks it):
 * moves off the slab or doubles the scratch. Growth is refused once the root body written so far
 * is over the limit, so an oversized value cannot grow the scratch without bound.
 */
function room(need: number): void {
  if (SINK.pos - W.body > W.max) throw OVERFLOW;
  toScratch(need);
}

/** Moves the output to a scratch with room for `need` more bytes (same offsets). */
function toScratch(need: number): void {
  const s = SINK;
  const pos = s.pos;
  let sc = W.scratch;
  if (sc.length < pos + need) {
    let cap = sc.length * 2;
    while (cap < pos + need) cap *= 2;
    sc = new Uint8Array(cap);
  } else if (s.buf === sc) return;
  sc.set(s.buf.subarray(W.start, pos), W.start);
  W.scratch = sc;
  s.buf = sc;
}

/**
 * Runs an encode that started while another one is writing: only an acceptor or a payload-rule
 * check can start it (protokeel's own never do). It gets its own scratch and path stack, and the
 * outer output leaves the slab first, since the inner one may take slab pieces.
 */
function nested<T>(run: () => T): T {
  const s = SINK;
  if (s.buf === SL.view) toScratch(0);
  const buf = s.buf;
  const pos = s.pos;
  const { scratch, start, body, max } = W;
  const sp = ck.sp;
  const impure = ck.impure;
  const fields = pathFields.slice(0, sp);
  const keys = pathKeys.slice(0, sp);
  W.scratch = new Uint8Array(256);
  W.busy = false;
  try {
    return run();
  } finally {
    W.busy = true;
    W.scratch = scratch;
    W.start = start;
    W.body = body;
    W.max = max;
    s.buf = buf;
    s.pos = pos;
    ck.sp = sp;
    ck.impure = impure;
    for (let i = 0; i < sp; i++) {
      pathFields[i] = fields[i]!;
      pathKeys[i] = keys[i];
    }
  }
}

/** Starts an output: in the slab's free tail when `slab`, else at 0 of the scratch. */
function begin(slab: boolean, max: number): void {
  const s = SINK;
  if (slab) {
    if (SLAB_SIZE - SL.pos < SLAB_MAX_PIECE) newSlab();
    s.buf = SL.view;
    s.pos = W.start = SL.pos;
  } else {
    s.buf = W.scratch;
    s.pos = W.start = 0;
  }
  W.body = s.pos;
  W.max = max;
}

/** The written output as a Uint8Array the caller owns: the slab piece itself, or a copy. */
function finish(): Uint8Array {
  const s = SINK;
  const start = W.start;
  const n = s.pos - start;
  let out: Uint8Array;
  if (s.buf === SL.view && n <= SLAB_MAX_PIECE) {
    out = new Uint8Array(SL.buf, start, n);
    SL.pos = start + ((n + 7) & ~7);
  } else {
    out = allocOutput(n);
    copyOut(s.buf, start, n, out, 0);
  }
  release();
  return out;
}

function copyOut(from: Uint8Array, at: number, n: number, to: Uint8Array, dst: number): void {
  // A short loop beats TypedArray.set, which has a fixed native-call cost.
  if (n < 64) for (let i = 0; i < n; i++) to[dst + i] = from[at + i]!;
  else to.set(from.subarray(at, at + n), dst);
}

function release(): void {
  SINK.buf = EMPTY;
  if (W.scratch.length > SCRATCH_KEEP) W.scratch = new Uint8Array(SCRATCH_MIN);
}

/**
 * Writes at `at` the length of the bytes written after the `k` bytes reserved there, as a varint,
 * moving those bytes up when the varint needs more than `k` (reservations never exceed it).
 */
function closeLen(s: Sink, at: number, k: number): number {
  const n = s.pos - at - k;
  if (n < 0x80 && k === 1) {
    s.buf[at] = n;
    return n;
  }
  const m = varint32Size(n);
  if (m !== k) {
    if (s.pos + m - k > s.buf.length) room(m - k);
    s.buf.copyWithin(at + m, at + k, s.pos);
    s.pos += m - k;
  }
  const buf = s.buf;
  let v = n;
  while (v > 0x7f) {
    buf[at++] = (v & 0x7f) | 0x80;
    v = v >>> 7;
  }
  buf[at] = v;
  return n;
}

export class MessageWriter {
  readonly root: DescMessage;
  readonly settings: Settings;
  private readonly rootPlan: WritePlan;
  /** @internal Number of evaluator calls (cache misses) so far. */
  evaluations: number;
  private readonly maxDepth: number;
  private readonly det: boolean;
  private readonly acceptor: Acceptor;
  private readonly payloadRules: PayloadRuleCheck | undefined;
  private readonly rulesOk = new WeakSet<DescMessage>();
  // LRU of accepted pairs, most recent first.
  private readonly lruSaved: DescMessage[] = [];
  private readonly lruCurrent: DescMessage[] = [];

  constructor(root: DescMessage, options: WriterOptions) {
    this.root = root;
    this.rootPlan = planOf(root);
    this.settings = options.settings;
    this.maxDepth = options.settings.maxDepth;
    this.det = options.settings.deterministic;
    this.acceptor = options.acceptor ?? noAcceptor;
    this.payloadRules = options.payloadRules;
    this.evaluations = 0;
  }

  /** @internal The cached pairs, most recent first, as [value descriptor, paired declaration]. */
  acceptedPairs(): [DescMessage, DescMessage][] {
    return this.lruSaved.map((s, i) => [s, this.lruCurrent[i]!]);
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

  /**
   * Checks `value` for writing and returns its body size (no frame). Throws CodecError for a
   * value that is not a DynamicMessage, is not accepted, has bad unknown fields, or breaks a limit.
   * The two-pass path: deterministic mode, and the error of a value found too large mid-write.
   */
  prepare(value: unknown): number {
    if (!(value instanceof DynamicMessage)) this.notAMessage(value);
    ck.sp = 0;
    ck.impure = false;
    let size: number;
    try {
      size = this.check(value, this.root, this.root, 1, undefined);
    } finally {
      ck.sp = 0;
    }
    if (size > this.settings.maxMessageBytes) this.tooLarge(size);
    return size;
  }

  /** True when `check` would take `value` as the root from its memos, without checks. */
  private known(value: DynamicMessage): boolean {
    return value._okFor === this.root && value._height > 0 && value._height <= this.maxDepth;
  }

  /** Writes a prepared value's body at `pos` of `buf` (which must have room); returns the end. */
  writeBody(buf: Uint8Array, pos: number, value: DynamicMessage, size: number): number {
    SINK.buf = buf;
    SINK.pos = pos;
    writeMessage(SINK, value, this.det, undefined, value.descriptor === this.root ? this.rootPlan : undefined);
    const end = SINK.pos;
    SINK.buf = EMPTY;
    if (end !== pos + size) {
      throw new CodecError(
        "INTERNAL_SIZE_MISMATCH",
        `cannot write ${this.root.typeName}: wrote ${end - pos} bytes for a computed size of ${size}; this is a protokeel bug, please report it`,
      );
    }
    return end;
  }

  /** `writeBody` after the value's varint length prefix at `pos`; returns the end. */
  private writePrefixed(buf: Uint8Array, pos: number, value: DynamicMessage, size: number): number {
    SINK.buf = buf;
    SINK.pos = pos;
    SINK.varint32(size);
    return this.writeBody(buf, SINK.pos, value, size);
  }

  /**
   * The body size of a root written from a size known before the first byte: in deterministic
   * mode after `prepare` (checks, then sizes), otherwise for a value accepted before (a relay, or
   * one written before), from its memos: such a value goes straight into an output of its size,
   * not into the slab or scratch and then copied (same runs: numeric relay 16.0x -> 18.2x, span
   * relay 14.2x -> 22-26x protobufjs reflection). -1: the value goes through the one-pass writer.
   */
  private knownSize(value: unknown): number {
    if (this.det) return this.prepare(value);
    if (!(value instanceof DynamicMessage && this.known(value))) return -1;
    const n = sizeOf(value, false, undefined);
    if (n > this.settings.maxMessageBytes) this.tooLarge(n);
    return n;
  }

  /**
   * Checks and writes one root value at SINK.pos (after `begin`), with its frame length when
   * `framed`. A value found over maxMessageBytes mid-write is checked again by `prepare`, which
   * throws what the two-pass writer threw (an earlier check error, or the exact size).
   */
  private root1(value: unknown, framed: boolean): void {
    if (!(value instanceof DynamicMessage)) this.notAMessage(value);
    ck.sp = 0;
    ck.impure = false;
    let n: number;
    try {
      n = this.emit(value, this.root, this.root, 1, undefined, framed);
    } catch (e) {
      if (e !== OVERFLOW) throw e;
      this.prepare(value);
      throw new CodecError("INTERNAL_SIZE_MISMATCH", `cannot write ${this.root.typeName}: the value overflowed maxMessageBytes while writing but not while sizing; this is a protokeel bug, please report it`);
    } finally {
      ck.sp = 0;
    }
    if (n > W.max) this.tooLarge(n);
  }

  /** The bare message (no frame). */
  toBinary(value: unknown): Uint8Array {
    if (W.busy) return nested(() => this.toBinary(value));
    W.busy = true;
    try {
      const n = this.knownSize(value);
      if (n >= 0) {
        const out = allocOutput(n);
        this.writeBody(out, 0, value as DynamicMessage, n);
        return out;
      }
      begin(true, this.settings.maxMessageBytes);
      this.root1(value, false);
      return finish();
    } finally {
      W.busy = false;
    }
  }

  /** One frame: varint length, then the message (framing v1, DESIGN §8.2). */
  encodeFrame(value: unknown): Uint8Array {
    if (W.busy) return nested(() => this.encodeFrame(value));
    W.busy = true;
    try {
      const n = this.knownSize(value);
      if (n >= 0) {
        const out = allocOutput(varint32Size(n) + n);
        this.writePrefixed(out, 0, value as DynamicMessage, n);
        return out;
      }
      begin(true, this.settings.maxMessageBytes);
      this.root1(value, true);
      return finish();
    } finally {
      W.busy = false;
    }
  }

  /** Frames for every value, concatenated; nothing is returned when any value fails. */
  encodeAll(values: Iterable<unknown>): Uint8Array {
    const list = Array.isArray(values) ? values : [...values];
    if (W.busy) return nested(() => this.encodeAll(list));
    W.busy = true;
    try {
      if (this.det) {
        const sizes = new Array<number>(list.length);
        let total = 0;
        for (let i = 0; i < list.length; i++) {
          const s = this.prepare(list[i]);
          sizes[i] = s;
          total += varint32Size(s) + s;
        }
        const out = allocOutput(total);
        let pos = 0;
        for (let i = 0; i < list.length; i++) pos = this.writePrefixed(out, pos, list[i] as DynamicMessage, sizes[i]!);
        return out;
      }
      // A long batch outgrows the slab's tail anyway: start in the scratch rather than move there.
      begin(list.length <= 16, this.settings.maxMessageBytes);
      for (let i = 0; i < list.length; i++) {
        W.body = SINK.pos + 1;
        this.root1(list[i], true);
      }
      return finish();
    } finally {
      W.busy = false;
    }
  }

  /** Appends one frame to `out`, which is unchanged on failure. */
  writeFrame(value: unknown, out: FrameWriter): void {
    if (W.busy) return nested(() => this.writeFrame(value, out));
    W.busy = true;
    try {
      const size = this.knownSize(value);
      if (size >= 0) {
        const total = varint32Size(size) + size;
        this.writePrefixed(out.reserve(total), out.length, value as DynamicMessage, size);
        out.commit(total);
        return;
      }
      begin(false, this.settings.maxMessageBytes);
      this.root1(value, true);
      const n = SINK.pos;
      const buf = out.reserve(n);
      copyOut(SINK.buf, 0, n, buf, out.length);
      out.commit(n);
      release();
    } finally {
      W.busy = false;
    }
  }

  /**
   * Checks and writes one value (with its length prefix when `prefixed`); returns its body size.
   * A value accepted before against `paired` by instance rules is written unchecked from its size
   * memo (a re-written or decoded value); a decoded value that needs checking is checked as in the
   * two-pass writer and its source bytes copied (the relay path).
   */
  private emit(
    m: DynamicMessage,
    paired: DescMessage | undefined,
    declared: DescMessage | undefined,
    depth: number,
    via: FieldPlan | undefined,
    prefixed: boolean,
  ): number {
    const s = SINK;
    let n: number;
    if (paired !== undefined && m._okFor === paired && m._height > 0 && depth - 1 + m._height <= this.maxDepth) {
      n = sizeOf(m, false, via);
    } else if (m._src !== undefined) {
      n = this.check(m, paired, declared, depth, via);
    } else {
      if (s.pos + 1 > s.buf.length) room(1);
      return this.put(m, paired, declared, depth, via, prefixed);
    }
    // Exactly n more body bytes: over the limit now means over it at the end.
    if (s.pos + n - W.body > W.max) throw OVERFLOW;
    if (s.pos + n + 5 > s.buf.length) room(n + 5);
    if (prefixed) s.varint32(n);
    writeMessage(s, m, false, via, m.descriptor === this.root ? this.rootPlan : undefined);
    return n;
  }

  /**
   * `check` that writes: the same checks in the same order, each field written as it is reached.
   * With `prefixed`, reserves one byte for the length at SINK.pos (the caller made room for it)
   * and fills it in at the end. Returns the body size. A value without memos or source bytes (a
   * fresh one) comes here straight from its parent's loop, not through `emit`: one call per
   * message instead of two (measured: span encode ~8% faster).
   */
  private put(
    msg: DynamicMessage,
    paired: DescMessage | undefined,
    declared: DescMessage | undefined,
    depth: number,
    via: FieldPlan | undefined,
    prefixed: boolean,
  ): number {
    this.checkDepth(depth);
    const outerImpure = ck.impure;
    const plan = this.admit(msg, paired, declared, via);
    const pairedPlan = paired === undefined ? undefined : paired === msg.descriptor ? plan : planOf(paired);
    const u = msg._u;
    const fields = plan.fields;
    const values = msg._v;
    const s = SINK;
    const at = s.pos;
    if (prefixed) s.pos = at + 1;
    const body = s.pos;
    let h = 1;
    for (let i = 0; i < fields.length; i++) {
      const p = fields[i]!;
      const v = values[p.index];
      if (v === undefined) continue;
      if (p.kind <= K_ENUM) {
        putScalarField(s, p, v);
        continue;
      }
      if (p.elemKind !== K_MESSAGE) {
        if (p.kind === K_LIST) putList(s, p, v as readonly unknown[]);
        else putMap(s, p, v as Map<unknown, unknown>);
        continue;
      }
      const childPaired = pairedPlan === undefined ? undefined : pairedChild(p, plan, pairedPlan);
      if (p.kind === K_MESSAGE) {
        const m = v as DynamicMessage;
        push(p, undefined);
        // tag (≤ 5) and the reserved length byte
        if (s.pos + 6 > s.buf.length) room(6);
        if (p.tagSize === 1) s.buf[s.pos++] = p.tag;
        else s.varint32(p.tag);
        if (m._okFor === undefined && m._src === undefined) this.put(m, childPaired, p.message, depth + 1, p, true);
        else this.emit(m, childPaired, p.message, depth + 1, p, true);
        ck.sp--;
        if (m._height + 1 > h) h = m._height + 1;
      } else if (p.kind === K_LIST) {
        const list = v as readonly DynamicMessage[];
        for (let j = 0; j < list.length; j++) {
          const m = list[j]!;
          push(p, j);
          if (s.pos + 6 > s.buf.length) room(6);
          if (p.tagSize === 1) s.buf[s.pos++] = p.tag;
          else s.varint32(p.tag);
          if (m._okFor === undefined && m._src === undefined) this.put(m, childPaired, p.message, depth + 1, p, true);
          else this.emit(m, childPaired, p.message, depth + 1, p, true);
          ck.sp--;
          if (m._height + 1 > h) h = m._height + 1;
        }
      } else {
        for (const [k, m] of v as Map<unknown, DynamicMessage>) {
          push(p, k);
          const need = 8 + p.tagSize + scalarBound(p.mapKey, k);
          if (s.pos + need > s.buf.length) room(need);
          s.varint32(p.tag);
          const e = s.pos;
          s.pos = e + 1;
          s.varint32(p.keyTag);
          writeScalar(s, p.mapKey, k);
          s.varint32(p.valueTag);
          if (m._okFor === undefined && m._src === undefined) this.put(m, childPaired, p.message, depth + 1, p, true);
          else this.emit(m, childPaired, p.message, depth + 1, p, true);
          closeLen(s, e, 1);
          ck.sp--;
          if (m._height + 1 > h) h = m._height + 1;
        }
      }
    }
    for (let i = 0; i < u.length; i++) {
      const d = u[i]!.data;
      if (s.pos + d.length > s.buf.length) room(d.length);
      s.raw(d);
    }
    const n = s.pos - body;
    msg._size = n;
    msg._height = h;
    if (!ck.impure && paired !== undefined) msg._okFor = paired;
    ck.impure = ck.impure || outerImpure;
    if (prefixed) {
      if (n < 0x80) s.buf[at] = n;
      else closeLen(s, at, 1);
    }
    return n;
  }

  private checkDepth(depth: number): void {
    if (depth > this.maxDepth) {
      this.fail("MAX_DEPTH_EXCEEDED", `nesting depth ${depth} at {path} exceeds maxDepth ${this.maxDepth}; raise maxDepth or flatten the value`);
    }
  }

  /**
   * The checks `put` and `check` make before a value's fields (DESIGN §8.1): acceptance of its
   * descriptor against the paired declaration (rules a/b/c) or the payload rules for a foreign
   * unpaired one, and its unknown fields. Starts the value's purity (ck.impure; the caller saved
   * the outer one) and returns the plan to walk its fields with.
   */
  private admit(msg: DynamicMessage, paired: DescMessage | undefined, declared: DescMessage | undefined, via: FieldPlan | undefined): WritePlan {
    ck.impure = false;
    const desc = msg.descriptor;
    if (paired === undefined) {
      if (declared !== undefined && desc !== declared) {
        ck.impure = true;
        this.checkRules(desc);
      }
    } else if (desc !== paired) {
      ck.impure = true;
      // Rule (b): the accepted containing value declares this very instance for the field.
      if (desc !== declared) this.accept(desc, paired);
    }
    const u = msg._u;
    if (u.length > 0) this.checkUnknown(u, paired);
    return via !== undefined ? childPlan(via, desc) : desc === this.root ? this.rootPlan : planOf(desc);
  }

  private fail(code: string, what: string): never {
    const path = currentPath(this.root);
    throw new CodecError(code, `cannot write ${this.root.typeName}: ${what.replace("{path}", path)}`, { path });
  }

  /**
   * Checks one value and its subtree and returns its encoded size (one pass: checking and sizing
   * touch the same objects, and fresh values are memory-bound). `paired` is what the reader
   * parses it with (undefined: the reader keeps it as an unknown field), `declared` the type its
   * containing value's own descriptor declares for the field, `via` that field's plan. Sets
   * `_height` (and the size memos) on the value.
   */
  private check(
    msg: DynamicMessage,
    paired: DescMessage | undefined,
    declared: DescMessage | undefined,
    depth: number,
    via: FieldPlan | undefined,
  ): number {
    this.checkDepth(depth);
    const det = this.det;
    if (paired !== undefined && msg._okFor === paired && msg._height > 0 && depth - 1 + msg._height <= this.maxDepth) {
      return sizeOf(msg, det, via);
    }
    const outerImpure = ck.impure;
    const plan = this.admit(msg, paired, declared, via);
    const pairedPlan = paired === undefined ? undefined : paired === msg.descriptor ? plan : planOf(paired);
    const u = msg._u;
    const fields = plan.fields;
    const values = msg._v;
    let n = 0;
    let h = 1;
    for (let i = 0; i < fields.length; i++) {
      const p = fields[i]!;
      const v = values[p.index];
      if (v === undefined) continue;
      if (p.kind <= K_ENUM) {
        n += p.tagSize + scalarSize(p.scalar, v);
        continue;
      }
      if (p.elemKind !== K_MESSAGE) {
        n += fieldSize(p, v, det);
        continue;
      }
      const childPaired = pairedPlan === undefined ? undefined : pairedChild(p, plan, pairedPlan);
      if (p.kind === K_MESSAGE) {
        const m = v as DynamicMessage;
        push(p, undefined);
        const s = this.check(m, childPaired, p.message, depth + 1, p);
        ck.sp--;
        n += p.tagSize + varint32Size(s) + s;
        if (m._height + 1 > h) h = m._height + 1;
      } else if (p.kind === K_LIST) {
        const list = v as readonly DynamicMessage[];
        for (let j = 0; j < list.length; j++) {
          const m = list[j]!;
          push(p, j);
          const s = this.check(m, childPaired, p.message, depth + 1, p);
          ck.sp--;
          n += p.tagSize + varint32Size(s) + s;
          if (m._height + 1 > h) h = m._height + 1;
        }
      } else {
        for (const [k, m] of v as Map<unknown, DynamicMessage>) {
          push(p, k);
          const s = this.check(m, childPaired, p.message, depth + 1, p);
          ck.sp--;
          const entry = 2 + scalarSize(p.mapKey, k) + varint32Size(s) + s;
          n += p.tagSize + varint32Size(entry) + entry;
          if (m._height + 1 > h) h = m._height + 1;
        }
      }
    }
    for (let i = 0; i < u.length; i++) n += u[i]!.data.length;
    if (det) msg._sizeD = n;
    else n = msg._size = msg._src !== undefined ? msg._src.length : n;
    msg._height = h;
    if (!ck.impure && paired !== undefined) msg._okFor = paired;
    ck.impure = ck.impure || outerImpure;
    return n;
  }

  private checkUnknown(u: readonly UnknownField[], paired: DescMessage | undefined): void {
    const pairedPlan = paired === undefined ? undefined : planOf(paired);
    for (let i = 0; i < u.length; i++) {
      const { number, data } = u[i]!;
      if (!(number >= 1 && number <= MAX_FIELD_NUMBER)) {
        this.fail("UNKNOWN_FIELD_NUMBER_INVALID", `unknown field number ${number} at {path} is outside 1..${MAX_FIELD_NUMBER}; remove it`);
      }
      const why = checkUnknownOccurrence(number, data);
      if (why !== undefined) {
        this.fail(
          "UNKNOWN_FIELD_MALFORMED",
          `unknown field ${number} at {path} is not one well-formed encoded field: ${why}; each occurrence must be a tag followed by its payload`,
        );
      }
      const hit = pairedPlan?.byNumber.get(number);
      if (hit !== undefined) {
        this.fail(
          "UNKNOWN_FIELD_COLLISION",
          `unknown field ${number} at {path} collides with field ${paired!.typeName}.${hit.fi.name}(${number}) of the paired declaration; remove the unknown field before writing`,
        );
      }
    }
  }

  private checkRules(desc: DescMessage): void {
    if (this.payloadRules === undefined || this.rulesOk.has(desc)) return;
    try {
      this.payloadRules(desc);
    } catch (e) {
      if (!isProtokeelError(e)) throw e;
      this.fail("INVALID_VALUE_DESCRIPTOR", `value at {path} has descriptor ${desc.typeName} that breaks a payload rule: ${e.message}`);
    }
    this.rulesOk.add(desc);
  }

  private accept(saved: DescMessage, current: DescMessage): void {
    const s = this.lruSaved;
    const c = this.lruCurrent;
    for (let i = 0; i < s.length; i++) {
      if (s[i] === saved && c[i] === current) {
        if (i > 0) {
          s.splice(i, 1);
          c.splice(i, 1);
          s.unshift(saved);
          c.unshift(current);
        }
        return;
      }
    }
    // The evaluator expects closures that satisfy the payload rules (DESIGN §8.1).
    this.checkRules(saved);
    this.evaluations++;
    let r: ReturnType<Acceptor>;
    try {
      r = this.acceptor(saved, current);
    } catch (e) {
      if (!isProtokeelError(e)) throw e;
      this.fail("INVALID_VALUE_DESCRIPTOR", `value at {path} has descriptor ${saved.typeName} that cannot be evaluated: ${e.message}`);
    }
    if (!r.ok) {
      this.fail(
        "INCOMPATIBLE_VALUE_DESCRIPTOR",
        `value at {path} has descriptor ${saved.typeName} that the paired declaration ${current.typeName} does not accept: ${r.finding.message} (${r.finding.rule} at ${r.finding.path}); build the value from the serializer's descriptor or a compatible schema`,
      );
    }
    s.unshift(saved);
    c.unshift(current);
    if (s.length > ACCEPT_CACHE_SIZE) {
      s.pop();
      c.pop();
    }
  }
}

const EMPTY = new Uint8Array(0);

function writeScalar(s: Sink, t: ScalarType, v: unknown): void {
  switch (t) {
    case ScalarType.DOUBLE:
      s.double(v as number);
      return;
    case ScalarType.FLOAT:
      s.float(v as number);
      return;
    case ScalarType.INT32:
      s.int32(v as number);
      return;
    case ScalarType.UINT32:
      s.varint32(v as number);
      return;
    case ScalarType.SINT32:
      s.sint32(v as number);
      return;
    case ScalarType.FIXED32:
    case ScalarType.SFIXED32:
      s.fixed32(v as number);
      return;
    case ScalarType.BOOL:
      s.buf[s.pos++] = v ? 1 : 0;
      return;
    case ScalarType.STRING:
      s.string(v as string);
      return;
    case ScalarType.BYTES:
      s.bytes(v as Uint8Array);
      return;
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      split64(v);
      s.fixed64();
      return;
    case ScalarType.SINT64:
      split64(v);
      zigzag64();
      s.varint64();
      return;
    default:
      split64(v);
      s.varint64();
  }
}

/** Most bytes one scalar payload takes (strings: at most 3 UTF-8 bytes per UTF-16 unit). */
function scalarBound(t: ScalarType, v: unknown): number {
  if (t === ScalarType.STRING) return 5 + 3 * (v as string).length;
  if (t === ScalarType.BYTES) return 5 + (v as Uint8Array).length;
  return 10;
}

function putScalarField(s: Sink, p: FieldPlan, v: unknown): void {
  const t = p.scalar;
  // tag (≤ 5) + a varint (≤ 10), or the string/bytes bound
  const need = 5 + (t === ScalarType.STRING ? 5 + 3 * (v as string).length : t === ScalarType.BYTES ? 5 + (v as Uint8Array).length : 10);
  if (s.pos + need > s.buf.length) room(need);
  if (p.tagSize === 1) s.buf[s.pos++] = p.tag;
  else s.varint32(p.tag);
  writeScalar(s, t, v);
}

/**
 * The declaration a message value under field `p` of `plan` is paired with, given the paired
 * declaration's plan (DESIGN §8.1), or undefined when the reader keeps it opaque: a number
 * declared as a non-message (e.g. bytes) is read as such; singular ↔ repeated keeps the element
 * type (DESIGN §9), map ↔ non-map does not.
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

/** A list of scalars or enums. */
function putList(s: Sink, p: FieldPlan, list: readonly unknown[]): void {
  const n = list.length;
  if (p.packed) {
    const w = packedWidth(p.scalar);
    const need = 10 + (w === 0 ? 10 * n : w * n);
    if (s.pos + need > s.buf.length) room(need);
    s.varint32(p.tag);
    if (w !== 0) {
      s.varint32(w * n);
      // Below ~8 elements the typed-array setup costs more than the per-element writes.
      if (p.fixedKind !== 0 && n >= 8) s.packedFixed(p.fixedKind, list);
      else for (let i = 0; i < n; i++) writeScalar(s, p.scalar, list[i]);
      return;
    }
    // Each varint takes at least one byte: reserve the length for n bytes and move up if longer
    // (sizing the run first walked every element twice).
    const k = varint32Size(n);
    const at = s.pos;
    s.pos = at + k;
    if (p.varintKind === PV_64) s.packedVarint64(list, false);
    else if (p.varintKind === PV_Z64) s.packedVarint64(list, true);
    else if (p.varintKind === PV_I32) s.packedVarint32(list, true, false);
    else if (p.varintKind === PV_U32) s.packedVarint32(list, false, false);
    else if (p.varintKind === PV_Z32) s.packedVarint32(list, false, true);
    else for (let i = 0; i < n; i++) writeScalar(s, p.scalar, list[i]);
    closeLen(s, at, k);
    return;
  }
  const t = p.scalar;
  if (t === ScalarType.STRING || t === ScalarType.BYTES) {
    for (let i = 0; i < n; i++) {
      const v = list[i];
      const need = 5 + scalarBound(t, v);
      if (s.pos + need > s.buf.length) room(need);
      s.varint32(p.tag);
      writeScalar(s, t, v);
    }
    return;
  }
  const need = 15 * n;
  if (s.pos + need > s.buf.length) room(need);
  for (let i = 0; i < n; i++) {
    s.varint32(p.tag);
    writeScalar(s, t, list[i]);
  }
}

/** A map whose values are scalars or enums. */
function putMap(s: Sink, p: FieldPlan, m: Map<unknown, unknown>): void {
  for (const [k, e] of m) {
    const need = 7 + p.tagSize + scalarBound(p.mapKey, k) + scalarBound(p.scalar, e);
    if (s.pos + need > s.buf.length) room(need);
    s.varint32(p.tag);
    const at = s.pos;
    s.pos = at + 1;
    s.varint32(p.keyTag);
    writeScalar(s, p.mapKey, k);
    s.varint32(p.valueTag);
    writeScalar(s, p.scalar, e);
    closeLen(s, at, 1);
  }
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

function writeEntry(s: Sink, p: FieldPlan, k: unknown, e: unknown, det: boolean): void {
  s.varint32(p.tag);
  s.varint32(entrySize(p, k, e, det));
  s.varint32(p.keyTag);
  writeScalar(s, p.mapKey, k);
  s.varint32(p.valueTag);
  if (p.elemKind === K_MESSAGE) {
    s.varint32(sizeOf(e as DynamicMessage, det, p));
    writeMessage(s, e as DynamicMessage, det, p);
  } else writeScalar(s, p.scalar, e);
}

function writeField(s: Sink, p: FieldPlan, v: unknown, det: boolean): void {
  switch (p.kind) {
    case K_MESSAGE:
      s.varint32(p.tag);
      s.varint32(sizeOf(v as DynamicMessage, det, p));
      writeMessage(s, v as DynamicMessage, det, p);
      return;
    case K_LIST: {
      const list = v as readonly unknown[];
      const n = list.length;
      if (p.packed) {
        s.varint32(p.tag);
        s.varint32(packedSize(p.scalar, list));
        // Below ~8 elements the typed-array setup costs more than the per-element writes.
        if (p.fixedKind !== 0 && n >= 8) s.packedFixed(p.fixedKind, list);
        else if (p.varintKind === PV_64) s.packedVarint64(list, false);
        else if (p.varintKind === PV_Z64) s.packedVarint64(list, true);
        else if (p.varintKind === PV_I32) s.packedVarint32(list, true, false);
        else if (p.varintKind === PV_U32) s.packedVarint32(list, false, false);
        else if (p.varintKind === PV_Z32) s.packedVarint32(list, false, true);
        else for (let i = 0; i < n; i++) writeScalar(s, p.scalar, list[i]);
      } else if (p.elemKind === K_MESSAGE) {
        for (let i = 0; i < n; i++) {
          const m = list[i] as DynamicMessage;
          s.varint32(p.tag);
          s.varint32(sizeOf(m, det, p));
          writeMessage(s, m, det, p);
        }
      } else {
        for (let i = 0; i < n; i++) {
          s.varint32(p.tag);
          writeScalar(s, p.scalar, list[i]);
        }
      }
      return;
    }
    case K_MAP: {
      const m = v as Map<unknown, unknown>;
      if (det && m.size > 1) {
        const keys = [...m.keys()].sort(keyOrder);
        for (let i = 0; i < keys.length; i++) writeEntry(s, p, keys[i], m.get(keys[i]), det);
      } else {
        for (const [k, e] of m) writeEntry(s, p, k, e, det);
      }
      return;
    }
    default:
      s.varint32(p.tag);
      writeScalar(s, p.scalar, v);
  }
}

/** Writes a message body: known fields by number, then unknown fields in stored order. */
function writeMessage(s: Sink, msg: DynamicMessage, det: boolean, via: FieldPlan | undefined, known?: WritePlan): void {
  if (!det && msg._src !== undefined) {
    s.raw(msg._src);
    return;
  }
  const fields = (known ?? (via === undefined ? planOf(msg.descriptor) : childPlan(via, msg.descriptor))).fields;
  const values = msg._v;
  for (let i = 0; i < fields.length; i++) {
    const p = fields[i]!;
    const v = values[p.index];
    if (v === undefined) continue;
    if (p.kind <= K_ENUM) {
      // Singular scalars and enums, most fields: one-byte tags skip the varint loop.
      if (p.tagSize === 1) s.buf[s.pos++] = p.tag;
      else s.varint32(p.tag);
      writeScalar(s, p.scalar, v);
    } else writeField(s, p, v, det);
  }
  const u = msg._u;
  for (let i = 0; i < u.length; i++) s.raw(u[i]!.data);
}
