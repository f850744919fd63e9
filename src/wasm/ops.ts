// The core calls the codec makes: walk a message or the frames of a buffer into a tape, validate,
// scan frames and unknown fields, size and write packed runs. Each copies its input into scratch
// memory, calls the core, and turns a failure status into a CodecError with the byte offset and
// the field path.
//
// Working memory is bounded: the tape is written into a window of at most 1 MiB (sized down to
// what a small input can produce) that the reader consumes and the core refills (resumeWalk), and
// a buffer of frames is copied in 1 MiB segments, each frame whole, so a frame is refused from
// its length prefix before its body is copied. A decode then holds the input copy (a bare
// message; frames: a segment or the largest frame) plus about 2 MiB, whatever the input's shape.
// Size: every core call shares one scratch layout and one status-to-error step; split, each
// file would need the other's private regions.
import { exactCount } from "../bytes.js";
import { CodecError } from "../errors.js";
import { checkTapeFree, enter, views, ensureMemory, scratchAddress, tableAddress, ctrlIndex, align16 } from "./memory.js";
import {
  CTRL_COUNT_WORD, CTRL_DEPTH_WORD, CTRL_FIELD_WORD, CTRL_NEED_WORD, CTRL_OFFSET_WORD, CTRL_TEXT_WORD,
  CTRL_TYPE_WORD, CTRL_VALUE_WORD, CTRL_WIRE_WORD,
} from "./ctrl.js";
import { E_FRAME_TOO_LARGE, E_MESSAGE_TOO_LARGE, OK, S_NEED_INPUT, S_PAUSED, statusError } from "./status.js";
import { kindName, tableLength, typeNames } from "./table.js";
import type { CoreExports } from "./instance.js";

const MiB = 1024 * 1024;

/** The bounded regions, in bytes: tape window, its text area, and input segment of frames. */
export interface WindowSizes {
  /** Tape window (entries and packed arrays); at least 64. */
  readonly tape: number;
  /** Text area of a window (ASCII string bytes); a longer string is read from the input. */
  readonly text: number;
  /** Input copied in at a time when walking or validating frames (a larger frame is copied whole). */
  readonly segment: number;
}

// 1 MiB each: a window holds 65,536 entries, so refilling it (one core call and one text string)
// is a negligible share of building the values it describes, while the core's working memory
// stays ~2 MiB above the input copy. The bench's inputs (up to 87 KB) fit in one window. The text
// area is 64 KiB: a decoded string of 13 characters or more is a V8 slice of its window's text,
// which it keeps alive, and one kept 40-character string of a 1 MiB area held ~400 KiB (a
// cache of ids from large batches grew by that per id); a refill per 64 KiB of string bytes is
// still a small share of building thousands of strings.
let windows: WindowSizes = { tape: MiB, text: 64 * 1024, segment: MiB };
const MIN_TAPE_WINDOW = 64;

/**
 * @internal For tests that cross every window and segment boundary: sets the sizes of the
 * bounded regions (defaults 1 MiB, and 64 KiB of text) and returns the previous ones.
 */
export function setWindowSizes(next: Partial<WindowSizes>): WindowSizes {
  const prev = windows;
  const w = { ...prev, ...next };
  if (!(Number.isInteger(w.tape) && w.tape >= MIN_TAPE_WINDOW && w.tape % 16 === 0)) throw new RangeError(`tape window must be a multiple of 16 of at least ${MIN_TAPE_WINDOW}, got ${w.tape}`);
  if (!(Number.isInteger(w.text) && w.text >= 0)) throw new RangeError(`text area must be a non-negative integer, got ${w.text}`);
  if (!(Number.isInteger(w.segment) && w.segment >= 16)) throw new RangeError(`segment must be an integer of at least 16, got ${w.segment}`);
  windows = w;
  return prev;
}

/**
 * One window of a tape in linear memory, valid until the next core call. Entry k's words are
 * `views.u32[start + 4k .. start + 4k + 3]`; its 64-bit payload is `views.f64/i64/u64[(start >> 1) + 2k + 1]`
 * and a FIXED32 float is `views.f32[start + 4k + 2]`. BYTES/START/UNKNOWN offsets are from
 * the start of the input given to the call. When `done` is false, more entries follow: read
 * these `count`, then resumeWalk refills the same object with the next window.
 */
export interface TapeResult {
  /** Word index of entry 0 in the views (16-byte aligned, so start is a multiple of 4). */
  start: number;
  /** Number of entries in this window. */
  count: number;
  /** Address of input offset 0 in linear memory (frames: modulo 2^32, offsets of the copied segment only). */
  base: number;
  /** Address of the text area: the bytes of the window's ASCII string entries, in tape order. */
  text: number;
  /** Bytes in the text area. */
  textLength: number;
  /** True when the walk is complete: no window follows this one. */
  done: boolean;
}

const tape: TapeResult = { start: 0, count: 0, base: 0, text: 0, textLength: 0, done: true };

// Every core call made through this file counts, so that resuming a walk after another call
// (which reuses the same scratch memory) is caught as the bug it would be.
let calls = 0;

const NO_BYTES = new Uint8Array(0);

/** What resumeWalk needs to continue the walk of the last walkMessage/walkFrames call. */
const walk = {
  call: 0,
  stack: 0,
  tapeAt: 0,
  tapeEnd: 0,
  textEnd: 0,
  input: 0,
  e: undefined as unknown as CoreExports,
  frames: false,
  rootType: 0,
  bytes: NO_BYTES as Uint8Array,
  limits: { maxMessageBytes: 1, maxDepth: 1 } as ReadLimits,
  /** S_NEED_INPUT: the offset to copy the input in again from (else -1), and up to where at least. */
  refeed: -1,
  need: 0,
};

function begin(): CoreExports {
  checkTapeFree();
  calls++;
  return enter();
}

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

/**
 * True where latin1Text is the runtime's Buffer latin1Slice (Node, Bun, Deno 2 and workerd have
 * it; ~45 ns a call in Node); elsewhere (browsers) it is a TextDecoder call, which costs 180-280
 * ns in Chromium whatever the length up to ~100 bytes, so the TypeScript reader builds short
 * ASCII strings itself there (read-plan.ts, asciiString).
 */
export const NATIVE_LATIN1 = latin1Slice !== undefined;

/** The text area of a tape window as one string (read it before the next core call). */
export function tapeText(t: TapeResult): string {
  const n = t.textLength;
  if (n === 0) return "";
  return latin1Text(views.u8, t.text, t.text + n);
}

/**
 * `bytes[start .. end)` as one char per byte (ASCII bytes as themselves): the one-call way to
 * turn ASCII bytes into a string (see latin1Slice above); the TypeScript reader uses it too.
 */
export function latin1Text(bytes: Uint8Array, start: number, end: number): string {
  return latin1Slice !== undefined ? latin1Slice.call(bytes, start, end) : latin1.decode(bytes.subarray(start, end));
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

function checkLimits(limits: ReadLimits): void {
  const maxDepth = limits.maxDepth;
  const maxBytes = limits.maxMessageBytes;
  // Settings arrive validated; the full check (with its message) runs only when one is off.
  if (!(maxDepth >= 1 && maxDepth <= 0xffff && maxBytes >= 1 && maxBytes <= 0xffffffff)) {
    checkU32("maxDepth", maxDepth, 1);
    checkU32("maxMessageBytes", maxBytes, 1);
  }
}

/**
 * Copies the part of `bytes` that the next call over frames reads to `at`: from `from`, at least
 * a segment and at least up to `need` (the end of a frame the core found cut off), never past
 * the end. Returns the end offset of the copy.
 */
function copySegment(bytes: Uint8Array, from: number, need: number, at: number): number {
  const len = bytes.length;
  const to = Math.min(len, Math.max(from + windows.segment, need));
  ensureMemory(at + (to - from) + 16);
  views.u8.set(to - from === len ? bytes : bytes.subarray(from, to), at);
  return to;
}

function walkWith(frames: boolean, rootType: number, bytes: Uint8Array, limits: ReadLimits): TapeResult {
  checkLimits(limits);
  const e = begin();
  const len = bytes.length;
  if (!frames && len > limits.maxMessageBytes) {
    // Refused before the input is copied, so an oversized message never grows memory.
    throw failure(E_MESSAGE_TOO_LARGE, rootType, 0, limits, "decode", len);
  }
  const w = walk;
  w.call = calls;
  w.e = e;
  w.frames = frames;
  w.rootType = rootType;
  w.bytes = bytes;
  w.limits = limits;
  place(w, len, limits.maxDepth, frames);
  w.refeed = -1;
  tape.start = w.tapeAt >>> 2;
  tape.text = w.tapeEnd;
  if (frames) return settle(feed(0, 0));
  ensureMemory(w.input + len + 16);
  views.u8.set(bytes, w.input);
  tape.base = w.input;
  const status = e.walk(
    tableAddress(), tableLength(), rootType, w.input, len, limits.maxMessageBytes, limits.maxDepth,
    w.stack, w.tapeAt, w.tapeEnd, w.tapeEnd, w.textEnd,
  );
  return settle(status);
}

/** Scratch addresses of a walk or validate call (see place). */
interface Regions {
  stack: number;
  tapeAt: number;
  tapeEnd: number;
  textEnd: number;
  input: number;
}

/**
 * Lays scratch memory out for a call on `len` bytes: the walker's stack, the tape window, its
 * text area, and last the input copy, so that a larger input (or frame) grows memory without
 * moving the rest. validate uses the same layout as walk (it only needs the stack and the
 * input), so a lazy decode's validate and later walk of the same bytes need the same memory.
 */
function place(r: Regions, len: number, maxDepth: number, frames: boolean): void {
  r.stack = scratchAddress();
  r.tapeAt = align16(r.stack + maxDepth * 16);
  // The first window is sized to what the input can produce, up to the window size: a field
  // takes at least 2 bytes and gives one entry (a sub-message two, START and END), packed
  // elements at most 8 bytes per input byte; an empty frame (1 byte) gives two entries.
  r.tapeEnd = r.tapeAt + Math.min(windows.tape, align16((frames ? 32 : 16) * len + 64));
  // ASCII string bytes are disjoint ranges of the input, so they total at most len; the core's
  // 16-byte stores may write up to 16 bytes past the last one.
  r.textEnd = r.tapeEnd + Math.min(len, windows.text) + 16;
  r.input = align16(r.textEnd);
}

const regions: Regions = { stack: 0, tapeAt: 0, tapeEnd: 0, textEnd: 0, input: 0 };

/** Copies the segment of frames from `from` in and walks it (walkFrames' S_NEED_INPUT). */
function feed(from: number, need: number): number {
  const w = walk;
  const to = copySegment(w.bytes, from, need, w.input);
  // Input offset 0 sits below the segment (below address 0 too, modulo 2^32, which the core
  // computes in): offsets stay those of the whole input.
  const base = w.input - from;
  tape.base = base;
  const l = w.limits;
  return w.e.walkFrames(
    tableAddress(), tableLength(), w.rootType, base, from, to, w.bytes.length - to, l.maxMessageBytes,
    l.maxDepth, w.stack, w.tapeAt, w.tapeEnd, w.tapeEnd, w.textEnd,
  );
}

/** Turns the status of a walk call into the next window (or throws its CodecError). */
function settle(status: number): TapeResult {
  const w = walk;
  for (;;) {
    if (status !== OK && status !== S_PAUSED && status !== S_NEED_INPUT) {
      const n = w.bytes.length;
      w.bytes = NO_BYTES;
      throw failure(status, w.rootType, w.stack, w.limits, "decode", n);
    }
    const u32 = views.u32;
    tape.count = u32[ctrlIndex(CTRL_COUNT_WORD)]!;
    tape.textLength = u32[ctrlIndex(CTRL_TEXT_WORD)]!;
    tape.done = status === OK;
    // The input is not needed once the walk ends: kept, it held a whole batch (up to
    // maxMessageBytes, or a buffer of frames) after its values were dropped.
    if (tape.done) w.bytes = NO_BYTES;
    w.refeed = status === S_NEED_INPUT ? u32[ctrlIndex(CTRL_OFFSET_WORD)]! : -1;
    w.need = status === S_NEED_INPUT ? u32[ctrlIndex(CTRL_NEED_WORD)]! : 0;
    if (tape.count > 0 || tape.done) return tape;
    // A window always takes an entry unless the segment ended first.
    if (status === S_PAUSED) throw new Error("protokeel bug: the walker paused without writing an entry");
    status = feed(w.refeed, w.need);
  }
}

/**
 * The next window of the walk that returned `t` (whose `done` is false), after all `count`
 * entries of the current one were read: the core continues into the same region, so views and
 * text must be read again. No other core call may come between.
 */
export function resumeWalk(t: TapeResult): TapeResult {
  const w = walk;
  if (t !== tape || t.done || w.call !== calls) {
    throw new Error("protokeel bug: a walk was resumed after it ended or after another core call");
  }
  return settle(w.refeed >= 0 ? feed(w.refeed, w.need) : w.e.walkResume());
}

/**
 * Validates one bare message of the type at `rootType` (a layout's `typeOffset`) and writes
 * the first window of its tape (resumeWalk for the next). Throws CodecError on malformed input
 * or a limit, possibly from resumeWalk after windows were read.
 */
export function walkMessage(rootType: number, bytes: Uint8Array, limits: ReadLimits): TapeResult {
  return walkWith(false, rootType, bytes, limits);
}

/**
 * Validates the frames of a framing-v1 buffer and writes their tape: the frames' root START..END
 * sequences one after the other (the next frame starts after an END at depth 0), in windows as
 * walkMessage. Frame lengths over maxMessageBytes are refused from the prefix alone, before the
 * frame's body is copied.
 */
export function walkFrames(rootType: number, bytes: Uint8Array, limits: ReadLimits): TapeResult {
  return walkWith(true, rootType, bytes, limits);
}

/**
 * Checks one bare message of the type at `rootType` exactly as walkMessage does (same
 * CodecError for the same input) without writing a tape: the validate-only read. Returns the
 * deepest nesting level reached (1 = no nested message; a map entry counts as a level).
 */
export function validateMessage(rootType: number, bytes: Uint8Array, limits: ReadLimits): number {
  checkLimits(limits);
  const e = begin();
  const len = bytes.length;
  if (len > limits.maxMessageBytes) throw failure(E_MESSAGE_TOO_LARGE, rootType, 0, limits, "decode", len);
  place(regions, len, limits.maxDepth, false);
  const { stack, input } = regions;
  // 16 bytes past the input keep the core's one-load UTF-8 check usable up to the last string.
  ensureMemory(input + len + 16);
  views.u8.set(bytes, input);
  const status = e.validate(tableAddress(), tableLength(), rootType, input, len, limits.maxMessageBytes, limits.maxDepth, stack);
  if (status !== OK) throw failure(status, rootType, stack, limits, "decode", len);
  return views.u32[ctrlIndex(CTRL_COUNT_WORD)]!;
}

/**
 * Checks every frame of a framing-v1 buffer exactly as walkFrames does, without a tape, a
 * segment at a time. Returns the number of frames.
 */
export function validateFrames(rootType: number, bytes: Uint8Array, limits: ReadLimits): number {
  checkLimits(limits);
  const e = begin();
  const len = bytes.length;
  place(regions, len, limits.maxDepth, true);
  const { stack, input } = regions;
  let from = 0;
  let need = 0;
  let frames = 0;
  for (;;) {
    const to = copySegment(bytes, from, need, input);
    const status = e.validateFrames(
      tableAddress(), tableLength(), rootType, input - from, from, to, len - to, limits.maxMessageBytes, limits.maxDepth, stack,
    );
    if (status < 0) throw failure(status, rootType, stack, limits, "decode", len);
    const u32 = views.u32;
    frames += u32[ctrlIndex(CTRL_COUNT_WORD)]!;
    if (status === OK) return frames;
    from = u32[ctrlIndex(CTRL_OFFSET_WORD)]!;
    need = u32[ctrlIndex(CTRL_NEED_WORD)]!;
  }
}

/** Frame bodies found by scanFrames: offsets and lengths from the start of the buffer. */
export interface FrameList {
  readonly count: number;
  readonly offsets: Uint32Array;
  readonly lengths: Uint32Array;
}

/**
 * Splits a framing-v1 buffer into frame bodies, a segment at a time (see copySegment), in one
 * core call per segment or per 65,536 frames. `rootName` names the type in error messages.
 */
export function scanFrames(bytes: Uint8Array, maxMessageBytes: number, rootName: string): FrameList {
  checkU32("maxMessageBytes", maxMessageBytes, 1);
  const e = begin();
  const len = bytes.length;
  const out = scratchAddress();
  const cap = Math.max(1, Math.min(len, 65536));
  const input = align16(out + cap * 8);
  let offsets = new Uint32Array(Math.min(cap, 1024));
  let lengths = new Uint32Array(offsets.length);
  let count = 0;
  let from = 0;
  let need = 0;
  for (;;) {
    const to = copySegment(bytes, from, need, input);
    const status = e.scanFrames(input - from, from, to, len - to, maxMessageBytes, out, cap);
    const n = views.u32[ctrlIndex(CTRL_COUNT_WORD)]!;
    if (status < 0) {
      const offset = views.u32[ctrlIndex(CTRL_OFFSET_WORD)]!;
      throw statusError(status, {
        verb: "decode", rootName, offset, messagePath: rootName, typeName: rootName, fieldNumber: 0,
        wireType: 0, maxMessageBytes, size: status === E_FRAME_TOO_LARGE ? announced() : len,
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
    if (status === OK) break;
    // S_MORE (the pairs region is full) or S_NEED_INPUT: go on from the frame it stopped at.
    from = u32[ctrlIndex(CTRL_OFFSET_WORD)]!;
    need = status === S_NEED_INPUT ? u32[ctrlIndex(CTRL_NEED_WORD)]! : 0;
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
  const e = begin();
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
  if (status !== OK) throw failure(status, typeOffset, 0, undefined, "encode", len);
}

/** Bytes of a packed payload of `count` elements in the tape's PACKED element format. */
export function packedSize(kind: number, elements: ArrayBufferView, count: number): number {
  const e = begin();
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
  const e = begin();
  const src = scratchAddress();
  const dst = align16(src + elements.byteLength);
  ensureMemory(dst + count * 10 + 16);
  views.u8.set(new Uint8Array(elements.buffer, elements.byteOffset, elements.byteLength), src);
  const n = e.writePacked(kind, src, count, dst) >>> 0;
  out.set(views.u8.subarray(dst, dst + n), at);
  return n;
}

/** The size a frame refused with E_FRAME_TOO_LARGE announced (the core leaves it in CTRL_VALUE). */
function announced(): number | bigint {
  // Exact in the message: a double rounds sizes above 2^53.
  return exactCount(views.u64[ctrlIndex(CTRL_VALUE_WORD) >>> 1]!);
}

function failure(
  status: number,
  rootType: number,
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
  const offset = u32[ctrlIndex(CTRL_OFFSET_WORD)]!;
  const fieldNumber = u32[ctrlIndex(CTRL_FIELD_WORD)]!;
  const wireType = u32[ctrlIndex(CTRL_WIRE_WORD)]!;
  const levels = u32[ctrlIndex(CTRL_DEPTH_WORD)]!;
  const typeOffset = u32[ctrlIndex(CTRL_TYPE_WORD)]!;
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
  let size: number | bigint | undefined;
  if (status === E_FRAME_TOO_LARGE) size = announced();
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
