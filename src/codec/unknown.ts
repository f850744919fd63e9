// Wire check of one unknown-field occurrence before it is written: exactly one well-formed field
// (tag + payload) with the number it is filed under. Groups (wire types 3/4) are not written:
// protokeel's reader rejects them.

export const MAX_FIELD_NUMBER = 536_870_911;

// The value of the last varint read by `varint` (exact below 2^53; above, at least 2^53).
let value = 0;
const TRUNCATED = -1;
const TOO_LONG = -2;
const OVERFLOW = -3;

/**
 * Reads a varint at `pos` as the core's readVarint accepts one: at most 10 bytes, non-minimal
 * forms included (protobuf allows them), the tenth holding bit 63 only. Returns the position
 * after it (its value in `value`), or TRUNCATED, TOO_LONG or OVERFLOW.
 */
function varint(data: Uint8Array, pos: number): number {
  const n = data.length;
  let v = 0;
  for (let i = 0; ; i++) {
    if (pos >= n) return TRUNCATED;
    const b = data[pos++]!;
    if (i === 9) {
      if (b >= 0x80) return TOO_LONG;
      if (b > 1) return OVERFLOW;
    }
    v += (b & 0x7f) * 2 ** (7 * i);
    if (b < 0x80) break;
  }
  value = v;
  return pos;
}

/** The reason for a failed `varint` of `what` ("tag", "varint", "length"). */
function varintReason(what: string, code: number): string {
  if (code === TRUNCATED) return `the ${what} is truncated`;
  return code === TOO_LONG ? `the ${what} is longer than 10 bytes` : `the ${what} overflows 64 bits`;
}

/**
 * Returns undefined when `data` is one well-formed field numbered `number`, else the reason: what
 * the reader accepts for one field, so that a decoded value's unknown fields (kept as read,
 * non-minimal varints included) can always be written, and nothing is written that the reader
 * would refuse. The tag is a varint with a value below 2^32.
 */
export function checkUnknownOccurrence(number: number, data: Uint8Array): string | undefined {
  const pos = varint(data, 0);
  if (pos < 0) return varintReason("tag", pos);
  if (value > 0xffffffff) return "the tag's value exceeds 32 bits";
  const wt = value % 8;
  const num = (value - wt) / 8;
  if (num !== number) return `its tag has field number ${num}`;
  return checkUnknownPayload(wt, data, pos);
}

/**
 * Returns undefined when `data` from `pos` to its end is exactly one well-formed payload of wire
 * type `wt`, else the reason (protobuf-es keeps an unknown field's payload apart from its tag).
 */
export function checkUnknownPayload(wt: number, data: Uint8Array, pos: number): string | undefined {
  const n = data.length;
  switch (wt) {
    case 0:
      pos = varint(data, pos);
      if (pos < 0) return varintReason("varint", pos);
      break;
    case 1:
      pos += 8;
      break;
    case 5:
      pos += 4;
      break;
    case 2:
      pos = varint(data, pos);
      if (pos < 0) return varintReason("length", pos);
      if (value > n - pos) return "the payload is truncated";
      pos += value;
      break;
    default:
      return `it has wire type ${wt} (groups and reserved wire types are not written)`;
  }
  if (pos > n) return "the payload is truncated";
  if (pos < n) return `it has ${n - pos} trailing bytes after one field`;
  return undefined;
}
