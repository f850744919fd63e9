// The validating message walker (DESIGN §8.3, §13): one call checks a whole message against
// the layout table and writes the decode tape. Nesting uses an explicit stack in linear memory
// (16 bytes a level, sized by the caller from maxDepth), never recursion, so a nesting bomb
// ends in E_DEPTH_EXCEEDED instead of a stack overflow.
import {
  CTRL_COUNT, CTRL_DEPTH, CTRL_FIELD, CTRL_OFFSET, CTRL_PACKED, CTRL_STATUS, CTRL_TEXT,
  CTRL_TYPE, CTRL_WIRE, ctrlSet,
} from "./ctrl";
import {
  E_BAD_TABLE, E_COLLISION, E_DEPTH_EXCEEDED, E_FIELD_NUMBER_ZERO, E_FRAME_TOO_LARGE,
  E_FRAME_TRUNCATED, E_INVALID_WIRE_TYPE, E_LENGTH_PAST_END, E_MESSAGE_TOO_LARGE,
  E_NEED_SPACE, E_PACKED_LENGTH, E_TRUNCATED, E_WIRE_TYPE_MISMATCH, OK,
} from "./status";
import {
  A_KIND_MASK, A_MESSAGE, A_PACKABLE, A_SLOT_SHIFT, A_STRING, A_WIRE_SHIFT, K_BOOL,
  K_DOUBLE, K_FIXED32, K_FIXED64, K_FLOAT, K_INT64, K_SFIXED32, K_SFIXED64, K_SINT32,
  K_SINT64, K_UINT64, T_DENSE_MAX, T_HEADER_BYTES, findEntry, findSparse,
} from "./table";
import {
  F_ASCII, F_ASCII_SELF, F_ASCII_TREE, F_HAS_UNKNOWN, FLAG_SHIFT, OP_BYTES, OP_END,
  OP_FIXED32, OP_FIXED64, OP_PACKED, OP_START, OP_UNKNOWN, OP_VARINT, SLOT_SHIFT,
} from "./tape";
import { readTag, tagValue } from "./tag";
import { checkUtf8Tail, checkUtf8Within, safeLoadEnd } from "./utf8";
import {
  fail as failAt8, failAt, failStatus, packVarint8, readVarint, skipVarint, varintValue, zigzagDecode32,
  zigzagDecode64,
} from "./varint";

// Tape cursors shared by walk and walkFrames: entries grow up from gTp, packed arrays grow
// down from gPk. The text area [gTx0, gTxEnd) receives the bytes of every ASCII string field,
// back to back in tape order; gTx is its cursor.
let gTp: usize = 0;
let gPk: usize = 0;
let gTx0: usize = 0;
let gTx: usize = 0;
let gTxEnd: usize = 0;

/** Cold exit: records where and why the walk stopped. */
export function stop(status: i32, at: usize, base: usize, num: u32, wt: u32, levels: usize, T: usize, tbl: usize): i32 {
  ctrlSet(CTRL_STATUS, <u32>status);
  ctrlSet(CTRL_OFFSET, <u32>(at - base));
  ctrlSet(CTRL_FIELD, num);
  ctrlSet(CTRL_WIRE, wt);
  ctrlSet(CTRL_DEPTH, <u32>levels);
  ctrlSet(CTRL_TYPE, <u32>((T - tbl) >> 2));
  return status;
}

/** Counts the varints that end in [p, end): bytes without the continuation bit. */
@inline function countVarints(p: usize, end: usize): u32 {
  let c: u32 = 0;
  while (end - p >= 16) {
    c += 16 - <u32>popcnt<i32>(i8x16.bitmask(v128.load(p)));
    p += 16;
  }
  while (p < end) {
    c += <u32>(load<u8>(p) < 0x80);
    p++;
  }
  return c;
}

/** The status a cold path below returned 0 for. */
let gStatus: i32 = 0;

@inline function fail(status: i32): usize {
  gStatus = status;
  return 0;
}

/**
 * A packed run of a repeated numeric field at p (after its tag at `at`): decodes the elements
 * below gPk and writes its entry at tp. Returns the position after the run, or 0 with gStatus.
 * Kept out of walkBody (with skipUnknown, which binaryen inlines back): V8 keeps no register
 * across a call, so every value live across one in the field loop is spilled where it is
 * defined; with this path, `depth` (now from sp), and the 1-byte length and 1-8-byte varint
 * reads below inline, walkFrames of 1000 bench.Small frames went from 75.5-76.0 to 71.3-73.4
 * µs (bench/micro-walker.mjs, same process, min of 100 interleaved rounds).
 */
function walkPacked(tbl: usize, T: usize, base: usize, at: usize, p: usize, end: usize, a: u32, num: u32, levels: usize, tp: usize): usize {
  let wt: u32 = 2;
  let pk = gPk;
  let head = (a >>> A_SLOT_SHIFT) << SLOT_SHIFT;
  let q = readVarint(p, end);
  if (q == 0) return fail(stop(failStatus, failAt, base, num, wt, levels, T, tbl));
  let len = varintValue;
  if (len > <u64>(end - q)) return fail(stop(E_LENGTH_PAST_END, at, base, num, wt, levels, T, tbl));
  let pend = q + <usize>len;
  let kind = a & A_KIND_MASK;
  let count: u32;
  let size: u32;
  if (kind == K_FIXED32 || kind == K_SFIXED32 || kind == K_FLOAT) {
    if ((len & 3) != 0) return fail(stop(E_PACKED_LENGTH, at, base, num, wt, levels, T, tbl));
    count = <u32>(len >> 2);
    size = 4;
  } else if (kind == K_FIXED64 || kind == K_SFIXED64 || kind == K_DOUBLE) {
    if ((len & 7) != 0) return fail(stop(E_PACKED_LENGTH, at, base, num, wt, levels, T, tbl));
    count = <u32>(len >> 3);
    size = 8;
  } else {
    count = countVarints(q, pend);
    size = kind == K_BOOL ? 1 : kind == K_INT64 || kind == K_UINT64 || kind == K_SINT64 ? 8 : 4;
  }
  let bytes = <u64>count * <u64>size;
  if (bytes + 16 > <u64>(pk - tp)) return fail(E_NEED_SPACE);
  let dst = (pk - <usize>bytes) & ~(<usize>7);
  if (dst - tp < 16) return fail(E_NEED_SPACE);
  if (size == 4 && (kind == K_FIXED32 || kind == K_SFIXED32 || kind == K_FLOAT)) {
    memory.copy(dst, q, <usize>len);
  } else if (kind == K_FIXED64 || kind == K_SFIXED64 || kind == K_DOUBLE) {
    memory.copy(dst, q, <usize>len);
  } else {
    let s = q;
    let d = dst;
    if (size == 8) {
      let zz = kind == K_SINT64;
      while (s < pend) {
        let v: u64;
        let x: u64 = 0;
        let m: u64 = 0;
        if (pend - s >= 8) {
          x = load<u64>(s);
          m = ~x & 0x8080808080808080;
        }
        if (m != 0) {
          // A varint of 1-8 bytes read from one 8-byte load, without a byte loop: mixed
          // lengths no longer mispredict per byte. With the 9-byte case below, the walk
          // of 1000 doubles + 1000 mixed-length sint64 + 1000 fixed32 went from 5.44 to
          // 3.43 µs (same process, medians of 3).
          let tz = ctz<u64>(m);
          s += <usize>((tz + 1) >> 3);
          v = packVarint8(x & ((<u64>2 << tz) - 1));
        } else if (pend - s >= 9 && load<u8>(s, 8) < 0x80) {
          // Nine bytes: the eight loaded plus the ninth's 7 bits on top (63-bit values).
          v = (packVarint8(x) | (<u64>load<u8>(s, 8) << 56));
          s += 9;
        } else {
          s = readVarint(s, pend);
          if (s == 0) return fail(stop(failStatus, failAt, base, num, wt, levels, T, tbl));
          v = varintValue;
        }
        if (zz) v = <u64>zigzagDecode64(v);
        store<u64>(d, v);
        d += 8;
      }
    } else if (size == 4) {
      let zz = kind == K_SINT32;
      while (s < pend) {
        let v: u32;
        let x: u64 = 0;
        let m: u64 = 0;
        if (pend - s >= 8) {
          x = load<u64>(s);
          m = ~x & 0x8080808080808080;
        }
        if (m != 0) {
          // As above: one load, no byte loop.
          let tz = ctz<u64>(m);
          s += <usize>((tz + 1) >> 3);
          v = <u32>packVarint8(x & ((<u64>2 << tz) - 1));
        } else if (pend - s >= 9 && load<u8>(s, 8) < 0x80) {
          // Nine bytes: the eight loaded plus the ninth's 7 bits on top (63-bit values).
          v = <u32>(packVarint8(x) | (<u64>load<u8>(s, 8) << 56));
          s += 9;
        } else {
          s = readVarint(s, pend);
          if (s == 0) return fail(stop(failStatus, failAt, base, num, wt, levels, T, tbl));
          v = <u32>varintValue;
        }
        if (zz) v = <u32>zigzagDecode32(v);
        store<u32>(d, v);
        d += 4;
      }
    } else {
      while (s < pend) {
        s = readVarint(s, pend);
        if (s == 0) return fail(stop(failStatus, failAt, base, num, wt, levels, T, tbl));
        store<u8>(d, <u8>(varintValue != 0));
        d += 1;
      }
    }
  }
  gPk = dst;
  store<u32>(tp, OP_PACKED | head);
  store<u32>(tp, count, 4);
  store<u32>(tp, <u32>dst, 8);
  store<u32>(tp, size, 12);
  return pend;
}

/** Skips the undeclared field at p (tag at `at`); returns the position after it, or 0 with
 * failStatus/failAt set. */
function skipUnknown(at: usize, p: usize, end: usize, wt: u32): usize {
  if (wt == 0) return skipVarint(p, end);
  if (wt == 2) {
    let q = readVarint(p, end);
    if (q == 0) return 0;
    if (varintValue > <u64>(end - q)) return failAt8(E_LENGTH_PAST_END, at);
    return q + <usize>varintValue;
  }
  if (wt == 1) {
    if (end - p < 8) return failAt8(E_TRUNCATED, p);
    return p + 8;
  }
  if (wt == 5) {
    if (end - p < 4) return failAt8(E_TRUNCATED, p);
    return p + 4;
  }
  return failAt8(E_INVALID_WIRE_TYPE, at);
}

/**
 * Walks one message body [p, end) of the type at address T. Entries start at gTp, packed
 * arrays end at gPk; both cursors are updated on success.
 */
function walkBody(tbl: usize, T: usize, base: usize, p: usize, end: usize, maxDepth: u32, stack: usize, tape: usize): i32 {
  let tp = gTp;
  let pk = gPk;
  let tx = gTx;
  let txEnd = gTxEnd;
  let sp = stack;
  if (pk - tp < 32) return E_NEED_SPACE;
  let cur = tp;
  store<u32>(tp, OP_START);
  store<u32>(tp, 0, 4);
  store<u32>(tp, <u32>(p - base), 8);
  store<u32>(tp, <u32>(end - p), 12);
  tp += 16;
  let flags: u32 = F_ASCII_SELF | F_ASCII_TREE;
  // The current type's dense bound, kept in a local: one load less per field.
  let dmax = load<u32>(T, T_DENSE_MAX);
  // The UTF-8 check may read a whole v128 at or below this address. One masked
  // load per short string instead of the 8-byte and byte loops: 14.98 -> 14.48 µs on the
  // micro-walker span batch (same process, medians of 3).
  let limit = safeLoadEnd();

  while (true) {
    // Every entry needs 16 bytes; one check per iteration covers every path below.
    if (pk - tp < 16) return E_NEED_SPACE;
    if (p >= end) {
      let iEnd = <u32>((tp - tape) >> 4);
      let iStart = <u32>((cur - tape) >> 4);
      store<u32>(tp, OP_END | (flags << FLAG_SHIFT));
      store<u32>(tp, iStart, 4);
      store<u64>(tp, 0, 8);
      store<u32>(cur, load<u32>(cur) | (flags << FLAG_SHIFT));
      store<u32>(cur, iEnd, 4);
      tp += 16;
      if (sp == stack) break;
      sp -= 16;
      let childTree = flags & F_ASCII_TREE;
      end = load<usize>(sp);
      T = load<usize>(sp, 4);
      cur = load<usize>(sp, 8);
      flags = load<u32>(sp, 12) & 0xff;
      if (childTree == 0) flags &= ~F_ASCII_TREE;
      dmax = load<u32>(T, T_DENSE_MAX);
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

    if (a == 0) {
      // An undeclared field: check that it is well-formed, skip it, keep its byte range.
      p = skipUnknown(at, p, end, wt);
      if (p == 0) return stop(failStatus, failAt, base, num, wt, (sp - stack) >> 4, T, tbl);
      store<u32>(tp, OP_UNKNOWN | (wt << FLAG_SHIFT));
      store<u32>(tp, num, 4);
      store<u32>(tp, <u32>(at - base), 8);
      store<u32>(tp, <u32>(p - at), 12);
      tp += 16;
      flags |= F_HAS_UNKNOWN;
      continue;
    }

    let head = (a >>> A_SLOT_SHIFT) << SLOT_SHIFT;
    if (wt != ((a >>> A_WIRE_SHIFT) & 7)) {
      if (wt == 2 && (a & A_PACKABLE) != 0) {
        gPk = pk;
        p = walkPacked(tbl, T, base, at, p, end, a, num, (sp - stack) >> 4, tp);
        if (p == 0) return gStatus;
        pk = gPk;
        tp += 16;
        continue;
      }
      let bad = wt == 3 || wt == 4 || wt > 5 ? E_INVALID_WIRE_TYPE : E_WIRE_TYPE_MISMATCH;
      return stop(bad, at, base, num, wt, (sp - stack) >> 4, T, tbl);
    }

    if (wt == 0) {
      // One byte (most fields) first; then a varint of 1-8 bytes from one 8-byte load without
      // the byte loop (a 6-byte id per bench.Small frame); the general reader for the rest and
      // for every error, so statuses and offsets stay its own. The 8-byte path for every
      // varint, one-byte values included, lost (75.0 against 73.7 µs).
      let v: u64;
      if (p < end && load<u8>(p) < 0x80) {
        v = <u64>load<u8>(p);
        p++;
      } else {
        let x: u64 = 0;
        let m: u64 = 0;
        if (p <= limit + 8) {
          x = load<u64>(p);
          m = ~x & 0x8080808080808080;
        }
        let tz = ctz<u64>(m);
        let n = <usize>((tz + 1) >> 3);
        if (m != 0 && n <= end - p) {
          v = packVarint8(x & ((<u64>2 << tz) - 1));
          p += n;
        } else {
          p = readVarint(p, end);
          if (p == 0) return stop(failStatus, failAt, base, num, wt, (sp - stack) >> 4, T, tbl);
          v = varintValue;
        }
      }
      let kind = a & A_KIND_MASK;
      if (kind == K_SINT32) v = <u64>(<i64>zigzagDecode32(<u32>v));
      else if (kind == K_SINT64) v = <u64>zigzagDecode64(v);
      else if (kind == K_BOOL) v = <u64>(v != 0);
      store<u64>(tp, <u64>(OP_VARINT | head));
      store<u64>(tp, v, 8);
      tp += 16;
    } else if (wt == 2) {
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
        if (<u32>((sp - stack) >> 4) + 1 >= maxDepth) return stop(E_DEPTH_EXCEEDED, at, base, num, wt, (sp - stack) >> 4, T, tbl);
        store<usize>(sp, end);
        store<usize>(sp, T, 4);
        store<usize>(sp, cur, 8);
        store<u32>(sp, flags | head, 12);
        sp += 16;
        T = tbl + (<usize>load<u32>(e, 4) << 2);
        dmax = load<u32>(T, T_DENSE_MAX);
        end = vend;
        cur = tp;
        flags = F_ASCII_SELF | F_ASCII_TREE;
        store<u32>(tp, OP_START | head);
        store<u32>(tp, 0, 4);
        store<u32>(tp, <u32>(q - base), 8);
        store<u32>(tp, <u32>len, 12);
        tp += 16;
        p = q;
        continue;
      }
      let f: u32 = 0;
      if ((a & A_STRING) != 0) {
        let n = <usize>len;
        let room = txEnd - tx;
        if (n <= 32 && q <= limit - 16 && room >= 32) {
          // Up to 32 bytes from two v128 loads, checked with one mask and stored whole: the
          // 17-32-byte strings (emails) skip checkUtf8Long and the copy loop, and lengths either
          // side of 16 take one path. walkFrames of 1000 bench.Small frames: 70.6 -> 67.4 µs
          // (122.8 -> 114.2 on a loaded machine), same process, min of 100 interleaved rounds.
          let v0 = v128.load(q);
          let v1 = v128.load(q, 16);
          let bits = <u64>(<u32>i8x16.bitmask(v0) | (<u32>i8x16.bitmask(v1) << 16));
          if ((bits & ((<u64>1 << <u64>n) - 1)) == 0) {
            v128.store(tx, v0);
            v128.store(tx, v1, 16);
            tx += n;
            f = F_ASCII;
          } else {
            if (checkUtf8Tail(q, vend) == 0) return stop(failStatus, failAt, base, num, wt, (sp - stack) >> 4, T, tbl);
            flags &= ~(F_ASCII_SELF | F_ASCII_TREE);
          }
        } else if (n <= 16 && q <= limit && room >= 16) {
          // A short string: the one v128 load that checks it is also what lands in the text
          // area (the store's bytes past n are overwritten by the next string or ignored).
          let v = v128.load(q);
          if ((i8x16.bitmask(v) & ((1 << <i32>n) - 1)) == 0) {
            v128.store(tx, v);
            tx += n;
            f = F_ASCII;
          } else {
            if (checkUtf8Tail(q, vend) == 0) return stop(failStatus, failAt, base, num, wt, (sp - stack) >> 4, T, tbl);
            flags &= ~(F_ASCII_SELF | F_ASCII_TREE);
          }
        } else {
          let r = checkUtf8Within(q, vend, limit);
          if (r == 0) return stop(failStatus, failAt, base, num, wt, (sp - stack) >> 4, T, tbl);
          if (r == 1) {
            // Whole v128s while every load stays at or below `limit` and every store inside
            // the text area; else an exact copy.
            if (n <= 256 && room >= 16 && room - 16 >= n && vend <= limit) {
              for (let i: usize = 0; i < n; i += 16) v128.store(tx + i, v128.load(q + i));
            } else if (room >= n) {
              memory.copy(tx, q, n);
            } else {
              // Marks the text area, not the tape, as what ran out.
              ctrlSet(CTRL_TEXT, TEXT_SHORT);
              return E_NEED_SPACE;
            }
            tx += n;
            f = F_ASCII;
          } else {
            flags &= ~(F_ASCII_SELF | F_ASCII_TREE);
          }
        }
      }
      store<u64>(tp, <u64>(OP_BYTES | (f << FLAG_SHIFT) | head));
      store<u64>(tp, <u64>(q - base) | (len << 32), 8);
      tp += 16;
      p = vend;
    } else if (wt == 1) {
      if (end - p < 8) return stop(E_TRUNCATED, p, base, num, wt, (sp - stack) >> 4, T, tbl);
      store<u64>(tp, <u64>(OP_FIXED64 | head));
      store<u64>(tp, load<u64>(p), 8);
      tp += 16;
      p += 8;
    } else {
      if (end - p < 4) return stop(E_TRUNCATED, p, base, num, wt, (sp - stack) >> 4, T, tbl);
      store<u64>(tp, <u64>(OP_FIXED32 | head));
      store<u64>(tp, <u64>load<u32>(p), 8);
      tp += 16;
      p += 4;
    }
  }
  gTp = tp;
  gPk = pk;
  gTx = tx;
  return OK;
}

@inline function checkRoot(tableWords: u32, rootType: u32): bool {
  return rootType <= tableWords && tableWords - rootType >= 4;
}

/** CTRL_TEXT after E_NEED_SPACE when the text area (not the tape) ran out. */
const TEXT_SHORT: u32 = 0xffffffff;

@inline function startText(text: usize, textEnd: usize): void {
  ctrlSet(CTRL_TEXT, 0);
  gTx0 = text;
  gTx = text;
  gTxEnd = textEnd < text ? text : textEnd;
}

function finish(status: i32, tape: usize): i32 {
  ctrlSet(CTRL_STATUS, <u32>status);
  if (status == OK) {
    ctrlSet(CTRL_COUNT, <u32>((gTp - tape) >> 4));
    ctrlSet(CTRL_PACKED, <u32>gPk);
    ctrlSet(CTRL_TEXT, <u32>(gTx - gTx0));
  }
  return status;
}

/**
 * Validates the message [base, base + len) of type `rootType` (a word offset into the table at
 * `tbl`) and writes its tape into [tape, tapeEnd). `stack` holds 16 * maxDepth bytes.
 * The bytes of every ASCII string field go to the text area [text, textEnd), back to back in
 * tape order; they total at most len, and a store may write up to 16 bytes past a string's end,
 * so len + 16 bytes always suffice (less may end in E_NEED_SPACE with CTRL_TEXT = 0xffffffff).
 * On success CTRL_COUNT = tape entries, CTRL_PACKED = lowest packed address and CTRL_TEXT =
 * text bytes; on failure CTRL_OFFSET/FIELD/WIRE/DEPTH/TYPE describe where.
 */
export function walk(tbl: usize, tableWords: u32, rootType: u32, base: usize, len: u32, maxBytes: u32, maxDepth: u32, stack: usize, tape: usize, tapeEnd: usize, text: usize, textEnd: usize): i32 {
  if (!checkRoot(tableWords, rootType)) return stop(E_BAD_TABLE, base, base, 0, 0, 0, tbl, tbl);
  if (len > maxBytes) return stop(E_MESSAGE_TOO_LARGE, base, base, 0, 0, 0, tbl + (<usize>rootType << 2), tbl);
  gTp = tape;
  gPk = tapeEnd;
  startText(text, textEnd);
  let status = walkBody(tbl, tbl + (<usize>rootType << 2), base, base, base + <usize>len, maxDepth, stack, tape);
  return finish(status, tape);
}

/**
 * walk over every frame of a framing-v1 buffer in one call: each frame's tape is a root START
 * .. END sequence, one after the other; offsets stay relative to `base`, and the text area
 * continues from frame to frame. Frame errors as in
 * scanFrames (E_FRAME_TRUNCATED, E_FRAME_TOO_LARGE, varint errors) at the frame's offset.
 */
export function walkFrames(tbl: usize, tableWords: u32, rootType: u32, base: usize, len: u32, maxBytes: u32, maxDepth: u32, stack: usize, tape: usize, tapeEnd: usize, text: usize, textEnd: usize): i32 {
  if (!checkRoot(tableWords, rootType)) return stop(E_BAD_TABLE, base, base, 0, 0, 0, tbl, tbl);
  let T = tbl + (<usize>rootType << 2);
  gTp = tape;
  gPk = tapeEnd;
  startText(text, textEnd);
  let p = base;
  let end = base + <usize>len;
  while (p < end) {
    let q = readVarint(p, end);
    if (q == 0) {
      let s = failStatus == E_TRUNCATED ? E_FRAME_TRUNCATED : failStatus;
      return stop(s, p, base, 0, 0, 0, T, tbl);
    }
    let size = varintValue;
    if (size > <u64>maxBytes) return stop(E_FRAME_TOO_LARGE, p, base, 0, 0, 0, T, tbl);
    if (size > <u64>(end - q)) return stop(E_FRAME_TRUNCATED, p, base, 0, 0, 0, T, tbl);
    let status = walkBody(tbl, T, base, q, q + <usize>size, maxDepth, stack, tape);
    if (status != OK) return finish(status, tape);
    p = q + <usize>size;
  }
  return finish(OK, tape);
}

/**
 * Checks unknown-field byte ranges against the type `typeOff`: every field must be well-formed
 * (valid number, wire type and length), and the first field whose number the type declares is
 * reported as E_COLLISION (CTRL_FIELD = number, CTRL_OFFSET = its tag's offset from base).
 * `ranges` holds `count` (offset, length) word pairs relative to base.
 */
export function scanUnknown(tbl: usize, tableWords: u32, typeOff: u32, base: usize, ranges: usize, count: u32): i32 {
  if (!checkRoot(tableWords, typeOff)) return stop(E_BAD_TABLE, base, base, 0, 0, 0, tbl, tbl);
  let T = tbl + (<usize>typeOff << 2);
  for (let i: u32 = 0; i < count; i++) {
    let r = ranges + (<usize>i << 3);
    let p = base + <usize>load<u32>(r);
    let end = p + <usize>load<u32>(r, 4);
    while (p < end) {
      let at = p;
      p = readTag(p, end);
      if (p == 0) return stop(failStatus, failAt, base, 0, 0, 0, T, tbl);
      let num = tagValue >>> 3;
      let wt = tagValue & 7;
      if (wt == 0) {
        p = skipVarint(p, end);
        if (p == 0) return stop(failStatus, failAt, base, num, wt, 0, T, tbl);
      } else if (wt == 2) {
        let q = readVarint(p, end);
        if (q == 0) return stop(failStatus, failAt, base, num, wt, 0, T, tbl);
        if (varintValue > <u64>(end - q)) return stop(E_LENGTH_PAST_END, at, base, num, wt, 0, T, tbl);
        p = q + <usize>varintValue;
      } else if (wt == 1) {
        if (end - p < 8) return stop(E_TRUNCATED, p, base, num, wt, 0, T, tbl);
        p += 8;
      } else if (wt == 5) {
        if (end - p < 4) return stop(E_TRUNCATED, p, base, num, wt, 0, T, tbl);
        p += 4;
      } else {
        return stop(E_INVALID_WIRE_TYPE, at, base, num, wt, 0, T, tbl);
      }
      if (load<u32>(findEntry(T, num)) != 0) return stop(E_COLLISION, at, base, num, wt, 0, T, tbl);
    }
  }
  ctrlSet(CTRL_STATUS, OK);
  return OK;
}



