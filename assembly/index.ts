// The only export surface of the core (mirrored by the CoreExports interface in
// src/wasm/instance.ts, one line per export). Every export returns a status or a plain number;
// nothing here throws, aborts or allocates.
import { CTRL, CTRL_COUNT_BYTE, CTRL_FIELD_BYTE, CTRL_OFFSET_BYTE, CTRL_STATUS_BYTE, CTRL_VALUE_BYTE, CTRL_WIRE_BYTE, ctrlSet } from "./ctrl";
import { OK } from "./status";
import { readTag, tagValue, writeTag } from "./tag";
import { checkUtf8, safeLoadEnd } from "./utf8";
import {
  failAt, failStatus, readVarint, varintRunOk, varintSize, varintValue, writeVarint, zigzagDecode32,
  zigzagDecode64, zigzagEncode32, zigzagEncode64,
} from "./varint";

export { scanFrames } from "./framing";
export { walk, walkFrames, walkResume, scanUnknown } from "./scan";
export { validate, validateFrames } from "./validate";
export { packedSize, writePacked } from "./size";

/** First address free for the caller's regions (after static data, 16-aligned). */
export function heapBase(): usize {
  return (__heap_base + 15) & ~(<usize>15);
}

/** Address of the 64-byte control block. */
export function ctrl(): usize {
  return CTRL;
}

/** Reads one varint at [p, p + len): status; CTRL_VALUE = value, CTRL_COUNT = bytes read. */
export function readVarintAt(p: usize, len: u32): i32 {
  let q = readVarint(p, p + <usize>len);
  if (q == 0) {
    ctrlSet(CTRL_OFFSET_BYTE, <u32>(failAt - p));
    ctrlSet(CTRL_STATUS_BYTE, <u32>failStatus);
    return failStatus;
  }
  store<u64>(CTRL + CTRL_VALUE_BYTE, varintValue);
  ctrlSet(CTRL_COUNT_BYTE, <u32>(q - p));
  ctrlSet(CTRL_STATUS_BYTE, OK);
  return OK;
}

/** Writes v as a varint at p; returns the bytes written. */
export function writeVarintAt(p: usize, v: u64): u32 {
  return writeVarint(p, v);
}

/** Encoded size of v as a varint. */
export function varintSize64(v: u64): u32 {
  return varintSize(v);
}

/** Reads one tag at [p, p + len): status; CTRL_FIELD = number, CTRL_WIRE = wire type, CTRL_COUNT = bytes. */
export function readTagAt(p: usize, len: u32): i32 {
  let q = readTag(p, p + <usize>len);
  if (q == 0) {
    ctrlSet(CTRL_OFFSET_BYTE, <u32>(failAt - p));
    ctrlSet(CTRL_STATUS_BYTE, <u32>failStatus);
    return failStatus;
  }
  ctrlSet(CTRL_FIELD_BYTE, tagValue >>> 3);
  ctrlSet(CTRL_WIRE_BYTE, tagValue & 7);
  ctrlSet(CTRL_COUNT_BYTE, <u32>(q - p));
  ctrlSet(CTRL_STATUS_BYTE, OK);
  return OK;
}

/** Writes the tag (fieldNumber, wireType) at p; returns the bytes written. */
export function writeTagAt(p: usize, fieldNumber: u32, wireType: u32): u32 {
  return writeTag(p, fieldNumber, wireType);
}

/** 1 = all ASCII, 2 = valid UTF-8 with non-ASCII, else E_INVALID_UTF8 with CTRL_OFFSET. */
export function checkUtf8At(p: usize, len: u32): i32 {
  let r = checkUtf8(p, p + <usize>len);
  if (r == 0) {
    ctrlSet(CTRL_OFFSET_BYTE, <u32>(failAt - p));
    return failStatus;
  }
  return <i32>r;
}

/**
 * 1 when [p, p + len) is certainly a run of well-formed varints (the validate walk's fast check
 * of packed runs), 0 when it needs a varint-by-varint look; tests check it against a byte-by-byte
 * reader.
 */
export function varintRunAt(p: usize, len: u32): i32 {
  return varintRunOk(p, p + <usize>len, safeLoadEnd()) ? 1 : 0;
}

export function zigzag32(v: i32): u32 {
  return zigzagEncode32(v);
}
export function unzigzag32(v: u32): i32 {
  return zigzagDecode32(v);
}
export function zigzag64(v: i64): u64 {
  return zigzagEncode64(v);
}
export function unzigzag64(v: u64): i64 {
  return zigzagDecode64(v);
}
