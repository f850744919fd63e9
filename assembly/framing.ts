// Framing version 1 (DESIGN §8.2): a frame is a varint length followed by that many bytes, the
// same as protobuf's delimited format. The scan only reads lengths, so a frame that announces
// more than the limit is refused before anything is copied or allocated for its body.
import { CTRL_COUNT, CTRL_OFFSET, ctrlSet } from "./ctrl";
import { E_FRAME_TOO_LARGE, E_FRAME_TRUNCATED, E_TRUNCATED, OK, S_MORE } from "./status";
import { failAt, failStatus, readVarint, varintValue } from "./varint";

/**
 * Scans the frames of [base + from, base + len). Writes (body offset, body length) word pairs
 * relative to base at `out`, at most `outCap` pairs. Returns OK when the buffer ends exactly
 * after a frame, S_MORE when `out` is full (CTRL_OFFSET = where to resume), or an error with
 * CTRL_OFFSET = the offset of the failing frame's first byte. CTRL_COUNT = pairs written.
 */
export function scanFrames(base: usize, len: u32, from: u32, maxFrame: u32, out: usize, outCap: u32): i32 {
  let p = base + <usize>from;
  let end = base + <usize>len;
  let n: u32 = 0;
  while (p < end) {
    if (n == outCap) {
      ctrlSet(CTRL_COUNT, n);
      ctrlSet(CTRL_OFFSET, <u32>(p - base));
      return S_MORE;
    }
    let q = readVarint(p, end);
    if (q == 0) {
      ctrlSet(CTRL_COUNT, n);
      ctrlSet(CTRL_OFFSET, <u32>(failAt - base));
      return failStatus == E_TRUNCATED ? E_FRAME_TRUNCATED : failStatus;
    }
    let size = varintValue;
    // The limit is checked before the body is looked at: an announced size alone is refused.
    if (size > <u64>maxFrame) {
      ctrlSet(CTRL_COUNT, n);
      ctrlSet(CTRL_OFFSET, <u32>(p - base));
      return E_FRAME_TOO_LARGE;
    }
    if (<u64>(end - q) < size) {
      ctrlSet(CTRL_COUNT, n);
      ctrlSet(CTRL_OFFSET, <u32>(p - base));
      return E_FRAME_TRUNCATED;
    }
    store<u32>(out, <u32>(q - base));
    store<u32>(out, <u32>size, 4);
    out += 8;
    n++;
    p = q + <usize>size;
  }
  ctrlSet(CTRL_COUNT, n);
  ctrlSet(CTRL_OFFSET, <u32>(p - base));
  return OK;
}
