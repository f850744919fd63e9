// Equality of DynamicMessage values: same descriptor instance and equal content, unknown fields
// included. Nested messages are compared with an explicit stack (any depth maxDepth allows).
import type { DynamicMessage } from "./dynamic-message.js";
import { K_LIST, K_MAP, K_MESSAGE, messageInfo, type FieldInfo } from "./field-info.js";
import { bytesEqual } from "../bytes.js";
import { unknownFieldsEqual } from "./unknown-fields.js";
import { setSlots, WIDE } from "./values.js";

function scalarEq(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === "number" && typeof b === "number") return a !== a && b !== b; // NaN equals NaN
  if (a instanceof Uint8Array && b instanceof Uint8Array) return bytesEqual(a, b);
  return false;
}

/**
 * Compares one field of two values; message pairs found on the way are pushed on `pending`
 * (compared later) instead of compared here. False on a difference found now.
 */
function fieldEq(fi: FieldInfo, a: unknown, b: unknown, pending: DynamicMessage[]): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  const messages = fi.elemKind === K_MESSAGE;
  switch (fi.kind) {
    case K_LIST: {
      const x = a as unknown[];
      const y = b as unknown[];
      if (x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) {
        if (messages) {
          if (x[i] !== y[i]) pending.push(x[i] as DynamicMessage, y[i] as DynamicMessage);
        } else if (!scalarEq(x[i], y[i])) return false;
      }
      return true;
    }
    case K_MAP: {
      const x = a as Map<unknown, unknown>;
      const y = b as Map<unknown, unknown>;
      if (x.size !== y.size) return false;
      for (const [k, v] of x) {
        if (!y.has(k)) return false;
        const w = y.get(k);
        if (messages) {
          if (v !== w) pending.push(v as DynamicMessage, w as DynamicMessage);
        } else if (!scalarEq(v, w)) return false;
      }
      return true;
    }
    case K_MESSAGE:
      pending.push(a as DynamicMessage, b as DynamicMessage);
      return true;
    default:
      return scalarEq(a, b);
  }
}

/** Same descriptor instance and equal content at every level. */
export function messagesEqual(first: DynamicMessage, second: DynamicMessage): boolean {
  const pending: DynamicMessage[] = [first, second];
  while (pending.length > 0) {
    const b = pending.pop()!;
    const a = pending.pop()!;
    if (a === b) continue;
    if (a.descriptor !== b.descriptor) return false;
    const fields = messageInfo(a.descriptor).fields;
    const va = a._values;
    const vb = b._values;
    if (fields.length <= WIDE) {
      for (let i = 0; i < fields.length; i++) if (!fieldEq(fields[i]!, va[i], vb[i], pending)) return false;
    } else {
      const sa = setSlots(va);
      const sb = setSlots(vb);
      if (sa.length !== sb.length) return false;
      for (let k = 0; k < sa.length; k++) {
        const i = sa[k]!;
        if (i !== sb[k] || !fieldEq(fields[i]!, va[i], vb[i], pending)) return false;
      }
    }
    if (!unknownFieldsEqual(a._unknown, b._unknown)) return false;
  }
  return true;
}
