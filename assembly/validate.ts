// Validate-only walk (docs/design.md §13, §14 "validate-only"): the same checks as walk in scan.ts —
// tags, field numbers, wire types against the declaration, varint form, lengths, depth, UTF-8
// of string fields, packed lengths and elements, unknown-field well-formedness — with the same
// status, offset, field, wire type, depth and type in the control block on failure, but no tape
// and no packed decoding. Any difference from walk's verdict is a bug: the tests compare both.
// The stack keeps walk's layout where the error path reads it (+4 parent type address, +12 the
// opening field's slot << 8), so ops.ts names paths the same way for both.
import {
  E_BAD_TABLE, E_DEPTH_EXCEEDED, E_UNSAFE_INTEGER, E_FIELD_NUMBER_ZERO, E_INVALID_WIRE_TYPE, E_LENGTH_PAST_END,
  E_MESSAGE_TOO_LARGE, E_PACKED_LENGTH, E_TRUNCATED, E_WIRE_TYPE_MISMATCH, OK, S_NEED_INPUT,
} from "./status";
import { CTRL_COUNT_BYTE, CTRL_NEED_BYTE, CTRL_OFFSET_BYTE, CTRL_STATUS_BYTE, ctrlSet } from "./ctrl";
import { framePrefix, frameStatus } from "./framing";
import {
  A_KIND_MASK, A_MESSAGE, A_PACKABLE, A_SLOT_SHIFT, A_STRING, A_WIRE_SHIFT, KIND_DOUBLE,
  KIND_FIXED32, KIND_FIXED64, KIND_FLOAT, KIND_SFIXED32, KIND_SFIXED64, KIND_SINT64, T_DENSE_MAX_BYTE, T_HEADER_BYTES, findSparse, jsSafe,
} from "./table";
import { SLOT_SHIFT } from "./tape";
import { readTag, tagValue } from "./tag";
import { checkUtf8Within, safeLoadEnd } from "./utf8";
import { failAt, failStatus, readVarint, skipVarint, varintRunOk, varintValue, zigzagDecode64 } from "./varint";
import { stop } from "./scan";

// Deepest nesting level reached by the last validateBody (1 = no nested message; map entries
// count as a level, as for maxDepth).
let gHeight: u32 = 1;

function validateBody(tbl: usize, T: usize, base: usize, p: usize, end: usize, maxDepth: u32, stack: usize): i32 {
  let sp = stack;
  let depth: u32 = 1;
  let height: u32 = 1;
  let dmax = load<u32>(T, T_DENSE_MAX_BYTE);
  // The UTF-8 check may read a whole v128 at or below this address.
  let limit = safeLoadEnd();

  while (true) {
    if (p >= end) {
      if (sp == stack) {
        gHeight = height;
        return OK;
      }
      sp -= 16;
      end = load<usize>(sp);
      T = load<usize>(sp, 4);
      dmax = load<u32>(sp, 8);
      depth--;
      continue;
    }

    let at = p;
    let t: u32 = <u32>load<u8>(p);
    if (t < 0x80) {
      if (t < 8) return stop(E_FIELD_NUMBER_ZERO, at, base, 0, t & 7, (sp - stack) >> 4, T, tbl);
      p++;
    } else {
      p = readTag(p, end);
      if (p == 0) return stop(failStatus, failAt, base, 0, 0, (sp - stack) >> 4, T, tbl);
      t = tagValue;
    }
    let num = t >>> 3;
    let wt = t & 7;
    let e = num <= dmax ? T + T_HEADER_BYTES + (<usize>num << 3) : findSparse(T, dmax, num);
    let a = load<u32>(e);

    if (a != 0 && wt == ((a >>> A_WIRE_SHIFT) & 7)) {
      if (wt == 2) {
        // A one-byte length in locals: no round trip through the varintValue global.
        let q: usize;
        let len: u64;
        if (p < end && load<u8>(p) < 0x80) {
          len = <u64>load<u8>(p);
          q = p + 1;
        } else {
          q = readVarint(p, end);
          if (q == 0) return stop(failStatus, failAt, base, num, wt, (sp - stack) >> 4, T, tbl);
          len = varintValue;
        }
        if (len > <u64>(end - q)) return stop(E_LENGTH_PAST_END, at, base, num, wt, (sp - stack) >> 4, T, tbl);
        let vend = q + <usize>len;
        if ((a & A_MESSAGE) != 0) {
          if (depth >= maxDepth) return stop(E_DEPTH_EXCEEDED, at, base, num, wt, (sp - stack) >> 4, T, tbl);
          store<usize>(sp, end);
          store<usize>(sp, T, 4);
          store<u32>(sp, dmax, 8);
          store<u32>(sp, (a >>> A_SLOT_SHIFT) << SLOT_SHIFT, 12);
          sp += 16;
          depth++;
          if (depth > height) height = depth;
          T = tbl + (<usize>load<u32>(e, 4) << 2);
          dmax = load<u32>(T, T_DENSE_MAX_BYTE);
          end = vend;
          p = q;
          continue;
        }
        if ((a & A_STRING) != 0) {
          if (checkUtf8Within(q, vend, limit) == 0) return stop(failStatus, failAt, base, num, wt, (sp - stack) >> 4, T, tbl);
        }
        p = vend;
      } else if (wt == 0) {
        // A varint of 1-8 bytes skipped from one 8-byte load (no byte loop, no call); the
        // general skip for the rest and for every error, so statuses and offsets stay its own.
        // With the one-byte length below, same process, min of 100 interleaved rounds:
        // validateFrames of 1000 bench.Small 58.4 -> 53.8 µs, span batch 12.39 -> 11.44 µs.
        let m: u64 = 0;
        if (load<u32>(e, 4) != 0) {
          // jstype = JS_NUMBER (word B; 0 for every other scalar): the value itself is checked.
          let q = readVarint(p, end);
          if (q == 0) return stop(failStatus, failAt, base, num, wt, (sp - stack) >> 4, T, tbl);
          let kind = a & A_KIND_MASK;
          let v = kind == KIND_SINT64 ? <u64>zigzagDecode64(varintValue) : varintValue;
          if (!jsSafe(kind, v)) return stop(E_UNSAFE_INTEGER, at, base, num, wt, (sp - stack) >> 4, T, tbl);
          p = q;
          continue;
        }
        if (p <= limit + 8) m = ~load<u64>(p) & 0x8080808080808080;
        let n = <usize>((ctz<u64>(m) + 1) >> 3);
        if (m != 0 && n <= end - p) {
          p += n;
        } else {
          p = skipVarint(p, end);
          if (p == 0) return stop(failStatus, failAt, base, num, wt, (sp - stack) >> 4, T, tbl);
        }
      } else if (wt == 1) {
        if (end - p < 8) return stop(E_TRUNCATED, p, base, num, wt, (sp - stack) >> 4, T, tbl);
        if (load<u32>(e, 4) != 0 && !jsSafe(a & A_KIND_MASK, load<u64>(p))) return stop(E_UNSAFE_INTEGER, at, base, num, wt, (sp - stack) >> 4, T, tbl);
        p += 8;
      } else {
        if (end - p < 4) return stop(E_TRUNCATED, p, base, num, wt, (sp - stack) >> 4, T, tbl);
        p += 4;
      }
      continue;
    }

    if (a == 0) {
      // An undeclared field: well-formed, then skipped.
      if (wt == 0) {
        p = skipVarint(p, end);
        if (p == 0) return stop(failStatus, failAt, base, num, wt, (sp - stack) >> 4, T, tbl);
      } else if (wt == 2) {
        let q = readVarint(p, end);
        if (q == 0) return stop(failStatus, failAt, base, num, wt, (sp - stack) >> 4, T, tbl);
        if (varintValue > <u64>(end - q)) return stop(E_LENGTH_PAST_END, at, base, num, wt, (sp - stack) >> 4, T, tbl);
        p = q + <usize>varintValue;
      } else if (wt == 1) {
        if (end - p < 8) return stop(E_TRUNCATED, p, base, num, wt, (sp - stack) >> 4, T, tbl);
        p += 8;
      } else if (wt == 5) {
        if (end - p < 4) return stop(E_TRUNCATED, p, base, num, wt, (sp - stack) >> 4, T, tbl);
        p += 4;
      } else {
        return stop(E_INVALID_WIRE_TYPE, at, base, num, wt, (sp - stack) >> 4, T, tbl);
      }
      continue;
    }

    if (wt == 2 && (a & A_PACKABLE) != 0) {
      // A packed run: fixed-width kinds need a whole number of elements, varint kinds a run of
      // well-formed varints that ends exactly at the run's end.
      let q = readVarint(p, end);
      if (q == 0) return stop(failStatus, failAt, base, num, wt, (sp - stack) >> 4, T, tbl);
      let len = varintValue;
      if (len > <u64>(end - q)) return stop(E_LENGTH_PAST_END, at, base, num, wt, (sp - stack) >> 4, T, tbl);
      let pend = q + <usize>len;
      let kind = a & A_KIND_MASK;
      if (kind == KIND_FIXED32 || kind == KIND_SFIXED32 || kind == KIND_FLOAT) {
        if ((len & 3) != 0) return stop(E_PACKED_LENGTH, at, base, num, wt, (sp - stack) >> 4, T, tbl);
      } else if (kind == KIND_FIXED64 || kind == KIND_SFIXED64 || kind == KIND_DOUBLE) {
        if ((len & 7) != 0) return stop(E_PACKED_LENGTH, at, base, num, wt, (sp - stack) >> 4, T, tbl);
        if (load<u32>(e, 4) != 0) {
          for (let s = q; s < pend; s += 8) {
            if (!jsSafe(kind, load<u64>(s))) return stop(E_UNSAFE_INTEGER, s, base, num, wt, (sp - stack) >> 4, T, tbl);
          }
        }
      } else if (load<u32>(e, 4) != 0) {
        // jstype = JS_NUMBER: every element is read and checked (walk reports the first bad one).
        let s = q;
        while (s < pend) {
          let es = s;
          s = readVarint(s, pend);
          if (s == 0) return stop(failStatus, failAt, base, num, wt, (sp - stack) >> 4, T, tbl);
          let v = kind == KIND_SINT64 ? <u64>zigzagDecode64(varintValue) : varintValue;
          if (!jsSafe(kind, v)) return stop(E_UNSAFE_INTEGER, es, base, num, wt, (sp - stack) >> 4, T, tbl);
        }
      } else if (!varintRunOk(q, pend, limit)) {
        // Only a run the fast check cannot clear is walked varint by varint, for the exact error.
        let s = q;
        while (s < pend) {
          s = skipVarint(s, pend);
          if (s == 0) return stop(failStatus, failAt, base, num, wt, (sp - stack) >> 4, T, tbl);
        }
      }
      p = pend;
      continue;
    }
    let bad = wt == 3 || wt == 4 || wt > 5 ? E_INVALID_WIRE_TYPE : E_WIRE_TYPE_MISMATCH;
    return stop(bad, at, base, num, wt, (sp - stack) >> 4, T, tbl);
  }
  return OK;
}

@inline function checkRoot(tableWords: u32, rootType: u32): bool {
  return rootType <= tableWords && tableWords - rootType >= 4;
}

/**
 * Validates the message [base, base + len) of type `rootType` like walk, writing nothing but
 * the control block. `stack` holds 16 * maxDepth bytes. On success CTRL_COUNT = the deepest
 * nesting level reached (1 = no nested message; map entries count as a level).
 */
export function validate(tbl: usize, tableWords: u32, rootType: u32, base: usize, len: u32, maxBytes: u32, maxDepth: u32, stack: usize): i32 {
  if (!checkRoot(tableWords, rootType)) return stop(E_BAD_TABLE, base, base, 0, 0, 0, tbl, tbl);
  if (len > maxBytes) return stop(E_MESSAGE_TOO_LARGE, base, base, 0, 0, 0, tbl + (<usize>rootType << 2), tbl);
  let status = validateBody(tbl, tbl + (<usize>rootType << 2), base, base, base + <usize>len, maxDepth, stack);
  ctrlSet(CTRL_STATUS_BYTE, <u32>status);
  if (status == OK) ctrlSet(CTRL_COUNT_BYTE, gHeight);
  return status;
}

/**
 * validate over the frames of a segment of a framing-v1 input (as walkFrames: offsets [from, to)
 * at base + offset, `more` bytes after it), with walkFrames' frame errors and S_NEED_INPUT.
 * CTRL_COUNT = the frames of this segment checked (after OK and S_NEED_INPUT).
 */
export function validateFrames(tbl: usize, tableWords: u32, rootType: u32, base: usize, from: u32, to: u32, more: u32, maxBytes: u32, maxDepth: u32, stack: usize): i32 {
  if (!checkRoot(tableWords, rootType)) return stop(E_BAD_TABLE, base, base, 0, 0, 0, tbl, tbl);
  let T = tbl + (<usize>rootType << 2);
  let p = base + <usize>from;
  let end = base + <usize>to;
  let n: u32 = 0;
  let status = OK;
  while (true) {
    if (p >= end) {
      if (more != 0) {
        status = S_NEED_INPUT;
        ctrlSet(CTRL_NEED_BYTE, 0);
      }
      break;
    }
    let q = framePrefix(base, p, end, more, maxBytes);
    if (q == 0) {
      if (frameStatus != S_NEED_INPUT) return stop(frameStatus, p, base, 0, 0, 0, T, tbl);
      status = S_NEED_INPUT;
      break;
    }
    let fend = q + <usize>varintValue;
    let s = validateBody(tbl, T, base, q, fend, maxDepth, stack);
    if (s != OK) {
      ctrlSet(CTRL_STATUS_BYTE, <u32>s);
      return s;
    }
    n++;
    p = fend;
  }
  ctrlSet(CTRL_OFFSET_BYTE, <u32>(p - base));
  ctrlSet(CTRL_COUNT_BYTE, n);
  ctrlSet(CTRL_STATUS_BYTE, <u32>status);
  return status;
}
