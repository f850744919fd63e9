// Encoded sizes of fields that hold no message: what the writer's sizing pass adds up when it
// must know a size without writing (the exact size of a value refused as too large). Message
// values are sized by the writer's own traversal, never here, so nothing recurses.
import { ScalarType } from "@bufbuild/protobuf";
import { K_LIST, K_MAP } from "../message/field-info.js";
import type { FieldPlan } from "./plan.js";
import { int32Size, sint32Size, utf8Length, varint32Size, varint64Size, type WireWriter } from "./wire.js";

/** Payload bytes of one scalar whose size does not depend on its value (bool counts 1); 0 for the others. */
export function fixedScalarWidth(t: ScalarType): number {
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

/** Payload size of one scalar (no tag); strings and bytes include their length prefix. */
export function scalarSize(w: WireWriter, t: ScalarType, v: unknown): number {
  const fixed = fixedScalarWidth(t);
  if (fixed !== 0) return fixed;
  switch (t) {
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
      w.split64(v);
      w.zigzag64();
      return varint64Size(w.lo, w.hi);
    default:
      // INT64, UINT64
      w.split64(v);
      return varint64Size(w.lo, w.hi);
  }
}

/** Size of a packed payload (elements only, no tag or length). */
function packedSize(w: WireWriter, t: ScalarType, list: readonly unknown[]): number {
  let n = 0;
  for (let i = 0; i < list.length; i++) n += scalarSize(w, t, list[i]);
  return n;
}

/** The payload of a map entry of a scalar (or enum) value: key and value, both always written. */
export function scalarEntrySize(w: WireWriter, p: FieldPlan, k: unknown, v: unknown): number {
  return 2 + scalarSize(w, p.mapKey, k) + scalarSize(w, p.scalar, v);
}

/** Encoded size of a whole field whose value holds no message: tags included. */
export function fieldSize(w: WireWriter, p: FieldPlan, v: unknown): number {
  switch (p.kind) {
    case K_LIST: {
      const list = v as readonly unknown[];
      if (p.packed) {
        const n = packedSize(w, p.scalar, list);
        return p.tagSize + varint32Size(n) + n;
      }
      let n = p.tagSize * list.length;
      for (let i = 0; i < list.length; i++) n += scalarSize(w, p.scalar, list[i]);
      return n;
    }
    case K_MAP: {
      let n = 0;
      for (const [k, e] of v as Map<unknown, unknown>) {
        const s = scalarEntrySize(w, p, k, e);
        n += p.tagSize + varint32Size(s) + s;
      }
      return n;
    }
    default:
      return p.tagSize + scalarSize(w, p.scalar, v);
  }
}
