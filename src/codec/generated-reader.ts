// The generated kind's read path (docs/design.md §11, §13): the same WASM walk and tape as the dynamic
// kind (src/codec/reader.ts), read once forward into protobuf-es message objects directly, with
// the same read plans. No DynamicMessage is built and no source copy is kept: a generated value
// is re-encoded from its fields, and its unknown fields travel in `$unknown`.
import { create, ScalarType, type DescMessage } from "@bufbuild/protobuf";
import { setOwn, structToLocal, structToMessage } from "../generated/struct.js";
import { isWrapperDesc } from "@bufbuild/protobuf/wkt";
import { CodecError, internalError } from "../errors.js";
import { EMPTY_BYTES, scalarZero } from "../message/coerce.js";
import { K_MESSAGE, messageInfo } from "../message/field-info.js";
import type { Settings } from "../settings.js";
import { views } from "../wasm/memory.js";
import { resumeWalk, tapeText, validateFrames, validateMessage, walkFrames, walkMessage, type TapeResult } from "../wasm/ops.js";
import { F_ASCII, FLAG_SHIFT, OP_BYTES, OP_END, OP_FIXED32, OP_FIXED64, OP_MASK, OP_PACKED, OP_START, OP_UNKNOWN, OP_VARINT, SLOT_SHIFT } from "../wasm/tape.js";
import { readArena } from "./arena.js";
import { readFramePrefix } from "./frame-reader.js";
import { layoutOf, type MessageLayout } from "./layout.js";
import { long, pieceOf, planFor, S_EXPLICIT, S_LIST, S_MAP, type ReadPlan, utf8String } from "./read-plan.js";
import { readsSmall, tapeNumber } from "./reader.js";
import { SmallDecoder, type SmallBuilder } from "./small-reader.js";
import { core } from "../wasm/instance.js";

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
}

interface GPlan {
  readonly desc: DescMessage | undefined;
  /** A new zero message of `desc`, as protobuf-es' create(desc) makes it. */
  readonly make: () => Obj;
  readonly slots: GSlot[];
  readonly keyScalar: number;
}

const gplans = new WeakMap<ReadPlan, GPlan>();

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
    const slots = rp.slots.map((sp, i): GSlot => {
      if (sp.child !== undefined) work.push(sp.child);
      const f = info?.fields[i]?.field;
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
      };
    });
    fresh.set(rp, { desc, make: desc === undefined ? noMake : zeroFactory(desc), slots, keyScalar: rp.keyScalar });
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

/** One open message (or map entry) while the tape is walked. */
class GFrame {
  plan: GPlan = EMPTY;
  /** The message object; for a map entry, undefined (its key and value are in `key`/`value`). */
  obj: Obj | undefined = undefined;
  key: unknown = undefined;
  value: unknown = undefined;
  unknown: EsUnknown[] | undefined = undefined;
  /** Slot in the parent that opened this message. */
  slot = 0;
}

const noMake = (): Obj => {
  throw internalError("cannot decode", "a map entry has no message object");
};

const EMPTY: GPlan = { desc: undefined, make: noMake, slots: [], keyScalar: 0 };

/**
 * Zero messages made by protobuf-es' own compiled create(desc). Copies of one zero template
 * (object spread, then fresh lists, map records and oneof objects) took 60-120 ns against
 * create's 300-400 in a loop of their own, but inside the decoder every copy came out with a map
 * of its own, outside V8's transition tree (%DebugPrint: no back pointer), and a field store
 * after it cost microseconds: classic decode fell from 1.24x to 0.86x protobuf-es, span from
 * 1.57x to 0.91x (Node 20, one process).
 */
function zeroFactory(desc: DescMessage): () => Obj {
  return () => create(desc) as unknown as Obj;
}

/** The zero value of a map entry's missing value, as protobuf-es reads it. */
function entryValueZero(plan: GPlan): unknown {
  const vp = plan.slots[1]!;
  return vp.child !== undefined ? vp.child.make() : vp.scalar === ScalarType.BYTES ? new Uint8Array(0) : scalarZero(vp.scalar as ScalarType, 0);
}

/** Adds a map entry to the record that protobuf-es holds a map in. */
function putRecordEntry(record: Obj, plan: GPlan, key: unknown, value: unknown): void {
  setOwn(record, String(key === undefined ? scalarZero(plan.keyScalar as ScalarType, 0) : key), value === undefined ? entryValueZero(plan) : value);
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
    const gp = gplans.get(plan) ?? gplanFor(plan);
    const o = gp.make();
    const slots = gp.slots;
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (v === undefined) continue;
      const gs = slots[i]!;
      if (gs.store === S_MAP) o[gs.local] = v;
      else if (gs.store === S_LIST) o[gs.local] = gs.mode === M_STRUCT ? (v as Obj[]).map(structToLocal) : v;
      else if (gs.oneof !== undefined) o[gs.oneof] = { case: gs.local, value: held(gs, v as Obj) };
      else o[gs.local] = held(gs, v as Obj);
    }
    if (unknown !== undefined) o.$unknown = unknown;
    return o;
  },
  entry(parent, slot, plan, vs) {
    const gp = gplans.get(plan) ?? gplanFor(plan);
    let value = vs[1];
    if (value !== undefined && gp.slots[1]!.mode === M_STRUCT) value = structToLocal(value as Obj);
    putRecordEntry((parent[slot] ??= {}) as Obj, gp, vs[0], value);
  },
  unknownField: (buf, _at, payloadAt, end, num, wt): EsUnknown => ({ no: num, wireType: wt, data: pieceOf(buf, payloadAt, end - payloadAt, 0, undefined, 0) }),
};

/** Builds protobuf-es objects from a tape. */
class GeneratedTapeDecoder {
  private input: Uint8Array = EMPTY_BYTES;
  private readonly alias: number;
  private readonly frames: GFrame[] = [new GFrame()];
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
  }

  resume(tape: TapeResult): void {
    resumeWalk(tape);
    this.text = tapeText(tape);
    this.textPos = 0;
  }

  end(): void {
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

  /** Opens a message under slot `slot` of `parent` (a repeated occurrence of a singular one merges). */
  private open(f: GFrame, parent: GFrame, slot: number, gs: GSlot): void {
    const child = gs.child!;
    f.plan = child;
    f.slot = slot;
    f.unknown = undefined;
    if (child.desc === undefined) {
      f.obj = undefined;
      f.key = undefined;
      f.value = undefined;
      return;
    }
    const o = parent.obj;
    if (o !== undefined && gs.store !== S_LIST) {
      // Merge into the earlier occurrence of a singular message field.
      let prev: unknown;
      if (gs.oneof !== undefined) {
        const c = o[gs.oneof] as { case: unknown; value?: unknown };
        if (c.case === gs.local) prev = c.value;
      } else prev = o[gs.local];
      if (prev !== undefined) {
        if (gs.mode === M_WRAPPER) {
          const w = child.make();
          w[child.slots[0]!.local] = prev;
          f.obj = w;
        } else if (gs.mode === M_STRUCT) {
          f.obj = structToMessage(prev);
        } else {
          f.obj = prev as Obj;
          const u = (prev as { $unknown?: EsUnknown[] }).$unknown;
          if (u !== undefined) f.unknown = u;
        }
        return;
      }
    }
    f.obj = child.make();
  }

  /** Sets slot `slot` of `f` (message or map entry) to `v`. */
  private put(f: GFrame, gs: GSlot, slot: number, v: unknown): void {
    const o = f.obj;
    if (o === undefined) {
      if (slot === 0) f.key = v;
      else f.value = v;
      return;
    }
    switch (gs.store) {
      case S_LIST:
        (o[gs.local] as unknown[]).push(v);
        return;
      case S_EXPLICIT:
        if (gs.oneof !== undefined) {
          o[gs.oneof] = { case: gs.local, value: v };
          return;
        }
        o[gs.local] = v;
        return;
      default:
        o[gs.local] = v;
    }
  }

  /** The finished value of frame `done` as its parent holds it. */
  private finish(done: GFrame, gs: GSlot): unknown {
    const o = done.obj!;
    if (done.unknown !== undefined) o.$unknown = done.unknown;
    return held(gs, o);
  }

  private putEntry(parent: GFrame, gs: GSlot, entry: GFrame): void {
    putRecordEntry(parent.obj![gs.local] as Obj, entry.plan, entry.key, entry.value);
  }

  read(tape: TapeResult, k: number, root: GPlan): Obj {
    let u32 = views.u32;
    let start = tape.start;
    let count = tape.count;
    const pool = this.frames;
    let depth = 0;
    let cur = pool[0]!;
    cur.plan = root;
    cur.obj = root.make();
    cur.unknown = undefined;
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
          const o = cur.obj!;
          if (cur.unknown !== undefined) o.$unknown = cur.unknown;
          return o;
        }
        const done = cur;
        cur = pool[--depth]!;
        slots = cur.plan.slots;
        const gs = slots[done.slot]!;
        if (done.obj === undefined) this.putEntry(cur, gs, done);
        else this.put(cur, gs, done.slot, this.finish(done, gs));
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
        case OP_PACKED:
          this.packed(cur.obj![sp.local] as unknown[], sp, u32[e + 1]!, u32[e + 2]!);
          continue;
        default:
          throw internalError(`cannot decode ${root.desc?.typeName ?? "message"}`, `the tape holds an unknown op ${op}`);
      }
      this.put(cur, sp, slot, v);
    }
  }

  private packed(list: unknown[], sp: GSlot, count: number, addr: number): void {
    const at = addr >>> 2;
    const at8 = addr >>> 3;
    switch (sp.scalar) {
      case ScalarType.DOUBLE: {
        const a = views.f64;
        for (let i = 0; i < count; i++) list.push(a[at8 + i]!);
        return;
      }
      case ScalarType.FLOAT: {
        const a = views.f32;
        for (let i = 0; i < count; i++) list.push(a[at + i]!);
        return;
      }
      case ScalarType.BOOL: {
        const a = views.u8;
        for (let i = 0; i < count; i++) list.push(a[addr + i] === 1);
        return;
      }
      case ScalarType.UINT32:
      case ScalarType.FIXED32: {
        const a = views.u32;
        for (let i = 0; i < count; i++) list.push(a[at + i]!);
        return;
      }
      case ScalarType.INT64:
      case ScalarType.SINT64:
      case ScalarType.SFIXED64:
      case ScalarType.UINT64:
      case ScalarType.FIXED64: {
        const a = sp.scalar === ScalarType.UINT64 || sp.scalar === ScalarType.FIXED64 ? views.u64 : views.i64;
        const m = sp.long;
        for (let i = 0; i < count; i++) list.push(long(a[at8 + i]!, m));
        return;
      }
      default: {
        const a = views.i32;
        for (let i = 0; i < count; i++) list.push(a[at + i]!);
      }
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
    core();
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

  /** Checks a bare message as `message` reads it, without a value. */
  validate(input: Uint8Array): void {
    validateMessage(this.layout.typeOffset, input, this.settings);
  }

  /** Checks every frame of a buffer as `frames` reads them, without values. */
  validateAll(input: Uint8Array): void {
    validateFrames(this.layout.typeOffset, input, this.settings);
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
        out.push(dec.read(tape, k, this.plan));
        k = dec.next;
      }
      return out;
    } finally {
      dec.end();
    }
  }
}
