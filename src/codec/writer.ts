// The write path (DESIGN §8.1): check a DynamicMessage tree against the serializer's paired
// declarations (acceptance, unknown fields, depth), size it (memoized on the immutable values),
// then write it in one pass into a buffer of exactly that size. Every check happens before the
// first byte, so a failed write leaves no trace.
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
let slab = new ArrayBuffer(SLAB_SIZE);
let slabPos = 0;

/** A zeroed-or-overwritten Uint8Array of exactly n bytes that the caller owns. */
export function allocOutput(n: number): Uint8Array {
  if (n > SLAB_MAX_PIECE) return new Uint8Array(n);
  if (slabPos + n > SLAB_SIZE) {
    slab = new ArrayBuffer(SLAB_SIZE);
    slabPos = 0;
  }
  const out = new Uint8Array(slab, slabPos, n);
  // Keep views 8-byte aligned so callers may build aligned typed views on them.
  slabPos += (n + 7) & ~7;
  return out;
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

  /**
   * Checks `value` for writing and returns its body size (no frame). Throws CodecError for a
   * value that is not a DynamicMessage, is not accepted, has bad unknown fields, or breaks a limit.
   */
  prepare(value: unknown): number {
    if (!(value instanceof DynamicMessage)) {
      throw new CodecError(
        "NOT_A_DYNAMIC_MESSAGE",
        `cannot write ${this.root.typeName}: expected a DynamicMessage, got ${describeValue(value)}; build values with DynamicMessage.create(descriptor, init)`,
        { path: this.root.typeName },
      );
    }
    ck.sp = 0;
    ck.impure = false;
    let size: number;
    try {
      size = this.check(value, this.root, this.root, 1, undefined);
    } finally {
      ck.sp = 0;
    }
    if (size > this.settings.maxMessageBytes) {
      throw new CodecError(
        "MESSAGE_TOO_LARGE",
        `cannot write ${this.root.typeName}: encoded size ${size} bytes exceeds maxMessageBytes ${this.settings.maxMessageBytes}; raise maxMessageBytes or write a smaller value`,
        { path: this.root.typeName },
      );
    }
    return size;
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

  /** The bare message (no frame). */
  toBinary(value: unknown): Uint8Array {
    const size = this.prepare(value);
    const out = allocOutput(size);
    this.writeBody(out, 0, value as DynamicMessage, size);
    return out;
  }

  /** One frame: varint length, then the message (framing v1, DESIGN §8.2). */
  encodeFrame(value: unknown): Uint8Array {
    const size = this.prepare(value);
    const out = allocOutput(varint32Size(size) + size);
    SINK.buf = out;
    SINK.pos = 0;
    SINK.varint32(size);
    this.writeBody(out, SINK.pos, value as DynamicMessage, size);
    return out;
  }

  /** Frames for every value, concatenated; nothing is returned when any value fails. */
  encodeAll(values: Iterable<unknown>): Uint8Array {
    const list = Array.isArray(values) ? values : [...values];
    const sizes = new Array<number>(list.length);
    let total = 0;
    for (let i = 0; i < list.length; i++) {
      const s = this.prepare(list[i]);
      sizes[i] = s;
      total += varint32Size(s) + s;
    }
    const out = allocOutput(total);
    let pos = 0;
    for (let i = 0; i < list.length; i++) {
      SINK.buf = out;
      SINK.pos = pos;
      SINK.varint32(sizes[i]!);
      pos = this.writeBody(out, SINK.pos, list[i] as DynamicMessage, sizes[i]!);
    }
    return out;
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
    if (depth > this.maxDepth) {
      this.fail("MAX_DEPTH_EXCEEDED", `nesting depth ${depth} at {path} exceeds maxDepth ${this.maxDepth}; raise maxDepth or flatten the value`);
    }
    const det = this.det;
    if (paired !== undefined && msg._okFor === paired && msg._height > 0 && depth - 1 + msg._height <= this.maxDepth) {
      return sizeOf(msg, det, via);
    }
    const outerImpure = ck.impure;
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
    const plan = via !== undefined ? childPlan(via, desc) : desc === this.root ? this.rootPlan : planOf(desc);
    const pairedPlan = paired === undefined ? undefined : paired === desc ? plan : planOf(paired);
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
      let childPaired: DescMessage | undefined;
      if (pairedPlan !== undefined) {
        const pp = pairedPlan === plan ? p : pairedPlan.byNumber.get(p.number);
        // A number declared as a non-message (e.g. bytes) is read as such: the value is opaque.
        // Singular ↔ repeated keeps the element type (DESIGN §9); map ↔ non-map does not.
        if (pp !== undefined && pp.elemKind === K_MESSAGE && (pp.kind === K_MAP) === (p.kind === K_MAP)) {
          childPaired = pp.message;
        }
      }
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

/**
 * Appends one frame of `value` to `out`. Everything is checked and sized before the first byte, so
 * on failure `out` is unchanged.
 */
export function writeFrameTo(writer: MessageWriter, value: unknown, out: FrameWriter): void {
  const size = writer.prepare(value);
  const total = varint32Size(size) + size;
  const buf = out.reserve(total);
  const start = out.length;
  SINK.buf = buf;
  SINK.pos = start;
  SINK.varint32(size);
  writer.writeBody(buf, SINK.pos, value as DynamicMessage, size);
  out.commit(total);
}
