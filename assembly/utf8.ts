// UTF-8 validation per RFC 3629 (what protobuf requires of string fields): no overlong forms,
// no surrogates (U+D800..U+DFFF), nothing above U+10FFFF, no truncated sequences.
import { E_INVALID_UTF8 } from "./status";
import { fail } from "./varint";

/**
 * Checks [p, end). Returns 1 when every byte is ASCII, 2 when the bytes are valid non-ASCII
 * UTF-8, and 0 with the failure set at the first byte of the first invalid sequence.
 */
@inline export function checkUtf8(p: usize, end: usize): u32 {
  // 16 bytes at a time while the bytes are ASCII: most protobuf strings are.
  while (end - p >= 16) {
    if (i8x16.bitmask(v128.load(p)) != 0) return checkUtf8Tail(p, end);
    p += 16;
  }
  // Then 8 bytes at a time: short keys and names (4..15 bytes) are the common case.
  if (end - p >= 8) {
    if ((load<u64>(p) & 0x8080808080808080) != 0) return checkUtf8Tail(p, end);
    p += 8;
  }
  while (p < end) {
    if (load<u8>(p) >= 0x80) return checkUtf8Tail(p, end);
    p++;
  }
  return 1;
}

@inline function isCont(b: u32): bool {
  return (b & 0xc0) == 0x80;
}

export function checkUtf8Tail(p: usize, end: usize): u32 {
  return utf8Tail(p, end);
}

/** checkUtf8Tail inlined, for the walk's lean loop (walkFast in scan.ts), which must not call. */
@inline export function utf8Tail(p: usize, end: usize): u32 {
  while (p < end) {
    let b = <u32>load<u8>(p);
    if (b < 0x80) {
      // Mixed text (accented words between ASCII runs) gets back to 16 bytes a step.
      if (end - p >= 16 && i8x16.bitmask(v128.load(p)) == 0) p += 16;
      else p++;
      continue;
    }
    let left = end - p;
    if (b < 0xc2) {
      // 0x80..0xBF cannot start a sequence; 0xC0 and 0xC1 only start overlong forms.
      fail(E_INVALID_UTF8, p);
      return 0;
    }
    if (b < 0xe0) {
      if (left < 2 || !isCont(<u32>load<u8>(p, 1))) {
        fail(E_INVALID_UTF8, p);
        return 0;
      }
      p += 2;
      continue;
    }
    if (b < 0xf0) {
      if (left < 3) {
        fail(E_INVALID_UTF8, p);
        return 0;
      }
      let b1 = <u32>load<u8>(p, 1);
      // E0 needs A0.. (no overlong), ED needs ..9F (no surrogates).
      let lo: u32 = b == 0xe0 ? 0xa0 : 0x80;
      let hi: u32 = b == 0xed ? 0x9f : 0xbf;
      if (b1 < lo || b1 > hi || !isCont(<u32>load<u8>(p, 2))) {
        fail(E_INVALID_UTF8, p);
        return 0;
      }
      p += 3;
      continue;
    }
    if (b < 0xf5) {
      if (left < 4) {
        fail(E_INVALID_UTF8, p);
        return 0;
      }
      let b1 = <u32>load<u8>(p, 1);
      // F0 needs 90.. (no overlong), F4 needs ..8F (nothing above U+10FFFF).
      let lo: u32 = b == 0xf0 ? 0x90 : 0x80;
      let hi: u32 = b == 0xf4 ? 0x8f : 0xbf;
      if (b1 < lo || b1 > hi || !isCont(<u32>load<u8>(p, 2)) || !isCont(<u32>load<u8>(p, 3))) {
        fail(E_INVALID_UTF8, p);
        return 0;
      }
      p += 4;
      continue;
    }
    fail(E_INVALID_UTF8, p);
    return 0;
  }
  return 2;
}

/**
 * checkUtf8 for callers that pass `safe`, the highest address at which a 16-byte load stays in
 * linear memory (memory size - 16, see safeLoadEnd): strings of up to 32 bytes take one or two
 * unaligned v128 loads masked to their length, and a longer string's last partial block does the
 * same, instead of the 8-byte and byte loops. Bytes read past `end` are ignored, and a load is
 * only made at or below `safe`, so it never traps. Same results and failures as checkUtf8.
 */
@inline export function checkUtf8Within(p: usize, end: usize, safe: usize): u32 {
  let n = end - p;
  if (n <= 32 && p <= safe - 16) {
    // Up to 32 bytes from two v128 loads and one mask, as in walk: validateFrames of 1000
    // bench.Small frames (emails of 17-32 bytes) 61.1-65.0 -> 58.9-60.2 µs (same process,
    // min of 100 interleaved rounds).
    if (ascii32(p, n)) return 1;
    return checkUtf8Tail(p, end);
  }
  if (n <= 16 && p <= safe) {
    // Most protobuf strings are short ASCII keys and names: one load, one mask, one branch.
    if ((i8x16.bitmask(v128.load(p)) & ((1 << <i32>n) - 1)) == 0) return 1;
    return checkUtf8Tail(p, end);
  }
  return checkUtf8Long(p, end, safe);
}

/**
 * Whether the n <= 32 bytes at p are ASCII, from two v128 loads and one mask: the 32 bytes at p
 * must lie inside linear memory (p <= safeLoadEnd() - 16); the bytes past p + n are ignored.
 */
@inline export function ascii32(p: usize, n: usize): bool {
  let bits = <u64>(<u32>i8x16.bitmask(v128.load(p)) | (<u32>i8x16.bitmask(v128.load(p, 16)) << 16));
  return (bits & ((<u64>1 << <u64>n) - 1)) == 0;
}

/** The highest address where a v128 load stays inside linear memory (computed in 64 bits: at
 * 65,536 pages the memory size itself does not fit in 32). */
@inline export function safeLoadEnd(): usize {
  return <usize>((<u64>memory.size() << 16) - 16);
}

function checkUtf8Long(p: usize, end: usize, safe: usize): u32 {
  while (end - p >= 16) {
    if (i8x16.bitmask(v128.load(p)) != 0) return checkUtf8Tail(p, end);
    p += 16;
  }
  let n = end - p;
  if (p <= safe) {
    if ((i8x16.bitmask(v128.load(p)) & ((1 << <i32>n) - 1)) == 0) return 1;
    return checkUtf8Tail(p, end);
  }
  return checkUtf8(p, end);
}
