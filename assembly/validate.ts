// Validate-only walk (docs/design.md §13, §14 "validate-only"): the same checks as walk in scan.ts —
// tags, field numbers, wire types against the declaration, varint form, lengths, depth, UTF-8
// of string fields, packed lengths and elements, unknown-field well-formedness — with the same
// status, offset, field, wire type, depth and type in the control block on failure, but no tape
// and no packed decoding. Any difference from walk's verdict is a bug: the tests compare both.
// The stack keeps walk's layout where the error path reads it (+0 the parent's end, +4 parent
// type address, +12 the opening field's slot << 8; +8 is the stamp gOpened here), so ops.ts names paths
// the same way for both.
import {
  E_BAD_TABLE, E_DEPTH_EXCEEDED, E_UNSAFE_INTEGER, E_FIELD_NUMBER_TOO_LARGE, E_FIELD_NUMBER_ZERO, E_INVALID_WIRE_TYPE, E_LENGTH_PAST_END,
  E_MESSAGE_TOO_LARGE, E_PACKED_LENGTH, E_TRUNCATED, E_WIRE_TYPE_MISMATCH, OK, S_NEED_INPUT,
} from "./status";
import { CTRL_COUNT_BYTE, CTRL_NEED_BYTE, CTRL_OFFSET_BYTE, CTRL_STATUS_BYTE, ctrlSet } from "./ctrl";
import { framePrefix, frameStatus } from "./framing";
import {
  A_KIND_MASK, A_MESSAGE, A_PACKABLE, A_SLOT_SHIFT, A_STRING, A_WIRE_SHIFT, KIND_DOUBLE,
  KIND_FIXED32, KIND_FIXED64, KIND_FLOAT, KIND_SFIXED32, KIND_SFIXED64, KIND_SINT64, T_DENSE_MAX_BYTE, T_HEADER_BYTES, T_ACTIONS_BYTE, ACT_LEN, ACT_MESSAGE, ACT_SLOW, ACT_STRING, ACT_VARINT, ACT_FIXED64, findSparse, jsSafe,
} from "./table";
import { SLOT_SHIFT } from "./tape";
import { ascii32, checkUtf8Within, safeLoadEnd } from "./utf8";
import { failAt, failStatus, readVarint, varintRunOk, varintValue, zigzagDecode64 } from "./varint";
import { stop } from "./scan";

// Deepest nesting level reached by the last validateBody (1 = no nested message; map entries
// count as a level, as for maxDepth).
let gHeight: u32 = 1;

// Where the walk stands after validateFast or validateRecord returns.
let gP: usize = 0;
let gEnd: usize = 0;
let gT: usize = 0;
let gSp: usize = 0;
// A frame's word +8 while the walk runs: set on every push, so the frames opened so far (the
// deepest level reached) are the stamped ones from the bottom; validateBody counts and clears
// them when it returns. A compare with a global per push instead (the highest frame opened) was
// 4-5% of the span batch's validate. The stamp is a new value per call (gOpened): the stack's
// memory is scratch that other calls place their input and tape in (ops.ts place), and with one
// constant (0xffffffff) the bytes of an earlier input there (a run of sfixed64 -1) read as frames
// opened: a lazily decoded value 3 levels high was recorded 33 high, and relays that would have
// copied its bytes built and wrote it instead (test/adversarial/decode-lazy-height-stale.test.ts).
// A stale word now has to equal this call's 32-bit stamp.
let gOpened: u32 = 0x9e3779b9;

// Why the walk is split in two: V8's wasm code keeps no register across a call, and TurboFan
// stores a value to the stack where it is defined when any path of the loop needs it spilled.
// One loop with every rule in it (slow varints, UTF-8 past ASCII, sparse numbers, packed runs,
// errors that name the field) ran 70 instructions per unpacked fixed64 record, 6 to 8 of them
// stack stores on the common path (V8's code read with perf and gdb); inlining the calls alone
// gained 15%. So validateFast takes the common records with few live values and no calls, and
// hands any other record, from its first byte, to validateRecord, which applies every rule.
// Span batch (19 KB) validate-only, both builds in one process, min of 40 rounds, three runs:
// 20.6-34.0 -> 14.8-22.8 µs (1.39-1.49x); 2,000 unpacked fixed64 records: 11.5 -> 6.3 ns each.
// Then, measured on the bench's span batch (18,483 bytes, 2,089 records: 888 nested messages,
// 690 strings), the two builds swapped in one process by initWasm, medians of 20 rounds each
// way: one load of a tag action instead of the entry, its wire type and word B: 1.01x; strings
// of up to 32 bytes in two masked loads instead of the 16-byte loop and its tail: 1.12x; testing
// for a message before a string: 1.05x; no denseMax test for one-byte tags (the actions cover
// numbers 0-15): 1.07x; a length checked once as a signed difference instead of q < end first:
// 1.045x; the height from stamped frames instead of a global's compare per push: 1.05x.
// 10.4 -> 7.3 µs in all. Branches the data decides cost more than loads here: one 8-byte load
// for the tag and what follows it, to shorten the chain of loads, was 3.5% slower; the highest
// frame kept in a local (one more live value) 16% slower; tag actions placed before the type's
// header (found from its address, without loading where they start) the same speed.

/** The status validateFast returns when it stopped before a record it does not take. */
const SLOW: i32 = 1;

/**
 * The common records of a message walk: one- or two-byte tags whose action (table.ts) is not
 * ACT_SLOW, one- or two-byte lengths, nested messages within the depth limit, ASCII strings,
 * varints of up to 8 bytes and fixed-width values of fields that are not jstype = JS_NUMBER.
 * Stops with SLOW before any other record (gP = its first byte) and with OK at the end of the
 * root message. Checks nothing it does not take: validateRecord reads the record again from its
 * first byte, with every rule and error.
 */
function validateFast(tbl: usize, stack: usize, spMax: usize, limit: usize, p: usize, end: usize, T: usize, sp: usize): i32 {
  let status = OK;
  while (true) {
    if (p >= end) {
      if (sp == stack) break;
      sp -= 16;
      end = load<usize>(sp);
      T = load<usize>(sp, 4);
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
      // Tag actions cover every one-byte tag, and two-byte ones of dense numbers.
      if (t >>> 3 > load<u32>(T, T_DENSE_MAX_BYTE)) {
        status = SLOW;
        break;
      }
    }
    // One load decides the record: undeclared numbers (and number 0), wire types other than the
    // declared one and JS-number scalars read ACT_SLOW (layout.ts's tagAction).
    let act = <u32>load<u8>(T + <usize>load<u32>(T, T_ACTIONS_BYTE) + t);
    if (act >= ACT_LEN) {
      // A length of one or two bytes, checked against the bytes left as a signed difference:
      // a length byte read at or past end (inside memory: end <= limit) leaves fewer than none.
      let len = <usize>load<u8>(q);
      let lb: isize = 1;
      if (len >= 0x80) {
        let b = <usize>load<u8>(q, 1);
        if (b >= 0x80) {
          status = SLOW;
          break;
        }
        len = (len & 0x7f) | (b << 7);
        lb = 2;
      }
      if (<isize>len > <isize>(end - q) - lb) {
        status = SLOW;
        break;
      }
      q += <usize>lb;
      if (act != ACT_MESSAGE) {
        // Bytes, or a string: ASCII only here, anything else goes to validateRecord's full
        // UTF-8 check. Strings of up to 32 bytes (most) in two loads and one branch: a loop's exit
        // mispredicts on every length it did not expect.
        if (act == ACT_STRING) {
          if (len <= 32 && q + 16 <= limit) {
            if (!ascii32(q, len)) {
              status = SLOW;
              break;
            }
          } else {
            let s = q;
            let send = q + len;
            while (send - s >= 16 && i8x16.bitmask(v128.load(s)) == 0) s += 16;
            let n = send - s;
            if (n >= 16) {
              status = SLOW;
              break;
            }
            if (n != 0) {
              if (s > limit) {
                status = SLOW;
                break;
              }
              if ((i8x16.bitmask(v128.load(s)) & ((1 << <i32>n) - 1)) != 0) {
                status = SLOW;
                break;
              }
            }
          }
        }
        p = q + len;
        continue;
      }
      // A nested message (this order, message tested before string, measured 5% faster).
      if (sp >= spMax) {
        status = SLOW;
        break;
      }
      let e = T + T_HEADER_BYTES + (<usize>(t >>> 3) << 3);
      store<usize>(sp, end);
      store<usize>(sp, T, 4);
      store<u32>(sp, gOpened, 8);
      store<u32>(sp, (load<u32>(e) >>> A_SLOT_SHIFT) << SLOT_SHIFT, 12);
      let b = load<u32>(e, 4);
      // A map entry whose value is a message: the value's level counts, on the wire or not.
      if (<i32>b < 0) store<u32>(sp + 16, gOpened, 8);
      sp += 16;
      end = q + len;
      T = tbl + (<usize>b << 2);
      p = q;
      continue;
    }
    if (act == ACT_VARINT) {
      // A varint of 1-8 bytes from one 8-byte load (q <= end <= limit).
      // m = 0 (no last byte in the 8) is tested on its own: ctz gives 64, which would read as 8.
      let m = ~load<u64>(q) & 0x8080808080808080;
      if (m == 0) {
        status = SLOW;
        break;
      }
      let n = <usize>((ctz<u64>(m) + 1) >> 3);
      if (n > end - q) {
        status = SLOW;
        break;
      }
      p = q + n;
      continue;
    }
    if (act == ACT_SLOW) {
      status = SLOW;
      break;
    }
    let w: usize = act == ACT_FIXED64 ? 8 : 4;
    if (end - q < w) {
      status = SLOW;
      break;
    }
    p = q + w;
  }
  gP = p;
  gEnd = end;
  gT = T;
  gSp = sp;
  return status;
}

/**
 * One record at p (p < end) with every rule of walk: on success gP, gEnd, gT, gSp say where
 * the walk stands after it (inside the message it opened, for a nested message), on failure
 * the control block is written as walk writes it.
 */
function validateRecord(tbl: usize, T: usize, base: usize, p: usize, end: usize, sp: usize, stack: usize, spMax: usize, limit: usize): i32 {
  let at = p;
  let levels = (sp - stack) >> 4;
  let t: u32 = <u32>load<u8>(p);
  if (t < 0x80) {
    if (t < 8) return stop(E_FIELD_NUMBER_ZERO, at, base, 0, t & 7, levels, T, tbl);
    p++;
  } else {
    p = readVarint(p, end);
    if (p == 0) return stop(failStatus, failAt, base, 0, 0, levels, T, tbl);
    if (varintValue > 0xffffffff) return stop(E_FIELD_NUMBER_TOO_LARGE, at, base, 0, 0, levels, T, tbl);
    t = <u32>varintValue;
    if (t < 8) return stop(E_FIELD_NUMBER_ZERO, at, base, 0, 0, levels, T, tbl);
  }
  let num = t >>> 3;
  let wt = t & 7;
  let dmax = load<u32>(T, T_DENSE_MAX_BYTE);
  let e = num <= dmax ? T + T_HEADER_BYTES + (<usize>num << 3) : findSparse(T, dmax, num);
  let a = load<u32>(e);
  let js = load<u32>(e, 4) != 0;
  gEnd = end;
  gT = T;
  gSp = sp;

  if (a == 0) {
    // An undeclared field: well-formed, then skipped.
    if (wt == 0) {
      p = readVarint(p, end);
      if (p == 0) return stop(failStatus, failAt, base, num, wt, levels, T, tbl);
    } else if (wt == 2) {
      let q = readVarint(p, end);
      if (q == 0) return stop(failStatus, failAt, base, num, wt, levels, T, tbl);
      if (varintValue > <u64>(end - q)) return stop(E_LENGTH_PAST_END, at, base, num, wt, levels, T, tbl);
      p = q + <usize>varintValue;
    } else if (wt == 1 || wt == 5) {
      let w: usize = wt == 1 ? 8 : 4;
      if (end - p < w) return stop(E_TRUNCATED, p, base, num, wt, levels, T, tbl);
      p += w;
    } else {
      return stop(E_INVALID_WIRE_TYPE, at, base, num, wt, levels, T, tbl);
    }
    gP = p;
    return OK;
  }

  if (wt == ((a >>> A_WIRE_SHIFT) & 7)) {
    if (wt == 2) {
      p = readVarint(p, end);
      if (p == 0) return stop(failStatus, failAt, base, num, wt, levels, T, tbl);
      if (varintValue > <u64>(end - p)) return stop(E_LENGTH_PAST_END, at, base, num, wt, levels, T, tbl);
      let len = <usize>varintValue;
      if ((a & A_MESSAGE) != 0) {
        if (sp >= spMax) return stop(E_DEPTH_EXCEEDED, at, base, num, wt, levels, T, tbl);
        store<usize>(sp, end);
        store<usize>(sp, T, 4);
        store<u32>(sp, gOpened, 8);
        store<u32>(sp, (a >>> A_SLOT_SHIFT) << SLOT_SHIFT, 12);
        let b = load<u32>(e, 4);
        // A map entry whose value is a message: the value's level counts, on the wire or not.
        if (<i32>b < 0) store<u32>(sp + 16, gOpened, 8);
        sp += 16;
        gSp = sp;
        gEnd = p + len;
        gT = tbl + (<usize>b << 2);
        gP = p;
        return OK;
      }
      if ((a & A_STRING) != 0 && checkUtf8Within(p, p + len, limit) == 0) return stop(failStatus, failAt, base, num, wt, levels, T, tbl);
      gP = p + len;
      return OK;
    }
    if (wt == 0) {
      p = readVarint(p, end);
      if (p == 0) return stop(failStatus, failAt, base, num, wt, levels, T, tbl);
      if (js) {
        // jstype = JS_NUMBER (word B; 0 for every other scalar): the value itself is checked.
        let kind = a & A_KIND_MASK;
        let v = kind == KIND_SINT64 ? <u64>zigzagDecode64(varintValue) : varintValue;
        if (!jsSafe(kind, v)) return stop(E_UNSAFE_INTEGER, at, base, num, wt, levels, T, tbl);
      }
      gP = p;
      return OK;
    }
    // Wire type 1 or 5 (the declared wire types are 0, 1, 2 and 5).
    let w: usize = wt == 1 ? 8 : 4;
    if (end - p < w) return stop(E_TRUNCATED, p, base, num, wt, levels, T, tbl);
    if (wt == 1 && js && !jsSafe(a & A_KIND_MASK, load<u64>(p))) return stop(E_UNSAFE_INTEGER, at, base, num, wt, levels, T, tbl);
    gP = p + w;
    return OK;
  }

  if (wt != 2 || (a & A_PACKABLE) == 0) {
    let bad = wt == 3 || wt == 4 || wt > 5 ? E_INVALID_WIRE_TYPE : E_WIRE_TYPE_MISMATCH;
    return stop(bad, at, base, num, wt, levels, T, tbl);
  }
  // A packed run: fixed-width kinds need a whole number of elements, varint kinds a run of
  // well-formed varints that ends exactly at the run's end.
  let q = readVarint(p, end);
  if (q == 0) return stop(failStatus, failAt, base, num, wt, levels, T, tbl);
  let len = varintValue;
  if (len > <u64>(end - q)) return stop(E_LENGTH_PAST_END, at, base, num, wt, levels, T, tbl);
  let pend = q + <usize>len;
  let kind = a & A_KIND_MASK;
  if (kind == KIND_FIXED32 || kind == KIND_SFIXED32 || kind == KIND_FLOAT) {
    if ((len & 3) != 0) return stop(E_PACKED_LENGTH, at, base, num, wt, levels, T, tbl);
  } else if (kind == KIND_FIXED64 || kind == KIND_SFIXED64 || kind == KIND_DOUBLE) {
    if ((len & 7) != 0) return stop(E_PACKED_LENGTH, at, base, num, wt, levels, T, tbl);
    if (js) {
      for (let s = q; s < pend; s += 8) {
        if (!jsSafe(kind, load<u64>(s))) return stop(E_UNSAFE_INTEGER, s, base, num, wt, levels, T, tbl);
      }
    }
  } else if (js) {
    // jstype = JS_NUMBER: every element is read and checked (walk reports the first bad one).
    let s = q;
    while (s < pend) {
      let es = s;
      s = readVarint(s, pend);
      if (s == 0) return stop(failStatus, failAt, base, num, wt, levels, T, tbl);
      let v = kind == KIND_SINT64 ? <u64>zigzagDecode64(varintValue) : varintValue;
      if (!jsSafe(kind, v)) return stop(E_UNSAFE_INTEGER, es, base, num, wt, levels, T, tbl);
    }
  } else if (!varintRunOk(q, pend, limit)) {
    // Only a run the fast check cannot clear is walked varint by varint, for the exact error.
    let s = q;
    while (s < pend) {
      s = readVarint(s, pend);
      if (s == 0) return stop(failStatus, failAt, base, num, wt, levels, T, tbl);
    }
  }
  gP = pend;
  return OK;
}

function validateBody(tbl: usize, T: usize, base: usize, p: usize, end: usize, maxDepth: u32, stack: usize): i32 {
  let sp = stack;
  // The frame at which a message would open at depth maxDepth (walk's `depth >= maxDepth`).
  let spMax = maxDepth == 0 ? stack : stack + ((<usize>maxDepth - 1) << 4);
  // The UTF-8 check and the varint skip may load 16 / 8 bytes at or below this address.
  let limit = safeLoadEnd();
  // validateFast reads a record's first bytes (tag, length, a varint's 8) before it knows where
  // the record ends: safe while every message ends at or below limit, as ops.ts's 16 bytes of
  // slack after the input make it. An input closer to the end of memory (only a direct call
  // places one) is taken record by record.
  let fast = end <= limit;
  while (true) {
    if (fast) {
      if (validateFast(tbl, stack, spMax, limit, p, end, T, sp) == OK) break;
      p = gP;
      end = gEnd;
      T = gT;
      sp = gSp;
    } else if (p >= end) {
      if (sp == stack) break;
      sp -= 16;
      end = load<usize>(sp);
      T = load<usize>(sp, 4);
      continue;
    }
    let s = validateRecord(tbl, T, base, p, end, sp, stack, spMax, limit);
    if (s != OK) {
      openedLevels(stack, maxDepth);
      return s;
    }
    p = gP;
    end = gEnd;
    T = gT;
    sp = gSp;
  }
  gHeight = openedLevels(stack, maxDepth) + 1;
  return OK;
}

/**
 * The frames stamped (gOpened) from the bottom of the stack, cleared: those pushed (below spMax,
 * where pushes stop) and, at spMax too, the level of a map entry's message value, stamped when
 * its entry is pushed whether the value is on the wire or not (the readers put the default
 * instance there, and a write writes it: a key-only entry of map<int32, Inner> under maxDepth 2
 * was recorded 2 high, and a write copied out 3 levels the same serializer refused to read).
 */
function openedLevels(stack: usize, maxDepth: u32): u32 {
  let f = stack;
  // The stack's frames end at 16 * maxDepth bytes (spMax is its last).
  let top = stack + (<usize>maxDepth << 4);
  while (f < top && load<u32>(f, 8) == gOpened) {
    store<u32>(f, 0, 8);
    f += 16;
  }
  return <u32>((f - stack) >> 4);
}

/** A new gOpened: odd steps of a 32-bit counter (every value once in 2^32 calls), never 0 (a cleared frame). */
@inline function nextStamp(): void {
  gOpened += 0x6a09e667;
  if (gOpened == 0) gOpened = 1;
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
  nextStamp();
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
  nextStamp();
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
