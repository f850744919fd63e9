// Encoded sizes of DynamicMessage values, memoized on the (immutable) value: the deterministic
// writer sizes a tree before writing it, and the one-pass writer copies an already accepted value
// (re-written or decoded) from its memoized size without walking it for checks.
import { ScalarType } from "@bufbuild/protobuf";
import { K_LIST, K_MAP, K_MESSAGE } from "../message/field-info.js";
import type { DynamicMessage } from "../message/dynamic-message.js";
import { childPlan, planOf, type FieldPlan } from "./plan.js";
import {
  int32Size,
  packedVarint64Size,
  sint32Size,
  split64,
  utf8Length,
  varint32Size,
  varint64Size,
  zigzag64,
} from "./wire.js";

/** Payload size of one scalar (no tag); strings and bytes include their length prefix. */
export function scalarSize(t: ScalarType, v: unknown): number {
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
    case ScalarType.INT32:
      return int32Size(v as number);
    case ScalarType.UINT32:
      return varint32Size(v as number);
    case ScalarType.SINT32:
      return sint32Size(v as number);
    case ScalarType.STRING: {
      const n = utf8Length(v as string);
      return varint32Size(n) + n;
    }
    case ScalarType.BYTES: {
      const n = (v as Uint8Array).length;
      return varint32Size(n) + n;
    }
    case ScalarType.SINT64:
      split64(v);
      zigzag64();
      return varint64Size();
    default:
      // INT64, UINT64
      split64(v);
      return varint64Size();
  }
}

/** Size of the packed payload (elements only, no tag or length). */
export function packedSize(t: ScalarType, list: readonly unknown[]): number {
  switch (t) {
    case ScalarType.DOUBLE:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      return list.length * 8;
    case ScalarType.FLOAT:
    case ScalarType.FIXED32:
    case ScalarType.SFIXED32:
      return list.length * 4;
    case ScalarType.BOOL:
      return list.length;
    default: {
      // Varint runs are sized once per (immutable) list: the writer needs the size again for
      // the length prefix, and 64-bit elements are the costly ones.
      const long = list.length >= 16;
      if (long) {
        const memo = packedSizes.get(list);
        if (memo !== undefined) return memo;
      }
      let n = 0;
      const first = list[0];
      if (typeof first === "bigint" && (t === ScalarType.INT64 || t === ScalarType.UINT64 || t === ScalarType.SINT64)) {
        n = packedVarint64Size(list, t === ScalarType.SINT64);
      } else if (t === ScalarType.INT32) {
        // int32 and enums (short lists are common): one loop without the per-element type switch.
        // `| 0`: see Sink.packedVarint32 (lists may hold unboxed doubles).
        for (let i = 0; i < list.length; i++) {
          const v = (list[i] as number) | 0;
          n += v < 0 ? 10 : varint32Size(v);
        }
      } else if (t === ScalarType.SINT32) {
        for (let i = 0; i < list.length; i++) {
          const v = (list[i] as number) | 0;
          n += varint32Size(((v << 1) ^ (v >> 31)) >>> 0);
        }
      } else if (t === ScalarType.UINT32) {
        for (let i = 0; i < list.length; i++) n += varint32Size((list[i] as number) >>> 0);
      } else {
        for (let i = 0; i < list.length; i++) n += scalarSize(t, list[i]);
      }
      if (long) packedSizes.set(list, n);
      return n;
    }
  }
}

const packedSizes = new WeakMap<readonly unknown[], number>();

function elemSize(p: FieldPlan, v: unknown, det: boolean): number {
  if (p.elemKind === K_MESSAGE) {
    const n = sizeOf(v as DynamicMessage, det, p);
    return varint32Size(n) + n;
  }
  return scalarSize(p.scalar, v);
}

/** Size of a map entry's payload (key and value, both always written). */
export function entrySize(p: FieldPlan, k: unknown, v: unknown, det: boolean): number {
  return 2 + scalarSize(p.mapKey, k) + elemSize(p, v, det);
}

export function fieldSize(p: FieldPlan, v: unknown, det: boolean): number {
  switch (p.kind) {
    case K_LIST: {
      const list = v as readonly unknown[];
      if (p.packed) {
        const n = packedSize(p.scalar, list);
        return p.tagSize + varint32Size(n) + n;
      }
      let n = p.tagSize * list.length;
      for (let i = 0; i < list.length; i++) n += elemSize(p, list[i], det);
      return n;
    }
    case K_MAP: {
      let n = 0;
      for (const [k, e] of v as Map<unknown, unknown>) {
        const s = entrySize(p, k, e, det);
        n += p.tagSize + varint32Size(s) + s;
      }
      return n;
    }
    case K_MESSAGE: {
      const s = sizeOf(v as DynamicMessage, det, p);
      return p.tagSize + varint32Size(s) + s;
    }
    default:
      return p.tagSize + scalarSize(p.scalar, v);
  }
}

/**
 * Encoded size of a message body (no tag, no length). With `det` false a value that carries its
 * source bytes is written as those bytes (the relay path), so its size is theirs.
 */
export function sizeOf(msg: DynamicMessage, det: boolean, via?: FieldPlan): number {
  if (det) {
    if (msg._sizeD >= 0) return msg._sizeD;
  } else {
    if (msg._size >= 0) return msg._size;
    if (msg._src !== undefined) return (msg._size = msg._src.length);
  }
  const plan = via === undefined ? planOf(msg.descriptor) : childPlan(via, msg.descriptor);
  const values = msg._v;
  const fields = plan.fields;
  let n = 0;
  for (let i = 0; i < fields.length; i++) {
    const p = fields[i]!;
    const v = values[p.index];
    if (v !== undefined) n += fieldSize(p, v, det);
  }
  const u = msg._u;
  for (let i = 0; i < u.length; i++) n += u[i]!.data.length;
  if (det) msg._sizeD = n;
  else msg._size = n;
  return n;
}
