// Framing version 1 (docs/design.md §8.2): a frame is a varint length followed by that many bytes, the
// same as protobuf's delimited format. Frames are read from segments of the input: JS copies in
// a bounded part of a large buffer at a time, and a frame is refused from its length prefix
// alone, before its body is ever copied (a prefix announcing 2^40 bytes costs nothing).
//
// Addresses: the segment holds input offsets [from, to) and is addressed as `base + offset`,
// computed modulo 2^32, so `base` may lie below the segment (even below 0) while every offset
// reported (p - base) stays the offset in the whole input.
import { CTRL, CTRL_COUNT_BYTE, CTRL_NEED_BYTE, CTRL_OFFSET_BYTE, CTRL_VALUE_BYTE, ctrlSet } from "./ctrl";
import { E_FRAME_TOO_LARGE, E_FRAME_TRUNCATED, E_TRUNCATED, OK, S_MORE, S_NEED_INPUT } from "./status";
import { failStatus, readVarint, varintValue } from "./varint";

/** Status of the last framePrefix that returned 0: a frame error, or S_NEED_INPUT. */
export let frameStatus: i32 = 0;

/**
 * Reads the length prefix of the frame at p in a segment ending at `end`, with `more` input bytes
 * after the segment. Returns the body's address with the body wholly in the segment, or 0 with
 * frameStatus: E_FRAME_TOO_LARGE (the announced size alone is over maxBytes; CTRL_VALUE = that
 * size), E_FRAME_TRUNCATED (the input ends first), a varint error of the prefix, or S_NEED_INPUT
 * (the prefix or body runs past the segment but not past the input; CTRL_NEED = the frame's
 * end offset, or 0 when the prefix itself is cut).
 */
@inline export function framePrefix(base: usize, p: usize, end: usize, more: u32, maxBytes: u32): usize {
  let q = readVarint(p, end);
  if (q == 0) {
    if (failStatus != E_TRUNCATED) frameStatus = failStatus;
    else if (more != 0) {
      frameStatus = S_NEED_INPUT;
      ctrlSet(CTRL_NEED_BYTE, 0);
    } else frameStatus = E_FRAME_TRUNCATED;
    return 0;
  }
  let size = varintValue;
  // The limit is checked before anything else: an announced size alone is refused.
  if (size > <u64>maxBytes) {
    store<u64>(CTRL + CTRL_VALUE_BYTE, size);
    frameStatus = E_FRAME_TOO_LARGE;
    return 0;
  }
  let inSegment = <u64>(end - q);
  if (size > inSegment) {
    if (size > inSegment + <u64>more) {
      frameStatus = E_FRAME_TRUNCATED;
    } else {
      frameStatus = S_NEED_INPUT;
      ctrlSet(CTRL_NEED_BYTE, <u32>(q - base) + <u32>size);
    }
    return 0;
  }
  return q;
}

/**
 * Scans the frames of the segment [base + from, base + to) of an input with `more` bytes after
 * it. Writes (body offset, body length) word pairs at `out`, at most `outCap` pairs. Returns OK
 * when the input ends exactly after a frame, S_MORE when `out` is full and S_NEED_INPUT when the
 * next frame lies past the segment (CTRL_OFFSET = where to continue, CTRL_NEED as in
 * framePrefix), or an error with CTRL_OFFSET = the offset of the failing frame's first byte.
 * CTRL_COUNT = pairs written.
 */
export function scanFrames(base: usize, from: u32, to: u32, more: u32, maxFrame: u32, out: usize, outCap: u32): i32 {
  let p = base + <usize>from;
  let end = base + <usize>to;
  let n: u32 = 0;
  let status = OK;
  while (p != end || more != 0) {
    if (n == outCap) {
      status = S_MORE;
      break;
    }
    if (p == end) {
      // The segment ends exactly after a frame.
      status = S_NEED_INPUT;
      ctrlSet(CTRL_NEED_BYTE, 0);
      break;
    }
    let q = framePrefix(base, p, end, more, maxFrame);
    if (q == 0) {
      status = frameStatus;
      break;
    }
    let size = <usize>varintValue;
    store<u32>(out, <u32>(q - base));
    store<u32>(out, <u32>size, 4);
    out += 8;
    n++;
    p = q + size;
  }
  ctrlSet(CTRL_COUNT_BYTE, n);
  ctrlSet(CTRL_OFFSET_BYTE, <u32>(p - base));
  return status;
}
