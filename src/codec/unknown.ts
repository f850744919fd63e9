// Wire check of one unknown-field occurrence before it is written: exactly one well-formed field
// (tag + payload) with the number it is filed under. Groups (wire types 3/4) are not written:
// protokeel's reader rejects them.

import { CUT, readFramePrefix, TOO_LONG } from "./frame-reader.js";

/** The reason readFramePrefix refused a varint of `what` ("tag", "varint", "length"). */
function varintReason(what: string, code: number): string {
  if (code === CUT) return `the ${what} is truncated`;
  return code === TOO_LONG ? `the ${what} is longer than 10 bytes` : `the ${what} overflows 64 bits`;
}

/**
 * Returns undefined when `data[from .. end)` is one well-formed field numbered `number`, else the reason: what
 * the reader accepts for one field, so that a decoded value's unknown fields (kept as read,
 * non-minimal varints included) can always be written, and nothing is written that the reader
 * would refuse. The tag is a varint with a value below 2^32.
 */
export function checkUnknownOccurrence(number: number, data: Uint8Array, from = 0, end = data.length): string | undefined {
  // The core's varint rule (up to 10 bytes, non-minimal forms included, the tenth byte 0 or 1).
  const tag = readFramePrefix(data, from, end);
  if (typeof tag === "number") return varintReason("tag", tag);
  if (tag.size > 0xffffffff) return "the tag's value exceeds 32 bits";
  const wt = tag.size % 8;
  const num = (tag.size - wt) / 8;
  if (num !== number) return `its tag has field number ${num}`;
  return checkUnknownPayload(wt, data, tag.bodyAt, end);
}

/**
 * Returns undefined when `data` from `pos` to `n` (its end by default) is exactly one well-formed
 * payload of wire type `wt`, else the reason (protobuf-es keeps an unknown field's payload apart
 * from its tag).
 */
export function checkUnknownPayload(wt: number, data: Uint8Array, pos: number, n = data.length): string | undefined {
  switch (wt) {
    case 0: {
      const v = readFramePrefix(data, pos, n);
      if (typeof v === "number") return varintReason("varint", v);
      pos = v.bodyAt;
      break;
    }
    case 1:
      pos += 8;
      break;
    case 5:
      pos += 4;
      break;
    case 2: {
      const len = readFramePrefix(data, pos, n);
      if (typeof len === "number") return varintReason("length", len);
      if (len.size > n - len.bodyAt) return "the payload is truncated";
      pos = len.bodyAt + len.size;
      break;
    }
    default:
      return `it has wire type ${wt} (groups and reserved wire types are not written)`;
  }
  if (pos > n) return "the payload is truncated";
  if (pos < n) return `it has ${n - pos} trailing bytes after one field`;
  return undefined;
}
