// Tags: field number << 3 | wire type. A tag is a varint that must fit in 32 bits, which caps
// field numbers at 536,870,911 (2^29 - 1); number 0 is reserved and never valid on the wire.
import { E_FIELD_NUMBER_TOO_LARGE, E_FIELD_NUMBER_ZERO } from "./status";
import { fail, readVarint, varintValue, writeVarint } from "./varint";

export const MAX_FIELD_NUMBER: u32 = 536870911;

/** The tag decoded by the last successful readTag. */
export let tagValue: u32 = 0;

/** Reads and checks a tag at p (the error offset is the tag's first byte). */
@inline export function readTag(p: usize, end: usize): usize {
  let q = readVarint(p, end);
  if (q == 0) return 0;
  let v = varintValue;
  if (v > 0xffffffff) return fail(E_FIELD_NUMBER_TOO_LARGE, p);
  if (<u32>v < 8) return fail(E_FIELD_NUMBER_ZERO, p);
  tagValue = <u32>v;
  return q;
}

/** Writes the tag of (fieldNumber, wireType) at p; returns the bytes written. */
@inline export function writeTag(p: usize, fieldNumber: u32, wireType: u32): u32 {
  return writeVarint(p, ((<u64>fieldNumber) << 3) | <u64>(wireType & 7));
}
