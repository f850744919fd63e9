// The generated kind's read path (docs/design.md §11, §13): the same WASM walk and tape as the dynamic
// kind (src/codec/reader.ts), read once forward into protobuf-es message objects directly, with
// the same read plans. No DynamicMessage is built and no source copy is kept: a generated value
// is re-encoded from its fields, and its unknown fields travel in `$unknown`.
import { create, ScalarType, type DescMessage } from "@bufbuild/protobuf";
import { setOwn, structToLocal } from "../generated/struct.js";
import { isWrapperDesc } from "@bufbuild/protobuf/wkt";
import { CodecError, internalError } from "../errors.js";
import { EMPTY_BYTES, scalarZero } from "../message/coerce.js";
import { K_MESSAGE, messageInfo } from "../message/field-info.js";
import type { Settings } from "../settings.js";
import { endTape, holdTape, smallDecode, views } from "../wasm/memory.js";
import { resumeWalk, tapeText, validateFrames, validateMessage, walkFrames, walkMessage, type TapeResult } from "../wasm/ops.js";
import { F_ASCII, FLAG_SHIFT, OP_BYTES, OP_END, OP_FIXED32, OP_FIXED64, OP_MASK, OP_PACKED, OP_START, OP_UNKNOWN, OP_VARINT, SLOT_SHIFT } from "../wasm/tape.js";
import { readArena } from "./arena.js";
import { readFramePrefix } from "./frame-reader.js";
import { layoutOf, type MessageLayout } from "./layout.js";
import { listTooLong, MAX_LIST_ELEMENTS, pieceOf, tooManyFrames, planFor, S_LIST, type ReadPlan, utf8String } from "./read-plan.js";
import { packedValues, readsSmall, tapeNumber } from "./reader.js";
import { SmallDecoder, type SmallBuilder } from "./small-reader.js";

type Obj = Record<string, unknown>;

/** How protobuf-es holds a message-valued singular field. */
const M_PLAIN = 0;
/** A google.protobuf wrapper in a singular field outside a oneof: the bare scalar. */
const M_WRAPPER = 1;
/** google.protobuf.Struct in a singular field (outside google.protobuf.Value): a JsonObject. */
const M_STRUCT = 2;

interface GSlot {
  readonly scalar: number;
  readonly store: number;
  readonly long: number;
  /** Property name: the field's local name. */
  readonly local: string;
  /** The oneof's local name for a member, else undefined. */
  readonly oneof: string | undefined;
  readonly mode: number;
  child: GPlan | undefined;
  /** Index of the field's property (a member's: its oneof's) in its plan's `props`; -1 in `present`. */
  prop: number;
  /** A singular field with implicit presence: read in order, its value is stored as it is (read()). */
  plain: boolean;
}

/** How `build` sets one property of a new message (in protobuf-es' create order). */
const P_ZERO = 0; // singular with implicit presence: the value read, else the type's zero
const P_LIST = 1;
const P_MAP = 2;
const P_ONEOF = 3; // always set: { case, value } or { case: undefined }
const P_PRESENT = 4; // explicit presence (message, proto3 optional): set only when read

interface GProp {
  readonly kind: number;
  readonly name: string;
  /** The field's slot; for a oneof, its first member's slot. */
  readonly slot: number;
  /** P_ZERO: protobuf-es' zero (its create's own constant). */
  readonly zero: unknown;
  /** P_ONEOF: its members' slots. */
  readonly members: readonly number[];
}

interface GPlan {
  readonly desc: DescMessage | undefined;
  readonly typeName: string;
  /** The properties a zero message has, in protobuf-es' create order. */
  readonly props: readonly GProp[];
  /** Fields with explicit presence, added after `props` when read (as setting them after create). */
  readonly present: readonly GProp[];
  readonly slots: GSlot[];
  readonly keyScalar: number;
}

const gplans = new WeakMap<ReadPlan, GPlan>();
const NO_MEMBERS: readonly number[] = [];

function modeOf(desc: DescMessage, slot: number): number {
  const f = desc.fields[slot]!;
  const m = f.message;
  if (m === undefined) return M_PLAIN;
  // As protobuf-es: Struct as a JsonObject in every field (list and map elements and oneof
  // members included) except google.protobuf.Value's; wrappers unboxed in singular fields only.
  if (m.typeName === STRUCT && desc.typeName !== "google.protobuf.Value") return M_STRUCT;
  if (f.fieldKind === "message" && f.oneof === undefined && isWrapperDesc(m)) return M_WRAPPER;
  return M_PLAIN;
}

const STRUCT = "google.protobuf.Struct";

/**
 * The properties of a message of `desc` as protobuf-es' create(desc) sets them, with its own zero
 * values (read from one message it makes, so a shared constant stays shared).
 */
function propsOf(desc: DescMessage, slotOf: Map<string, number>): { props: GProp[]; present: GProp[] } {
  const zero = create(desc) as unknown as Obj;
  if (Object.getPrototypeOf(zero) !== Object.prototype) {
    // Only proto2 defaults and editions features give protobuf-es messages a prototype chain;
    // descriptors are validated proto3 (docs/design.md §3), so this is a broken invariant.
    throw internalError(`cannot decode ${desc.typeName}`, "protobuf-es makes its messages with a prototype chain");
  }
  const props: GProp[] = [];
  const present: GProp[] = [];
  for (const member of desc.members) {
    const name = member.localName;
    if (member.kind === "oneof") {
      const members = member.fields.map((f) => slotOf.get(f.name)!);
      props.push({ kind: P_ONEOF, name, slot: members[0]!, zero: undefined, members });
      continue;
    }
    const slot = slotOf.get(member.name)!;
    const kind = member.fieldKind === "list" ? P_LIST : member.fieldKind === "map" ? P_MAP : Object.hasOwn(zero, name) ? P_ZERO : P_PRESENT;
    (kind === P_PRESENT ? present : props).push({ kind, name, slot, zero: kind === P_ZERO ? zero[name] : undefined, members: NO_MEMBERS });
  }
  return { props, present };
}

/** The generated plan of a read plan and of every plan it reaches, without recursion. */
function gplanFor(root: ReadPlan): GPlan {
  const known = gplans.get(root);
  if (known !== undefined) return known;
  const fresh = new Map<ReadPlan, GPlan>();
  const work: ReadPlan[] = [root];
  while (work.length > 0) {
    const rp = work.pop()!;
    if (gplans.has(rp) || fresh.has(rp)) continue;
    const desc = rp.desc;
    const info = desc === undefined ? undefined : messageInfo(desc);
    const slotOf = new Map<string, number>();
    const slots = rp.slots.map((sp, i): GSlot => {
      if (sp.child !== undefined) work.push(sp.child);
      const f = info?.fields[i]?.field;
      if (f !== undefined) slotOf.set(f.name, i);
      return {
        scalar: sp.scalar,
        store: sp.store,
        long: sp.long,
        local: f === undefined ? "" : f.localName,
        oneof: f?.oneof?.localName,
        mode:
          desc === undefined
            ? i === 1 && sp.child?.desc?.typeName === STRUCT
              ? M_STRUCT
              : M_PLAIN
            : info!.fields[i]!.elemKind !== K_MESSAGE
              ? M_PLAIN
              : modeOf(desc, i),
        child: undefined,
        prop: -1,
        plain: false,
      };
    });
    const { props, present } = desc === undefined ? { props: [], present: [] } : propsOf(desc, slotOf);
    props.forEach((p, j) => {
      for (const s of p.kind === P_ONEOF ? p.members : [p.slot]) slots[s]!.prop = j;
      if (p.kind === P_ZERO) slots[p.slot]!.plain = true;
    });
    fresh.set(rp, { desc, typeName: desc?.typeName ?? "", props, present, slots, keyScalar: rp.keyScalar });
  }
  for (const [rp, gp] of fresh) {
    rp.slots.forEach((sp, i) => {
      if (sp.child !== undefined) gp.slots[i]!.child = gplans.get(sp.child) ?? fresh.get(sp.child)!;
    });
  }
  for (const [rp, gp] of fresh) gplans.set(rp, gp);
  return gplans.get(root)!;
}

interface EsUnknown {
  no: number;
  wireType: number;
  data: Uint8Array;
}

/**
 * A message of `gp` from the small reader's values by slot, as protobuf-es' create(desc) followed
 * by setting each field read makes it: the same properties in the same order, the same zero
 * values, one store per property. A message-valued field holds the message object read; it is
 * unboxed or turned into a JsonObject here (`held`). A oneof's member is the one set in `vals`
 * (the small reader leaves at most one).
 *
 * Why not create() and then set: protobuf-es' create stores every zero property and the decoder
 * then stored most of them again, two megamorphic keyed stores (~12 ns each on Node 20) per field
 * read. Built once, decode against protobuf-es' fromBinary (bench/generated-ratio.mjs, ranges of
 * runs): classic 1.27-1.48x -> 1.71-1.83x, small 1.72-1.79x -> 2.25-2.31x, the 80-deep chain
 * 1.18-1.29x -> 1.32-1.52x. Copies of a zero template (object spread) were tried before and are
 * slower: each copy got a map of its own outside V8's transition tree, and a store after it cost
 * microseconds (classic 1.24x -> 0.86x).
 */
function build(gp: GPlan, vals: unknown[], unknown: EsUnknown[] | undefined): Obj {
  const o = newMessage(gp);
  const slots = gp.slots;
  const props = gp.props;
  for (let i = 0; i < props.length; i++) {
    const p = props[i]!;
    const v = vals[p.slot];
    switch (p.kind) {
      case P_ZERO:
        o[p.name] = v === undefined ? p.zero : v;
        break;
      case P_LIST:
        o[p.name] = v === undefined ? [] : slots[p.slot]!.mode === M_STRUCT ? (v as Obj[]).map(structToLocal) : v;
        break;
      case P_MAP:
        o[p.name] = v === undefined ? {} : v;
        break;
      default: {
        let s = -1;
        const members = p.members;
        for (let j = 0; j < members.length; j++) if (vals[members[j]!] !== undefined) s = members[j]!;
        if (s < 0) {
          o[p.name] = { case: undefined };
          break;
        }
        const gs = slots[s]!;
        const mv = vals[s];
        o[p.name] = { case: gs.local, value: gs.child === undefined ? mv : held(gs, mv as Obj) };
        break;
      }
    }
  }
  const present = gp.present;
  for (let i = 0; i < present.length; i++) {
    const p = present[i]!;
    const v = vals[p.slot];
    if (v === undefined) continue;
    const gs = slots[p.slot]!;
    o[p.name] = gs.child === undefined ? v : held(gs, v as Obj);
  }
  if (unknown !== undefined) o.$unknown = unknown;
  return o;
}

/**
 * A new message of `gp` with only its `$typeName`. From an empty literal, which V8 gives four
 * in-object property slots ({ $typeName } gets one, and every later property went to a backing
 * store allocated and grown as they were added): decode of the 80-deep chain 2-6% faster.
 */
function newMessage(gp: GPlan): Obj {
  const o: Obj = {};
  o.$typeName = gp.typeName;
  return o;
}

/** Sets properties [from, to) of `o`, a message of `gp`, to their zero values, as create does. */
function fill(o: Obj, gp: GPlan, from: number, to: number): void {
  const props = gp.props;
  for (let i = from; i < to; i++) {
    const p = props[i]!;
    switch (p.kind) {
      case P_ZERO:
        o[p.name] = p.zero;
        break;
      case P_LIST:
        o[p.name] = [];
        break;
      case P_MAP:
        o[p.name] = {};
        break;
      default:
        o[p.name] = { case: undefined };
    }
  }
}

/** The message object of a value held by field `gs` (the inverse of `held`). */
function messageOf(gs: GSlot, v: unknown): Obj {
  // A Struct is held in its message form until the whole value is read (setHeld).
  if (gs.mode !== M_WRAPPER) return v as Obj;
  return build(gs.child!, [v], undefined);
}

/**
 * Sets `o[key]` to message `m` of field `gs` as protobuf-es holds it. While a tape is read
 * (`defer` given), a Struct field keeps its message form and is listed in `defer` to become a
 * JsonObject when the whole value is read: a later occurrence of the field merges into the
 * message. Converting it back and forth per occurrence made N occurrences cost N x N (and
 * protobuf-es' own fromBinary does: 16,000 occurrences of a one-key Struct, 200 KB, took 120 s).
 */
function setHeld(o: Obj, key: string, gs: GSlot, m: Obj, defer: unknown[] | undefined): void {
  if (gs.mode === M_STRUCT && defer !== undefined) {
    o[key] = m;
    defer.push(o, key, m);
  } else o[key] = held(gs, m);
}

/** Turns the Struct fields `defer` lists (setHeld) into JsonObjects, each once, and empties it. */
function settle(defer: unknown[]): void {
  for (let i = 0; i < defer.length; i += 3) {
    const o = defer[i] as Obj;
    const key = defer[i + 1] as string;
    const m = defer[i + 2];
    // Listed again by each merge into it, or replaced since: converted once, where it still is.
    if (o[key] === m) o[key] = structToLocal(m as Obj);
  }
  defer.length = 0;
}

/**
 * One open message (or map entry) while the tape is walked. A message's fields are set on its
 * object as they are read, its properties in create's order: a field's property is set after the
 * zero values of the properties before it that were not read (`filled` counts those set), and the
 * rest are set at its end. A field read again, out of order, or merged into is set where it
 * already is. A later occurrence of a singular message field is read into the object of the
 * earlier one, as protobuf-es merges, at a cost that does not grow with its type's width.
 *
 * Why not collect the values by slot and build the object at the end (the previous design; the
 * small reader still does): every field cost a store, a load and a clear of the slot array more.
 * Decode against that design (objects from { $typeName }), medians of old time / new time, 3 runs in one
 * process: small 1.05-1.08, span 1.09-1.11, the 80-deep chain 1.05-1.07, classic 0.96-1.04,
 * numeric 0.97-0.98 (three packed runs: no per-field work to save). It also gives protobuf-es'
 * key order for fields with explicit presence read out of declaration order (wire order, as its
 * fromBinary sets them).
 */
class GFrame {
  plan: GPlan = EMPTY;
  /** The message being read (a new one, or the earlier occurrence merged into); undefined for a map entry. */
  obj: Obj | undefined = undefined;
  /** How many of `plan.props` are set on `obj` (all of them on an object merged into). */
  filled = 0;
  /** False while no field with explicit presence is set on `obj` (a new message's until one is read). */
  present = false;
  /** True for a map entry (its key and value are in `key`/`value`): a frame with no `obj`. */
  entry = false;
  key: unknown = undefined;
  value: unknown = undefined;
  unknown: EsUnknown[] | undefined = undefined;
  /** Slot in the parent that opened this message. */
  slot = 0;

  /**
   * Readies the frame to read `obj`, a message of `plan` (`merged`: an earlier occurrence, all its
   * properties set), or a map entry of `plan` (obj undefined).
   */
  use(plan: GPlan, obj: Obj | undefined, merged: boolean): void {
    this.plan = plan;
    this.obj = obj;
    this.entry = obj === undefined;
    this.filled = merged ? plan.props.length : 0;
    this.present = merged;
    this.unknown = undefined;
  }

  /**
   * Readies property `j` of the message to be set: false if it was not set before (the zero
   * values of the properties before it are set now), true if it was (read before or merged into).
   */
  reach(j: number): boolean {
    const filled = this.filled;
    if (j < filled) return true;
    fill(this.obj!, this.plan, filled, j);
    this.filled = j + 1;
    return false;
  }

  /** Sets every property not set yet to its zero value (before a field with explicit presence, and at the end). */
  complete(): void {
    const n = this.plan.props.length;
    if (this.filled < n) {
      fill(this.obj!, this.plan, this.filled, n);
      this.filled = n;
    }
  }

  /** Drops what the frame holds (after an error mid-way: nothing read is kept alive). */
  free(): void {
    this.obj = undefined;
    this.key = undefined;
    this.value = undefined;
    this.unknown = undefined;
  }
}

const EMPTY: GPlan = { desc: undefined, typeName: "", props: [], present: [], slots: [], keyScalar: 0 };

/** The zero value of a map entry's missing value, as protobuf-es reads it. */
function entryValueZero(plan: GPlan): unknown {
  const vp = plan.slots[1]!;
  return vp.child !== undefined ? build(vp.child, [], undefined) : vp.scalar === ScalarType.BYTES ? new Uint8Array(0) : scalarZero(vp.scalar as ScalarType, 0);
}

/**
 * Adds a map entry (`plan`; its key and its value as read, a message value as its object) to
 * `record`, which protobuf-es holds a map in.
 */
function putEntry(record: Obj, plan: GPlan, key: unknown, value: unknown): void {
  if (value === undefined) value = entryValueZero(plan);
  if (plan.slots[1]!.mode === M_STRUCT) value = structToLocal(value as Obj);
  setOwn(record, String(key === undefined ? scalarZero(plan.keyScalar as ScalarType, 0) : key), value);
}

/** What a singular or list element message of slot `gs` is held as: itself, unboxed, or a JsonObject. */
function held(gs: GSlot, o: Obj): unknown {
  if (gs.mode === M_PLAIN) return o;
  if (gs.mode === M_WRAPPER) return o[gs.child!.slots[0]!.local];
  return structToLocal(o);
}

/**
 * protobuf-es objects from the small reader's values by slot (small-reader.ts): the same objects
 * the tape reader below builds, for inputs that reader never sees.
 */
export const GENERATED_SMALL: SmallBuilder = {
  message(plan, values, unknown) {
    return build(gplans.get(plan) ?? gplanFor(plan), values, unknown as EsUnknown[] | undefined);
  },
  entry: (parent, slot, plan, vs) => putEntry((parent[slot] ??= {}) as Obj, gplans.get(plan) ?? gplanFor(plan), vs[0], vs[1]),
  unknownField: (buf, _at, payloadAt, end, num, wt): EsUnknown => ({ no: num, wireType: wt, data: pieceOf(buf, payloadAt, end - payloadAt, 0, undefined, 0) }),
};

/** Builds protobuf-es objects from a tape. */
class GeneratedTapeDecoder {
  private input: Uint8Array = EMPTY_BYTES;
  private readonly alias: number;
  private readonly frames: GFrame[] = [new GFrame()];
  /** Struct fields held as messages until the value is read (setHeld). */
  private readonly defer: unknown[] = [];
  private text = "";
  private textPos = 0;
  /** Entry index after the END of the last message read. */
  next = 0;

  constructor(settings: Settings) {
    this.alias = settings.aliasThreshold;
  }

  begin(input: Uint8Array, tape: TapeResult): void {
    this.input = input;
    this.text = tapeText(tape);
    this.textPos = 0;
    // Last: end() lets go of it, and the caller calls end() once begin has returned.
    holdTape();
  }

  resume(tape: TapeResult): void {
    resumeWalk(tape);
    this.text = tapeText(tape);
    this.textPos = 0;
  }

  end(): void {
    endTape();
    this.input = EMPTY_BYTES;
    this.text = "";
  }

  private str(off: number, len: number, flags: number): string {
    if ((flags & F_ASCII) !== 0) {
      const at = this.textPos;
      this.textPos = at + len;
      return this.text.substring(at, at + len);
    }
    return len === 0 ? "" : utf8String(this.input, off, len);
  }

  private bytes(off: number, len: number): Uint8Array {
    if (len === 0) return new Uint8Array(0);
    const input = this.input;
    if (this.alias > 0 && len >= this.alias) return new Uint8Array(input.buffer, input.byteOffset + off, len);
    const out = readArena.alloc(len);
    if (len < 32) for (let i = 0; i < len; i++) out[i] = input[off + i]!;
    else out.set(input.subarray(off, off + len));
    return out;
  }

  /** Drops every frame's values after an error mid-way, so that nothing read stays alive. */
  abandon(): void {
    for (const f of this.frames) f.free();
    this.defer.length = 0;
  }

  /** Opens a message under slot `slot` of `parent` (a repeated occurrence of a singular one merges). */
  private open(f: GFrame, parent: GFrame, slot: number, gs: GSlot): void {
    const child = gs.child!;
    f.slot = slot;
    if (child.desc === undefined) {
      f.use(child, undefined, false);
      f.key = undefined;
      f.value = undefined;
      return;
    }
    // Merge into the earlier occurrence of a singular message field, a map entry's message value
    // included: `value` holds a message object; an object being read holds its fields as
    // protobuf-es does (unboxed wrappers; a Struct in its message form until the value is read).
    let prev: Obj | undefined;
    if (gs.store !== S_LIST) {
      if (parent.entry) prev = parent.value as Obj | undefined;
      else if (gs.prop < 0 ? parent.present : gs.prop < parent.filled) {
        // (A missing property is not looked up: a megamorphic load that misses walks the
        // prototype chain, 5% of the 80-deep chain's decode.)
        const into = parent.obj!;
        let h: unknown;
        if (gs.oneof !== undefined) {
          const c = into[gs.oneof] as { case: unknown; value?: unknown };
          if (c.case === gs.local) h = c.value;
        } else h = into[gs.local];
        if (h !== undefined) prev = messageOf(gs, h);
      }
    }
    if (prev === undefined) f.use(child, newMessage(child), false);
    else {
      f.use(child, prev, true);
      f.unknown = prev.$unknown as EsUnknown[] | undefined;
    }
  }

  /** Sets slot `slot` of `f` (message or map entry) to `v`. */
  private put(f: GFrame, gs: GSlot, slot: number, v: unknown): void {
    if (f.entry) {
      if (slot === 0) f.key = v;
      else f.value = v;
      return;
    }
    const o = f.obj!;
    const j = gs.prop;
    if (j < 0) {
      // Explicit presence: set after create's properties, as protobuf-es sets a field read.
      f.complete();
      f.present = true;
      if (gs.child === undefined) o[gs.local] = v;
      else setHeld(o, gs.local, gs, v as Obj, this.defer);
      return;
    }
    const again = f.reach(j);
    if (gs.store === S_LIST) {
      const e = gs.child === undefined ? v : held(gs, v as Obj);
      if (again) {
        const list = o[gs.local] as unknown[];
        if (list.length === MAX_LIST_ELEMENTS) throw listTooLong(f.plan.typeName);
        list.push(e);
      } else o[gs.local] = [e];
      return;
    }
    if (gs.oneof === undefined) {
      o[gs.local] = v;
      return;
    }
    // The last member read wins. Its case object is the one this read made for the oneof (by fill,
    // or for a member read before), switched to it: a new object per member read made a value
    // setting each of 100,000 members in turn 1.7x slower to read (4.9-5.2 ms against 2.8-2.9;
    // the design before this reader took 4.7). (setHeld lists a Struct by its case object and the
    // message it holds; settle converts it only where it still is.)
    let c = again ? (o[gs.oneof] as Obj) : undefined;
    if (c === undefined) o[gs.oneof] = c = { case: gs.local, value: undefined };
    else if (c.case !== gs.local) c.case = gs.local;
    if (gs.child === undefined) c.value = v;
    else setHeld(c, "value", gs, v as Obj, this.defer);
  }

  /** The record that the map field `gs` of message frame `f` is held in. */
  private record(f: GFrame, gs: GSlot): Obj {
    const o = f.obj!;
    if (f.reach(gs.prop)) return o[gs.local] as Obj;
    const r: Obj = {};
    o[gs.local] = r;
    return r;
  }

  /** The message of a frame at its end. */
  private close(f: GFrame): Obj {
    f.complete();
    const o = f.obj!;
    const u = f.unknown;
    f.obj = undefined;
    f.unknown = undefined;
    if (u !== undefined) o.$unknown = u;
    return o;
  }

  read(tape: TapeResult, k: number, root: GPlan): Obj {
    let u32 = views.u32;
    let start = tape.start;
    let count = tape.count;
    const pool = this.frames;
    let depth = 0;
    let cur = pool[0]!;
    cur.use(root, newMessage(root), false);
    cur.slot = 0;
    let slots = root.slots;
    k++;
    for (;;) {
      if (k === count) {
        this.resume(tape);
        u32 = views.u32;
        start = tape.start;
        count = tape.count;
        k = 0;
      }
      const e = start + 4 * k;
      const w0 = u32[e]!;
      const op = w0 & OP_MASK;
      const slot = w0 >>> SLOT_SHIFT;
      k++;
      if (op === OP_END) {
        if (depth === 0) {
          this.next = k;
          const o = this.close(cur);
          if (this.defer.length > 0) settle(this.defer);
          return o;
        }
        const done = cur;
        cur = pool[--depth]!;
        slots = cur.plan.slots;
        const gs = slots[done.slot]!;
        if (done.entry) {
          putEntry(this.record(cur, gs), done.plan, done.key, done.value);
          done.key = undefined;
          done.value = undefined;
        } else {
          // A message field with explicit presence into a message (put's first case, inlined):
          // the 80-deep chain's decode 3-6% faster in a process that decoded other types first.
          const m = this.close(done);
          if (gs.prop < 0 && gs.mode === M_PLAIN && !cur.entry) {
            cur.complete();
            cur.present = true;
            cur.obj![gs.local] = m;
          } else this.put(cur, gs, done.slot, m);
        }
        continue;
      }
      if (op === OP_START) {
        const gs = slots[slot]!;
        if (++depth === pool.length) pool.push(new GFrame());
        const next = pool[depth]!;
        this.open(next, cur, slot, gs);
        cur = next;
        slots = cur.plan.slots;
        continue;
      }
      if (op === OP_UNKNOWN) {
        const off = u32[e + 2]!;
        const len = u32[e + 3]!;
        const input = this.input;
        let t = off;
        while ((input[t]! & 0x80) !== 0) t++;
        t++;
        const data = readArena.alloc(off + len - t);
        data.set(input.subarray(t, off + len));
        (cur.unknown ??= []).push({ no: u32[e + 1]!, wireType: input[off]! & 7, data });
        continue;
      }
      const sp = slots[slot]!;
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
            if ((flags & F_ASCII) !== 0) this.textPos += u32[e + 3]!;
            v = this.bytes(u32[e + 2]!, u32[e + 3]!);
          }
          break;
        }
        case OP_PACKED: {
          const o = cur.obj!;
          // A later run of the same field (or occurrence merged into) is appended; an empty list
          // is one this read made (a zero value), never one an application holds.
          const list = cur.reach(sp.prop) ? (o[sp.local] as unknown[]) : undefined;
          if (u32[e + 1]! + (list?.length ?? 0) > MAX_LIST_ELEMENTS) throw listTooLong(root.desc?.typeName ?? "message");
          const run = packedValues(sp.scalar, sp.long, u32[e + 1]!, u32[e + 2]!);
          if (list === undefined || list.length === 0) o[sp.local] = run;
          else for (let i = 0; i < run.length; i++) list.push(run[i]);
          continue;
        }
        default:
          throw internalError(`cannot decode ${root.desc?.typeName ?? "message"}`, `the tape holds an unknown op ${op}`);
      }
      // The next property in create's order, a scalar: stored here (a call of put per field was
      // 8% of the 80-deep chain's decode).
      if (sp.plain && sp.prop === cur.filled) {
        cur.obj![sp.local] = v;
        cur.filled++;
      } else this.put(cur, sp, slot, v);
    }
  }
}

/** The generated read path of one serializer: its layout, plans and decoder, resolved once. */
export class GeneratedDecoder {
  private readonly layout: MessageLayout;
  private readonly readPlan: ReadPlan;
  private readonly plan: GPlan;
  private readonly settings: Settings;
  private readonly dec: GeneratedTapeDecoder;
  private readonly small: SmallDecoder;

  constructor(root: DescMessage, settings: Settings) {
    // protobuf-es holds jstype = JS_NUMBER fields as bigint: no value of theirs is refused.
    this.layout = layoutOf(root, false);
    this.readPlan = planFor(this.layout);
    this.plan = gplanFor(this.readPlan);
    this.settings = settings;
    this.dec = new GeneratedTapeDecoder(settings);
    this.small = new SmallDecoder(settings.maxDepth, settings.aliasThreshold, GENERATED_SMALL);
  }

  /**
   * A bare message as the dynamic kind reads small ones (BoundDecoder.read): by the TypeScript
   * reader under the threshold, else (or when it gives up) undefined, for the core to read.
   */
  private readSmall(body: Uint8Array): Obj | undefined {
    if (!readsSmall(body.length, this.settings)) return undefined;
    smallDecode();
    return this.small.read(body, this.readPlan) as Obj | undefined;
  }

  /** A bare message. */
  message(input: Uint8Array): Obj {
    const value = this.readSmall(input);
    if (value !== undefined) return value;
    const tape = walkMessage(this.layout.typeOffset, input, this.settings);
    const dec = this.dec;
    dec.begin(input, tape);
    try {
      return dec.read(tape, 0, this.plan);
    } catch (e) {
      dec.abandon();
      throw e;
    } finally {
      dec.end();
    }
  }

  /**
   * The value of exactly one frame, as BoundDecoder.oneFrame: input that is not one frame is only
   * validated, never built, and refused with the error a decode would give or NOT_ONE_FRAME.
   */
  oneFrame(input: Uint8Array): Obj {
    const prefix = readFramePrefix(input, 0);
    if (typeof prefix !== "number" && prefix.bodyAt + prefix.size === input.length) {
      return this.readSmall(input.subarray(prefix.bodyAt)) ?? this.frames(input)[0]!;
    }
    const count = validateFrames(this.layout.typeOffset, input, this.settings);
    const name = this.layout.fullName;
    throw new CodecError(
      "NOT_ONE_FRAME",
      `cannot decode ${name}: decode expects exactly one frame, got ${count}; use decodeAll for a batch of frames`,
      { path: name },
    );
  }

  /** Checks a bare message as `message` reads it, without a value (read, where a list may be too long: MAX_LIST_ELEMENTS). */
  validate(input: Uint8Array): void {
    if (input.length > MAX_LIST_ELEMENTS) this.message(input);
    else validateMessage(this.layout.typeOffset, input, this.settings);
  }

  /** Checks every frame of a buffer as `frames` reads them, without values (see validate). */
  validateAll(input: Uint8Array): void {
    if (input.length > MAX_LIST_ELEMENTS) this.frames(input);
    else validateFrames(this.layout.typeOffset, input, this.settings);
  }

  /** Every frame of a buffer (validated in one WASM call first). */
  frames(input: Uint8Array): Obj[] {
    const tape = walkFrames(this.layout.typeOffset, input, this.settings);
    const dec = this.dec;
    dec.begin(input, tape);
    try {
      const out: Obj[] = [];
      let k = 0;
      for (;;) {
        if (k === tape.count) {
          if (tape.done) break;
          dec.resume(tape);
          k = 0;
        }
        if (out.length === MAX_LIST_ELEMENTS) throw tooManyFrames(this.layout.fullName);
        out.push(dec.read(tape, k, this.plan));
        k = dec.next;
      }
      return out;
    } catch (e) {
      dec.abandon();
      throw e;
    } finally {
      dec.end();
    }
  }
}
