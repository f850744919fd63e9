// Unknown fields of a DynamicMessage: occurrences kept as raw encoded bytes, in stored order, so
// that decode → encode relays them byte for byte (docs/design.md §7, §8.1).
import { bytesEqual, bytesValue, DETACHED_BYTES, isBytes, isDetached } from "../bytes.js";
import { sourceDetached } from "../errors.js";
import { readOnlyMap } from "./read-only.js";

/**
 * One occurrence of an unknown field: its field number and the complete encoded field (the tag
 * varint followed by the payload, exactly as on the wire).
 */
export interface UnknownField {
  readonly number: number;
  readonly data: Uint8Array;
}

/**
 * A decoded occurrence whose bytes are `_store[_off .. _off + _len)` (the decoder's source copy or
 * a read-arena chunk, never written again), viewed only when `data` is first read. A typed-array
 * view costs ~100 bytes of heap: an entry of `{ number, data }` per occurrence made 2-byte
 * unknown fields cost 156 bytes of heap each (78x the input), so 64 MiB of them (one message
 * within the default maxMessageBytes, valid for any schema) exhausted Node's 4 GiB heap and
 * killed the process. Writers copy the range without making the view (see `unknownLength`).
 */
export class StoredUnknown implements UnknownField {
  readonly number: number;
  /** @internal */ _store: Uint8Array;
  /** @internal */ _off: number;
  /** @internal */ _len: number;

  constructor(number: number, store: Uint8Array, off: number, len: number) {
    this.number = number;
    this._store = store;
    this._off = off;
    this._len = len;
  }

  get data(): Uint8Array {
    const s = this._store;
    const o = this._off;
    const l = this._len;
    if (o === 0 && l === s.length) return s;
    // A detached store reads as empty (its subarray throws the engine's TypeError).
    if (s.length < o + l) throw sourceDetached(undefined, `unknown field ${this.number}`);
    // Frozen with the value that holds it (a deep-freeze of application state): not cached.
    if (!Object.isExtensible(this)) return s.subarray(o, o + l);
    this._off = 0;
    return (this._store = s.subarray(o, o + l));
  }
}

/** The encoded length of an occurrence, without making a view of a stored one. */
export function unknownLength(u: UnknownField): number {
  return u instanceof StoredUnknown ? u._len : u.data.length;
}

/** Public view: field number → raw encoded occurrences (tag + payload each), in stored order. */
export type UnknownFieldMap = ReadonlyMap<number, readonly Uint8Array[]>;

export const EMPTY_UNKNOWN: readonly UnknownField[] = Object.freeze([]);
const EMPTY_MAP: UnknownFieldMap = readOnlyMap(new Map());

/**
 * Field number → occurrences. `copies`: each occurrence a copy of its own, for handing out
 * (`unknownFields`): the stored bytes are the value's state, which a value written once is written
 * again from unchecked (a decoded one's are a view of its source bytes, which a relay copies), so
 * an occurrence rewritten through what was handed out was written as it was (a length past the
 * end, a declared field's tag).
 */
export function unknownFieldMap(list: readonly UnknownField[], copies = false): UnknownFieldMap {
  // Handed out (`copies`), even an empty map is one of its own: see defaultOf in dynamic-message.ts.
  if (list.length === 0 && !copies) return EMPTY_MAP;
  const m = new Map<number, Uint8Array[]>();
  for (const u of list) {
    const d = copies ? new Uint8Array(u.data) : u.data;
    const arr = m.get(u.number);
    if (arr === undefined) m.set(u.number, [d]);
    else arr.push(d);
  }
  for (const arr of m.values()) Object.freeze(arr);
  return m;
}

/**
 * Reads application input for `setUnknownFields`: a `Map` or an iterable of
 * `[number, Uint8Array[]]` entries, each occurrence copied. Wire well-formedness is checked when the value is written,
 * against the paired declaration (a CodecError there, not here).
 */
export function unknownFieldsFrom(input: unknown, typeName: string): readonly UnknownField[] {
  const where = `unknown fields of ${typeName}`;
  if (input === null || typeof input !== "object" || typeof (input as Iterable<unknown>)[Symbol.iterator] !== "function") {
    throw new TypeError(`${where} expect a Map of field number to Uint8Array[]`);
  }
  const out: UnknownField[] = [];
  for (const entry of input as Iterable<unknown>) {
    if (!Array.isArray(entry) || entry.length !== 2) {
      throw new TypeError(`${where} expect [number, Uint8Array[]] entries`);
    }
    const [num, occ] = entry as [unknown, unknown];
    if (typeof num !== "number" || !Number.isInteger(num)) {
      throw new TypeError(`${where} expect integer field numbers, got ${String(num)}`);
    }
    if (!Array.isArray(occ)) throw new TypeError(`${where} expect an array of Uint8Array for field ${num}`);
    for (const d of occ) {
      if (!isBytes(d)) throw new TypeError(`${where} expect an array of Uint8Array for field ${num}`);
      // Copying a detached array threw the engine's TypeError, which names nothing.
      if (isDetached(d)) throw new TypeError(`${where} expect an array of Uint8Array for field ${num}, got ${DETACHED_BYTES}`);
      // A copy: the caller's array stays the caller's (see unknownFieldMap).
      out.push({ number: num, data: new Uint8Array(bytesValue(d)) });
    }
  }
  return Object.freeze(out);
}

/** Equal when every field number has the same occurrences in the same order. */
export function unknownFieldsEqual(a: readonly UnknownField[], b: readonly UnknownField[]): boolean {
  if (a.length !== b.length) return false;
  if (a.length === 0) return true;
  const ma = unknownFieldMap(a);
  const mb = unknownFieldMap(b);
  if (ma.size !== mb.size) return false;
  for (const [n, occA] of ma) {
    const occB = mb.get(n);
    if (occB === undefined || occB.length !== occA.length) return false;
    for (let i = 0; i < occA.length; i++) if (!bytesEqual(occA[i]!, occB[i]!)) return false;
  }
  return true;
}

