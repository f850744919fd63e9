// The flat layout table that src/codec/layout.ts writes into linear memory (mirrored in
// src/wasm/table.ts). All values are little-endian u32 words. A message type is addressed by
// its word offset from the table base; the walker never sees a descriptor.
//
// Type record at word offset t:
//   t+0  byte offset of the tag actions from the record's start (4 * (4 + 2*(D+1) + 4*S))
//   t+1  denseMax D: numbers 1..D are looked up directly (one load), D >= 0
//   t+2  sparse count S: declared numbers above D, looked up by binary search
//   t+3  record length in words (4 + 2*(D+1) + 4*S + 2*min(max(D+1, 16), 2048))
//   t+4 + 2n, t+5 + 2n   dense entry for number n (0 <= n <= D): word A, word B; A = 0 = undeclared
//   t+4 + 2(D+1) + 4i .. +3   sparse entry i, ascending by number: number, word A, word B, 0
//   then the tag actions: one byte per tag (n << 3) | wire type for n < min(max(D+1, 16), 2048),
//   so every one-byte tag has one and so has every two-byte tag of a dense number: what
//   validate's lean loop does with a record of that tag (ACT_*).
//
// Word A (0 = the number is not declared):
//   bits 0-4   kind, numbered as FieldDescriptorProto.Type: 1 double, 2 float, 3 int64,
//              4 uint64, 5 int32, 6 fixed64, 7 fixed32, 8 bool, 9 string, 11 message,
//              12 bytes, 13 uint32, 14 enum, 15 sfixed32, 16 sfixed64, 17 sint32, 18 sint64
//   bits 5-7   expected wire type (0 varint, 1 fixed64, 2 length-delimited, 5 fixed32)
//   bit 8      PACKABLE: repeated numeric/enum, so wire type 2 is accepted as packed too
//   bit 9      STRING: length-delimited bytes must be valid UTF-8 (string, incl. map keys/values)
//   bit 10     MESSAGE: a nested message (or map entry) whose type is word B
//   bit 11     REPEATED (informational)
//   bits 12-31 slot: index of the field in the layout's field list (what the tape reports)
// Word B: for MESSAGE, the word offset of the nested type (a map field points at its entry
//   type: key = field 1, value = field 2), with bit 31 (B_MAP_MESSAGE) set for a map field whose
//   value is a message (an offset is under 2^30 words; `<< 2` to an address drops the bit);
//   B_JS_NUMBER for a 64-bit field held as a JS number (jstype = JS_NUMBER), whose values must
//   stay within ±(2^53 − 1); otherwise 0.
//
// The dense part covers small, dense numbers with one load; the sparse part keeps numbers up
// to 536,870,911 correct without a table of that size.

export const T_ACTIONS_BYTE: usize = 0;
export const T_DENSE_MAX_BYTE: usize = 4;
export const T_SPARSE_COUNT_BYTE: usize = 8;
export const T_LENGTH_BYTE: usize = 12;
export const T_HEADER_BYTES: usize = 16;

export const A_KIND_MASK: u32 = 31;
export const A_WIRE_SHIFT: u32 = 5;
export const A_PACKABLE: u32 = 1 << 8;
export const A_STRING: u32 = 1 << 9;
export const A_MESSAGE: u32 = 1 << 10;
export const A_REPEATED: u32 = 1 << 11;
export const A_SLOT_SHIFT: u32 = 12;

// Tag actions. A field's declared (unpacked) wire type gets the action of its kind; every other
// byte is ACT_SLOW: number 0, undeclared numbers, other wire types (packed runs too) and 64-bit
// fields held as JS numbers (word B = B_JS_NUMBER), whose values are checked. One load then
// replaces the entry's load and the declared-wire-type and word-B tests (src/codec/layout.ts
// tagAction writes them).
export const ACT_SLOW: u32 = 0;
export const ACT_VARINT: u32 = 1;
export const ACT_FIXED64: u32 = 2;
export const ACT_FIXED32: u32 = 3;
export const ACT_LEN: u32 = 4;
export const ACT_STRING: u32 = 5;
export const ACT_MESSAGE: u32 = 6;

/** Word B of a 64-bit field held as a JS number (jstype = JS_NUMBER). */
export const B_JS_NUMBER: u32 = 1;
/** Bit of word B of a map field whose entries' value is a message (see validate's heights). */
export const B_MAP_MESSAGE: u32 = 0x80000000;

/** Number.MAX_SAFE_INTEGER: the largest integer a JS number holds together with all below it. */
const MAX_SAFE: i64 = 0x1fffffffffffff;

/**
 * Whether a 64-bit field's value (zigzag already decoded) is a safe JS integer: beyond it a JS
 * number would round it, and the value read and written back would not be the wire value.
 */
@inline export function jsSafe(kind: u32, v: u64): bool {
  if (kind == KIND_UINT64 || kind == KIND_FIXED64) return v <= <u64>MAX_SAFE;
  let s = <i64>v;
  return s >= -MAX_SAFE && s <= MAX_SAFE;
}

export const KIND_DOUBLE: u32 = 1;
export const KIND_FLOAT: u32 = 2;
export const KIND_INT64: u32 = 3;
export const KIND_UINT64: u32 = 4;
export const KIND_INT32: u32 = 5;
export const KIND_FIXED64: u32 = 6;
export const KIND_FIXED32: u32 = 7;
export const KIND_BOOL: u32 = 8;
export const KIND_STRING: u32 = 9;
export const KIND_MESSAGE: u32 = 11;
export const KIND_BYTES: u32 = 12;
export const KIND_UINT32: u32 = 13;
export const KIND_ENUM: u32 = 14;
export const KIND_SFIXED32: u32 = 15;
export const KIND_SFIXED64: u32 = 16;
export const KIND_SINT32: u32 = 17;
export const KIND_SINT64: u32 = 18;

/** Eight zero bytes: the entry of an undeclared sparse number (word A = 0). */
const NO_ENTRY: usize = memory.data(8, 8);

/** Address of the (word A, word B) pair for `num` in the type at address T. */
@inline export function findEntry(T: usize, num: u32): usize {
  let dmax = load<u32>(T, T_DENSE_MAX_BYTE);
  if (num <= dmax) return T + T_HEADER_BYTES + (<usize>num << 3);
  return findSparse(T, dmax, num);
}

export function findSparse(T: usize, dmax: u32, num: u32): usize {
  let n = load<u32>(T, T_SPARSE_COUNT_BYTE);
  let base = T + T_HEADER_BYTES + ((<usize>dmax + 1) << 3);
  let lo: u32 = 0;
  let hi: u32 = n;
  while (lo < hi) {
    let mid = (lo + hi) >>> 1;
    if (load<u32>(base + (<usize>mid << 4)) < num) lo = mid + 1;
    else hi = mid;
  }
  if (lo < n) {
    let e = base + (<usize>lo << 4);
    if (load<u32>(e) == num) return e + 4;
  }
  return NO_ENTRY;
}
