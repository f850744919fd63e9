// Wire check of one unknown-field occurrence before it is written: exactly one well-formed field
// (tag + payload) with the number it is filed under. Groups (wire types 3/4) are not written:
// protokeel's reader rejects them.

export const MAX_FIELD_NUMBER = 536_870_911;

/** Returns undefined when `data` is one well-formed field numbered `number`, else the reason. */
export function checkUnknownOccurrence(number: number, data: Uint8Array): string | undefined {
  const n = data.length;
  let pos = 0;
  // Tag: at most 5 bytes (numbers up to 2^29 - 1, three wire-type bits).
  let tag = 0;
  let shift = 0;
  for (;;) {
    if (pos >= n) return "the tag is truncated";
    const b = data[pos++]!;
    if (shift === 28 && b > 0x0f) return "the tag is longer than 32 bits";
    tag += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) break;
    shift += 7;
    if (shift > 28) return "the tag is longer than 32 bits";
  }
  const wt = tag % 8;
  const num = (tag - wt) / 8;
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
    case 0: {
      let i = 0;
      for (;;) {
        if (pos >= n) return "the varint is truncated";
        const b = data[pos++]!;
        if (b < 0x80) break;
        if (++i >= 10) return "the varint is longer than 10 bytes";
      }
      break;
    }
    case 1:
      pos += 8;
      break;
    case 5:
      pos += 4;
      break;
    case 2: {
      let len = 0;
      let s = 0;
      for (;;) {
        if (pos >= n) return "the length is truncated";
        const b = data[pos++]!;
        len += (b & 0x7f) * 2 ** s;
        if (b < 0x80) break;
        s += 7;
        if (s > 28) return "the length is longer than 5 bytes";
      }
      pos += len;
      break;
    }
    default:
      return `it has wire type ${wt} (groups and reserved wire types are not written)`;
  }
  if (pos > n) return "the payload is truncated";
  if (pos < n) return `it has ${n - pos} trailing bytes after one field`;
  return undefined;
}
