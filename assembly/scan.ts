// The validating message walker (docs/design.md §8.3, §13): checks a message against the layout table
// and writes the decode tape. Nesting uses an explicit stack in linear memory (16 bytes a level,
// sized by the caller from maxDepth), never recursion, so a nesting bomb ends in
// E_DEPTH_EXCEEDED instead of a stack overflow.
//
// The tape is written into a bounded window, and the walk is resumable: when the window (entries
// up from its start, packed arrays down from its end) or its text area is full, the walker saves
// its state (position, end, type, stack pointer, flags; the rest of a packed run it is
// splitting; the stack itself stays in linear memory) and returns S_PAUSED. JS reads the entries
// written so far, then calls walkResume, which continues the walk into the same window from its
// start. Nothing written earlier is ever patched, so a window is final once returned. Working
// memory is then the input copy plus the window, whatever the input produces: an empty
// sub-message (`0a 00`) gives 32 bytes of tape for 2 bytes of input, an empty frame 32 for 1.
// Size: walk, walkResume and walkFrames share the paused walk's state and one field loop, kept
// as one function on purpose (V8 keeps no register across a call: see walkPacked); the common
// records run in walkFast, a second loop without calls, before that loop takes any other.
import {
  CTRL_COUNT_BYTE, CTRL_DEPTH_BYTE, CTRL_FIELD_BYTE, CTRL_NEED_BYTE, CTRL_OFFSET_BYTE, CTRL_PACKED_BYTE,
  CTRL_STATUS_BYTE, CTRL_TEXT_BYTE, CTRL_TYPE_BYTE, CTRL_WIRE_BYTE, ctrlSet,
} from "./ctrl";
import { framePrefix, frameStatus } from "./framing";
import {
  E_BAD_TABLE, E_COLLISION, E_DEPTH_EXCEEDED, E_UNSAFE_INTEGER, E_FIELD_NUMBER_ZERO, E_INVALID_WIRE_TYPE,
  E_LENGTH_PAST_END, E_MESSAGE_TOO_LARGE, E_PACKED_LENGTH, E_TRUNCATED, E_WIRE_TYPE_MISMATCH, OK,
  S_NEED_INPUT, S_PAUSED,
} from "./status";
import {
  A_KIND_MASK, A_MESSAGE, A_PACKABLE, A_SLOT_SHIFT, A_STRING, A_WIRE_SHIFT, KIND_BOOL,
  KIND_DOUBLE, KIND_FIXED32, KIND_FIXED64, KIND_FLOAT, KIND_INT64, KIND_SFIXED32, KIND_SFIXED64, KIND_SINT32,
  KIND_SINT64, KIND_UINT64, T_DENSE_MAX_BYTE, T_HEADER_BYTES, findEntry, findSparse, jsSafe,
} from "./table";
import {
  F_ASCII, F_ASCII_SELF, F_ASCII_TREE, F_HAS_UNKNOWN, FLAG_SHIFT, OP_BYTES, OP_END,
  OP_FIXED32, OP_FIXED64, OP_PACKED, OP_START, OP_UNKNOWN, OP_VARINT, SLOT_SHIFT,
} from "./tape";
import { readTag, tagValue } from "./tag";
import { checkUtf8Tail, checkUtf8Within, safeLoadEnd, utf8Tail } from "./utf8";
import {
  fail as failAt8, failAt, failStatus, packVarint8, readVarint, skipVarint, varintValue, zigzagDecode32,
  zigzagDecode64,
} from "./varint";

// The window: entries grow up from gTp, packed arrays down from gPk, within [gTape, gTapeEnd).
// The text area [gTx0, gTxEnd) receives the bytes of the window's ASCII string fields, back to
// back in tape order; gTx is its cursor. Every window starts empty.
let gTape: usize = 0;
let gTapeEnd: usize = 0;
let gTp: usize = 0;
let gPk: usize = 0;
let gTx0: usize = 0;
let gTx: usize = 0;
let gTxEnd: usize = 0;

// The call's arguments, kept for walkResume.
let gTbl: usize = 0;
let gBase: usize = 0;
let gMaxDepth: u32 = 0;
let gStack: usize = 0;

// A paused walk: in a message body (gInBody, set by pause) at gP of the body ending at gEnd, of
// the type at gT, with the stack pointer gSp and the body's flags gFlags; else between frames at gP.
let gInBody: bool = false;
let gP: usize = 0;
let gEnd: usize = 0;
let gT: usize = 0;
let gSp: usize = 0;
let gFlags: u32 = 0;
// A packed run split across windows: its next element at gRunP (0 = none), its end gRunEnd,
// its layout word A and its field number.
let gRunP: usize = 0;
let gRunEnd: usize = 0;
let gRunA: u32 = 0;
let gRunNum: u32 = 0;
// walkFrames: the root type, the limit, the segment's end and the input bytes after it.
let gFrames: bool = false;
let gRoot: usize = 0;
let gMaxBytes: u32 = 0;
let gSegEnd: usize = 0;
let gMore: u32 = 0;

/** Cold exit: records where and why the walk stopped. */
export function stop(status: i32, at: usize, base: usize, num: u32, wt: u32, levels: usize, T: usize, tbl: usize): i32 {
  ctrlSet(CTRL_STATUS_BYTE, <u32>status);
  ctrlSet(CTRL_OFFSET_BYTE, <u32>(at - base));
  ctrlSet(CTRL_FIELD_BYTE, num);
  ctrlSet(CTRL_WIRE_BYTE, wt);
  ctrlSet(CTRL_DEPTH_BYTE, <u32>levels);
  ctrlSet(CTRL_TYPE_BYTE, <u32>((T - tbl) >> 2));
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

/** Where countVarintsUpTo stopped. */
let gScanEnd: usize = 0;

/**
 * Counts the varints that end in [p, end), at most `max`; gScanEnd = the position after the last
 * one counted when `max` stopped the count, else end. Whole 16-byte blocks are taken only while
 * even 16 more stay below max, so the stop always falls right after a varint's last byte.
 */
function countVarintsUpTo(p: usize, end: usize, max: usize): u32 {
  let c: usize = 0;
  while (end - p >= 16 && c + 16 < max) {
    c += 16 - <usize>popcnt<i32>(i8x16.bitmask(v128.load(p)));
    p += 16;
  }
  while (p < end && c < max) {
    c += <usize>(load<u8>(p) < 0x80);
    p++;
  }
  gScanEnd = c < max ? end : p;
  return <u32>c;
}

/** The status a cold path below returned 0 for. */
let gStatus: i32 = 0;

@inline function fail(status: i32): usize {
  gStatus = status;
  return 0;
}

/**
 * A packed run of a repeated numeric field at p (after its tag at `at`): checks its length and
 * decodes the elements that fit in the window (all of them when they do) below gPk, writing their
 * PACKED entry at tp. Returns the position after the last element decoded, with gRunEnd = the
 * end of the run; or 0 with gStatus: an error, or S_PAUSED when the window has no room for one
 * element (nothing is written; the field is read again in the next window). A run larger than
 * the window becomes several entries, one per window, which the tape format allows (a field may
 * have several runs): with `at` = 0, p is where the run goes on (its end gRunEnd) after a pause.
 * Kept out of walkBody (with skipUnknown, which binaryen inlines back): V8 keeps no register
 * across a call, so every value live across one in the field loop is spilled where it is
 * defined; with this path, `depth` (now from sp), and the 1-byte length and 1-8-byte varint
 * reads below inline, walkFrames of 1000 bench.Small frames went from 75.5-76.0 to 71.3-73.4
 * µs (bench/micro-walker.mjs, same process, min of 100 interleaved rounds).
 */
function walkPacked(tbl: usize, T: usize, base: usize, at: usize, p: usize, end: usize, a: u32, num: u32, levels: usize, tp: usize): usize {
  let wt: u32 = 2;
  let kind = a & A_KIND_MASK;
  let s = p;
  let pend = gRunEnd;
  if (at != 0) {
    s = readVarint(p, end);
    if (s == 0) return fail(stop(failStatus, failAt, base, num, wt, levels, T, tbl));
    let len = varintValue;
    if (len > <u64>(end - s)) return fail(stop(E_LENGTH_PAST_END, at, base, num, wt, levels, T, tbl));
    if (kind == KIND_FIXED32 || kind == KIND_SFIXED32 || kind == KIND_FLOAT) {
      if ((len & 3) != 0) return fail(stop(E_PACKED_LENGTH, at, base, num, wt, levels, T, tbl));
    } else if (kind == KIND_FIXED64 || kind == KIND_SFIXED64 || kind == KIND_DOUBLE) {
      if ((len & 7) != 0) return fail(stop(E_PACKED_LENGTH, at, base, num, wt, levels, T, tbl));
    }
    pend = s + <usize>len;
    gRunEnd = pend;
  }
  let pk = gPk;
  let head = (a >>> A_SLOT_SHIFT) << SLOT_SHIFT;
  // Element bytes the window holds besides this entry and 7 bytes of alignment.
  let room = pk - tp;
  let fit: usize = room > 23 ? room - 23 : 0;
  let count: u32;
  let size: u32;
  let ce = pend;
  if (kind == KIND_FIXED32 || kind == KIND_SFIXED32 || kind == KIND_FLOAT) {
    size = 4;
    let c = (pend - s) >> 2;
    if (c > fit >> 2) {
      c = fit >> 2;
      ce = s + (c << 2);
    }
    count = <u32>c;
  } else if (kind == KIND_FIXED64 || kind == KIND_SFIXED64 || kind == KIND_DOUBLE) {
    size = 8;
    let c = (pend - s) >> 3;
    if (c > fit >> 3) {
      c = fit >> 3;
      ce = s + (c << 3);
    }
    count = <u32>c;
  } else {
    size = kind == KIND_BOOL ? 1 : kind == KIND_INT64 || kind == KIND_UINT64 || kind == KIND_SINT64 ? 8 : 4;
    // Every element takes at least one byte: a run of n bytes needs at most n * size.
    if (<u64>(pend - s) * <u64>size <= <u64>fit) {
      count = countVarints(s, pend);
    } else {
      count = countVarintsUpTo(s, pend, fit / <usize>size);
      ce = gScanEnd;
    }
  }
  if (ce == s && s < pend) return fail(S_PAUSED);
  // jstype = JS_NUMBER (word B): every element must be a safe JS integer; the run's entry is
  // looked up once per run, not per element.
  let js = size == 8 && kind != KIND_DOUBLE && load<u32>(findEntry(T, num), 4) != 0;
  if (js && (kind == KIND_FIXED64 || kind == KIND_SFIXED64)) {
    for (let q = s; q < ce; q += 8) {
      if (!jsSafe(kind, load<u64>(q))) return fail(stop(E_UNSAFE_INTEGER, q, base, num, wt, levels, T, tbl));
    }
  }
  let dst = (pk - (<usize>count * <usize>size)) & ~(<usize>7);
  if (size == 4 && (kind == KIND_FIXED32 || kind == KIND_SFIXED32 || kind == KIND_FLOAT)) {
    memory.copy(dst, s, ce - s);
  } else if (kind == KIND_FIXED64 || kind == KIND_SFIXED64 || kind == KIND_DOUBLE) {
    memory.copy(dst, s, ce - s);
  } else {
    let d = dst;
    if (size == 8) {
      let zz = kind == KIND_SINT64;
      while (s < ce) {
        let es = s;
        let v: u64;
        let x: u64 = 0;
        let m: u64 = 0;
        if (ce - s >= 8) {
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
        } else if (ce - s >= 9 && load<u8>(s, 8) < 0x80) {
          // Nine bytes: the eight loaded plus the ninth's 7 bits on top (63-bit values).
          v = (packVarint8(x) | (<u64>load<u8>(s, 8) << 56));
          s += 9;
        } else if (ce - s >= 10 && load<u8>(s, 9) <= 1) {
          // Ten bytes (a negative int64/int32: every one is ten bytes), its last carrying bit 63
          // only (anything else is readVarint's overflow error, found by the slow path).
          v = packVarint8(x) | (<u64>(load<u8>(s, 8) & 0x7f) << 56) | (<u64>load<u8>(s, 9) << 63);
          s += 10;
        } else {
          s = readVarint(s, ce);
          if (s == 0) return fail(stop(failStatus, failAt, base, num, wt, levels, T, tbl));
          v = varintValue;
        }
        if (zz) v = <u64>zigzagDecode64(v);
        if (js && !jsSafe(kind, v)) return fail(stop(E_UNSAFE_INTEGER, es, base, num, wt, levels, T, tbl));
        store<u64>(d, v);
        d += 8;
      }
    } else if (size == 4) {
      let zz = kind == KIND_SINT32;
      while (s < ce) {
        let v: u32;
        let x: u64 = 0;
        let m: u64 = 0;
        if (ce - s >= 8) {
          x = load<u64>(s);
          m = ~x & 0x8080808080808080;
        }
        if (m != 0) {
          // As above: one load, no byte loop.
          let tz = ctz<u64>(m);
          s += <usize>((tz + 1) >> 3);
          v = <u32>packVarint8(x & ((<u64>2 << tz) - 1));
        } else if (ce - s >= 9 && load<u8>(s, 8) < 0x80) {
          // Nine bytes: the eight loaded plus the ninth's 7 bits on top (63-bit values).
          v = <u32>(packVarint8(x) | (<u64>load<u8>(s, 8) << 56));
          s += 9;
        } else if (ce - s >= 10 && load<u8>(s, 9) <= 1) {
          // Ten bytes: a negative int32 is written as its 64-bit sign extension. The low 32 bits
          // are in the first five bytes; the tenth must carry bit 63 only, as readVarint checks.
          v = <u32>packVarint8(x);
          s += 10;
        } else {
          s = readVarint(s, ce);
          if (s == 0) return fail(stop(failStatus, failAt, base, num, wt, levels, T, tbl));
          v = <u32>varintValue;
        }
        if (zz) v = <u32>zigzagDecode32(v);
        store<u32>(d, v);
        d += 4;
      }
    } else {
      while (s < ce) {
        s = readVarint(s, ce);
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
  return ce;
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

/** Saves a walk stopped at p (in the body ending at `end` of the type at T) for walkResume. */
function pause(p: usize, end: usize, T: usize, sp: usize, flags: u32, tp: usize, pk: usize, tx: usize): i32 {
  gInBody = true;
  gP = p;
  gEnd = end;
  gT = T;
  gSp = sp;
  gFlags = flags;
  gTp = tp;
  gPk = pk;
  gTx = tx;
  return S_PAUSED;
}

/** Writes the START entry of a root message whose body is [p, end) (the window has room). */
@inline function openRoot(base: usize, p: usize, end: usize): void {
  let tp = gTp;
  store<u64>(tp, <u64>OP_START);
  store<u64>(tp, <u64>(p - base) | (<u64>(end - p) << 32), 8);
  gTp = tp + 16;
}

// Where walkFast stopped (with gTp and gTx).
let fP: usize = 0;
let fEnd: usize = 0;
let fT: usize = 0;
let fSp: usize = 0;
let fFlags: u32 = 0;

/** walkFast's status: it stopped before a record (or an end) that walkBody's loop takes. */
const SLOW: i32 = 1;

/**
 * The common records of walkBody, in a loop with few live values and no calls (validate.ts says
 * why: V8 keeps no register across a call, and stores a loop's values to the stack where they
 * are defined when any path of the loop needs them spilled): one- or two-byte tags of densely
 * numbered declared fields with their declared wire type, varints of up to 8 bytes and fixed
 * values of fields that are not jstype = JS_NUMBER, one- or two-byte lengths, nested messages
 * within the depth limit and their ends, bytes fields, and valid strings of up to 256 bytes with
 * room in the text area. It writes the same entries and text as walkBody. Returns OK after the
 * root's END (sp = stack), or SLOW before anything else, for walkBody's loop, which reads that
 * record (or pauses) with every rule. Either way fP, fEnd, fT, fSp, fFlags, gTp and gTx say
 * where it stands. walkFrames of 1000 bench.Small frames (bench/micro-walker.mjs, both builds in
 * one process, 40 interleaved rounds): min 133.0 -> 115.6 µs, median 195.6 -> 163.0 µs.
 */
function walkFast(tbl: usize, base: usize, stack: usize, maxDepth: u32, limit: usize, p: usize, end: usize, T: usize, sp: usize, flags: u32, tp: usize, pk: usize, tx: usize): i32 {
  let txEnd = gTxEnd;
  let status = OK;
  while (true) {
    if (pk - tp < 16) {
      status = SLOW;
      break;
    }
    if (p >= end) {
      store<u64>(tp, <u64>(OP_END | (flags << FLAG_SHIFT)));
      store<u64>(tp, 0, 8);
      tp += 16;
      if (sp == stack) break;
      sp -= 16;
      let childTree = flags & F_ASCII_TREE;
      end = load<usize>(sp);
      T = load<usize>(sp, 4);
      flags = load<u32>(sp, 12) & 0xff;
      if (childTree == 0) flags &= ~F_ASCII_TREE;
      continue;
    }
    let t: u32 = <u32>load<u8>(p);
    let q = p + 1;
    if (t >= 0x80) {
      if (end - p < 2) {
        status = SLOW;
        break;
      }
      let b1 = <u32>load<u8>(p, 1);
      if (b1 >= 0x80) {
        status = SLOW;
        break;
      }
      t = (t & 0x7f) | (b1 << 7);
      q = p + 2;
    }
    let num = t >>> 3;
    // 0 or past the dense part in one unsigned comparison (V8 materializes `a || b`).
    if (num - 1 >= load<u32>(T, T_DENSE_MAX_BYTE)) {
      status = SLOW;
      break;
    }
    let e = T + T_HEADER_BYTES + (<usize>num << 3);
    let a = load<u32>(e);
    let wt = t & 7;
    if (a == 0) {
      status = SLOW;
      break;
    }
    if (wt != ((a >>> A_WIRE_SHIFT) & 7)) {
      status = SLOW;
      break;
    }
    let head = (a >>> A_SLOT_SHIFT) << SLOT_SHIFT;
    if (wt == 2) {
      if (q >= end) {
        status = SLOW;
        break;
      }
      let len = <usize>load<u8>(q);
      q++;
      if (len >= 0x80) {
        if (q >= end) {
          status = SLOW;
          break;
        }
        let b = <usize>load<u8>(q);
        if (b >= 0x80) {
          status = SLOW;
          break;
        }
        len = (len & 0x7f) | (b << 7);
        q++;
      }
      if (len > end - q) {
        status = SLOW;
        break;
      }
      if ((a & A_MESSAGE) != 0) {
        if (<u32>((sp - stack) >> 4) + 1 >= maxDepth) {
          status = SLOW;
          break;
        }
        store<usize>(sp, end);
        store<usize>(sp, T, 4);
        store<u32>(sp, flags | head, 12);
        sp += 16;
        T = tbl + (<usize>load<u32>(e, 4) << 2);
        end = q + len;
        flags = F_ASCII_SELF | F_ASCII_TREE;
        store<u64>(tp, <u64>(OP_START | head));
        store<u64>(tp, <u64>(q - base) | (<u64>len << 32), 8);
        tp += 16;
        p = q;
        continue;
      }
      let f: u32 = 0;
      if ((a & A_STRING) != 0) {
        // ASCII copied to the text area 16 bytes a step (a store may run past the string, inside
        // the area: the next string overwrites it); anything else is walkBody's.
        let room = txEnd - tx;
        if (len > 256) {
          status = SLOW;
          break;
        }
        // The stores below write up to len + 15 bytes (the text area holds 16 bytes past all
        // the input's strings, so this only fails on a window's full text area).
        if (room < len + 16) {
          status = SLOW;
          break;
        }
        if (q + len > limit) {
          status = SLOW;
          break;
        }
        let i: usize = 0;
        let bad: i32 = 0;
        while (i < len) {
          let v = v128.load(q + i);
          let left = len - i;
          let m = i8x16.bitmask(v);
          if (left < 16) m &= (1 << <i32>left) - 1;
          bad |= m;
          v128.store(tx + i, v);
          i += 16;
        }
        if (bad == 0) {
          tx += len;
          f = F_ASCII;
        } else {
          // Not ASCII: checked here (inlined, no call); an invalid one is walkBody's to report.
          if (utf8Tail(q, q + len) == 0) {
            status = SLOW;
            break;
          }
          flags &= ~(F_ASCII_SELF | F_ASCII_TREE);
        }
      }
      store<u64>(tp, <u64>(OP_BYTES | (f << FLAG_SHIFT) | head));
      store<u64>(tp, <u64>(q - base) | (<u64>len << 32), 8);
      tp += 16;
      p = q + len;
      continue;
    }
    if (load<u32>(e, 4) != 0) {
      // jstype = JS_NUMBER: the value is checked in walkBody.
      status = SLOW;
      break;
    }
    if (wt == 0) {
      let v: u64;
      if (q < end && load<u8>(q) < 0x80) {
        v = <u64>load<u8>(q);
        q++;
      } else {
        // A varint of 2-8 bytes from one 8-byte load.
        if (q > limit + 8) {
          status = SLOW;
          break;
        }
        let x = load<u64>(q);
        let m = ~x & 0x8080808080808080;
        if (m == 0) {
          status = SLOW;
          break;
        }
        let tz = ctz<u64>(m);
        let n = <usize>((tz + 1) >> 3);
        if (n > end - q) {
          status = SLOW;
          break;
        }
        v = packVarint8(x & ((<u64>2 << tz) - 1));
        q += n;
      }
      let kind = a & A_KIND_MASK;
      if (kind == KIND_SINT32) v = <u64>(<i64>zigzagDecode32(<u32>v));
      else if (kind == KIND_SINT64) v = <u64>zigzagDecode64(v);
      else if (kind == KIND_BOOL) v = <u64>(v != 0);
      store<u64>(tp, <u64>(OP_VARINT | head));
      store<u64>(tp, v, 8);
      tp += 16;
      p = q;
      continue;
    }
    if (wt == 1) {
      if (end - q < 8) {
        status = SLOW;
        break;
      }
      store<u64>(tp, <u64>(OP_FIXED64 | head));
      store<u64>(tp, load<u64>(q), 8);
      tp += 16;
      p = q + 8;
      continue;
    }
    if (end - q < 4) {
      status = SLOW;
      break;
    }
    store<u64>(tp, <u64>(OP_FIXED32 | head));
    store<u64>(tp, <u64>load<u32>(q), 8);
    tp += 16;
    p = q + 4;
  }
  fP = p;
  fEnd = end;
  fT = T;
  fSp = sp;
  fFlags = flags;
  gTp = tp;
  gTx = tx;
  return status;
}

/**
 * Walks a message body from p to `end`, of the type at address T, with `sp` the stack pointer
 * (`stack` at a root) and `flags` the body's flags so far. Entries start at gTp, packed arrays
 * end at gPk, text at gTx. Returns OK once the root's END is written (gTp, gPk, gTx updated),
 * S_PAUSED when the window is full (state saved by pause), or an error.
 */
function walkBody(tbl: usize, T: usize, base: usize, p: usize, end: usize, maxDepth: u32, stack: usize, sp: usize, flags: u32): i32 {
  let tp = gTp;
  let pk = gPk;
  let tx = gTx;
  let txEnd = gTxEnd;
  // The current type's dense bound, kept in a local: one load less per field.
  let dmax = load<u32>(T, T_DENSE_MAX_BYTE);
  // The UTF-8 check may read a whole v128 at or below this address. One masked
  // load per short string instead of the 8-byte and byte loops: 14.98 -> 14.48 µs on the
  // micro-walker span batch (same process, medians of 3).
  let limit = safeLoadEnd();

  while (true) {
    // The common records first; this loop takes the record walkFast stopped before.
    let fast = walkFast(tbl, base, stack, maxDepth, limit, p, end, T, sp, flags, tp, pk, tx);
    p = fP;
    end = fEnd;
    T = fT;
    sp = fSp;
    flags = fFlags;
    tp = gTp;
    tx = gTx;
    if (fast == OK) break;
    dmax = load<u32>(T, T_DENSE_MAX_BYTE);
    // Every entry needs 16 bytes; one check per iteration covers every path below, and a
    // full window pauses the walk here, between two fields.
    if (pk - tp < 16) return pause(p, end, T, sp, flags, tp, pk, tx);
    if (p >= end) {
      store<u64>(tp, <u64>(OP_END | (flags << FLAG_SHIFT)));
      store<u64>(tp, 0, 8);
      tp += 16;
      if (sp == stack) break;
      sp -= 16;
      let childTree = flags & F_ASCII_TREE;
      end = load<usize>(sp);
      T = load<usize>(sp, 4);
      flags = load<u32>(sp, 12) & 0xff;
      if (childTree == 0) flags &= ~F_ASCII_TREE;
      dmax = load<u32>(T, T_DENSE_MAX_BYTE);
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
        let q = walkPacked(tbl, T, base, at, p, end, a, num, (sp - stack) >> 4, tp);
        if (q == 0) {
          // No room for one element: the field is read again in the next window.
          if (gStatus == S_PAUSED) return pause(at, end, T, sp, flags, tp, pk, tx);
          return gStatus;
        }
        pk = gPk;
        tp += 16;
        p = gRunEnd;
        if (q != p) {
          // The run goes on past the window: walkResume writes the rest first.
          gRunP = q;
          gRunA = a;
          gRunNum = num;
          return pause(p, end, T, sp, flags, tp, pk, tx);
        }
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
      if (kind == KIND_SINT32) v = <u64>(<i64>zigzagDecode32(<u32>v));
      else if (kind == KIND_SINT64) v = <u64>zigzagDecode64(v);
      else if (kind == KIND_BOOL) v = <u64>(v != 0);
      // jstype = JS_NUMBER (word B; 0 for every other scalar): a value a JS number would round.
      if (load<u32>(e, 4) != 0 && !jsSafe(kind, v)) return stop(E_UNSAFE_INTEGER, at, base, num, wt, (sp - stack) >> 4, T, tbl);
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
        store<u32>(sp, flags | head, 12);
        sp += 16;
        T = tbl + (<usize>load<u32>(e, 4) << 2);
        dmax = load<u32>(T, T_DENSE_MAX_BYTE);
        end = vend;
        flags = F_ASCII_SELF | F_ASCII_TREE;
        store<u64>(tp, <u64>(OP_START | head));
        store<u64>(tp, <u64>(q - base) | (len << 32), 8);
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
              tx += n;
              f = F_ASCII;
            } else if (room >= n) {
              memory.copy(tx, q, n);
              tx += n;
              f = F_ASCII;
            } else if (tx != gTx0) {
              // The text area is full: the field is read again in the next window, whose
              // text area starts empty.
              return pause(at, end, T, sp, flags, tp, pk, tx);
            } else {
              // Longer than the whole text area: left unflagged, JS decodes it from the input.
              flags &= ~(F_ASCII_SELF | F_ASCII_TREE);
            }
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
      if (load<u32>(e, 4) != 0 && !jsSafe(a & A_KIND_MASK, load<u64>(p))) return stop(E_UNSAFE_INTEGER, at, base, num, wt, (sp - stack) >> 4, T, tbl);
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
  gP = p;
  return OK;
}

@inline function checkRoot(tableWords: u32, rootType: u32): bool {
  return rootType <= tableWords && tableWords - rootType >= 4;
}

/** Starts a call: the window [tape, tapeEnd) with its text area [text, textEnd), no walk paused. */
function begin(tbl: usize, base: usize, maxDepth: u32, stack: usize, tape: usize, tapeEnd: usize, text: usize, textEnd: usize): void {
  gTbl = tbl;
  gBase = base;
  gMaxDepth = maxDepth;
  gStack = stack;
  gTape = tape;
  gTapeEnd = tapeEnd;
  gTx0 = text;
  gTxEnd = textEnd < text ? text : textEnd;
  gTp = tape;
  gPk = tapeEnd;
  gTx = text;
  gInBody = false;
  gRunP = 0;
}

/** Reports a call's outcome; the window's counts too unless it failed. */
function finish(status: i32): i32 {
  ctrlSet(CTRL_STATUS_BYTE, <u32>status);
  if (status >= OK) {
    ctrlSet(CTRL_COUNT_BYTE, <u32>((gTp - gTape) >> 4));
    ctrlSet(CTRL_PACKED_BYTE, <u32>gPk);
    ctrlSet(CTRL_TEXT_BYTE, <u32>(gTx - gTx0));
  }
  return status;
}

/**
 * Validates the message [base, base + len) of type `rootType` (a word offset into the table at
 * `tbl`) and writes its tape into the window [tape, tapeEnd). `stack` holds 16 * maxDepth bytes.
 * The bytes of every ASCII string field go to the text area [text, textEnd), back to back in
 * tape order (a store may write up to 16 bytes past a string's end, inside the area; a string
 * longer than the whole area is left unflagged). Returns OK (the whole tape is in the window),
 * S_PAUSED (the window is full: read it, then call walkResume), or an error with
 * CTRL_OFFSET/FIELD/WIRE/DEPTH/TYPE describing where. After OK and S_PAUSED, CTRL_COUNT =
 * entries in the window, CTRL_PACKED = lowest packed address, CTRL_TEXT = text bytes.
 * The window must hold at least 64 bytes.
 */
export function walk(tbl: usize, tableWords: u32, rootType: u32, base: usize, len: u32, maxBytes: u32, maxDepth: u32, stack: usize, tape: usize, tapeEnd: usize, text: usize, textEnd: usize): i32 {
  if (!checkRoot(tableWords, rootType)) return stop(E_BAD_TABLE, base, base, 0, 0, 0, tbl, tbl);
  let T = tbl + (<usize>rootType << 2);
  if (len > maxBytes) return stop(E_MESSAGE_TOO_LARGE, base, base, 0, 0, 0, T, tbl);
  begin(tbl, base, maxDepth, stack, tape, tapeEnd, text, textEnd);
  gFrames = false;
  let end = base + <usize>len;
  openRoot(base, base, end);
  return finish(walkBody(tbl, T, base, base, end, maxDepth, stack, stack, F_ASCII_SELF | F_ASCII_TREE));
}

/**
 * Continues a walk (walk or walkFrames) that returned S_PAUSED, or S_NEED_INPUT for walkFrames
 * after the input was copied in again (then call walkFrames instead): the window starts empty
 * again. Same results as walk.
 */
export function walkResume(): i32 {
  gTp = gTape;
  gPk = gTapeEnd;
  gTx = gTx0;
  let levels = (gSp - gStack) >> 4;
  if (gRunP != 0) {
    let q = walkPacked(gTbl, gT, gBase, 0, gRunP, gRunEnd, gRunA, gRunNum, levels, gTp);
    if (q == 0) return finish(gStatus);
    gTp += 16;
    if (q != gRunEnd) {
      gRunP = q;
      return finish(S_PAUSED);
    }
    gRunP = 0;
  }
  if (gInBody) {
    let status = walkBody(gTbl, gT, gBase, gP, gEnd, gMaxDepth, gStack, gSp, gFlags);
    if (status != OK) return finish(status);
    gInBody = false;
  }
  if (!gFrames) return finish(OK);
  return finish(walkFrameList(gP));
}

/** The frames of walkFrames' segment from p on. */
function walkFrameList(p: usize): i32 {
  let tbl = gTbl;
  let base = gBase;
  let T = gRoot;
  let end = gSegEnd;
  let more = gMore;
  let maxBytes = gMaxBytes;
  let maxDepth = gMaxDepth;
  let stack = gStack;
  while (p < end) {
    // A frame needs room for its START and END at least.
    if (gPk - gTp < 32) {
      gInBody = false;
      gP = p;
      return S_PAUSED;
    }
    let q = framePrefix(base, p, end, more, maxBytes);
    if (q == 0) {
      if (frameStatus != S_NEED_INPUT) return stop(frameStatus, p, base, 0, 0, 0, T, tbl);
      ctrlSet(CTRL_OFFSET_BYTE, <u32>(p - base));
      return S_NEED_INPUT;
    }
    let fend = q + <usize>varintValue;
    openRoot(base, q, fend);
    let status = walkBody(tbl, T, base, q, fend, maxDepth, stack, stack, F_ASCII_SELF | F_ASCII_TREE);
    if (status != OK) return status;
    p = fend;
  }
  if (more != 0) {
    ctrlSet(CTRL_OFFSET_BYTE, <u32>(p - base));
    ctrlSet(CTRL_NEED_BYTE, 0);
    return S_NEED_INPUT;
  }
  return OK;
}

/**
 * walk over the frames of a framing-v1 input, one segment at a time: the segment holds input
 * offsets [from, to) at addresses base + offset (modulo 2^32, see framing.ts), and `more` input
 * bytes follow it. Each frame's tape is a root START .. END sequence, one after the other;
 * offsets stay those of the whole input. Returns as walk, and S_NEED_INPUT when the next frame
 * lies past the segment (read the window, copy the input in from CTRL_OFFSET, at least up to
 * CTRL_NEED, and call walkFrames again from there). Frame errors (E_FRAME_TRUNCATED,
 * E_FRAME_TOO_LARGE, varint errors of the prefix) at the frame's offset; a frame over the limit
 * is refused from its prefix alone.
 */
export function walkFrames(tbl: usize, tableWords: u32, rootType: u32, base: usize, from: u32, to: u32, more: u32, maxBytes: u32, maxDepth: u32, stack: usize, tape: usize, tapeEnd: usize, text: usize, textEnd: usize): i32 {
  if (!checkRoot(tableWords, rootType)) return stop(E_BAD_TABLE, base, base, 0, 0, 0, tbl, tbl);
  begin(tbl, base, maxDepth, stack, tape, tapeEnd, text, textEnd);
  gFrames = true;
  gRoot = tbl + (<usize>rootType << 2);
  gMaxBytes = maxBytes;
  gSegEnd = base + <usize>to;
  gMore = more;
  return finish(walkFrameList(base + <usize>from));
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
  ctrlSet(CTRL_STATUS_BYTE, OK);
  return OK;
}



