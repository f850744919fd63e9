// DynamicMessage#toObject: a plain object keyed by proto field names, for printing and tests.
// Built top-down with an explicit stack (any depth maxDepth allows). Keys are own data properties
// even when a field or map key is named `__proto__`: assigning that name would set the result's
// prototype instead (and drop the field).
import type { DynamicMessage } from "./dynamic-message.js";
import { K_LIST, K_MAP, K_MESSAGE, messageInfo, type FieldInfo } from "./field-info.js";
import { setSlots, WIDE } from "./values.js";

type Plain = Record<string, unknown>;

function setOwn(o: Plain, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  else o[key] = value;
}

/** A field's default as toObject shows it (absent explicit fields are left out). */
export type DefaultOf = (fi: FieldInfo) => unknown;

const implicitOf = new WeakMap<readonly FieldInfo[], number[]>();

/**
 * The slots a wide type's value shows, ascending: its set fields and the implicit-presence ones
 * (shown with their default), merged. A oneof of thousands of members shows one.
 */
function shownSlots(fields: readonly FieldInfo[], values: readonly unknown[]): number[] {
  let implicit = implicitOf.get(fields);
  if (implicit === undefined) {
    implicit = [];
    for (const fi of fields) if (!fi.explicit) implicit.push(fi.index);
    implicitOf.set(fields, implicit);
  }
  const set = setSlots(values);
  const out: number[] = [];
  let a = 0;
  let b = 0;
  while (a < set.length || b < implicit.length) {
    const x = a < set.length ? set[a]! : Infinity;
    const y = b < implicit.length ? implicit[b]! : Infinity;
    if (x <= y) a++;
    if (y <= x) b++;
    out.push(Math.min(x, y));
  }
  return out;
}

export function toPlainObject(root: DynamicMessage, defaultOf: DefaultOf): Plain {
  const out: Plain = {};
  const pending: [DynamicMessage, Plain][] = [[root, out]];
  // A nested message becomes an empty object now and is filled when its turn comes.
  const plain = (m: unknown): Plain => {
    const o: Plain = {};
    pending.push([m as DynamicMessage, o]);
    return o;
  };
  while (pending.length > 0) {
    const [msg, o] = pending.pop()!;
    const values = msg._values;
    const fields = messageInfo(msg.descriptor).fields;
    const slots = fields.length <= WIDE ? undefined : shownSlots(fields, values);
    const n = slots === undefined ? fields.length : slots.length;
    for (let k = 0; k < n; k++) {
      const fi = fields[slots === undefined ? k : slots[k]!]!;
      const v = values[fi.index];
      const messages = fi.elemKind === K_MESSAGE;
      if (v === undefined) {
        if (fi.explicit) continue;
        setOwn(o, fi.name, fi.kind === K_LIST ? [] : fi.kind === K_MAP ? {} : defaultOf(fi));
        continue;
      }
      if (fi.kind === K_LIST) {
        const list = v as unknown[];
        setOwn(o, fi.name, messages ? list.map(plain) : list.slice());
      } else if (fi.kind === K_MAP) {
        const m: Plain = {};
        for (const [k, e] of v as Map<unknown, unknown>) setOwn(m, String(k), messages ? plain(e) : e);
        setOwn(o, fi.name, m);
      } else setOwn(o, fi.name, messages ? plain(v) : v);
    }
  }
  return out;
}

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** Standard base64 with padding, on every runtime (no Buffer, no btoa). */
export function base64(b: Uint8Array): string {
  let out = "";
  let i = 0;
  for (; i + 2 < b.length; i += 3) {
    const n = (b[i]! << 16) | (b[i + 1]! << 8) | b[i + 2]!;
    out += B64[n >>> 18]! + B64[(n >>> 12) & 63]! + B64[(n >>> 6) & 63]! + B64[n & 63]!;
  }
  if (i < b.length) {
    const n = (b[i]! << 16) | ((i + 1 < b.length ? b[i + 1]! : 0) << 8);
    out += B64[n >>> 18]! + B64[(n >>> 12) & 63]! + (i + 1 < b.length ? B64[(n >>> 6) & 63]! : "=") + "=";
  }
  return out;
}

/**
 * A toObject result made JSON-safe in place: 64-bit integers as decimal strings, bytes as
 * base64, NaN and infinities as "NaN", "Infinity", "-Infinity" (what ProtoJSON writes for them).
 */
export function jsonSafe(o: unknown): unknown {
  switch (typeof o) {
    case "bigint":
      return o.toString();
    case "number":
      return Number.isFinite(o) ? o : String(o);
    case "object": {
      if (o === null) return o;
      if (o instanceof Uint8Array) return base64(o);
      if (Array.isArray(o)) {
        for (let i = 0; i < o.length; i++) o[i] = jsonSafe(o[i]);
        return o;
      }
      const r = o as Plain;
      for (const k of Object.keys(r)) setOwn(r, k, jsonSafe(r[k]));
      return r;
    }
    default:
      return o;
  }
}
