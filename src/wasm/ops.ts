// The core calls the codec makes, one WASM call each: walk a message or a batch of frames into
// a tape, scan frames, scan unknown fields for collisions, size and write packed runs. Each
// copies its input into scratch memory, calls the core once, and turns a failure status into
// a CodecError with the byte offset and the field path.
import { CodecError } from "../errors.js";
import { ready, views, ensureMemory, scratchAddress, tableAddress, ctrlIndex, align16 } from "./memory.js";
import {
  E_FRAME_TOO_LARGE, E_MESSAGE_TOO_LARGE, E_NEED_SPACE, OK, S_MORE,
  statusError,
} from "./status.js";
import { kindName, tableLength, typeNames } from "./table.js";
import type { CoreExports } from "./instance.js";

// Control block words (assembly/ctrl.ts).
const C_STATUS = 0;
const C_OFFSET = 1;
const C_FIELD = 2;
const C_DEPTH = 3;
const C_TYPE = 4;
const C_COUNT = 5;
const C_PACKED = 6;
const C_WIRE = 7;
const C_VALUE = 8;
const C_TEXT = 10;
/** C_TEXT after E_NEED_SPACE: the text area ran out, not the tape. */
const TEXT_SHORT = 0xffffffff;
const FIRST_TEXT_MAX = 16 * 1024 * 1024;

/**
 * A tape in linear memory, valid until the next core call. Entry k's words are
 * `views.u32[start + 4k .. start + 4k + 3]`; its 64-bit payload is `views.f64/i64/u64[(start >> 1) + 2k + 1]`
 * and a FIXED32 float is `views.f32[start + 4k + 2]`. BYTES/START/UNKNOWN offsets are from
 * the start of the input given to the call.
 */
export interface TapeResult {
  /** Word index of entry 0 in the views (16-byte aligned, so start is a multiple of 4). */
  start: number;
  /** Number of entries. */
  count: number;
  /** Address of the input copy in linear memory. */
  base: number;
  /** Address of the text area: the bytes of every ASCII string entry, in tape order. */
  text: number;
  /** Bytes in the text area. */
  textLength: number;
}

const tape: TapeResult = { start: 0, count: 0, base: 0, text: 0, textLength: 0 };

// One string of the whole text area, then `substring` per field: for 5 short strings, one
// latin1Slice + 5 substrings took 93 ns against 220 ns for String.fromCharCode per string and
// 165 ns for one TextDecoder call + 5 substrings (Node 20). latin1Slice is Node's and Bun's
// Buffer method; it reads any Uint8Array. Elsewhere one TextDecoder call (the bytes are ASCII,
// where windows-1252 is ASCII).
type Slice = (this: Uint8Array, start: number, end: number) => string;
const latin1Slice: Slice | undefined = ((): Slice | undefined => {
  const f = (globalThis as { Buffer?: { prototype?: { latin1Slice?: unknown } } }).Buffer?.prototype?.latin1Slice;
  if (typeof f !== "function") return undefined;
  try {
    return (f as Slice).call(Uint8Array.of(0x61, 0x62), 0, 2) === "ab" ? (f as Slice) : undefined;
  } catch {
    return undefined;
  }
})();
const latin1 = new TextDecoder("latin1");

/** The text area of a tape as one string (read it before the next core call). */
export function tapeText(t: TapeResult): string {
  const n = t.textLength;
  if (n === 0) return "";
  const at = t.text;
  return latin1Slice !== undefined ? latin1Slice.call(views.u8, at, at + n) : latin1.decode(views.u8.subarray(at, at + n));
}

// Tape bytes offered first per input byte: most messages need 1-2x their size, and a walk that
// runs out (E_NEED_SPACE) is run again on a doubled region. Inputs of many short fields need
// more (1000 small frames: 2.4x, so every decodeAll walked twice, 155 -> 78 µs), so the factor
// learns from the last walk that ran out; the region is reused scratch memory.
let tapeFactor = 2;
const MAX_TAPE_FACTOR = 16;

/** Bytes of tape to offer first; more is grown on demand. */
function firstTapeBytes(len: number): number {
  return 4096 + Math.min(len * tapeFactor, 16 * 1024 * 1024);
}

/** Limits a message is read with. */
export interface ReadLimits {
  readonly maxMessageBytes: number;
  readonly maxDepth: number;
}

function checkU32(name: string, v: number, min: number): void {
  if (!Number.isInteger(v) || v < min || v > 0xffffffff) {
    throw new RangeError(`${name} must be an integer in ${min}..4294967295, got ${v}`);
  }
}

function walkWith(
  fn: "walk" | "walkFrames",
  rootType: number,
  bytes: Uint8Array,
  limits: ReadLimits,
): TapeResult {
  const maxDepth = limits.maxDepth;
  const maxBytes = limits.maxMessageBytes;
  // Settings arrive validated; the full check (with its message) runs only when one is off.
  if (!(maxDepth >= 1 && maxDepth <= 0xffff && maxBytes >= 1 && maxBytes <= 0xffffffff)) {
    checkU32("maxDepth", maxDepth, 1);
    checkU32("maxMessageBytes", maxBytes, 1);
  }
  const e = ready();
  const len = bytes.length;
  if (fn === "walk" && len > limits.maxMessageBytes) {
    // Refused before the input is copied, so an oversized message never grows memory.
    throw failure(E_MESSAGE_TOO_LARGE, e, rootType, 0, 0, limits, "decode", len);
  }
  const stack = scratchAddress();
  const base = align16(stack + maxDepth * 16);
  // ASCII string bytes are disjoint ranges of the input, so they total at most len; the core's
  // 16-byte stores may write up to 16 bytes past the last one. Like the tape, the first offer
  // stops at 16 MiB, so a huge input of few strings does not double its memory.
  const text = align16(base + len);
  let textEnd = text + Math.min(len, FIRST_TEXT_MAX) + 16;
  let tapeAt = align16(textEnd);
  let tapeBytes = firstTapeBytes(len);
  let retried = false;
  ensureMemory(tapeAt + tapeBytes);
  views.u8.set(bytes, base);
  const tbl = tableAddress();
  const words = tableLength();
  for (;;) {
    const status =
      fn === "walk"
        ? e.walk(tbl, words, rootType, base, len, maxBytes, maxDepth, stack, tapeAt, tapeAt + tapeBytes, text, textEnd)
        : e.walkFrames(tbl, words, rootType, base, len, maxBytes, maxDepth, stack, tapeAt, tapeAt + tapeBytes, text, textEnd);
    if (status === OK) {
      const u32 = views.u32;
      if (retried) {
        // Entries from the bottom, packed arrays from the top: what this input needed, plus a quarter.
        const used = u32[ctrlIndex(C_COUNT)]! * 16 + (tapeAt + tapeBytes - u32[ctrlIndex(C_PACKED)]!);
        tapeFactor = Math.min(MAX_TAPE_FACTOR, Math.max(tapeFactor, Math.ceil((used * 1.25) / Math.max(len, 1))));
      }
      tape.start = tapeAt >>> 2;
      tape.count = u32[ctrlIndex(C_COUNT)]!;
      tape.base = base;
      tape.text = text;
      tape.textLength = u32[ctrlIndex(C_TEXT)]!;
      return tape;
    }
    if (status !== E_NEED_SPACE) throw failure(status, e, rootType, base, stack, limits, "decode", len);
    if (views.u32[ctrlIndex(C_TEXT)] === TEXT_SHORT) {
      // Room for every byte of the input, so this happens at most once.
      textEnd = text + len + 16;
      tapeAt = align16(textEnd);
    } else {
      tapeBytes *= 2;
      retried = true;
    }
    ensureMemory(tapeAt + tapeBytes);
  }
}

/**
 * Validates one bare message of the type at `rootType` (a layout's `typeOffset`) and writes
 * its tape. Throws CodecError on malformed input or a limit.
 */
export function walkMessage(rootType: number, bytes: Uint8Array, limits: ReadLimits): TapeResult {
  return walkWith("walk", rootType, bytes, limits);
}

/**
 * Validates every frame of a framing-v1 buffer and writes one tape: the frames' root
 * START..END sequences one after the other (the next frame starts at END index + 1). Frame
 * lengths over maxMessageBytes are refused from the prefix alone.
 */
export function walkFrames(rootType: number, bytes: Uint8Array, limits: ReadLimits): TapeResult {
  return walkWith("walkFrames", rootType, bytes, limits);
}

function validateWith(fn: "validate" | "validateFrames", rootType: number, bytes: Uint8Array, limits: ReadLimits): number {
  const maxDepth = limits.maxDepth;
  const maxBytes = limits.maxMessageBytes;
  if (!(maxDepth >= 1 && maxDepth <= 0xffff && maxBytes >= 1 && maxBytes <= 0xffffffff)) {
    checkU32("maxDepth", maxDepth, 1);
    checkU32("maxMessageBytes", maxBytes, 1);
  }
  const e = ready();
  const len = bytes.length;
  if (fn === "validate" && len > maxBytes) {
    throw failure(E_MESSAGE_TOO_LARGE, e, rootType, 0, 0, limits, "decode", len);
  }
  const stack = scratchAddress();
  const base = align16(stack + maxDepth * 16);
  // 16 bytes past the input keep the core's one-load UTF-8 check usable up to the last string.
  ensureMemory(base + len + 16);
  views.u8.set(bytes, base);
  const status =
    fn === "validate"
      ? e.validate(tableAddress(), tableLength(), rootType, base, len, maxBytes, maxDepth, stack)
      : e.validateFrames(tableAddress(), tableLength(), rootType, base, len, maxBytes, maxDepth, stack);
  if (status !== OK) throw failure(status, e, rootType, base, stack, limits, "decode", len);
  return views.u32[ctrlIndex(C_COUNT)]!;
}

/**
 * Checks one bare message of the type at `rootType` exactly as walkMessage does (same
 * CodecError for the same input) without writing a tape: the validate-only read. Returns the
 * deepest nesting level reached (1 = no nested message; a map entry counts as a level).
 */
export function validateMessage(rootType: number, bytes: Uint8Array, limits: ReadLimits): number {
  return validateWith("validate", rootType, bytes, limits);
}

/** Checks every frame of a framing-v1 buffer exactly as walkFrames does, without a tape. */
export function validateFrames(rootType: number, bytes: Uint8Array, limits: ReadLimits): void {
  validateWith("validateFrames", rootType, bytes, limits);
}

/** Frame bodies found by scanFrames: offsets and lengths from the start of the buffer. */
export interface FrameList {
  readonly count: number;
  readonly offsets: Uint32Array;
  readonly lengths: Uint32Array;
}

/**
 * Splits a framing-v1 buffer into frame bodies in one core call (more only when there are
 * over 65,536 frames). `rootName` names the type in error messages.
 */
export function scanFrames(bytes: Uint8Array, maxMessageBytes: number, rootName: string): FrameList {
  checkU32("maxMessageBytes", maxMessageBytes, 1);
  const e = ready();
  const len = bytes.length;
  const base = scratchAddress();
  const cap = Math.max(1, Math.min(len, 65536));
  const out = align16(base + len);
  ensureMemory(out + cap * 8);
  views.u8.set(bytes, base);
  let offsets = new Uint32Array(Math.min(cap, 1024));
  let lengths = new Uint32Array(offsets.length);
  let count = 0;
  let from = 0;
  for (;;) {
    const status = e.scanFrames(base, len, from, maxMessageBytes, out, cap);
    const n = views.u32[ctrlIndex(C_COUNT)]!;
    if (status < 0) {
      const offset = views.u32[ctrlIndex(C_OFFSET)]!;
      throw statusError(status, {
        verb: "decode", rootName, offset, messagePath: rootName, typeName: rootName, fieldNumber: 0,
        wireType: 0, maxMessageBytes, size: status === E_FRAME_TOO_LARGE ? announced(e, base + offset, len - offset) : len,
      });
    }
    if (count + n > offsets.length) {
      let size = offsets.length * 2;
      while (size < count + n) size *= 2;
      const o = new Uint32Array(size);
      o.set(offsets.subarray(0, count));
      offsets = o;
      const l = new Uint32Array(size);
      l.set(lengths.subarray(0, count));
      lengths = l;
    }
    const w = out >>> 2;
    const u32 = views.u32;
    for (let i = 0; i < n; i++) {
      offsets[count + i] = u32[w + 2 * i]!;
      lengths[count + i] = u32[w + 2 * i + 1]!;
    }
    count += n;
    if (status !== S_MORE) break;
    from = views.u32[ctrlIndex(C_OFFSET)]!;
  }
  return { count, offsets: offsets.subarray(0, count), lengths: lengths.subarray(0, count) };
}

/**
 * Checks unknown-field bytes before they are written under the type at `typeOffset`: every
 * field must be well-formed, and none may carry a number the type declares (a collision).
 * `ranges` holds (offset, length) pairs into `bytes`, each covering whole fields. Throws
 * CodecError (`UNKNOWN_FIELD_COLLISION`, or the malformation) naming the offset in `bytes`.
 */
export function scanUnknownFields(typeOffset: number, bytes: Uint8Array, ranges: ArrayLike<number>): void {
  const e = ready();
  const len = bytes.length;
  const pairs = ranges.length >>> 1;
  const base = scratchAddress();
  const r = align16(base + len);
  ensureMemory(r + pairs * 8);
  views.u8.set(bytes, base);
  const u32 = views.u32;
  for (let i = 0; i < pairs * 2; i++) {
    const v = ranges[i]!;
    if (!Number.isInteger(v) || v < 0 || v > len) throw new RangeError(`unknown-field range ${ranges[i & ~1]}+${ranges[i | 1]} lies outside the ${len} bytes given`);
    u32[(r >>> 2) + i] = v;
  }
  for (let i = 0; i < pairs; i++) {
    if (ranges[2 * i]! + ranges[2 * i + 1]! > len) throw new RangeError(`unknown-field range ${ranges[2 * i]}+${ranges[2 * i + 1]} lies outside the ${len} bytes given`);
  }
  const status = e.scanUnknown(tableAddress(), tableLength(), typeOffset, base, r, pairs);
  if (status !== OK) throw failure(status, e, typeOffset, base, 0, undefined, "encode", len);
}

/** Bytes of a packed payload of `count` elements in the tape's PACKED element format. */
export function packedSize(kind: number, elements: ArrayBufferView, count: number): number {
  const e = ready();
  const src = scratchAddress();
  ensureMemory(src + elements.byteLength);
  views.u8.set(new Uint8Array(elements.buffer, elements.byteOffset, elements.byteLength), src);
  return e.packedSize(kind, src, count) >>> 0;
}

/**
 * Encodes a packed payload of `count` elements (tape PACKED element format) into `out` at
 * `at`; returns the bytes written. `out` must have room (see packedSize; at most 10 bytes an
 * element).
 */
export function writePacked(kind: number, elements: ArrayBufferView, count: number, out: Uint8Array, at: number): number {
  const e = ready();
  const src = scratchAddress();
  const dst = align16(src + elements.byteLength);
  ensureMemory(dst + count * 10 + 16);
  views.u8.set(new Uint8Array(elements.buffer, elements.byteOffset, elements.byteLength), src);
  const n = e.writePacked(kind, src, count, dst) >>> 0;
  out.set(views.u8.subarray(dst, dst + n), at);
  return n;
}

/** The varint at addr (for messages: the size a bad frame announced). */
function announced(e: CoreExports, addr: number, len: number): number | undefined {
  if (e.readVarintAt(addr, len) !== OK) return undefined;
  return Number(views.u64[(ctrlIndex(C_VALUE)) >>> 1]!);
}

function failure(
  status: number,
  e: CoreExports,
  rootType: number,
  base: number,
  stack: number,
  limits: ReadLimits | undefined,
  verb: string,
  len: number,
): CodecError {
  const u32 = views.u32;
  const root = typeNames(rootType);
  const rootName = root?.fullName ?? "message";
  if (status === E_MESSAGE_TOO_LARGE) {
    return statusError(status, {
      verb, rootName, offset: 0, messagePath: rootName, typeName: rootName, fieldNumber: 0, wireType: 0,
      maxMessageBytes: limits?.maxMessageBytes, size: len,
    });
  }
  const offset = u32[ctrlIndex(C_OFFSET)]!;
  const fieldNumber = u32[ctrlIndex(C_FIELD)]!;
  const wireType = u32[ctrlIndex(C_WIRE)]!;
  const levels = u32[ctrlIndex(C_DEPTH)]!;
  const typeOffset = u32[ctrlIndex(C_TYPE)]!;
  // The walker's stack holds, per open level, the parent type's address and the slot of the
  // field that opened the next level: enough to name the path without keeping names in WASM.
  const tbl = tableAddress();
  let messagePath = rootName;
  for (let i = 0; i < levels; i++) {
    const w = (stack >>> 2) + i * 4;
    const t = typeNames((u32[w + 1]! - tbl) >>> 2);
    const f = t?.fields[u32[w + 3]! >>> 8];
    messagePath += f ? `.${f.name}(${f.number})` : ".?";
  }
  const here = typeNames(typeOffset);
  const declared = here?.fields.find((f) => f.number === fieldNumber);
  let size: number | undefined;
  if (status === E_FRAME_TOO_LARGE) size = announced(e, base + offset, len - offset);
  return statusError(status, {
    verb,
    rootName,
    offset,
    messagePath,
    typeName: here?.fullName ?? rootName,
    fieldNumber,
    fieldName: declared?.name,
    fieldKind: declared ? kindName(declared.kind) : undefined,
    wireType,
    maxMessageBytes: limits?.maxMessageBytes,
    maxDepth: limits?.maxDepth,
    size,
  });
}
