// Field-value arrays of wide types. A DynamicMessage holds one slot per field of its type; for a
// type of thousands of fields (or a oneof of thousands of members) a dense array per value made N
// values of an N-field type cost N x N: 10,000 values of a 10,000-member oneof took 1.0-1.8 s
// to create and ~800 MB (measured, Node 20). A wide type's values start as an empty array
// instead: V8 stores an element written past a gap of 1,024 or more as a dictionary entry, so a
// value holds what it sets, and reading an unset slot still gives undefined. The loops that visit
// every field of a value (write, equals, toObject, toJson, the builder) visit a wide value's set
// slots only.

/**
 * Types with more fields than this get growing arrays and set-slot loops. It is V8's gap for
 * dictionary elements: below it a growing array is a fast one of at most this many slots, and a
 * loop over every field costs about as much as finding the set ones.
 */
export const WIDE = 1024;

/**
 * The values of a value with no field set, shared: a type without fields (google.protobuf.Empty,
 * markers), or a decoded sub-message with no field on the wire (src/codec/reader.ts). Reading
 * any slot gives undefined; it is frozen, so a write would throw instead of changing other
 * values. 32 bytes of heap less per such value (48 + 8 per field for a decoded one).
 */
export const NONE_SET: unknown[] = Object.freeze([]) as unknown as unknown[];

/** An empty values array for a type of `n` fields. */
export function newValues(n: number): unknown[] {
  return n > WIDE ? [] : n === 0 ? NONE_SET : new Array<unknown>(n);
}

/** The slots of `values` that hold a value, ascending. */
export function setSlots(values: readonly unknown[]): number[] {
  const out: number[] = [];
  let sorted = true;
  for (const k in values) {
    const i = +k;
    if (values[i] === undefined) continue;
    if (out.length > 0 && i < out[out.length - 1]!) sorted = false;
    out.push(i);
  }
  // for-in visits array indexes in ascending order (ES2020 fixed the order of ordinary objects'
  // keys, arrays included); an engine that did not would be sorted here.
  return sorted ? out : out.sort((a, b) => a - b);
}

/** A copy of the values array of a type of `n` fields. */
export function copyValues(values: readonly unknown[], n: number): unknown[] {
  if (n <= WIDE) return values.slice();
  const out: unknown[] = [];
  for (const i of setSlots(values)) out[i] = values[i];
  return out;
}

/**
 * For a wide type, each slot's position in an order of its fields (`order[pos].index === slot`);
 * undefined for a narrow one.
 */
export function positionsOf(order: readonly { readonly index: number }[]): Int32Array | undefined {
  if (order.length <= WIDE) return undefined;
  const pos = new Int32Array(order.length);
  for (let p = 0; p < order.length; p++) pos[order[p]!.index] = p;
  return pos;
}

/** The positions (see positionsOf) of the set slots of a wide value, ascending. */
export function setPositions(values: readonly unknown[], pos: Int32Array): Int32Array {
  const slots = setSlots(values);
  const out = new Int32Array(slots.length);
  for (let k = 0; k < slots.length; k++) out[k] = pos[slots[k]!]!;
  return out.sort();
}

/**
 * Per oneof, 1 + the slot of its set member (0 or absent: none), kept while a value is read: a
 * typed array for a type of few oneofs, a growing array past WIDE (proto3 `optional` fields are
 * oneofs of one member each, so a type of 10,000 of them has 10,000 oneofs).
 */
export type Cases = Int32Array | number[];

export function newCases(n: number): Cases {
  return n > WIDE ? [] : new Int32Array(n);
}
