// Linear memory: one set of cached views, rebuilt only after our own memory.grow (the core
// never grows memory itself, so views cannot go stale behind our back). Creating a view per
// call costs ~20 ns (docs/design.md §13), so every reader goes through `views`.
//
// Regions, from the core's heap base up:
//   [table]    the layout table store (src/wasm/table.ts), uploaded incrementally
//   [scratch]  per call: walker stack, the tape window (entries up, packed arrays down), its
//              text area, and last the input copy (of frames: one segment at a time)
// Scratch is reused by every call: a tape must be read before the next core call.
//
// Memory never shrinks, so it is given back by replacing the instance (releaseMemory, or the
// rule in `enter`): a new instance of the cached module starts small, and `ready` uploads the
// whole table into it again.
import { CodecError } from "../errors.js";
import { core, coreIfStarted, restartCore, type CoreExports } from "./instance.js";
import { tableDirty, tableLength, tableWords, takeDirty } from "./table.js";

export interface MemoryViews {
  buffer: ArrayBuffer;
  u8: Uint8Array;
  i32: Int32Array;
  u32: Uint32Array;
  f32: Float32Array;
  f64: Float64Array;
  i64: BigInt64Array;
  u64: BigUint64Array;
  /** For 64-bit reads where DataView is the engine's faster way (src/int64-access.ts). */
  dv: DataView;
}

const PAGE = 65536;
/** wasm32 addresses end at 4 GiB (65,536 pages); V8 allows all of them on 64-bit hosts. */
const MAX_PAGES = 65536;

/** The views over the current instance's memory; replaced (fields reassigned) after growth. */
export const views: MemoryViews = {} as MemoryViews;

// Not named `exports`: in the CJS build a module-level `var exports` starts as CommonJS's exports object.
let live: CoreExports | undefined;
let ctrlWord = 0;
let tableBase = 0;
let tableCap = 0;
let growCount = 0;
// The highest address the current call asked for, and how many calls in a row needed a small
// part of the memory (see enter).
let callNeed = 0;
let quietCalls = 0;
// The next upload is of the whole table (a new instance starts without it).
let fresh = true;

// The byte length of `views.buffer`, kept beside it: reading byteLength of a WebAssembly
// memory's buffer on every call cost ~90 instructions per small validate (valgrind, Node 20).
// It is set only once every view is over the current buffer, and 0 while they may not be: a
// stack overflow (or any throw) between a grow and the end of rebuildViews left views over the
// detached buffer while the recorded size said they fit, and every later call in the process
// failed with a TypeError (the next call that needs memory rebuilds them now).
let memoryBytes = 0;

function rebuildViews(memory: WebAssembly.Memory): void {
  memoryBytes = 0;
  const b = memory.buffer;
  views.buffer = b;
  views.u8 = new Uint8Array(b);
  views.i32 = new Int32Array(b);
  views.u32 = new Uint32Array(b);
  views.f32 = new Float32Array(b);
  views.f64 = new Float64Array(b);
  views.i64 = new BigInt64Array(b);
  views.u64 = new BigUint64Array(b);
  views.dv = new DataView(b);
  memoryBytes = b.byteLength;
}

/** Makes [0, end) addressable, growing memory (and rebuilding the views) when needed. */
export function ensureMemory(end: number): void {
  const e = live!;
  if (end > callNeed) callNeed = end;
  const have = memoryBytes;
  if (end <= have) return;
  // Below here the views are stale until rebuildViews finishes.
  memoryBytes = 0;
  const actual = e.memory.buffer.byteLength;
  if (end <= actual) {
    // Grown by a call that was interrupted before its views were rebuilt.
    rebuildViews(e.memory);
    return;
  }
  const havePages = actual / PAGE;
  const needPages = Math.ceil(end / PAGE);
  if (needPages > MAX_PAGES) throw memoryError(end);
  if (end >= RELEASE_MIN_BYTES) regrown();
  // Grow by at least half again what we have, so a stream of slightly larger inputs does
  // not grow (and rebuild every view) on each call.
  const target = Math.min(MAX_PAGES, Math.max(needPages, Math.ceil(havePages * 1.5)));
  try {
    e.memory.grow(target - havePages);
  } catch {
    try {
      e.memory.grow(needPages - havePages);
    } catch (cause) {
      throw memoryError(end, cause);
    }
  }
  growCount++;
  rebuildViews(e.memory);
}

function memoryError(end: number, cause?: unknown): CodecError {
  return new CodecError(
    "MEMORY_EXHAUSTED",
    `cannot grow WebAssembly memory to ${end} bytes; split the input into smaller messages or frames`,
    cause === undefined ? {} : { cause },
  );
}

/** The instance with its table uploaded: call before every core call that reads the table. */
export function ready(): CoreExports {
  const e = core();
  if (e !== live) {
    ctrlWord = (e.ctrl() >>> 0) >>> 2;
    tableBase = e.heapBase() >>> 0;
    tableCap = 64 * 1024;
    live = e;
    try {
      rebuildViews(e.memory);
      ensureMemory(tableBase + tableCap);
    } catch (err) {
      // Set up again by the next call, never used half set up (its table not uploaded).
      live = undefined;
      throw err;
    }
    fresh = true;
  }
  // Views left over the detached buffer by an interrupted growth (see memoryBytes).
  if (memoryBytes === 0) rebuildViews(e.memory);
  const need = tableLength() * 4;
  if (need > tableCap) {
    let cap = tableCap;
    while (cap < need) cap *= 2;
    // tableCap grows only once the memory holds it: a failed growth leaves the next call to retry.
    ensureMemory(tableBase + cap);
    tableCap = cap;
  }
  if (fresh || tableDirty()) {
    const [lo, hi] = takeDirty(fresh);
    fresh = false;
    if (hi > lo) views.i32.set(tableWords().subarray(lo, hi), (tableBase >>> 2) + lo);
  }
  return e;
}

// The automatic release: when memory holds at least RELEASE_MIN_BYTES and RELEASE_AFTER_CALLS
// calls in a row each needed at most 1/RELEASE_FACTOR of it, the next call starts on a fresh
// instance. One large input then costs its memory only until 16 ordinary calls have passed
// (no timer: a process that stops calling keeps the memory; releaseMemory() gives it back).
// Re-instantiating the cached module and uploading the table took 0.2-0.3 ms (Node 20), once.
const RELEASE_MIN_BYTES = 16 * 1024 * 1024;
const RELEASE_FACTOR = 4;
const RELEASE_AFTER_CALLS = 16;

/**
 * True while a decoder reads a tape (from its walk until it ends): the tape, text area and input
 * copy are in the core's memory, which any other core call reuses. Code that a read runs (a
 * setter on Object.prototype or Array.prototype, a patched Map.prototype.set) and that called
 * protokeel again overwrote the tape under the read: wrong values, internal errors, the engine's
 * TypeErrors (and releaseMemory() left the read's views on the old memory).
 */
let tapeHeld = false;

/** A decoder starts reading the tape its walk returned (see tapeHeld). */
export function holdTape(): void {
  tapeHeld = true;
}

/** The decoder is done with its tape (or failed reading it). */
export function endTape(): void {
  tapeHeld = false;
}

/** The error of a decode or validate started while another decode reads its tape. */
export function reentrantDecode(): CodecError {
  return new CodecError(
    "REENTRANT_DECODE",
    "cannot decode or validate here: another decode on this thread is reading its input, and code it ran (a setter or patched method on Object.prototype, Array.prototype or Map.prototype) called protokeel; call it after that decode returns",
  );
}

/** Throws REENTRANT_DECODE while a decoder reads a tape (every core call checks first). */
export function checkTapeFree(): void {
  if (tapeHeld) throw reentrantDecode();
}

/** True while a decoder reads a tape (a core call now would throw REENTRANT_DECODE). */
export function tapeBusy(): boolean {
  return tapeHeld;
}

/** The instance for one call of src/wasm/ops.ts: applies the release rule, then `ready`. */
export function enter(): CoreExports {
  countCall();
  return ready();
}

/**
 * A decode that the TypeScript reader makes without calling the core (a small message), after
 * the core has started: it counts toward the release rule as a call that needed no memory.
 * Uncounted, a process whose traffic after one large input was all small messages kept the
 * memory the large one grew for good.
 */
export function smallDecode(): void {
  countCall();
  core();
}

function countCall(): void {
  if (live !== undefined) {
    sinceRelease++;
    const have = memoryBytes;
    if (have < RELEASE_MIN_BYTES || callNeed * RELEASE_FACTOR > have) quietCalls = 0;
    else if (++quietCalls >= releaseAfter && release()) sinceRelease = 0;
    // (A release that cannot start a fresh instance keeps this one; the count starts over.)
  }
  callNeed = 0;
}

// Backoff of the automatic release: traffic of one large input every N small ones (N >= 16)
// released and grew the memory back every round, ~5x the cost of a round without releases
// (18 MB inputs: 3.5 -> 18-23 ms). Memory grown back past RELEASE_MIN_BYTES within
// REGROW_WINDOW x releaseAfter calls of a release doubles the calls a release waits for, up to
// RELEASE_AFTER_MAX; a release that stays released that long halves it again.
const RELEASE_AFTER_MAX = 4096;
const REGROW_WINDOW = 4;
let releaseAfter = RELEASE_AFTER_CALLS;
/** Calls since the last automatic release (Infinity before one). */
let sinceRelease = Infinity;

/** Memory grows past RELEASE_MIN_BYTES: adapts releaseAfter to how soon it was needed again. */
function regrown(): void {
  if (sinceRelease < REGROW_WINDOW * releaseAfter) releaseAfter = Math.min(RELEASE_AFTER_MAX, releaseAfter * 2);
  else if (sinceRelease !== Infinity) releaseAfter = Math.max(RELEASE_AFTER_CALLS, releaseAfter >> 1);
  sinceRelease = Infinity;
}

/**
 * Gives the memory that protokeel's WebAssembly core has grown to back: the core is replaced by a
 * fresh instance of the same compiled module, whose memory starts at its initial size (128 KiB
 * plus the layout tables). WebAssembly memory cannot shrink, so after decoding a large
 * input the core keeps the memory it needed until this is called, or until the core does it on
 * its own: when it holds at least 16 MiB and 16 calls in a row each needed at most a quarter of it,
 * the next call starts on a fresh instance.
 * Returns false, with the current instance kept in use, when the engine cannot allocate a fresh
 * one (the old instance's memory is still held while the new one is made: in a process short of
 * address space that fails; a release that failed left every later call failing with it).
 * Values decoded earlier stay valid (they never refer to the core's memory). Called by code that
 * a decode runs while it reads its input (a setter on a prototype), it releases nothing and
 * returns false.
 */
export function releaseMemory(): boolean {
  // The application manages the memory: the automatic release starts over (no backoff).
  sinceRelease = Infinity;
  releaseAfter = RELEASE_AFTER_CALLS;
  return release();
}

function release(): boolean {
  if (coreIfStarted() === undefined) return true;
  // Called by code a decode ran: the read goes on in the current instance.
  if (tapeHeld) return false;
  quietCalls = 0;
  callNeed = 0;
  let released = true;
  try {
    restartCore();
  } catch (e) {
    if (!(e instanceof CodecError && e.code === "MEMORY_EXHAUSTED")) throw e;
    released = false;
  }
  ready();
  return released;
}

/**
 * Bytes of linear memory the WebAssembly core holds now (0 before its first use): what decoding
 * and encoding cost beyond the JavaScript heap. See releaseMemory.
 */
export function wasmMemoryBytes(): number {
  return coreIfStarted()?.memory.buffer.byteLength ?? 0;
}

/** Address of the layout table. */
export function tableAddress(): number {
  return tableBase;
}

/** First address of the per-call scratch region (16-aligned). */
export function scratchAddress(): number {
  return align16(tableBase + tableCap);
}

/** Word index of control word `k` (see assembly/ctrl.ts). */
export function ctrlIndex(k: number): number {
  return ctrlWord + k;
}

/** How many times memory grew (tests check that a refused input does not grow it). */
export function memoryGrowCount(): number {
  return growCount;
}

// Addresses reach 4 GiB, beyond 32-bit signed bitwise operators: those need plain arithmetic.
export const align16 = (n: number): number => (n < 0x7fff0000 ? (n + 15) & ~15 : Math.ceil(n / 16) * 16);
