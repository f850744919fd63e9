// The read path (DESIGN §8.3, §13): one WASM call validates the input against the layout table
// and writes a tape; this file walks the tape once, forward, and builds DynamicMessage values
// through the decoder's fast constructor. It never decodes a varint: scalars come decoded,
// strings as byte ranges (ASCII messages are decoded once and sliced), packed runs as aligned
// element arrays in linear memory.
import { ScalarType, type DescMessage } from "@bufbuild/protobuf";
import type { Settings } from "../settings.js";
import { DynamicMessage } from "../message/dynamic-message.js";
import { K_ENUM, K_LIST, K_MAP, K_MESSAGE, L_NUMBER, L_STRING, messageInfo } from "../message/field-info.js";
import { EMPTY_BYTES, isImplicitZero, scalarZero } from "../message/coerce.js";
import type { UnknownField } from "../message/unknown-fields.js";
import { views } from "../wasm/memory.js";
import { walkFrames, walkMessage, type TapeResult } from "../wasm/ops.js";
import {
  F_ASCII,
  F_ASCII_TREE,
  FLAG_SHIFT,
  OP_BYTES,
  OP_END,
  OP_FIXED32,
  OP_FIXED64,
  OP_PACKED,
  OP_START,
  OP_UNKNOWN,
  OP_VARINT,
  SLOT_SHIFT,
} from "../wasm/tape.js";
import { layoutOf, type MessageLayout } from "./layout.js";
import { allocOutput } from "./writer.js";

// How a slot's value is stored in its message's values array.
const S_IMPLICIT = 0; // singular, implicit presence: zero means absent
const S_EXPLICIT = 1; // singular with presence (optional, oneof member, message)
const S_LIST = 2;
const S_MAP = 3; // the slot opens map entries
const S_ENTRY = 4; // key or value inside a map entry

interface SlotPlan {
  /** ScalarType, or ScalarType.INT32 for enums, or 0 for a message. */
  readonly scalar: number;
  readonly store: number;
  /** L_BIGINT / L_STRING / L_NUMBER for 64-bit values. */
  readonly long: number;
  /** Other members of the slot's oneof (cleared when this one is set). */
  readonly others: readonly number[] | undefined;
  /** Child plan of a message-valued slot (a message type or a map entry type). */
  child: ReadPlan | undefined;
}

interface ReadPlan {
  readonly layout: MessageLayout;
  /** undefined for a map entry type. */
  readonly desc: DescMessage | undefined;
  readonly slots: SlotPlan[];
  /** For map entry types: the key's scalar type and the value's zero. */
  readonly keyScalar: number;
}

const plans = new WeakMap<MessageLayout, ReadPlan>();

function planFor(layout: MessageLayout): ReadPlan {
  let plan = plans.get(layout);
  if (plan !== undefined) return plan;
  const slots: SlotPlan[] = [];
  plan = { layout, desc: layout.desc, slots, keyScalar: 0 };
  plans.set(layout, plan);
  if (layout.desc !== undefined) {
    const info = messageInfo(layout.desc);
    for (const lf of layout.fields) {
      const fi = info.fields[lf.slot]!;
      const scalar = fi.elemKind === K_MESSAGE ? 0 : fi.elemKind === K_ENUM ? ScalarType.INT32 : (fi.scalar as number);
      let store = fi.explicit ? S_EXPLICIT : S_IMPLICIT;
      if (fi.kind === K_LIST) store = S_LIST;
      else if (fi.kind === K_MAP) store = S_MAP;
      const others = fi.oneof >= 0 ? info.oneofs[fi.oneof]!.members.filter((m) => m !== fi).map((m) => m.index) : undefined;
      slots.push({ scalar, store, long: fi.kind === K_MAP ? 0 : fi.long, others, child: undefined });
    }
  } else {
    const f = layout.mapField!;
    const keyScalar = f.fieldKind === "map" ? f.mapKey : ScalarType.STRING;
    (plan as { keyScalar: number }).keyScalar = keyScalar;
    slots.push({ scalar: keyScalar, store: S_ENTRY, long: 0, others: undefined, child: undefined });
    const valueScalar = f.fieldKind === "map" ? (f.mapKind === "message" ? 0 : f.mapKind === "enum" ? ScalarType.INT32 : f.scalar) : 0;
    slots.push({ scalar: valueScalar, store: S_ENTRY, long: 0, others: undefined, child: undefined });
  }
  for (const lf of layout.fields) {
    if (lf.message !== undefined) slots[lf.slot]!.child = planFor(lf.message);
  }
  return plan;
}

const latin1 = new TextDecoder("latin1");
const utf8 = new TextDecoder("utf-8");

// Below this length a char-code loop beats a TextDecoder call for ASCII strings.
const SHORT_ASCII = 16;

function asciiString(input: Uint8Array, off: number, len: number): string {
  if (len < SHORT_ASCII) {
    let s = "";
    for (let i = 0; i < len; i++) s += String.fromCharCode(input[off + i]!);
    return s;
  }
  return latin1.decode(input.subarray(off, off + len));
}

function long(big: bigint, mode: number): unknown {
  return mode === L_NUMBER ? Number(big) : mode === L_STRING ? String(big) : big;
}


/** One open message while the tape is walked. */
class Frame {
  plan: ReadPlan;
  values: unknown[];
  unknown: UnknownField[] | undefined;
  /** Slot in the parent that opened this message. */
  slot: number;
  constructor(plan: ReadPlan, slot: number) {
    this.plan = plan;
    this.values = new Array(plan.slots.length);
    this.unknown = undefined;
    this.slot = slot;
  }
}

/** Merges a later occurrence of a singular message field into the earlier one (protobuf rule). */
function mergeMessages(a: DynamicMessage, b: DynamicMessage): DynamicMessage {
  const info = messageInfo(a.descriptor);
  const v = a._v.slice();
  for (const fi of info.fields) {
    const x = b._v[fi.index];
    if (x === undefined) continue;
    const cur = v[fi.index];
    if (cur === undefined) {
      if (fi.oneof >= 0) for (const m of info.oneofs[fi.oneof]!.members) v[m.index] = undefined;
      v[fi.index] = x;
    } else if (fi.kind === K_LIST) v[fi.index] = [...(cur as unknown[]), ...(x as unknown[])];
    else if (fi.kind === K_MAP) v[fi.index] = new Map([...(cur as Map<unknown, unknown>), ...(x as Map<unknown, unknown>)]);
    else if (fi.kind === K_MESSAGE) v[fi.index] = mergeMessages(cur as DynamicMessage, x as DynamicMessage);
    else v[fi.index] = x;
  }
  const u = a._u.length === 0 ? b._u : b._u.length === 0 ? a._u : [...a._u, ...b._u];
  return DynamicMessage._fromDecoded(a.descriptor, v, u, undefined);
}

export interface ReadOptions {
  readonly settings: Settings;
}

/**
 * Builds values from a tape. `input` is the JS-side input the offsets refer to. `keepSource`
 * makes each root keep a copy of its bytes for the relay path.
 */
class TapeDecoder {
  private readonly input: Uint8Array;
  private readonly alias: number;
  private text: string | undefined = undefined;
  private textStart = 0;
  private textEnd = 0;

  constructor(input: Uint8Array, settings: Settings) {
    this.input = input;
    this.alias = settings.aliasThreshold;
  }

  private str(off: number, len: number, flags: number): string {
    if (len === 0) return "";
    if ((flags & F_ASCII) !== 0) {
      if (this.text !== undefined && off >= this.textStart && off + len <= this.textEnd) {
        return this.text.substring(off - this.textStart, off - this.textStart + len);
      }
      return asciiString(this.input, off, len);
    }
    return utf8.decode(this.input.subarray(off, off + len));
  }

  private bytes(off: number, len: number): Uint8Array {
    if (len === 0) return EMPTY_BYTES;
    if (this.alias > 0 && len >= this.alias) return this.input.subarray(off, off + len);
    const out = allocOutput(len);
    out.set(this.input.subarray(off, off + len));
    return out;
  }

  /** Reads the message whose START is entry `k` of `tape`; returns [value, index after END]. */
  read(tape: TapeResult, k: number, root: ReadPlan): [DynamicMessage, number] {
    // The root keeps a copy of its bytes (cut from the output slab) for the relay path.
    const u32 = views.u32;
    const i32 = views.i32;
    const f32 = views.f32;
    const f64 = views.f64;
    const i64 = views.i64;
    const u64 = views.u64;
    const start = tape.start;
    const stack: Frame[] = [];
    let cur = new Frame(root, 0);
    // The root's body: decode it once as latin1 when every string in the tree is ASCII.
    let e = start + 4 * k;
    const rootOff = u32[e + 2]!;
    const rootLen = u32[e + 3]!;
    const rootFlags = (u32[e]! >>> FLAG_SHIFT) & 0xf;
    if ((rootFlags & F_ASCII_TREE) !== 0 && rootLen > 0) {
      this.text = latin1.decode(this.input.subarray(rootOff, rootOff + rootLen));
      this.textStart = rootOff;
      this.textEnd = rootOff + rootLen;
    } else this.text = undefined;
    k++;
    for (;;) {
      e = start + 4 * k;
      const w0 = u32[e]!;
      const op = w0 & 0xf;
      const slot = w0 >>> SLOT_SHIFT;
      k++;
      if (op === OP_END) {
        const plan = cur.plan;
        if (stack.length === 0) {
          const src = allocOutput(rootLen);
          src.set(this.input.subarray(rootOff, rootOff + rootLen));
          return [DynamicMessage._fromDecoded(plan.desc!, cur.values, cur.unknown, src), k];
        }
        const value = plan.desc !== undefined ? DynamicMessage._fromDecoded(plan.desc, cur.values, cur.unknown, undefined) : undefined;
        const done = cur;
        cur = stack.pop()!;
        if (value === undefined) this.putEntry(cur, done);
        else this.setValue(cur, done.slot, value);
        continue;
      }
      if (op === OP_START) {
        stack.push(cur);
        cur = new Frame(cur.plan.slots[slot]!.child!, slot);
        continue;
      }
      const sp = cur.plan.slots[slot];
      let v: unknown;
      switch (op) {
        case OP_VARINT:
          switch (sp!.scalar) {
            case ScalarType.BOOL:
              v = u32[e + 2] !== 0;
              break;
            case ScalarType.UINT32:
              v = u32[e + 2]!;
              break;
            case ScalarType.INT64:
            case ScalarType.SINT64:
              v = long(i64[(e >>> 1) + 1]!, sp!.long);
              break;
            case ScalarType.UINT64:
              v = long(u64[(e >>> 1) + 1]!, sp!.long);
              break;
            default:
              v = i32[e + 2]!;
          }
          break;
        case OP_FIXED32:
          v = sp!.scalar === ScalarType.FLOAT ? f32[e + 2]! : sp!.scalar === ScalarType.SFIXED32 ? i32[e + 2]! : u32[e + 2]!;
          break;
        case OP_FIXED64:
          if (sp!.scalar === ScalarType.DOUBLE) v = f64[(e >>> 1) + 1]!;
          else if (sp!.scalar === ScalarType.SFIXED64) v = long(i64[(e >>> 1) + 1]!, sp!.long);
          else v = long(u64[(e >>> 1) + 1]!, sp!.long);
          break;
        case OP_BYTES:
          v =
            sp!.scalar === ScalarType.STRING
              ? this.str(u32[e + 2]!, u32[e + 3]!, (w0 >>> FLAG_SHIFT) & 0xf)
              : this.bytes(u32[e + 2]!, u32[e + 3]!);
          break;
        case OP_PACKED:
          this.packed(cur, slot, sp!, u32[e + 1]!, u32[e + 2]!);
          continue;
        case OP_UNKNOWN: {
          const off = u32[e + 2]!;
          const len = u32[e + 3]!;
          const out = allocOutput(len);
          out.set(this.input.subarray(off, off + len));
          (cur.unknown ??= []).push({ number: u32[e + 1]!, data: out });
          continue;
        }
        default:
          throw new Error(`protokeel bug: unknown tape op ${op}`);
      }
      this.setValue(cur, slot, v);
    }
  }

  private setValue(f: Frame, slot: number, v: unknown): void {
    const sp = f.plan.slots[slot]!;
    const values = f.values;
    switch (sp.store) {
      case S_IMPLICIT:
        values[slot] = isImplicitZero(sp.scalar as ScalarType, v) ? undefined : v;
        return;
      case S_LIST: {
        const list = values[slot] as unknown[] | undefined;
        if (list === undefined) values[slot] = [v];
        else list.push(v);
        return;
      }
      case S_ENTRY:
        values[slot] = v;
        return;
      default: {
        if (sp.others !== undefined) for (const o of sp.others) values[o] = undefined;
        const prev = values[slot];
        values[slot] = prev instanceof DynamicMessage ? mergeMessages(prev, v as DynamicMessage) : v;
      }
    }
  }

  private putEntry(parent: Frame, entry: Frame): void {
    const plan = entry.plan;
    const vs = entry.values;
    let key = vs[0];
    if (key === undefined) key = scalarZero(plan.keyScalar as ScalarType, 0);
    let value = vs[1];
    if (value === undefined) {
      const valuePlan = plan.slots[1]!;
      value =
        valuePlan.child !== undefined
          ? DynamicMessage.getDefaultInstance(valuePlan.child.desc!)
          : scalarZero(valuePlan.scalar as ScalarType, 0);
    }
    let map = parent.values[entry.slot] as Map<unknown, unknown> | undefined;
    if (map === undefined) parent.values[entry.slot] = map = new Map();
    map.set(key, value);
  }

  private packed(f: Frame, slot: number, sp: SlotPlan, count: number, addr: number): void {
    if (count === 0) return;
    let list = f.values[slot] as unknown[] | undefined;
    if (list === undefined) f.values[slot] = list = [];
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
      case ScalarType.SFIXED64: {
        const a = views.i64;
        const m = sp.long;
        for (let i = 0; i < count; i++) {
          const b = a[at8 + i]!;
          list.push(m === L_NUMBER ? Number(b) : m === L_STRING ? String(b) : b);
        }
        return;
      }
      case ScalarType.UINT64:
      case ScalarType.FIXED64: {
        const a = views.u64;
        const m = sp.long;
        for (let i = 0; i < count; i++) {
          const b = a[at8 + i]!;
          list.push(m === L_NUMBER ? Number(b) : m === L_STRING ? String(b) : b);
        }
        return;
      }
      default: {
        const a = views.i32;
        for (let i = 0; i < count; i++) list.push(a[at + i]!);
      }
    }
  }
}

/** Decodes one bare message of `root`. Throws CodecError for malformed input or a limit. */
export function decodeMessage(root: DescMessage, input: Uint8Array, settings: Settings): DynamicMessage {
  const layout = layoutOf(root);
  const tape = walkMessage(layout.typeOffset, input, settings);
  return new TapeDecoder(input, settings).read(tape, 0, planFor(layout))[0];
}

/** Decodes every frame of a framing-v1 buffer in one core call. */
export function decodeFrames(root: DescMessage, input: Uint8Array, settings: Settings): DynamicMessage[] {
  const layout = layoutOf(root);
  const tape = walkFrames(layout.typeOffset, input, settings);
  const plan = planFor(layout);
  const dec = new TapeDecoder(input, settings);
  const out: DynamicMessage[] = [];
  let k = 0;
  while (k < tape.count) {
    const [value, next] = dec.read(tape, k, plan);
    out.push(value);
    k = next;
  }
  return out;
}
