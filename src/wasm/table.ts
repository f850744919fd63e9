// The layout table (format documented in assembly/table.ts, mirrored here) and its store: a
// master copy in JS that only grows, uploaded into linear memory before each core call that
// reads it (again in full after initWasm replaces the instance).

export const T_SLOTS = 0;
export const T_DENSE_MAX = 1;
export const T_SPARSE_COUNT = 2;
export const T_WORDS = 3;
export const T_HEADER_WORDS = 4;
/** Words per dense entry (A, B) and per sparse entry (number, A, B, 0). */
export const DENSE_ENTRY_WORDS = 2;
export const SPARSE_ENTRY_WORDS = 4;

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
export const K_DOUBLE = 1;
export const K_FLOAT = 2;
export const K_INT64 = 3;
export const K_UINT64 = 4;
export const K_INT32 = 5;
export const K_FIXED64 = 6;
export const K_FIXED32 = 7;
export const K_BOOL = 8;
export const K_STRING = 9;
export const K_MESSAGE = 11;
export const K_BYTES = 12;
export const K_UINT32 = 13;
export const K_ENUM = 14;
export const K_SFIXED32 = 15;
export const K_SFIXED64 = 16;
export const K_SINT32 = 17;
export const K_SINT64 = 18;

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_LEN = 2;
export const WIRE_FIXED32 = 5;

/** The wire type each kind is written with (unpacked). */
export function wireTypeOf(kind: number): number {
  switch (kind) {
    case K_DOUBLE: case K_FIXED64: case K_SFIXED64: return WIRE_FIXED64;
    case K_FLOAT: case K_FIXED32: case K_SFIXED32: return WIRE_FIXED32;
    case K_STRING: case K_BYTES: case K_MESSAGE: return WIRE_LEN;
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

let words = new Int32Array(1024);
let length = 0;
const names = new Map<number, TypeNames>();

/** Reserves `count` words for a type record; returns its word offset. */
export function allocTypeRecord(count: number, info: TypeNames): number {
  const at = length;
  if (at + count > words.length) {
    let n = words.length * 2;
    while (n < at + count) n *= 2;
    const next = new Int32Array(n);
    next.set(words.subarray(0, length));
    words = next;
  }
  length += count;
  names.set(at, info);
  return at;
}

/** Writes a type record's words (after allocTypeRecord). */
export function writeTypeRecord(at: number, record: ArrayLike<number>): void {
  words.set(record, at);
}

export function tableLength(): number {
  return length;
}
export function tableWords(): Int32Array {
  return words;
}
export function typeNames(offset: number): TypeNames | undefined {
  return names.get(offset);
}
