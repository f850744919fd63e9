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
// Size: the traversal's state machine (enter, field loop, close, deterministic order) is one
// loop over an explicit stack; the encodings of single fields are in field-writer.ts.
import type { DescMessage } from "@bufbuild/protobuf";
import { CodecError, sourceDetached } from "../errors.js";
import { MAX_DEPTH_LIMIT, MAX_MESSAGE_BYTES_LIMIT, type Settings } from "../settings.js";
import { validateMessage } from "../wasm/ops.js";
import { layoutOf } from "./layout.js";
import { at, describeValue, isPlainObject, rooted } from "../message/coerce.js";
import { initValues, NEEDS_CREATE, prototypePolluted } from "../message/create.js";
import { DynamicMessage, isDynamicMessage } from "../message/dynamic-message.js";
import { EMPTY_UNKNOWN, StoredUnknown, unknownLength, type UnknownField } from "../message/unknown-fields.js";
import { setPositions } from "../message/values.js";
import { K_ENUM, K_LIST, K_MAP, K_MESSAGE, levels } from "../message/field-info.js";
import { Acceptance, type Acceptor, type Failer, type PayloadRuleCheck } from "./acceptance.js";
import { writeArena } from "./arena.js";
import { copy, FieldWriter, SizeOverflow } from "./field-writer.js";
import type { FrameWriter } from "./frame-writer.js";
import { mapKeys } from "./map-order.js";
import { childPlan, planOf, type FieldPlan, type WritePlan } from "./plan.js";
import { fieldSize, scalarSize } from "./sizes.js";
import { varint32Size } from "./wire.js";
import { keySegment, shortPath } from "../descriptor/names.js";

export type { AcceptFinding, Acceptor, PayloadRuleCheck } from "./acceptance.js";
export { ACCEPT_CACHE_SIZE } from "./acceptance.js";

export interface WriterOptions {
  readonly settings: Settings;
  /** Rule (c); without one, only instance rules (a) and (b) accept a value. */
  readonly acceptor?: Acceptor;
  /** Payload rules for evaluated and foreign unpaired descriptors. */
  readonly payloadRules?: PayloadRuleCheck;
  /** Told of each bare message or frame written as a copy of a decoded value (the serializer's RelayWatch). */
  readonly relays?: { relayed(len: number): void };
}

/** A plain init object in place of a DynamicMessage (what DynamicMessage.create takes). */
type InitObject = Readonly<Record<string, unknown>>;

/** Frames write their bytes; a sizing frame only checks and counts (see `Frame.sizing`). */
const WRITE = 0;
const SIZE = 1;

/**
 * Trusted subtrees at most this high (nesting levels) are written by recursion; higher ones by
 * the frame loop, which needs no JS stack per level.
 */
const RECURSE_HEIGHT = 32;

/** Limits for measuring a value's source bytes (sourceHeight): the height, whatever it is. */
const SOURCE_LIMITS = { maxMessageBytes: MAX_MESSAGE_BYTES_LIMIT, maxDepth: MAX_DEPTH_LIMIT };

/** How deep `m`'s source bytes nest, as its reader counts it (the core's validating walk). */
function sourceHeight(m: DynamicMessage): number {
  return validateMessage(layoutOf(m.descriptor).typeOffset, m._src!, SOURCE_LIMITS);
}

/** One open message of a write. */
class Frame {
  /** The value: a DynamicMessage, or a plain init object (then `plain`). */
  msg!: DynamicMessage;
  /** A plain init object read with the paired declaration (no descriptor, memos or unknown fields). */
  plain = false;
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
  /** A wide type's set fields (positions in plan.fields, ascending), found when its first step starts. */
  order: Int32Array | undefined;
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
  /** How deep a decoded value's source bytes nest (measured by enter), or 0 without any. */
  srcH = 0;
  /** More than instance identity was needed in this subtree (see Acceptance.admit). */
  impure = false;
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
class Writer extends FieldWriter implements Failer {
  private readonly frames: Frame[] = [];
  private sp = 0;
  private c!: WriteConfig;
  /** Sizing instead of writing (the exact size of a value refused as too large). */
  private sizing = false;
  /** The body size of the last root. */
  rootSize = 0;
  /**
   * Object.prototype had an enumerable property (1) or not (0) when this root's write reached its
   * first init object (see prototypePolluted); -1 until then, so that writes of DynamicMessage
   * values never test it.
   */
  private polluted = -1;
  /** The frame index below which trustedFields is not tried (a subtree it gave up on), or -1. */
  private noFastAt = -1;

  /** Starts an output for a serializer's writes: in the arena's free tail when `lease`. */
  begin(c: WriteConfig, lease: boolean): void {
    this.c = c;
    this.sizing = false;
    this.beginOutput(lease, c.maxBytes, c.det, c.root.typeName);
  }

  /** Lets go of the output and of any open message (after `finish` or a failure). */
  override end(): void {
    super.end();
    // A failed write leaves frames open, each holding its value (an init object's checked values
    // among them: a refused 4,000,000-element list kept 32 MB alive in the pooled writer).
    for (let i = 0; i < this.sp; i++) {
      const f = this.frames[i]!;
      f.msg = undefined!;
      f.values = undefined!;
      f.keys = undefined;
      f.order = undefined;
      f.key = undefined;
    }
    this.sp = 0;
    this.noFastAt = -1;
  }

  /** `extra`: a field below the top frame that the error is about (a map field's entry level). */
  fail(code: string, what: string, extra?: FieldPlan): never {
    let path = this.pathHere();
    if (extra !== undefined) path += `.${extra.fi.name}(${extra.number})`;
    throw new CodecError(code, `cannot write ${this.c.root.typeName}: ${what.replace("{path}", () => shortPath(path, this.c.root.typeName))}`, { path });
  }

  /** Where the top frame's value sits in the root value: `acme.Order.items(3)[0]`. */
  private pathHere(): string {
    let path = this.c.root.typeName;
    for (let i = 0; i < this.sp; i++) {
      const f = this.frames[i]!;
      if (f.via !== undefined) path += `.${f.via.fi.name}(${f.via.number})${keySegment(f.key)}`;
    }
    return path;
  }

  /** A value error thrown in the top frame (it names the frame's type) with the root's path instead. */
  private rooted(e: unknown): unknown {
    // A frame is pushed before its plan is set (a depth error comes first): such a frame has none yet.
    const plan = this.sp < 2 || !(e instanceof TypeError || e instanceof RangeError) ? undefined : (this.frames[this.sp - 1]!.plan as WritePlan | undefined);
    return plan === undefined ? e : rooted(e, plan.info.desc.typeName, shortPath(this.pathHere(), this.c.root.typeName));
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
  root(value: DynamicMessage | InitObject, framed: boolean, sizing: boolean): number {
    this.sizing = sizing;
    if (sizing) this.sorted = false;
    this.rootBody = this.pos + (framed ? 1 : 0);
    this.rootSize = 0;
    this.polluted = -1;
    const c = this.c;
    try {
      if (this.enter(value, c.root, c.root, 1, undefined, undefined, -1, framed)) this.run();
    } catch (e) {
      // An inherited key that a mid-write pollution (below) made the write read may be what failed.
      if (this.polluted === 0 && prototypePolluted()) throw NEEDS_CREATE;
      throw this.rooted(e);
    }
    // Object.prototype polluted by code the write ran (a getter) after the first init object was
    // read: later ones were read with their inherited keys as fields, which create skips. The
    // serializer then writes what create builds.
    if (this.polluted === 0 && prototypePolluted()) throw NEEDS_CREATE;
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
    m: DynamicMessage | InitObject,
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
    // This copy's values first (one prototype check), then plain objects, and only then the brand
    // lookup up the chain that recognises another copy's values.
    if (!(m instanceof DynamicMessage)) {
      if (isPlainObject(m)) return this.enterPlain(m, paired!, depth, via, key, entryAt, prefixed, mode);
      if (!isDynamicMessage(m)) {
        // What create says for the same value (only an init object's elements get here unchecked).
        const target = (paired ?? declared)!.typeName;
        throw new TypeError(`${via === undefined ? "value" : at(via.fi.where, key)} expects a DynamicMessage or a plain object for ${target}, got ${describeValue(m)}`);
      }
    }
    // A value with source bytes is as high as those bytes nest (see DynamicMessage._hasSrc): a pool's
    // lazily read body has no height recorded yet, so its bytes are measured once, before a relay.
    let mh = m._height;
    if (mh <= 0 && m._hasSrc) {
      mh = sourceHeight(m);
      // A value the application froze keeps no memo (see close): measured at each write.
      if (Object.isExtensible(m)) m._height = mh;
    }
    const trusted = paired !== undefined && m._okFor === paired && mh > 0 && depth - 1 + mh <= c.maxDepth;
    if (trusted && !c.det) {
      const src = m._src;
      if (src !== undefined) {
        this.source(src, mode, prefixed, parent, via, key, entryAt);
        if (parent !== undefined) this.raise(parent, mh, via!, false);
        return false;
      }
    }
    // A trusted subtree of the paired type itself, low enough for the JS stack, is written by
    // recursion (trustedFields): with a frame per message (push, the step loop's return and
    // resume, close) the span batch's encode took 1,972,628 instructions, by recursion 1,316,619
    // (889 messages; protobufjs reflection 1,604,498; valgrind).
    if (trusted && mode === WRITE && m.descriptor === paired && mh <= RECURSE_HEIGHT && this.noFastAt < 0) {
      const at = this.pos;
      let lenAt = -1;
      if (prefixed) {
        this.ensure(1);
        lenAt = this.pos++;
      }
      const body = this.pos;
      if (this.trustedFields(m, via !== undefined ? childPlan(via, paired) : paired === c.root ? c.rootPlan : planOf(paired))) {
        const n = this.pos - body;
        if (lenAt >= 0) this.closeLen(lenAt);
        if (entryAt >= 0) this.closeLen(entryAt);
        if (parent !== undefined) this.raise(parent, mh, via!, false);
        else this.rootSize = n;
        return false;
      }
      // Not all of it could: frames write it again from its start, and nothing below it tries
      // recursion again (each level retrying would walk the subtree once per level).
      this.pos = at;
      this.noFastAt = this.sp;
    }
    const f = this.push(via, key, depth, paired, entryAt, prefixed, mode);
    f.msg = m;
    if (m._hasSrc) f.srcH = mh;
    if (trusted) {
      f.impure = false;
    } else {
      if (depth > c.maxDepth) this.depthError(depth);
      f.impure = c.acceptance.admit(this, m, paired, declared);
      // A decoded value that needs checking is checked, then its source bytes are copied: a relay
      // keeps the bytes it read (unknown fields, field order) unless deterministic output is asked.
      // Only when those bytes fit maxDepth too: they may nest deeper than the fields checked here
      // (a oneof member or a map entry replaced by a later occurrence), and were copied as they
      // were (a 7-deep member replaced by a string, written under maxDepth 3, was refused on read).
      if (mode === WRITE && !c.det && m._hasSrc && depth - 1 + mh <= c.maxDepth) {
        f.mode = SIZE;
        f.copySource = true;
      }
    }
    const desc = m.descriptor;
    const plan = via !== undefined ? childPlan(via, desc) : desc === c.root ? c.rootPlan : planOf(desc);
    f.plan = plan;
    f.pairedPlan = paired === undefined ? undefined : paired === desc ? plan : planOf(paired);
    f.values = m._values;
    this.open(f, prefixed);
    return true;
  }

  /**
   * A plain init object where a message goes: read with the paired declaration itself (a plain
   * object has no descriptor of its own), checked field by field with create's rules and errors.
   */
  private enterPlain(
    init: InitObject,
    paired: DescMessage,
    depth: number,
    via: FieldPlan | undefined,
    key: unknown,
    entryAt: number,
    prefixed: boolean,
    mode: number,
  ): boolean {
    const c = this.c;
    const f = this.push(via, key, depth, paired, entryAt, prefixed, mode);
    f.msg = init as unknown as DynamicMessage;
    f.plain = true;
    f.impure = false;
    // Depth first: a cyclic init object ends here (the serializer then throws create's cycle error).
    if (depth > c.maxDepth) this.depthError(depth);
    const plan = via !== undefined ? childPlan(via, paired) : paired === c.root ? c.rootPlan : planOf(paired);
    f.plan = plan;
    f.pairedPlan = plan;
    if (this.polluted < 0) this.polluted = prototypePolluted() ? 1 : 0;
    f.values = initValues(plan.info, init, this.polluted === 1);
    this.open(f, prefixed);
    return true;
  }

  /** A new top frame for a value under `via`, fields reset. */
  private push(via: FieldPlan | undefined, key: unknown, depth: number, paired: DescMessage | undefined, entryAt: number, prefixed: boolean, mode: number): Frame {
    const f = (this.frames[this.sp] ??= new Frame());
    this.sp++;
    f.plain = false;
    // Set by the caller once the value is admitted; until then an error names no frame type (rooted).
    f.plan = undefined!;
    f.via = via;
    f.key = key;
    f.depth = depth;
    f.paired = paired;
    f.entryAt = entryAt;
    f.prefixed = prefixed;
    f.i = 0;
    f.j = 0;
    f.keys = undefined;
    f.order = undefined;
    f.h = 1;
    f.srcH = 0;
    f.size = 0;
    f.copySource = false;
    f.mode = mode;
    f.lenAt = -1;
    return f;
  }

  /** Reserves the length byte of a frame that writes, and marks its body's start. */
  private open(f: Frame, prefixed: boolean): void {
    if (f.mode === WRITE) {
      if (prefixed) {
        this.ensure(1);
        f.lenAt = this.pos++;
      }
      f.body = this.pos;
    }
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
    const u = f.plain ? EMPTY_UNKNOWN : m._unknown;
    let n: number;
    if (f.mode === WRITE) {
      if (u.length > 0) this.unknowns(m, u);
      n = this.pos - f.body;
      if (f.lenAt >= 0) this.closeLen(f.lenAt);
      if (f.entryAt >= 0) this.closeLen(f.entryAt);
    } else {
      n = f.size;
      for (let i = 0; i < u.length; i++) n += unknownLength(u[i]!);
    }
    // The height handed up and recorded: a value with source bytes keeps theirs when it is more
    // (a later trusted write copies them; acceptBuilt builds parents' heights on it).
    let h = f.h;
    if (!f.plain) {
      // enter's measure (a frozen pool body keeps no memo of it).
      if (f.srcH > h) h = f.srcH;
      // A value the application froze keeps no memo: it is checked at each write (assigning threw
      // the engine's TypeError from toBinary; test/value-frozen.test.ts).
      if (Object.isExtensible(m)) {
        m._height = h;
        if (!f.impure && f.paired !== undefined) m._okFor = f.paired;
      }
    }
    this.sp--;
    if (this.sp === this.noFastAt) this.noFastAt = -1;
    const parent = this.sp > 0 ? this.frames[this.sp - 1]! : undefined;
    if (f.copySource) {
      // Checked: now the bytes (parent is writing, or this is the root).
      this.source(m._src!, WRITE, f.prefixed, parent, f.via, f.key, f.entryAt);
    } else if (parent !== undefined && parent.mode === SIZE) {
      parent.size += this.contribution(f.via!, f.key, n);
    } else if (parent === undefined) {
      this.rootSize = n;
    }
    if (parent !== undefined) this.raise(parent, h, f.via!, f.impure);
    f.msg = undefined!;
    f.values = undefined!;
    f.keys = undefined;
    f.order = undefined;
    f.key = undefined;
  }

  /** Writes the unknown occurrences `u` of `m`. */
  private unknowns(m: DynamicMessage, u: readonly UnknownField[]): void {
    for (let i = 0; i < u.length; i++) {
      const o = u[i]!;
      // An unknown field takes its whole length: refused before the output grows for it.
      if (o instanceof StoredUnknown) {
        // A detached store reads as empty: a short occurrence would be copied as zeros.
        if (o._store.length < o._off + o._len) throw sourceDetached(m.descriptor.typeName, `${m.descriptor.typeName}, its unknown field ${o.number}`);
        this.least(o._len);
        this.ensure(o._len);
        this.rawRange(o._store, o._off, o._len);
      } else {
        const d = o.data;
        this.least(d.length);
        this.ensure(d.length);
        this.raw(d);
      }
    }
  }

  /**
   * Writes the fields and unknown occurrences of `m`, a value of a subtree accepted before (its
   * root's trust holds for every value below it: values are immutable), by recursion instead of
   * frames. Returns false, having written part of it, when a message below is not a value of
   * this copy of protokeel bound to its field's declared type: the caller then writes the subtree
   * with frames from where it started.
   */
  private trustedFields(m: DynamicMessage, plan: WritePlan): boolean {
    const values = m._values;
    const fields = plan.fields;
    const pos = plan.positions;
    const order = pos === undefined ? undefined : setPositions(values, pos);
    const n = order === undefined ? fields.length : order.length;
    for (let i = 0; i < n; i++) {
      const p = fields[order === undefined ? i : order[i]!]!;
      const v = values[p.index];
      if (v === undefined) continue;
      if (p.kind <= K_ENUM) {
        this.scalarField(p, v);
      } else if (p.elemKind !== K_MESSAGE) {
        if (p.kind === K_LIST) this.list(p, v as readonly unknown[]);
        else this.scalarMap(p, v as ReadonlyMap<unknown, unknown>);
      } else if (p.kind === K_MESSAGE) {
        this.tag(p);
        if (!this.trustedChild(v, p)) return false;
      } else if (p.kind === K_LIST) {
        const list = v as readonly unknown[];
        for (let j = 0; j < list.length; j++) {
          this.tag(p);
          if (!this.trustedChild(list[j], p)) return false;
        }
      } else {
        const map = v as ReadonlyMap<unknown, unknown>;
        const keys = mapKeys(map, this.sorted);
        for (let j = 0; j < keys.length; j++) {
          const k = keys[j]!;
          const entryAt = this.messageEntryHead(p, k, false);
          if (!this.trustedChild(map.get(k), p)) return false;
          this.closeLen(entryAt);
        }
      }
    }
    const u = m._unknown;
    if (u.length > 0) this.unknowns(m, u);
    return true;
  }

  /** A message value of `p` (its tag written) in a trusted subtree: its source bytes, or its fields. */
  private trustedChild(v: unknown, p: FieldPlan): boolean {
    if (!(v instanceof DynamicMessage) || v.descriptor !== p.message) return false;
    if (!this.c.det) {
      const n = v._srcLength();
      if (n >= 0) {
        this.least(n);
        this.ensure(n + 5);
        this.varint32(n);
        v._copySrc(this.buf, this.pos);
        this.pos += n;
        return true;
      }
    }
    this.ensure(1);
    const lenAt = this.pos++;
    if (!this.trustedFields(v, (p.child ??= planOf(p.message!)))) return false;
    this.closeLen(lenAt);
    return true;
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
    const pos = f.plan.positions;
    const order = pos === undefined ? undefined : (f.order ??= setPositions(values, pos));
    const n = order === undefined ? fields.length : order.length;
    for (let i = f.i; i < n; i++) {
      const p = fields[order === undefined ? i : order[i]!]!;
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
          const entryAt = write ? this.messageEntryHead(p, k, false) : -1;
          if (this.enter(map.get(k)!, paired, p.message, f.depth + 2, p, k, entryAt, true)) {
            f.i = i;
            return true;
          }
        }
        f.keys = undefined;
        f.j = 0;
      }
    }
    f.i = n;
    return false;
  }
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

/**
 * The outputs every write kind offers (a bare message, a frame, a batch, a FrameWriter append)
 * around one root write: the output is the arena's free tail or the Writer's scratch, and nothing
 * becomes visible unless every root of the call was written. A kind supplies its Writer pool, how
 * a Writer starts, and how one root is written (the dynamic kind here, the generated kind in
 * src/codec/generated-writer.ts).
 */
export abstract class WriteFront<W extends FieldWriter> {
  protected abstract take(): W;
  protected abstract give(w: W): void;
  protected abstract start(w: W, lease: boolean): void;
  protected abstract writeRoot(w: W, value: unknown, framed: boolean): void;

  /** One root, bare or framed, into a fresh output. */
  protected one(value: unknown, framed: boolean): Uint8Array {
    const w = this.take();
    try {
      this.start(w, true);
      this.writeRoot(w, value, framed);
      return w.finish();
    } finally {
      this.give(w);
    }
  }

  /** Frames for every value, concatenated; nothing is returned when any value fails. */
  encodeAll(values: Iterable<unknown>): Uint8Array {
    const list = Array.isArray(values) ? values : [...values];
    const w = this.take();
    try {
      // A long batch outgrows the arena's tail anyway: start in the scratch rather than move there.
      this.start(w, list.length <= 16);
      for (let i = 0; i < list.length; i++) this.writeRoot(w, list[i], true);
      return w.finish();
    } finally {
      this.give(w);
    }
  }

  /** Appends one frame to `out`, which is unchanged on failure. */
  writeFrame(value: unknown, out: FrameWriter): void {
    const w = this.take();
    try {
      this.start(w, false);
      this.writeRoot(w, value, true);
      const bytes = w.written();
      const buf = out.reserve(bytes.length);
      copy(bytes, 0, bytes.length, buf, out.length);
      out.commit(bytes.length);
    } finally {
      this.give(w);
    }
  }
}

/** The write side of one serializer: its root, settings and accepted-pair cache. */
export class MessageWriter extends WriteFront<Writer> {
  readonly root: DescMessage;
  readonly settings: Settings;
  private readonly acceptance: Acceptance;
  private readonly config: WriteConfig;
  private readonly relays: { relayed(len: number): void } | undefined;

  constructor(root: DescMessage, options: WriterOptions) {
    super();
    this.root = root;
    this.relays = options.relays;
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

  protected take(): Writer {
    return acquire();
  }

  protected give(w: Writer): void {
    release(w);
  }

  protected start(w: Writer, lease: boolean): void {
    w.begin(this.config, lease);
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
    const es = typeof (value as { $typeName?: unknown } | null)?.$typeName === "string";
    const got = es ? `a @bufbuild/protobuf message ${(value as { $typeName: string }).$typeName}` : describeValue(value);
    throw new CodecError(
      "NOT_A_DYNAMIC_MESSAGE",
      `cannot write ${this.root.typeName}: expected a DynamicMessage or a plain init object, got ${got}; build values with DynamicMessage.create(descriptor, init), or pass the init object itself`,
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

  /** The length of a decoded root's source bytes this serializer may copy unchecked (_copySrc), else -1. */
  private relayable(value: DynamicMessage): number {
    if (this.config.det || value._okFor !== this.root || value._height <= 0 || value._height > this.config.maxDepth) return -1;
    const n = value._srcLength();
    if (n > this.config.maxBytes) this.tooLarge(n);
    return n;
  }

  /**
   * Writes one root with `w` (after `begin`). A failure that another order or a size could explain
   * is checked again by a sizing pass in insertion order: what it throws is the error (the first
   * bad value in insertion order, or the exact size of a value over the limit).
   */
  protected writeRoot(w: Writer, value: unknown, framed: boolean): void {
    if (!isDynamicMessage(value) && (!isPlainObject(value) || typeof (value as { $typeName?: unknown }).$typeName === "string")) this.notAMessage(value);
    try {
      w.root(value, framed, false);
    } catch (e) {
      if (!(e instanceof SizeOverflow) && !(this.config.det && e instanceof CodecError)) throw e;
      this.sizingPass(value as DynamicMessage | InitObject);
      if (e instanceof SizeOverflow) {
        // Only input that answers differently when read again gets here: a getter or a Proxy
        // in the init object (plain data reads the same both times). Its fault, not ours.
        throw new CodecError(
          "MESSAGE_TOO_LARGE",
          `cannot write ${this.root.typeName}: its encoded size exceeded maxMessageBytes ${this.settings.maxMessageBytes} while it was written, but not when it was sized again: the value changed between two reads (a getter or a Proxy that answers differently); write plain data or a DynamicMessage`,
          { path: this.root.typeName },
        );
      }
      throw e;
    }
  }

  /**
   * Every check `toBinary(value)` makes, and its errors, without the bytes (a memory store's put:
   * what its checkpoint will write must be writable then). A sizing pass: nothing is allocated
   * for the output. Returns the encoded size.
   */
  check(value: DynamicMessage): number {
    if (!isDynamicMessage(value)) this.notAMessage(value);
    const n = this.relayable(value);
    if (n >= 0) return n;
    return this.sizingPass(value);
  }

  /** The checks of a write of one root, and its size, by a sizing pass of a Writer of its own. */
  private sizingPass(value: DynamicMessage | InitObject): number {
    const s = acquire();
    try {
      s.begin(this.config, false);
      return s.root(value, false, true);
    } catch (e) {
      if (e instanceof SizeOverflow) this.tooLarge(s.rootSize);
      throw e;
    } finally {
      release(s);
    }
  }

  /** The bare message (no frame). */
  toBinary(value: unknown): Uint8Array {
    if (isDynamicMessage(value)) {
      const n = this.relayable(value);
      if (n >= 0) {
        this.relays?.relayed(n);
        const out = writeArena.alloc(n);
        value._copySrc(out, 0);
        return out;
      }
    }
    return this.one(value, false);
  }

  /** One frame: varint length, then the message (framing v1). */
  encodeFrame(value: unknown): Uint8Array {
    if (isDynamicMessage(value)) {
      const n = this.relayable(value);
      if (n >= 0) {
        this.relays?.relayed(n);
        const k = varint32Size(n);
        const out = writeArena.alloc(k + n);
        let v = n;
        let at = 0;
        while (v > 0x7f) {
          out[at++] = (v & 0x7f) | 0x80;
          v = v >>> 7;
        }
        out[at] = v;
        value._copySrc(out, k);
        return out;
      }
    }
    return this.one(value, true);
  }
}
