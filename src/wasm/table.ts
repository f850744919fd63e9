// The layout table (format documented in assembly/table.ts, mirrored here) and its store: a
// master copy in JS that only grows, uploaded into linear memory before each core call that
// reads it (again in full after initWasm replaces the instance).

/** The byte offset (from the record's start) where its tag actions begin (assembly/table.ts). */
export const T_ACTIONS_WORD = 0;
export const T_DENSE_MAX_WORD = 1;
export const T_SPARSE_COUNT_WORD = 2;
export const T_LENGTH_WORD = 3;
export const T_HEADER_WORDS = 4;
/** Words per dense entry (A, B) and per sparse entry (number, A, B, 0). */
export const DENSE_ENTRY_WORDS = 2;
/** Word B of a 64-bit field held as a JS number (jstype = JS_NUMBER). */
export const B_JS_NUMBER = 1;
/** Bit of word B of a map field whose value is a message (assembly/table.ts; `b | B_MAP_MESSAGE` is its int32). */
export const B_MAP_MESSAGE = 0x80000000;
export const SPARSE_ENTRY_WORDS = 4;
/** Words of tag actions per dense number: one byte for each of its 8 wire types. */
export const TAG_ACTION_WORDS = 2;
export const ACT_SLOW = 0;
export const ACT_VARINT = 1;
export const ACT_FIXED64 = 2;
export const ACT_FIXED32 = 3;
export const ACT_LEN = 4;
export const ACT_STRING = 5;
export const ACT_MESSAGE = 6;

export const A_KIND_MASK = 31;
export const A_WIRE_SHIFT = 5;
export const A_PACKABLE = 1 << 8;
export const A_STRING = 1 << 9;
export const A_MESSAGE = 1 << 10;
export const A_REPEATED = 1 << 11;
export const A_SLOT_SHIFT = 12;
/** Slots fit in the 20 bits above A_SLOT_SHIFT. */
export const MAX_SLOTS = 1 << 20;

/** Kinds, numbered as FieldDescriptorProto.Type (so ScalarType values map to themselves). */
export const KIND_DOUBLE = 1;
export const KIND_FLOAT = 2;
export const KIND_INT64 = 3;
export const KIND_UINT64 = 4;
export const KIND_INT32 = 5;
export const KIND_FIXED64 = 6;
export const KIND_FIXED32 = 7;
export const KIND_BOOL = 8;
export const KIND_STRING = 9;
export const KIND_MESSAGE = 11;
export const KIND_BYTES = 12;
export const KIND_UINT32 = 13;
export const KIND_ENUM = 14;
export const KIND_SFIXED32 = 15;
export const KIND_SFIXED64 = 16;
export const KIND_SINT32 = 17;
export const KIND_SINT64 = 18;

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_LEN = 2;
export const WIRE_FIXED32 = 5;

/** The wire type each kind is written with (unpacked). */
export function wireTypeOf(kind: number): number {
  switch (kind) {
    case KIND_DOUBLE: case KIND_FIXED64: case KIND_SFIXED64: return WIRE_FIXED64;
    case KIND_FLOAT: case KIND_FIXED32: case KIND_SFIXED32: return WIRE_FIXED32;
    case KIND_STRING: case KIND_BYTES: case KIND_MESSAGE: return WIRE_LEN;
    default: return WIRE_VARINT;
  }
}

const KIND_NAMES: Record<number, string> = {
  1: "double", 2: "float", 3: "int64", 4: "uint64", 5: "int32", 6: "fixed64", 7: "fixed32",
  8: "bool", 9: "string", 11: "message", 12: "bytes", 13: "uint32", 14: "enum", 15: "sfixed32",
  16: "sfixed64", 17: "sint32", 18: "sint64",
};
export function kindName(kind: number): string {
  return KIND_NAMES[kind] ?? `kind ${kind}`;
}

/** What error messages need to name a type's fields (registered by src/codec/layout.ts). */
export interface TypeNames {
  readonly fullName: string;
  /** By slot: field name, number and kind. */
  readonly fields: readonly { readonly name: string; readonly number: number; readonly kind: number }[];
}

// The store: a master copy of every record, allocated first-fit from freed ranges, then at the
// end. Records are freed when the layouts that use them are collected (src/codec/layout.ts), so
// a process that restores serializers again and again reuses the same words instead of growing
// the table (and linear memory) forever. Only changed words are uploaded (`takeDirty`).
let words = new Int32Array(1024);
let length = 0;
const names = new Map<number, TypeNames>();
const sizes = new Map<number, number>();
/** Freed ranges [start, count], by start; adjacent ranges are merged. */
const free: [number, number][] = [];
let dirtyLo = Infinity;
let dirtyHi = 0;

/** Reserves `count` words for a type record; returns its word offset. */
export function allocTypeRecord(count: number, info: TypeNames): number {
  let at = -1;
  for (let i = 0; i < free.length; i++) {
    const r = free[i]!;
    if (r[1] < count) continue;
    at = r[0];
    if (r[1] === count) free.splice(i, 1);
    else {
      r[0] += count;
      r[1] -= count;
    }
    break;
  }
  if (at < 0) {
    at = length;
    if (at + count > words.length) {
      let n = words.length * 2;
      while (n < at + count) n *= 2;
      const next = new Int32Array(n);
      next.set(words.subarray(0, length));
      words = next;
    }
    length += count;
  }
  names.set(at, info);
  sizes.set(at, count);
  return at;
}

/** Writes a type record's words (after allocTypeRecord). */
export function writeTypeRecord(at: number, record: ArrayLike<number>): void {
  words.set(record, at);
  if (at < dirtyLo) dirtyLo = at;
  if (at + record.length > dirtyHi) dirtyHi = at + record.length;
}

/** Gives a record's words back; nothing may use its offset afterwards. */
export function freeTypeRecord(at: number): void {
  const count = sizes.get(at);
  if (count === undefined) return;
  sizes.delete(at);
  names.delete(at);
  let i = 0;
  while (i < free.length && free[i]![0] < at) i++;
  free.splice(i, 0, [at, count]);
  // Merge with the next, then with the previous range.
  const r = free[i]!;
  const next = free[i + 1];
  if (next !== undefined && r[0] + r[1] === next[0]) {
    r[1] += next[1];
    free.splice(i + 1, 1);
  }
  const prev = free[i - 1];
  if (prev !== undefined && prev[0] + prev[1] === r[0]) {
    prev[1] += r[1];
    free.splice(i, 1);
  }
  // A free range at the end shrinks the table instead.
  const last = free[free.length - 1];
  if (last !== undefined && last[0] + last[1] === length) {
    length = last[0];
    free.pop();
  }
}

/** Words in use, up to the last live record: the bound the core checks offsets against. */
export function tableLength(): number {
  return length;
}
export function tableWords(): Int32Array {
  return words;
}
export function typeNames(offset: number): TypeNames | undefined {
  return names.get(offset);
}
/** Live records and their words (tests of reclamation). */
export function tableStats(): { records: number; words: number; freeRanges: number } {
  let used = 0;
  for (const n of sizes.values()) used += n;
  return { records: sizes.size, words: used, freeRanges: free.length };
}

/** Whether any word was written since the last takeDirty (checked per core call without allocating). */
export function tableDirty(): boolean {
  return dirtyLo !== Infinity;
}

/**
 * The range of words written since the last call, [lo, hi), and forgets it; everything when
 * `all` (a new instance starts with an empty table).
 */
export function takeDirty(all: boolean): [number, number] {
  const r: [number, number] = all ? [0, length] : [dirtyLo === Infinity ? 0 : dirtyLo, Math.min(dirtyHi, length)];
  dirtyLo = Infinity;
  dirtyHi = 0;
  return r;
}
